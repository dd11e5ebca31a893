// SPDX-License-Identifier: MIT
/*
 * fleet_sim: many simulated agents in one process, for bench/fleet.py. Each is a real
 * DEALER socket with its own CURVE key pair, speaking the real protocol to a real
 * coordinator: Hello with DRIVES targets, Welcome, PreflightReply (no refusals),
 * TimeReply, and on Assign one SampleBatch per interval (a Sample per drive: the
 * counters and a sparse histogram of BUCKETS buckets, at most 512), then a DriveResult per drive
 * (its start: the instant it was given, or the Assign's arrival if that was later) and
 * PointDone, numbered (epoch, seq) like a real agent's data messages.
 *
 *   fleet_sim keys DIR N [PREFIX]   writes N key pairs and DIR/allowed (the allow-list)
 *   fleet_sim run ENDPOINT DIR N DRIVES BUCKETS [PREFIX]
 *
 * The agents are named PREFIX-0000 on (default "sim": sim-0000), so that several
 * simulators (one a rack, for bench/fleet.py --racks) give a fleet's agents names of
 * their own. Every 10 s it prints a line: agents welcomed, running, samples sent and
 * acknowledged (cumulative acks cover whole batches: drives samples each) and per second.
 * At the end, the latest instant (CLOCK_MONOTONIC) an agent started its point,
 * "last_start_mono_ns"; the latest instant an Assign came, "last_assign_mono_ns" (before
 * the start instant: the agents were given it in time); and the totals, "final: samples
 * sent N acked N" (of the point's batches: an agent's current point).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "keys.h"
#include "transport.h"
#include "units.h"
#include "wire.h"

/*
 * A point is a fixed sequence of messages, like a real agent's spool: nbatches sample
 * batches (batch i due one interval after the last), a DriveResult per drive, and a
 * PointDone, numbered from base. Each can be made again from its index, so the simulator
 * behaves like an agent without keeping the bytes: at most WINDOW past the last ack
 * (credits), and everything unacknowledged again after 2 s without progress.
 */
#define WINDOW 16

struct sim {
	void *sock;
	char name[32];
	uint64_t epoch, seq, acked;
	bool welcomed, running;
	uint32_t point, attempt, ndrives;
	int64_t next_hello, start_at, last_progress;
	uint64_t interval_ns, runtime_ns;
	uint64_t base, nbatches, total, next; /* the point's messages: see above */
};

static volatile sig_atomic_t quit;
static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static unsigned ndrives_g, nbuckets_g;
static char **drive_names;

static void send_data(struct sim *s, struct rb_msg *m)
{
	m->epoch = s->epoch;
	m->seq = ++s->seq;
	rb_tx_send(s->sock, NULL, m, false);
}

static void hello(struct sim *s)
{
	struct rb_identity *ti = calloc(ndrives_g + 1, sizeof(*ti));
	struct rb_msg m;

	for (unsigned i = 0; ti && i < ndrives_g; i++) {
		rb_wire_strcpy(ti[i].path, sizeof(ti[i].path), drive_names[i]);
		rb_wire_strcpy(ti[i].kind, sizeof(ti[i].kind), "block");
		rb_wire_strcpy(ti[i].model, sizeof(ti[i].model), "SIMULATED NVMe");
		rb_wire_strcpy(ti[i].serial, sizeof(ti[i].serial), s->name);
		rb_wire_strcpy(ti[i].firmware, sizeof(ti[i].firmware), "1.0");
		ti[i].size_bytes = 7680ULL << 30;
		ti[i].logical_block_size = 4096;
	}
	rb_msg_init(&m, RB_MSG_HELLO);
	m.hello = (struct rb_msg_hello){ .name = s->name,
					 .hostname = s->name,
					 .kernel = "Linux sim",
					 .rb_version = RB_VERSION,
					 .epoch = s->epoch,
					 .targets = ti,
					 .ntargets = ti ? ndrives_g : 0 };
	rb_tx_send(s->sock, NULL, &m, true);
	free(ti);
}

#define MAXB 512

/*
 * A histogram shaped like a drive's over one interval: n buckets from about 70 us up, the
 * counts a bell over them with noise in every count (a real drive's low digits are noise,
 * and they are what compression cannot take away), the seed one per drive and interval.
 */
static void fill_hist(uint32_t *idx, uint64_t *cnt, unsigned n, uint64_t *ios, uint64_t *lat,
		      uint64_t seed)
{
	static uint64_t bell[MAXB]; /* the bell's heights, made once (n is the run's) */
	static unsigned nbell;
	uint64_t x = seed * 0x9E3779B97F4A7C15ULL | 1;
	uint32_t b = 2000 + (uint32_t)(seed % 97);

	for (; nbell < n; nbell++) {
		double z = ((double)nbell - n / 3.0) / (n / 6.0 + 1);

		bell[nbell] = (uint64_t)(4000.0 / (1 + z * z * z * z));
	}
	*ios = 0;
	*lat = 0;
	for (unsigned k = 0; k < n; k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
		idx[k] = b + k;
		cnt[k] = 1 + bell[k] * (96 + x % 9) / 100;
		*ios += cnt[k];
		*lat += cnt[k] * 90000;
	}
}

/* A data message, numbered like an agent's: (epoch, seq), acknowledged by the coordinator. */
static void send_numbered(struct sim *s, struct rb_msg *m, uint64_t seq)
{
	m->epoch = s->epoch;
	m->seq = seq;
	rb_tx_send(s->sock, NULL, m, false);
}

static void samples(struct sim *s, uint32_t interval, int64_t now_wall, uint64_t seq)
{
	static uint32_t idx[64][MAXB];
	static uint64_t cnt[64][MAXB];
	struct rb_msg_sample sm[64];
	unsigned n = s->ndrives < 64 ? s->ndrives : 64;
	struct rb_msg m;

	for (unsigned i = 0; i < n; i++) {
		uint64_t ios, lat;

		fill_hist(idx[i], cnt[i], nbuckets_g, &ios, &lat,
			  ((uint64_t)s->epoch << 24) ^ ((uint64_t)interval << 6 | i));
		sm[i] = (struct rb_msg_sample){ .point = s->point,
						.attempt = s->attempt,
						.drive = drive_names[i],
						.interval = interval,
						.direction = 0,
						.t_ns = now_wall,
						.ios = ios,
						.bytes = ios * 4096,
						.lat_sum_ns = lat,
						.hist = { idx[i], cnt[i], nbuckets_g } };
	}
	rb_msg_init(&m, RB_MSG_SAMPLES);
	m.samples.v = sm;
	m.samples.n = n;
	send_numbered(s, &m, seq);
}

/* Message i of the point: a batch, a drive's result, or the PointDone. */
static void point_msg(struct sim *s, uint64_t i)
{
	uint64_t seq = s->base + i;
	struct rb_msg m;

	if (i < s->nbatches) {
		samples(s, (uint32_t)i, rb_wall_ns(), seq);
		return;
	}
	if (i < s->nbatches + s->ndrives) {
		unsigned d = (unsigned)(i - s->nbatches);
		static uint32_t idx[MAXB];
		static uint64_t cnt[MAXB];
		uint64_t ios, lat;
		struct rb_dir_result dr;

		fill_hist(idx, cnt, nbuckets_g, &ios, &lat, d);
		dr = (struct rb_dir_result){ .direction = 0,
					     .ios = ios * s->nbatches,
					     .bytes = ios * s->nbatches * 4096,
					     .lat_sum_ns = lat * s->nbatches,
					     .lat_min_ns = 80000,
					     .lat_max_ns = 200000,
					     .hist = { idx, cnt, nbuckets_g } };
		rb_msg_init(&m, RB_MSG_RESULT);
		m.result = (struct rb_msg_result){ .point = s->point,
						   .attempt = s->attempt,
						   .drive = drive_names[d],
						   .core.elapsed_ns = s->runtime_ns,
						   .start_mono_ns = s->start_at,
						   .dirs = &dr,
						   .ndirs = 1,
						   .status = RB_STATUS_OK,
						   .message = "",
						   .uring_features = "simulated" };
		send_numbered(s, &m, seq);
		return;
	}
	rb_msg_init(&m, RB_MSG_POINT_DONE);
	m.point_done.point = s->point;
	m.point_done.attempt = s->attempt;
	send_numbered(s, &m, seq);
}

/* When message i is due: a batch one interval after the last, the rest at the end. */
static int64_t due(const struct sim *s, uint64_t i)
{
	if (i < s->nbatches)
		return s->start_at + (int64_t)((i + 1) * s->interval_ns);
	return s->start_at + (int64_t)(s->nbatches * s->interval_ns);
}

/* Sends what is due and the window allows; again what 2 s of silence left unacknowledged. */
static void pace(struct sim *s, int64_t now, int64_t *wake)
{
	while (s->next < s->total && s->base + s->next <= s->acked + WINDOW &&
	       now >= due(s, s->next)) {
		point_msg(s, s->next);
		s->next++;
	}
	if (s->acked + 1 < s->base + s->next && now - s->last_progress > 2000000000LL) {
		for (uint64_t i = s->acked + 1 - s->base; i < s->next; i++)
			point_msg(s, i);
		s->last_progress = now;
	}
	if (s->acked >= s->base + s->total - 1) {
		s->running = false; /* all of it held by the coordinator */
		s->seq = s->base + s->total - 1;
		return;
	}
	if (s->next < s->total && s->base + s->next <= s->acked + WINDOW && due(s, s->next) < *wake)
		*wake = due(s, s->next);
}

static void on_message(struct sim *s, const struct rb_msg *e, int64_t *last_start,
		       int64_t *last_assign)
{
	struct rb_msg m;

	switch (e->kind) {
	case RB_MSG_WELCOME:
		s->welcomed = true;
		break;
	case RB_MSG_ACK:
		if (e->ack.epoch == s->epoch && e->ack.seq > s->acked) {
			s->acked = e->ack.seq;
			s->last_progress = rb_mono_ns();
		}
		break;
	case RB_MSG_TIME_PROBE:
		rb_msg_init(&m, RB_MSG_TIME_REPLY);
		m.time.t0 = e->time.t0;
		m.time.t1 = rb_mono_ns();
		m.time.t2 = rb_mono_ns();
		rb_tx_send(s->sock, NULL, &m, true);
		break;
	case RB_MSG_PREFLIGHT:
		rb_msg_init(&m, RB_MSG_PREFLIGHT_REPLY);
		send_data(s, &m);
		break;
	case RB_MSG_ASSIGN: {
		const struct rb_msg_assign *a = &e->assign;
		int64_t now = rb_mono_ns();

		s->point = a->point;
		s->attempt = a->attempt;
		s->ndrives = (uint32_t)a->ndrives;
		s->interval_ns = 1000000000ULL;
		s->runtime_ns = 60000000000ULL;
		for (size_t i = 0; i < a->nsettings; i++) {
			if (!strcmp(a->settings[i].key, "interval"))
				rb_parse_duration(a->settings[i].value, &s->interval_ns);
			else if (!strcmp(a->settings[i].key, "runtime"))
				rb_parse_duration(a->settings[i].value, &s->runtime_ns);
		}
		s->start_at = a->start_at_ns > now ? a->start_at_ns : now;
		if (now > *last_assign)
			*last_assign = now;
		if (s->start_at > *last_start)
			*last_start = s->start_at;
		s->nbatches = s->runtime_ns / s->interval_ns;
		s->total = s->nbatches + (s->ndrives < 64 ? s->ndrives : 64) + 1;
		s->base = s->seq + 1;
		s->next = 0;
		s->last_progress = now;
		s->running = true;
		break;
	}
	case RB_MSG_STOP:
		if (s->running)
			s->seq = s->base + s->next -
				 1; /* what was sent stands; the rest is dropped */
		s->running = false;
		s->welcomed = false;
		s->next_hello = rb_mono_ns() + 500000000LL;
		break;
	default:
		break;
	}
}

static int keys_cmd(const char *dir, unsigned n, const char *prefix)
{
	char path[4096], name[32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/allowed", dir);
	f = fopen(path, "w");
	if (!f)
		return 1;
	for (unsigned i = 0; i < n; i++) {
		struct rb_keypair k;

		snprintf(name, sizeof(name), "%s-%04u", prefix, i);
		if (rb_keys_generate(&k) || rb_keys_write(dir, name, &k))
			return 1;
		fprintf(f, "%s %s\n", name, k.pub);
	}
	return fclose(f) ? 1 : 0;
}

/* The agents' samples sent and acknowledged, of their current point's batches. */
static void totals(const struct sim *s, unsigned n, uint64_t *sent, uint64_t *acked,
		   unsigned *welcomed, unsigned *running)
{
	*sent = *acked = 0;
	*welcomed = *running = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct sim *x = &s[i];
		uint64_t sb = x->next < x->nbatches ? x->next : x->nbatches;
		uint64_t ab = x->acked >= x->base ? x->acked - x->base + 1 : 0;

		if (ab > x->nbatches)
			ab = x->nbatches;
		if (!x->base)
			sb = ab = 0;
		*sent += sb * x->ndrives;
		*acked += ab * x->ndrives;
		*welcomed += x->welcomed;
		*running += x->running;
	}
}

int main(int argc, char **argv)
{
	bool keys = argc > 1 && !strcmp(argv[1], "keys");
	const char *prefix = (keys && argc == 5) || (!keys && argc == 8) ? argv[argc - 1] : "sim";

	if (strlen(prefix) > 20) {
		fprintf(stderr, "PREFIX: at most 20 characters\n");
		return 2;
	}
	if (keys && (argc == 4 || argc == 5))
		return keys_cmd(argv[2], (unsigned)atoi(argv[3]), prefix);
	if ((argc != 7 && argc != 8) || strcmp(argv[1], "run")) {
		fprintf(stderr, "usage: fleet_sim keys DIR N [PREFIX] | fleet_sim run ENDPOINT DIR "
				"N DRIVES BUCKETS [PREFIX]\n");
		return 2;
	}
	const char *ep = argv[2], *dir = argv[3];
	unsigned n = (unsigned)atoi(argv[4]);
	struct sim *s = calloc(n, sizeof(*s));
	void **socks = calloc(n, sizeof(*socks));
	unsigned char *ready = calloc(n, 1);
	struct rb_keypair coord;
	char err[600], path[4096];
	int64_t last_start = 0, last_assign = 0, next_report;
	uint64_t prev_sent = 0, prev_acked = 0, sent, acked;
	unsigned welcomed, running;

	ndrives_g = (unsigned)atoi(argv[5]);
	nbuckets_g = (unsigned)atoi(argv[6]);
	if (ndrives_g < 1 || ndrives_g > 64 || nbuckets_g < 1 || nbuckets_g > MAXB || !s) {
		fprintf(stderr, "DRIVES and BUCKETS: 1..64\n");
		return 2;
	}
	drive_names = calloc(ndrives_g, sizeof(*drive_names));
	for (unsigned i = 0; i < ndrives_g; i++) {
		drive_names[i] = malloc(32);
		snprintf(drive_names[i], 32, "/dev/nvme%un1", i);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	snprintf(path, sizeof(path), "%s/coordinator.pub", dir);
	if (rb_keys_read(path, false, &coord, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (unsigned i = 0; i < n; i++) {
		struct rb_keypair k;

		snprintf(s[i].name, sizeof(s[i].name), "%s-%04u", prefix, i);
		snprintf(path, sizeof(path), "%s/%s.key", dir, s[i].name);
		if (rb_keys_read(path, true, &k, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		s[i].sock = rb_tx_dealer_connect_keyed(ep, s[i].name, &k, coord.pub);
		if (!s[i].sock) {
			fprintf(stderr, "agent %u: cannot connect: %s\n", i, strerror(errno));
			return 1;
		}
		socks[i] = s[i].sock;
		s[i].epoch = ((uint64_t)rb_wall_ns() ^ ((uint64_t)i << 40)) | 1;
		s[i].next_hello = rb_mono_ns() + (int64_t)(i % 1000) * 1000000LL;
	}
	next_report = rb_mono_ns() + 10000000000LL;
	printf("sim: %u agents x %u drives, %u buckets per sample, connecting to %s\n", n,
	       ndrives_g, nbuckets_g, ep);
	fflush(stdout);
	while (!quit) {
		int64_t now = rb_mono_ns(), wake = now + 50000000LL;

		for (unsigned i = 0; i < n; i++) {
			struct sim *x = &s[i];

			if (!x->running && now >= x->next_hello) {
				hello(x);
				x->next_hello = now + (x->welcomed ? 2000000000LL : 1000000000LL) +
						(int64_t)(i % 500) * 1000000LL;
			}
			if (x->running)
				pace(x, now, &wake);
		}
		int timeout = (int)((wake - rb_mono_ns()) / 1000000);

		if (rb_tx_poll_many(socks, n, timeout < 0 ? 0 : timeout, ready) > 0) {
			for (unsigned i = 0; i < n; i++) {
				struct rb_msg *e;

				while (ready[i] &&
				       rb_tx_recv(s[i].sock, 0, NULL, &e, err, sizeof(err)) == 0) {
					on_message(&s[i], e, &last_start, &last_assign);
					rb_msg_free(e);
				}
			}
		}
		if (rb_mono_ns() >= next_report) {
			totals(s, n, &sent, &acked, &welcomed, &running);
			printf("sim: welcomed %u running %u samples sent %" PRIu64 " acked %" PRIu64
			       " | last 10 s: %.0f sent/s %.0f acked/s\n",
			       welcomed, running, sent, acked, (double)(sent - prev_sent) / 10,
			       (double)(acked - prev_acked) / 10);
			fflush(stdout);
			prev_sent = sent;
			prev_acked = acked;
			next_report += 10000000000LL;
		}
	}
	totals(s, n, &sent, &acked, &welcomed, &running);
	printf("last_start_mono_ns %" PRId64 "\nlast_assign_mono_ns %" PRId64
	       "\nfinal: samples sent %" PRIu64 " acked %" PRIu64 "\n",
	       last_start, last_assign, sent, acked);
	for (unsigned i = 0; i < n; i++)
		rb_tx_close(s[i].sock);
	rb_tx_context_term();
	return 0;
}
