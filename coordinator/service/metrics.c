// SPDX-License-Identifier: MIT
#include "metrics.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <microhttpd.h>

#include "clock.h"
#include "grow.h"

/* ---- the page ---- */

/* A growing text, bounded: err says it could not grow (-ENOMEM, -E2BIG). */
struct buf {
	char *p;
	size_t len, cap;
	int err;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		if (cap > RB_METRICS_PAGE_MAX) {
			b->err = -E2BIG;
			return;
		}
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void printf_(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(struct buf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* A value as Prometheus reads it: the shortest decimal that reads back the same. */
static void number(struct buf *b, double v)
{
	char tmp[40];

	if (isnan(v)) {
		puts_(b, "NaN");
		return;
	}
	if (isinf(v)) {
		puts_(b, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15) {
		printf_(b, "%.0f", v);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	puts_(b, tmp);
}

/* A label value or help text escaped: backslash, newline, and (labels) the quote. */
static void escaped(struct buf *b, const char *s, bool quote)
{
	for (const char *p = s; *p; p++) {
		const char *e = *p == '\\'	     ? "\\\\"
				: *p == '\n'	     ? "\\n"
				: *p == '"' && quote ? "\\\""
						     : NULL;

		if (e)
			puts_(b, e);
		else
			put(b, p, 1);
	}
}

/* The labels of a sample: {k="v",...}, those with no value ("" or NULL) left out. */
static void labels(struct buf *b, const char *const *kv, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		if (!kv[2 * i + 1] || !kv[2 * i + 1][0])
			continue;
		puts_(b, any ? "," : "{");
		puts_(b, kv[2 * i]);
		puts_(b, "=\"");
		escaped(b, kv[2 * i + 1], true);
		puts_(b, "\"");
		any = true;
	}
	if (any)
		puts_(b, "}");
}

static void sample(struct buf *b, const char *name, const char *const *kv, size_t n, double v)
{
	puts_(b, name);
	labels(b, kv, n);
	puts_(b, " ");
	number(b, v);
	puts_(b, "\n");
}

static void family(struct buf *b, const char *name, const char *type, const char *help)
{
	printf_(b, "# HELP %s ", name);
	escaped(b, help, false);
	printf_(b, "\n# TYPE %s %s\n", name, type);
}

static void service(struct buf *b, const struct rb_metrics_snap *s)
{
	const char *run[] = { "run", s->run, "campaign", s->campaign, "phase", s->phase };

	family(b, "rackbench_run_active", "gauge", "1 while a run goes on, else 0");
	sample(b, "rackbench_run_active", NULL, 0, s->running);
	family(b, "rackbench_run_info", "gauge",
	       "the run going on: its id, campaign and phase (waiting, pre-flight, point, idle, "
	       "...); always 1");
	if (s->running)
		sample(b, "rackbench_run_info", run, 3, 1);
	family(b, "rackbench_run_point", "gauge",
	       "the index of the point running, from 0 (as rackbench status says)");
	if (s->running)
		sample(b, "rackbench_run_point", NULL, 0, (double)s->point);
	family(b, "rackbench_run_points", "gauge", "the points of the run going on");
	if (s->running)
		sample(b, "rackbench_run_points", NULL, 0, (double)s->npoints);
	family(b, "rackbench_runs_queued", "gauge",
	       "runs waiting their turn behind the one going on");
	sample(b, "rackbench_runs_queued", NULL, 0, s->queued);
	family(b, "rackbench_samples_total", "counter",
	       "sample rows (a drive's interval in one direction) taken since the service started");
	sample(b, "rackbench_samples_total", NULL, 0, (double)s->samples);
}

static void agents(struct buf *b, const struct rb_metrics_snap *s)
{
	family(b, "rackbench_agent_connected", "gauge",
	       "1 while the agent is heard from (within 5 s; during a run, as the run sees it)");
	for (size_t i = 0; i < s->nagents; i++) {
		const struct rb_metrics_agent *a = &s->agents[i];
		const char *kv[] = { "agent", a->name, "host", a->host };

		sample(b, "rackbench_agent_connected", kv, 2, a->connected);
	}
	family(b, "rackbench_agent_lost", "gauge",
	       "1 when the agent went silent: lost or dropped during a point, or not heard for 5 s");
	for (size_t i = 0; i < s->nagents; i++) {
		const struct rb_metrics_agent *a = &s->agents[i];
		const char *kv[] = { "agent", a->name, "host", a->host };

		sample(b, "rackbench_agent_lost", kv, 2, a->lost);
	}
}

enum dfig { D_IOPS, D_BW, D_MEAN, D_P99, D_INTERVAL, D_RUNNING, D_TEMP, D_ERRORS, D_FAILING, D_N };

static const struct {
	const char *name, *type, *help;
} dfigs[D_N] = {
	[D_IOPS] = { "rackbench_drive_ios_per_second", "gauge",
		     "IOs completed in the drive's last sample interval over that interval's own "
		     "length (a point's last may be short); 0 once the drive's part of the point "
		     "ended or it went idle" },
	[D_BW] = { "rackbench_drive_bytes_per_second", "gauge",
		   "bytes moved in the drive's last sample interval over its own length; 0 once "
		   "the drive's part of the point ended or it went idle" },
	[D_MEAN] = { "rackbench_drive_latency_mean_seconds", "gauge",
		     "mean IO latency in the drive's last sample interval" },
	[D_P99] = { "rackbench_drive_latency_p99_seconds", "gauge",
		    "99th percentile IO latency in the drive's last sample interval (the worse of "
		    "reads' and writes')" },
	[D_INTERVAL] = { "rackbench_drive_sample_interval", "gauge",
			 "the index of the interval the drive's figures are of (the samples "
			 "table's interval column)" },
	[D_RUNNING] = { "rackbench_drive_running", "gauge",
			"1 while the drive does IO in the point going on, 0 once its part of "
			"the point ended or it sent nothing for two intervals" },
	[D_TEMP] = { "rackbench_drive_temperature_celsius", "gauge",
		     "the drive's composite temperature, its last reading in the run (NVMe)" },
	[D_ERRORS] = { "rackbench_drive_io_errors_total", "counter",
		       "failed IOs and verification mismatches of the drive in the run going on" },
	[D_FAILING] = { "rackbench_drive_failing", "gauge",
			"the drive's verdict so far: 1 failing (IO errors, mismatches, "
			"temperature, critical warnings), 0 not so far; only when the campaign "
			"asks for verdicts" },
};

/* A drive's figure f, or false when it has none to show. */
static bool dvalue(const struct rb_live_drive *d, enum dfig f, double *v)
{
	switch (f) {
	case D_IOPS:
		*v = d->iops;
		return d->measured;
	case D_BW:
		*v = d->bytes_per_s;
		return d->measured;
	case D_MEAN:
		*v = d->lat_mean_s;
		return d->measured;
	case D_P99:
		*v = d->lat_p99_s;
		return d->measured;
	case D_INTERVAL:
		*v = d->interval;
		return d->measured;
	case D_RUNNING:
		*v = d->running;
		return d->measured;
	case D_TEMP:
		*v = d->temp_c;
		return !isnan(d->temp_c);
	case D_ERRORS:
		*v = (double)d->io_errors;
		return true;
	case D_FAILING:
		*v = d->failing;
		return d->failing >= 0;
	default:
		return false;
	}
}

#define MAX_AGENT_LABELS 16

/* A drive's own labels, fixed */
static const char *const drive_keys[] = { "agent", "host",     "path",	"serial",
					  "model", "firmware", "alias", NULL };
/* A verdict's own, after them: an agent's label of one of these names is put after
 * "label_" too, so that a label means one thing on every series */
static const char *const verdict_keys[] = { "campaign", "run", "rule", "verdict", NULL };

/*
 * A drive's labels: its own, then its agent's (rack, slot, ...), each name made one
 * Prometheus takes ([a-zA-Z_][a-zA-Z0-9_]*) and put after "label_" when it is one of the
 * drive's own. keys holds the names made; kv gets key, value pairs; how many.
 */
static size_t drive_labels(const struct rb_live_drive *d, char (*keys)[64], char (*vals)[256],
			   const char **kv)
{
	const char *own[] = {
		d->agent, d->host, d->path, d->serial, d->model, d->firmware, d->alias
	};
	size_t n = 0;

	for (; drive_keys[n]; n++) {
		kv[2 * n] = drive_keys[n];
		kv[2 * n + 1] = own[n];
	}
	for (const char *p = d->labels ? d->labels : ""; *p && n < 7 + MAX_AGENT_LABELS;) {
		size_t len = strcspn(p, ","), eq = strcspn(p, "=");
		size_t m = 0, k = n - 7;
		bool clash = false;

		if (eq < len && eq > 0) {
			char name[64];

			for (size_t j = 0; j < eq && m < sizeof(name) - 1; j++)
				name[m++] = isalnum((unsigned char)p[j]) ? p[j] : '_';
			name[m] = '\0';
			for (size_t j = 0; drive_keys[j]; j++)
				clash |= !strcmp(name, drive_keys[j]);
			for (size_t j = 0; verdict_keys[j]; j++)
				clash |= !strcmp(name, verdict_keys[j]);
			snprintf(keys[k], sizeof(keys[k]), "%s%s%s", clash ? "label_" : "",
				 isdigit((unsigned char)name[0]) ? "_" : "", name);
			snprintf(vals[k], sizeof(vals[k]), "%.*s", (int)(len - eq - 1), p + eq + 1);
			kv[2 * n] = keys[k];
			kv[2 * n + 1] = vals[k];
			n++;
		}
		p += len;
		p += *p == ',';
	}
	return n;
}

static void drives(struct buf *b, const struct rb_metrics_snap *s)
{
	char keys[MAX_AGENT_LABELS][64], vals[MAX_AGENT_LABELS][256];
	const char *kv[2 * (7 + MAX_AGENT_LABELS)];

	for (int f = 0; f < D_N; f++) {
		family(b, dfigs[f].name, dfigs[f].type, dfigs[f].help);
		for (size_t i = 0; s->drives && i < s->ndrives; i++) {
			const struct rb_live_drive *d = &s->drives[i];
			double v;

			if (dvalue(d, (enum dfig)f, &v))
				sample(b, dfigs[f].name, kv, drive_labels(d, keys, vals, kv), v);
		}
	}
}

/* One verdict's sample, 1: a drive's labels and the verdict's, or a domain's hold's. */
static void verdict_sample(struct buf *b, const char *name, const struct rb_metrics_verdict *v)
{
	char keys[MAX_AGENT_LABELS][64], vals[MAX_AGENT_LABELS][256];
	const char *kv[2 * (7 + MAX_AGENT_LABELS + 4)];
	const char *own[] = { v->campaign, v->run, v->rule, v->verdict };
	size_t n = 0;

	if (v->domain) {
		const char *hold[] = { "campaign", v->campaign, "rule",	  v->rule,
				       "verdict",  v->verdict,	"domain", v->domain };

		sample(b, name, hold, 4, 1);
		return;
	}
	n = drive_labels(&v->drive, keys, vals, kv);
	for (size_t k = 0; verdict_keys[k]; k++, n++) {
		kv[2 * n] = verdict_keys[k];
		kv[2 * n + 1] = own[k];
	}
	sample(b, name, kv, n, 1);
}

static void verdicts(struct buf *b, const struct rb_metrics_snap *s)
{
	family(b, "rackbench_drive_verdict", "gauge",
	       "a verdict of the drive in the last run of its campaign that ended on this "
	       "service, always 1: rule drive is the drive's own (PASS, FAIL, INCOMPLETE), the "
	       "others each rule that tripped (the results file's verdicts table)");
	for (size_t i = 0; s->verdicts && i < s->nverdicts; i++)
		verdict_sample(b, "rackbench_drive_verdict", &s->verdicts[i]);
	family(b, "rackbench_fleet_verdict", "gauge",
	       "a verdict of the fleet (rackbench judge, in the results database) on a drive of "
	       "the last run of its campaign on this service (rule fail_slow or firmware: FAIL, "
	       "QUARANTINE, NOTE), or on its rack or host (rule cluster_hold, verdict HOLD, "
	       "domain rack=R or host=H), always 1");
	for (size_t i = 0; s->fleet && i < s->nfleet; i++)
		verdict_sample(b, "rackbench_fleet_verdict", &s->fleet[i]);
}

int rb_metrics_render(const struct rb_metrics_snap *s, char **ret_text, size_t *ret_len)
{
	struct buf b = { 0 };

	service(&b, s);
	agents(&b, s);
	drives(&b, s);
	verdicts(&b, s);
	if (!b.err && !b.p)
		puts_(&b, "");
	if (b.err) {
		free(b.p);
		return b.err;
	}
	*ret_text = b.p;
	*ret_len = b.len;
	return 0;
}

/* ---- the address ---- */

/* spec cut into host ("" every address) and port; 0 or -EINVAL with why. */
static int split(const char *spec, char *host, size_t hlen, char *port, size_t plen, char *why,
		 size_t len)
{
	const char *colon = strrchr(spec, ':'), *h = spec, *he;
	char *end;
	long v;

	if (!colon) {
		snprintf(why, len, "no port: give ADDR:PORT, or :PORT for every address");
		return -EINVAL;
	}
	he = colon;
	if (spec[0] == '[') {
		he = strchr(spec, ']');
		if (!he || he + 1 != colon) {
			snprintf(why, len,
				 "an IPv6 address goes in brackets before the port: [::1]:9470");
			return -EINVAL;
		}
		h = spec + 1;
	} else if (memchr(spec, ':', (size_t)(colon - spec))) {
		snprintf(why, len, "an IPv6 address goes in brackets before the port: [::1]:9470");
		return -EINVAL;
	}
	if (!colon[1]) {
		snprintf(why, len, "no port after the colon");
		return -EINVAL;
	}
	errno = 0;
	v = strtol(colon + 1, &end, 10);
	if (*end || colon[1] < '0' || colon[1] > '9') {
		snprintf(why, len, "the port '%s' is not a number", colon + 1);
		return -EINVAL;
	}
	if (errno || v < 0 || v > 65535) {
		snprintf(why, len, "the port %s is out of range (0 to 65535)", colon + 1);
		return -EINVAL;
	}
	if ((size_t)(he - h) >= hlen) {
		snprintf(why, len, "the address is too long");
		return -EINVAL;
	}
	memcpy(host, h, (size_t)(he - h));
	host[he - h] = '\0';
	snprintf(port, plen, "%ld", v);
	return 0;
}

static int resolve(const char *host, const char *port, struct addrinfo **ret, char *why, size_t len)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				  .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	int r = getaddrinfo(host, port, &hints, ret);

	if (r) {
		snprintf(why, len, "cannot resolve '%s': %s", host,
			 r == EAI_SYSTEM ? strerror(errno) : gai_strerror(r));
		return -EINVAL;
	}
	return 0;
}

int rb_metrics_addr_check(const char *spec, char *why, size_t len)
{
	char host[256], port[8];
	struct addrinfo *ai;
	int r = split(spec, host, sizeof(host), port, sizeof(port), why, len);

	if (r || !host[0])
		return r;
	r = resolve(host, port, &ai, why, len);
	if (!r)
		freeaddrinfo(ai);
	return r;
}

/* ---- the server ---- */

struct rb_metrics {
	struct MHD_Daemon *d;
	char addr[INET6_ADDRSTRLEN + 16];
	pthread_mutex_t lock; /* the page: swapped by the publisher, copied by the server */
	char *page;
	size_t len;
	/* the publisher's: agents a run had connected, and when it last said so */
	struct seen {
		char name[64];
		int64_t ns;
	} * seen;
	size_t nseen, capseen;
};

/* A socket listening on sa: its descriptor, or a negative errno. */
static int listen_at(const struct sockaddr *sa, socklen_t salen, bool dual)
{
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1,
	    zero = 0, err;

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (dual)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, sa, salen) || listen(fd, 64)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* host "" is every address: IPv6 and IPv4 on one socket, else IPv4 alone. */
static int open_listener(const char *host, const char *port, char *why, size_t len)
{
	struct addrinfo *ai = NULL;
	int fd = -EADDRNOTAVAIL;

	if (!host[0]) {
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
					   .sin6_port = htons((uint16_t)atoi(port)),
					   .sin6_addr = IN6ADDR_ANY_INIT };
		struct sockaddr_in s4 = { .sin_family = AF_INET,
					  .sin_port = htons((uint16_t)atoi(port)),
					  .sin_addr.s_addr = htonl(INADDR_ANY) };

		fd = listen_at((struct sockaddr *)&s6, sizeof(s6), true);
		if (fd == -EAFNOSUPPORT || fd == -EADDRNOTAVAIL)
			fd = listen_at((struct sockaddr *)&s4, sizeof(s4), false);
	} else {
		if (resolve(host, port, &ai, why, len))
			return -EINVAL;
		for (struct addrinfo *p = ai; p; p = p->ai_next) {
			fd = listen_at(p->ai_addr, p->ai_addrlen, false);
			if (fd >= 0)
				break;
		}
		freeaddrinfo(ai);
	}
	if (fd < 0)
		snprintf(why, len, "%s", strerror(-fd));
	return fd;
}

/* The address fd listens on, as HOST:PORT ([HOST]:PORT for IPv6). */
static void bound_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char ip[INET6_ADDRSTRLEN] = "?";

	if (getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		snprintf(buf, len, "?");
		return;
	}
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, ntohs(s4->sin_port));
	}
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, char *body, size_t len,
			     const char *type)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer_with_free_callback(len, body, free);
	enum MHD_Result ret;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

/* On libmicrohttpd's thread: the last page, copied under the lock. */
static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_len, void **con_cls)
{
	struct rb_metrics *m = cls;
	char *body;
	size_t len;

	(void)version;
	(void)upload;
	(void)upload_len;
	(void)con_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		body = strdup("only GET and HEAD\n");
		return body ? reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, body, strlen(body),
				    "text/plain; charset=utf-8")
			    : MHD_NO;
	}
	if (strcmp(url, "/metrics")) {
		body = strdup("not found: the metrics are at /metrics\n");
		return body ? reply(c, MHD_HTTP_NOT_FOUND, body, strlen(body),
				    "text/plain; charset=utf-8")
			    : MHD_NO;
	}
	pthread_mutex_lock(&m->lock);
	len = m->len;
	body = malloc(len + 1);
	if (body)
		memcpy(body, m->page ? m->page : "", len + 1);
	pthread_mutex_unlock(&m->lock);
	if (!body)
		return MHD_NO;
	return reply(c, MHD_HTTP_OK, body, len, "text/plain; version=0.0.4; charset=utf-8");
}

struct rb_metrics *rb_metrics_start(const char *spec, char *err, size_t errlen)
{
	char host[256], port[8], why[256];
	struct rb_metrics *m;
	int fd;

	if (split(spec, host, sizeof(host), port, sizeof(port), why, sizeof(why))) {
		snprintf(err, errlen, "bad metrics address '%s': %s", spec, why);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&m->lock, NULL);
	fd = open_listener(host, port, why, sizeof(why));
	if (fd < 0) {
		snprintf(err, errlen, "cannot serve metrics on '%s': %s", spec, why);
		goto out_free;
	}
	bound_name(fd, m->addr, sizeof(m->addr));
	/* one client holds at most a few connections, and none idle for long: held ones
	 * would keep every other scraper waiting */
	m->d = MHD_start_daemon(
		MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, answer, m, MHD_OPTION_LISTEN_SOCKET,
		fd, MHD_OPTION_CONNECTION_LIMIT, (unsigned)RB_METRICS_CONNECTIONS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)RB_METRICS_PER_CLIENT,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)RB_METRICS_IDLE_S, MHD_OPTION_END);
	if (!m->d) {
		snprintf(err, errlen, "cannot serve metrics on '%s': the HTTP server did not start",
			 spec);
		close(fd);
		goto out_free;
	}
	return m;
out_free:
	pthread_mutex_destroy(&m->lock);
	free(m);
	return NULL;
}

const char *rb_metrics_address(const struct rb_metrics *m)
{
	return m->addr;
}

int rb_metrics_publish(struct rb_metrics *m, const struct rb_metrics_snap *s)
{
	char *text, *old;
	size_t len;
	int r = rb_metrics_render(s, &text, &len);

	if (r)
		return r;
	pthread_mutex_lock(&m->lock);
	old = m->page;
	m->page = text;
	m->len = len;
	pthread_mutex_unlock(&m->lock);
	free(old);
	return 0;
}

/* Where name's entry is among the agents a run had connected (added when add). */
static struct seen *seen_of(struct rb_metrics *m, const char *name, bool add)
{
	for (size_t i = 0; i < m->nseen; i++)
		if (!strcmp(m->seen[i].name, name))
			return &m->seen[i];
	if (!add)
		return NULL;
	if (RB_GROW(m->seen, m->capseen, m->nseen, 16))
		return NULL;
	snprintf(m->seen[m->nseen].name, sizeof(m->seen[0].name), "%s", name);
	m->seen[m->nseen].ns = 0;
	return &m->seen[m->nseen++];
}

int rb_metrics_update(struct rb_metrics *m, struct rb_metrics_snap *s, struct rb_metrics_agent *ag,
		      size_t n, const struct rb_coord_live *l)
{
	int64_t now = rb_mono_ns();

	for (size_t j = 0; l && j < l->nagents; j++) {
		struct seen *e = l->agents[j].connected ? seen_of(m, l->agents[j].name, true)
							: seen_of(m, l->agents[j].name, false);

		if (e)
			e->ns = l->agents[j].connected ? now : 0;
	}
	for (size_t i = 0; i < n; i++) {
		const struct seen *e = seen_of(m, ag[i].name, false);

		if (e && e->ns && now - e->ns < 5000000000LL)
			ag[i].connected = true;
		for (size_t j = 0; l && j < l->nagents; j++)
			if (l->agents[j].lost && !strcmp(l->agents[j].name, ag[i].name))
				ag[i].connected = false;
		ag[i].lost = !ag[i].connected;
	}
	s->agents = ag;
	s->nagents = n;
	s->drives = l ? l->drives : NULL;
	s->ndrives = l ? l->ndrives : 0;
	return rb_metrics_publish(m, s);
}

struct rb_metrics *rb_metrics_free(struct rb_metrics *m)
{
	if (!m)
		return NULL;
	MHD_stop_daemon(m->d);
	pthread_mutex_destroy(&m->lock);
	free(m->page);
	free(m->seen);
	free(m);
	return NULL;
}
