// SPDX-License-Identifier: MIT
/*
 * The metrics page (coordinator/service/metrics.c): a crafted snapshot renders to exactly the
 * expected lines -- label values escaped (quote, backslash, newline), a drive without a
 * serial has no serial label, an unknown temperature and an unmeasured drive's figures
 * are left out, a campaign without verdicts has no failing line; the verdicts of runs
 * ended, a line each with the drive's labels and campaign, run, rule and verdict (an
 * agent's label of one of those names after "label_"); the addresses --metrics
 * takes and refuses; the HTTP server on 127.0.0.1 and a free port answers GET /metrics
 * with 200 and the last page published, 404 for another path, 405 for POST, as a plain
 * socket client sees it; a port in use is refused, naming the address and why; what a
 * run says of its agents overrides the registry.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "metrics.h"

static const struct rb_live_drive DRIVES[] = {
	{ .agent = "rack1-a",
	  .host = "host\"one\"",
	  .path = "/dev/nvme0n1",
	  .serial = "S3\\X",
	  .model = "Fast\nDrive",
	  .firmware = "1.0",
	  .alias = "boot-a",
	  .labels = "rack=r12,slot=3,path=x,cage-id=7",
	  .measured = true,
	  .running = true,
	  .interval = 7,
	  .iops = 2000,
	  .bytes_per_s = 8192000,
	  .lat_mean_s = 0.00025,
	  .lat_p99_s = 0.0015,
	  .temp_c = 41.5,
	  .io_errors = 3,
	  .failing = 1 },
	{ .agent = "rack1-a",
	  .host = "h2",
	  .path = "a1/disk0.dat",
	  .serial = "",
	  .model = "file",
	  .firmware = "",
	  .measured = true,
	  .running = true,
	  .interval = 7,
	  .iops = 1234.5,
	  .bytes_per_s = 5056512,
	  .lat_mean_s = 0.0001,
	  .lat_p99_s = 0.0002,
	  .temp_c = NAN,
	  .io_errors = 0,
	  .failing = 0 },
	/* between points: no figures, only what the run knows of it */
	{ .agent = "b",
	  .host = "h3",
	  .path = "vol0",
	  .serial = "A+B",
	  .model = NULL,
	  .firmware = NULL,
	  .measured = false,
	  .temp_c = NAN,
	  .io_errors = 0,
	  .failing = -1 },
};

static const struct rb_metrics_agent AGENTS[] = {
	{ .name = "rack1-a", .host = "h\\1", .connected = true, .lost = false },
	{ .name = "b", .host = "", .connected = false, .lost = true },
};

#define DL(host, path, rest) "{agent=\"rack1-a\",host=\"" host "\",path=\"" path "\"" rest "}"
/* its alias, then its agent's labels: a name of the drive's own after "label_", one
 * Prometheus does not take made one */
#define D0_REST                                                                                    \
	",serial=\"S3\\\\X\",model=\"Fast\\nDrive\",firmware=\"1.0\",alias=\"boot-a\","              \
	"rack=\"r12\",slot=\"3\",label_path=\"x\",cage_id=\"7\""
#define D0 DL("host\\\"one\\\"", "/dev/nvme0n1", D0_REST)
/* a verdict's labels after the drive's */
#define VK(rule, verdict)                                                                          \
	",campaign=\"night \\\"burn\\\"\",run=\"20251231T000000Z-7\",rule=\"" rule "\",verdict=\"" verdict "\""
#define D1 DL("h2", "a1/disk0.dat", ",model=\"file\"")
#define D2 "{agent=\"b\",host=\"h3\",path=\"vol0\",serial=\"A+B\"}"

static const char EXPECTED[] =
	"# HELP rackbench_run_active 1 while a run goes on, else 0\n"
	"# TYPE rackbench_run_active gauge\n"
	"rackbench_run_active 1\n"
	"# HELP rackbench_run_info the run going on: its id, campaign and phase (waiting, "
	"pre-flight, point, idle, ...); always 1\n"
	"# TYPE rackbench_run_info gauge\n"
	"rackbench_run_info{run=\"20260101T000000Z-1\",campaign=\"night \\\"burn\\\"\","
	"phase=\"point\"} 1\n"
	"# HELP rackbench_run_point the index of the point running, from 0 (as rackbench status "
	"says)\n"
	"# TYPE rackbench_run_point gauge\n"
	"rackbench_run_point 2\n"
	"# HELP rackbench_run_points the points of the run going on\n"
	"# TYPE rackbench_run_points gauge\n"
	"rackbench_run_points 5\n"
	"# HELP rackbench_runs_queued runs waiting their turn behind the one going on\n"
	"# TYPE rackbench_runs_queued gauge\n"
	"rackbench_runs_queued 3\n"
	"# HELP rackbench_samples_total sample rows (a drive's interval in one direction) taken "
	"since the service started\n"
	"# TYPE rackbench_samples_total counter\n"
	"rackbench_samples_total 123456789012\n"
	"# HELP rackbench_agent_connected 1 while the agent is heard from (within 5 s; during a "
	"run, as the run sees it)\n"
	"# TYPE rackbench_agent_connected gauge\n"
	"rackbench_agent_connected{agent=\"rack1-a\",host=\"h\\\\1\"} 1\n"
	"rackbench_agent_connected{agent=\"b\"} 0\n"
	"# HELP rackbench_agent_lost 1 when the agent went silent: lost or dropped during a "
	"point, or not heard for 5 s\n"
	"# TYPE rackbench_agent_lost gauge\n"
	"rackbench_agent_lost{agent=\"rack1-a\",host=\"h\\\\1\"} 0\n"
	"rackbench_agent_lost{agent=\"b\"} 1\n"
	"# HELP rackbench_drive_ios_per_second IOs completed in the drive's last sample "
	"interval over that interval's own length (a point's last may be short); 0 once the "
	"drive's part of the point ended or it went idle\n"
	"# TYPE rackbench_drive_ios_per_second gauge\n"
	"rackbench_drive_ios_per_second" D0 " 2000\n"
	"rackbench_drive_ios_per_second" D1 " 1234.5\n"
	"# HELP rackbench_drive_bytes_per_second bytes moved in the drive's last sample "
	"interval over its own length; 0 once the drive's part of the point ended or it went "
	"idle\n"
	"# TYPE rackbench_drive_bytes_per_second gauge\n"
	"rackbench_drive_bytes_per_second" D0 " 8192000\n"
	"rackbench_drive_bytes_per_second" D1 " 5056512\n"
	"# HELP rackbench_drive_latency_mean_seconds mean IO latency in the drive's last "
	"sample interval\n"
	"# TYPE rackbench_drive_latency_mean_seconds gauge\n"
	"rackbench_drive_latency_mean_seconds" D0 " 0.00025\n"
	"rackbench_drive_latency_mean_seconds" D1 " 0.0001\n"
	"# HELP rackbench_drive_latency_p99_seconds 99th percentile IO latency in the drive's "
	"last sample interval (the worse of reads' and writes')\n"
	"# TYPE rackbench_drive_latency_p99_seconds gauge\n"
	"rackbench_drive_latency_p99_seconds" D0 " 0.0015\n"
	"rackbench_drive_latency_p99_seconds" D1 " 0.0002\n"
	"# HELP rackbench_drive_sample_interval the index of the interval the drive's figures "
	"are of (the samples table's interval column)\n"
	"# TYPE rackbench_drive_sample_interval gauge\n"
	"rackbench_drive_sample_interval" D0 " 7\n"
	"rackbench_drive_sample_interval" D1 " 7\n"
	"# HELP rackbench_drive_running 1 while the drive does IO in the point going on, 0 "
	"once its part of the point ended or it sent nothing for two intervals\n"
	"# TYPE rackbench_drive_running gauge\n"
	"rackbench_drive_running" D0 " 1\n"
	"rackbench_drive_running" D1 " 1\n"
	"# HELP rackbench_drive_temperature_celsius the drive's composite temperature, its last "
	"reading in the run (NVMe)\n"
	"# TYPE rackbench_drive_temperature_celsius gauge\n"
	"rackbench_drive_temperature_celsius" D0 " 41.5\n"
	"# HELP rackbench_drive_io_errors_total failed IOs and verification mismatches of the "
	"drive in the run going on\n"
	"# TYPE rackbench_drive_io_errors_total counter\n"
	"rackbench_drive_io_errors_total" D0 " 3\n"
	"rackbench_drive_io_errors_total" D1 " 0\n"
	"rackbench_drive_io_errors_total" D2 " 0\n"
	"# HELP rackbench_drive_failing the drive's verdict so far: 1 failing (IO errors, "
	"mismatches, temperature, critical warnings), 0 not so far; only when the campaign "
	"asks for verdicts\n"
	"# TYPE rackbench_drive_failing gauge\n"
	"rackbench_drive_failing" D0 " 1\n"
	"rackbench_drive_failing" D1 " 0\n"
	"# HELP rackbench_drive_verdict a verdict of the drive in the last run of its campaign "
	"that ended on this service, always 1: rule drive is the drive's own (PASS, FAIL, "
	"INCOMPLETE), the others each rule that tripped (the results file's verdicts table)\n"
	"# TYPE rackbench_drive_verdict gauge\n"
	"rackbench_drive_verdict" DL("host\\\"one\\\"", "/dev/nvme0n1", D0_REST VK("drive", "FAIL")) " 1\n"
	"rackbench_drive_verdict" DL("host\\\"one\\\"", "/dev/nvme0n1", D0_REST VK("max_temp_c", "FAIL")) " 1\n"
	"rackbench_drive_verdict" DL("h2", "a1/disk0.dat", ",model=\"file\"" VK("drive", "PASS")) " 1\n"
	/* an agent's label named as a verdict's own goes after "label_" */
	"rackbench_drive_verdict{agent=\"c\",host=\"h4\",path=\"/dev/sdb\",label_verdict=\"odd\""
	VK("drive", "INCOMPLETE") "} 1\n"
	"# HELP rackbench_fleet_verdict a verdict of the fleet (rackbench judge, in the results "
	"database) on a drive of the last run of its campaign on this service (rule fail_slow or "
	"firmware: FAIL, QUARANTINE, NOTE), or on its rack or host (rule cluster_hold, verdict "
	"HOLD, domain rack=R or host=H), always 1\n"
	"# TYPE rackbench_fleet_verdict gauge\n"
	"rackbench_fleet_verdict" DL("host\\\"one\\\"", "/dev/nvme0n1", D0_REST VK("fail_slow", "QUARANTINE")) " 1\n"
	/* a domain's hold: no drive, its domain escaped as any value */
	"rackbench_fleet_verdict{campaign=\"night \\\"burn\\\"\",rule=\"cluster_hold\",verdict=\"HOLD\","
	"domain=\"rack=r\\\"12\"} 1\n";

/* DRIVES[0]'s and DRIVES[1]'s identities */
#define V0                                                                                         \
	{ .agent = "rack1-a", .host = "host\"one\"", .path = "/dev/nvme0n1", .serial = "S3\\X",     \
	  .model = "Fast\nDrive", .firmware = "1.0", .alias = "boot-a",                           \
	  .labels = "rack=r12,slot=3,path=x,cage-id=7" }
#define V1 { .agent = "rack1-a", .host = "h2", .path = "a1/disk0.dat", .serial = "", .model = "file" }
#define VC .campaign = "night \"burn\"", .run = "20251231T000000Z-7"

static const struct rb_metrics_verdict VERDICTS[] = {
	{ .drive = V0, VC, .rule = "drive", .verdict = "FAIL" },
	{ .drive = V0, VC, .rule = "max_temp_c", .verdict = "FAIL" },
	{ .drive = V1, VC, .rule = "drive", .verdict = "PASS" },
	{ .drive = { .agent = "c", .host = "h4", .path = "/dev/sdb", .labels = "verdict=odd" },
	  VC,
	  .rule = "drive",
	  .verdict = "INCOMPLETE" },
};

/* the fleet's: a drive's, a domain's hold */
static const struct rb_metrics_verdict FLEET[] = {
	{ .drive = V0, VC, .rule = "fail_slow", .verdict = "QUARANTINE" },
	{ .campaign = "night \"burn\"", .rule = "cluster_hold", .verdict = "HOLD",
	  .domain = "rack=r\"12" },
};

static const struct rb_metrics_snap SNAP = {
	.running = true,
	.run = "20260101T000000Z-1",
	.campaign = "night \"burn\"",
	.phase = "point",
	.point = 2,
	.npoints = 5,
	.queued = 3,
	.samples = 123456789012ULL,
	.agents = AGENTS,
	.nagents = 2,
	.drives = DRIVES,
	.ndrives = 3,
	.verdicts = VERDICTS,
	.nverdicts = 4,
	.fleet = FLEET,
	.nfleet = 2,
};

/* The first line where two texts differ, printed, for a readable failure. */
static void same_text(const char *got, const char *want)
{
	const char *g = got, *w = want;

	while (*g && *g == *w)
		g++, w++;
	if (*g || *w) {
		while (g > got && g[-1] != '\n')
			g--, w--;
		print_error("differs at:\n got: %.*s\nwant: %.*s\n", (int)strcspn(g, "\n"), g,
			    (int)strcspn(w, "\n"), w);
	}
	assert_string_equal(got, want);
}

static void test_metrics_render_exact_lines(void **state)
{
	char *text = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(rb_metrics_render(&SNAP, &text, &len), 0);
	assert_int_equal(len, strlen(text));
	same_text(text, EXPECTED);
	free(text);
}

static void test_metrics_render_idle_service(void **state)
{
	struct rb_metrics_snap s = { .queued = 0 };
	char *text = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(rb_metrics_render(&s, &text, &len), 0);
	/* every family is named, with no run, agent or drive lines */
	assert_non_null(strstr(text, "rackbench_run_active 0\n"));
	assert_non_null(strstr(text, "# TYPE rackbench_run_info gauge\n# HELP"));
	assert_null(strstr(text, "\nrackbench_run_point "));
	assert_null(strstr(text, "rackbench_agent_connected{"));
	assert_non_null(strstr(text, "# TYPE rackbench_drive_failing gauge\n"));
	assert_null(strstr(text, "rackbench_drive_io_errors_total{"));
	free(text);
}

static void test_metrics_addr_checked(void **state)
{
	static const struct {
		const char *spec, *why; /* why: NULL for a good one */
	} cases[] = {
		{ "127.0.0.1:9470", NULL },
		{ ":9470", NULL },
		{ "[::1]:9470", NULL },
		{ "localhost:0", NULL },
		{ "127.0.0.1:65535", NULL },
		{ "127.0.0.1", "no port" },
		{ "127.0.0.1:", "no port after the colon" },
		{ "127.0.0.1:65536", "out of range" },
		{ "127.0.0.1:-1", "not a number" },
		{ "127.0.0.1:94x", "not a number" },
		{ "::1:9470", "in brackets" },
		{ "[::1:9470", "in brackets" },
		{ "no-such-host.invalid:9470", "cannot resolve" },
	};
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = rb_metrics_addr_check(cases[i].spec, why, sizeof(why));

		if (!cases[i].why) {
			if (r)
				print_error("'%s' refused: %s\n", cases[i].spec, why);
			assert_int_equal(r, 0);
			continue;
		}
		assert_int_equal(r, -EINVAL);
		if (!strstr(why, cases[i].why))
			print_error("'%s': %s\n", cases[i].spec, why);
		assert_non_null(strstr(why, cases[i].why));
	}
}

/* A TCP connection to 127.0.0.1:port from the loopback address src (127.0.0.N). */
static int connect_from(unsigned port, uint32_t src)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct sockaddr_in me = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	me.sin_addr.s_addr = htonl(src);
	assert_int_equal(bind(fd, (struct sockaddr *)&me, sizeof(me)), 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* One HTTP request to 127.0.0.1:port from src, the whole answer (the server closes or
 * says its length; this reads until the connection closes or 5 s pass). */
static char *http_from(unsigned port, uint32_t src, const char *request)
{
	struct timeval tv = { .tv_sec = 5 };
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	int fd = connect_from(port, src);
	ssize_t n;

	assert_non_null(buf);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(write(fd, request, strlen(request)), (ssize_t)strlen(request));
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

static char *http(unsigned port, const char *request)
{
	return http_from(port, INADDR_LOOPBACK, request);
}

static unsigned port_of(const struct rb_metrics *m)
{
	const char *colon = strrchr(rb_metrics_address(m), ':');

	assert_non_null(colon);
	return (unsigned)atoi(colon + 1);
}

static void test_metrics_http_answers(void **state)
{
	char err[512], *text, *got;
	struct rb_metrics *m = rb_metrics_start("127.0.0.1:0", err, sizeof(err));
	unsigned port;
	size_t len;

	(void)state;
	if (!m)
		print_error("%s\n", err);
	assert_non_null(m);
	assert_string_not_equal(rb_metrics_address(m), "127.0.0.1:0");
	assert_int_equal(strncmp(rb_metrics_address(m), "127.0.0.1:", 10), 0);
	port = port_of(m);
	/* before a page: an empty one */
	got = http(port, "GET /metrics HTTP/1.0\r\n\r\n");
	assert_int_equal(strncmp(got, "HTTP/1.0 200", 12) && strncmp(got, "HTTP/1.1 200", 12), 0);
	free(got);

	assert_int_equal(rb_metrics_publish(m, &SNAP), 0);
	got = http(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	assert_int_equal(strncmp(got, "HTTP/1.1 200 OK\r\n", 17), 0);
	assert_non_null(strstr(got, "Content-Type: text/plain; version=0.0.4"));
	assert_non_null(strstr(got, "\r\n\r\n"));
	assert_string_equal(strstr(got, "\r\n\r\n") + 4, EXPECTED);
	free(got);

	got = http(port, "GET /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	assert_int_equal(strncmp(got, "HTTP/1.1 404", 12), 0);
	free(got);
	got = http(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
			 "Connection: close\r\n\r\n");
	assert_int_equal(strncmp(got, "HTTP/1.1 405", 12), 0);
	free(got);

	/* a client holding many idle connections (129, as a probe did) holds no other
	 * scraper up: its extra connections are closed at once, and a scrape from another
	 * address is answered (it waited 17 s with every slot taken) */
	int idle[129];

	for (size_t i = 0; i < 129; i++)
		idle[i] = connect_from(port, INADDR_LOOPBACK);
	got = http_from(port, INADDR_LOOPBACK + 1, "GET /metrics HTTP/1.0\r\n\r\n");
	assert_int_equal(strncmp(got, "HTTP/1.0 200", 12) && strncmp(got, "HTTP/1.1 200", 12), 0);
	free(got);
	size_t closed = 0;

	for (size_t i = 0; i < 129; i++) {
		struct timeval tv = { .tv_sec = 5 };
		char c;

		setsockopt(idle[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		/* past the per-client cap the server closes: end of file at once */
		if (i >= RB_METRICS_PER_CLIENT && read(idle[i], &c, 1) == 0)
			closed++;
		close(idle[i]);
	}
	assert_int_equal(closed, 129 - RB_METRICS_PER_CLIENT);

	/* a second server on the same port: refused, saying where and why */
	char spec[64];

	snprintf(spec, sizeof(spec), "127.0.0.1:%u", port);
	assert_null(rb_metrics_start(spec, err, sizeof(err)));
	assert_non_null(strstr(err, spec));
	assert_non_null(strstr(err, strerror(EADDRINUSE)));

	/* a later page replaces the first */
	assert_int_equal(rb_metrics_render(&(struct rb_metrics_snap){ .queued = 9 }, &text, &len),
			 0);
	assert_int_equal(rb_metrics_publish(m, &(struct rb_metrics_snap){ .queued = 9 }), 0);
	/* the idle connections closed above free this address's slots once the server has
	 * seen them close: until then (a loaded machine, a moment) it closes a new one at
	 * once, as it did at the cap; asked again until it answers (5 s at most) */
	for (int tries = 0;; tries++) {
		got = http(port, "GET /metrics HTTP/1.0\r\n\r\n");
		if (strstr(got, "\r\n\r\n") || tries == 100)
			break;
		free(got);
		usleep(50000);
	}
	assert_non_null(strstr(got, "\r\n\r\n"));
	assert_string_equal(strstr(got, "\r\n\r\n") + 4, text);
	assert_non_null(strstr(got, "rackbench_runs_queued 9\n"));
	free(got);
	free(text);
	assert_null(rb_metrics_free(m));
	assert_null(rb_metrics_free(NULL));
}

/* The run's word on its agents overrides the registry's; one it had stays connected. */
static void test_metrics_run_view_of_agents(void **state)
{
	char err[512], *got;
	struct rb_metrics *m = rb_metrics_start("127.0.0.1:0", err, sizeof(err));
	struct rb_metrics_agent ag[3] = {
		{ .name = "x", .host = "hx", .connected = false }, /* the run has it */
		{ .name = "y", .host = "hy", .connected = true },  /* the run lost it */
		{ .name = "z", .host = "hz", .connected = true },  /* in no run */
	};
	const struct rb_live_agent la[2] = {
		{ .name = "x", .host = "hx", .connected = true },
		{ .name = "y", .host = "hy", .lost = true },
	};
	const struct rb_coord_live l = { .agents = la, .nagents = 2 };
	struct rb_metrics_snap s = {
		.running = true, .run = "r", .campaign = "c", .phase = "point"
	};

	(void)state;
	assert_non_null(m);
	assert_int_equal(rb_metrics_update(m, &s, ag, 3, &l), 0);
	got = http(port_of(m), "GET /metrics HTTP/1.0\r\n\r\n");
	assert_non_null(strstr(got, "rackbench_agent_connected{agent=\"x\",host=\"hx\"} 1\n"));
	assert_non_null(strstr(got, "rackbench_agent_connected{agent=\"y\",host=\"hy\"} 0\n"));
	assert_non_null(strstr(got, "rackbench_agent_lost{agent=\"y\",host=\"hy\"} 1\n"));
	assert_non_null(strstr(got, "rackbench_agent_connected{agent=\"z\",host=\"hz\"} 1\n"));
	free(got);
	/* the run ended just now: x, not heard by the registry yet, is still connected */
	ag[0].connected = false;
	s.running = false;
	assert_int_equal(rb_metrics_update(m, &s, ag, 3, NULL), 0);
	got = http(port_of(m), "GET /metrics HTTP/1.0\r\n\r\n");
	assert_non_null(strstr(got, "rackbench_agent_connected{agent=\"x\",host=\"hx\"} 1\n"));
	assert_non_null(strstr(got, "rackbench_run_active 0\n"));
	free(got);
	rb_metrics_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_render_exact_lines),
		cmocka_unit_test(test_metrics_render_idle_service),
		cmocka_unit_test(test_metrics_addr_checked),
		cmocka_unit_test(test_metrics_http_answers),
		cmocka_unit_test(test_metrics_run_view_of_agents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
