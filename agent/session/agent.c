// SPDX-License-Identifier: MIT
/* The agent daemon: registers with the coordinator, runs the points it is assigned. */
#include "session.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "clock.h"
#include "exitcode.h"
#include "fstarget.h"
#include "keys.h"
#include "log.h"
#include "transport.h"
#include "stopsig.h"

/* A coordinator's run id names the spool file: a plain name that stays in its folder. */
static bool run_id_ok(const char *run)
{
	size_t n = run ? strlen(run) : 0;

	if (!n || n >= sizeof(((struct agent *)0)->dlv.run) || run[0] == '.' || run[0] == '-' ||
	    strchr(run, '/') || strstr(run, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)run[i] < 0x20 || run[i] == 0x7f)
			return false;
	return true;
}

static void send_error(struct agent *a, int code, const char *msg)
{
	rb_tx_send_error(a->sock, NULL, code, msg);
}

/* The session loop's periods and delays, in nanoseconds unless named otherwise. */
#define FRESH_FIRST_NS 5000000000LL /* the first fresh socket after the start */
#define FRESH_EVERY_NS 4000000000LL /* then every 4 s, plus up to 2 s of jitter */
#define FRESH_JITTER_NS 2000000000ULL
#define UNHEARD_NS 30000000000LL	  /* a socket silent this long starts over */
#define HELLO_BACKOFF_MIN_NS 200000000LL  /* Hello while idle: from 0.2 s apart ... */
#define HELLO_BACKOFF_MAX_NS 1000000000LL /* ... doubling up to 1 s (1.5 s jittered) */
#define HELLO_AFTER_STOP_NS 1000000000LL  /* the first Hello after a Stop */
#define SYNC_EVERY_NS 1000000000LL	  /* the spool on disk, and its cap checked */
#define RESEND_AFTER_NS 2000000000LL	  /* unacknowledged data again after a silence */
#define BEAT_EVERY_NS 1000000000LL	  /* Heartbeat while a point runs */
#define RECV_BUSY_MS 20			  /* a turn's wait for a message, a point running */
#define RECV_IDLE_MS 100		  /* ... and idle */
_Static_assert(HELLO_BACKOFF_MAX_NS / 2 * 3 <= RB_HELLO_GAP_MAX_NS &&
		       HELLO_AFTER_STOP_NS <= RB_HELLO_GAP_MAX_NS,
	       "the coordinator counts on Hellos at most RB_HELLO_GAP_MAX_NS apart");

/*
 * The session loop's own state: the keys a fresh socket connects with, what was heard,
 * and the next instant of each periodic action (a point's health is the point's, the
 * resend follows the last acknowledgement's progress, the samples go every turn).
 */
struct session {
	struct agent a;
	struct rb_keypair mine, coord;
	bool welcomed;	    /* by the coordinator of the current campaign */
	bool ever_welcomed; /* on this socket: its handshake went through */
	bool idle_said;	    /* "registered with a service, no run yet" was said */
	int64_t last_heard; /* anything from the coordinator */
	struct {
		int64_t fresh;	 /* a fresh socket, while not welcomed or unheard */
		int64_t hello;	 /* Hello, while idle */
		int64_t backoff; /* ... and the back-off after it */
		int64_t sync;	 /* the spool on disk */
		int64_t beat;	 /* Heartbeat, while busy */
	} next;
};

static void *dealer(const struct session *s)
{
	const struct rb_agent_cfg *cfg = s->a.cfg;

	return cfg->insecure ? rb_tx_dealer_connect(cfg->coordinator, cfg->name)
			     : rb_tx_dealer_connect_keyed(cfg->coordinator, cfg->name, &s->mine,
							  s->coord.pub);
}

/* Signals, this process's epoch, the keys and the first socket. 0 or an exit code. */
static int session_start(struct session *s)
{
	const struct rb_agent_cfg *cfg = s->a.cfg;
	uint64_t epoch = 0;

	rb_stop_flag = 0;
	rb_stop_signals(NULL, false, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (getrandom(&epoch, sizeof(epoch), 0) != sizeof(epoch))
		epoch = (uint64_t)rb_wall_ns();
	epoch &= (1ULL << 62) - 1; /* printable in a file name, never 0 */
	epoch |= 1;
	s->a.epoch = epoch;
	/* a killed agent's filesystems went with its mount namespace: their mount points not */
	rb_fs_sweep(cfg->state_dir);
	if (cfg->insecure) {
		rb_warn("running without keys (--insecure): connections are neither authenticated "
			"nor encrypted");
	} else {
		char err[600];

		if (rb_keys_read(cfg->key, true, &s->mine, err, sizeof(err)) ||
		    rb_keys_read(cfg->coordinator_key, false, &s->coord, err, sizeof(err))) {
			rb_err("%s", err);
			return RB_EXIT_USAGE;
		}
	}
	s->a.sock = dealer(s);
	if (!s->a.sock) {
		rb_err("cannot connect to '%s': %s", cfg->coordinator, strerror(errno));
		return RB_EXIT_USAGE;
	}
	/*
	 * libzmq gives up on a connection whose CURVE handshake was refused: while no
	 * coordinator has welcomed us, start over with a fresh socket every few seconds
	 * (a key added to the allow-list later then gets in).
	 */
	s->next.fresh = agent_now(&s->a) + FRESH_FIRST_NS;
	s->last_heard = agent_now(&s->a);
	rb_info("agent '%s' offering %zu target(s), connecting to %s", cfg->name, cfg->ntargets,
		cfg->coordinator);
	return 0;
}

/*
 * A socket never welcomed, or not heard on for 30 s: a refused handshake is not retried
 * by libzmq. Not merely a stopped campaign's: closing that would drop what the next
 * campaign sends before the new socket connects.
 */
static bool fresh_due(const struct session *s, int64_t now)
{
	return (!s->ever_welcomed || now - s->last_heard > UNHEARD_NS) && !rb_agent_busy(&s->a) &&
	       now >= s->next.fresh;
}

/*
 * The socket closed and a fresh one connected, Hello at once and the back-off from its
 * start (the first may be dropped: the connection is not up yet). 0, or -1: none.
 */
static int fresh_socket(struct session *s, int64_t now)
{
	const struct rb_agent_cfg *cfg = s->a.cfg;

	s->ever_welcomed = false;
	rb_tx_close(s->a.sock);
	s->a.sock = dealer(s);
	if (!s->a.sock) {
		rb_err("cannot connect to '%s': %s", cfg->coordinator, strerror(errno));
		return -1;
	}
	s->next.fresh = now + FRESH_EVERY_NS + (int64_t)(s->a.epoch % FRESH_JITTER_NS);
	s->next.hello = now;
	s->next.backoff = HELLO_BACKOFF_MIN_NS;
	return 0;
}

static void hello(struct session *s, int64_t now)
{
	uint64_t j;

	rb_preflight_hello(&s->a, s->a.epoch);
	/* jittered back-off: 0.5x .. 1.5x, doubling up to 1 s (RB_HELLO_GAP_MAX_NS) */
	if (getrandom(&j, sizeof(j), 0) != sizeof(j))
		j = (uint64_t)now;
	s->next.hello = now + s->next.backoff / 2 + (int64_t)(j % (uint64_t)s->next.backoff);
	s->next.backoff = s->next.backoff * 2 < HELLO_BACKOFF_MAX_NS ? s->next.backoff * 2
								     : HELLO_BACKOFF_MAX_NS;
}

/* Liveness while the samples may be minutes apart. */
static void heartbeat(struct agent *a)
{
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_HEARTBEAT);
	m.heartbeat.epoch = a->epoch;
	m.heartbeat.point = a->pt.point;
	rb_tx_send(a->sock, NULL, &m, true);
}

/* Answered at once: the round trip bounds the offset's error. */
static void time_reply(struct agent *a, int64_t t0, int64_t recv_ns)
{
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_TIME_REPLY);
	m.time.t0 = t0;
	m.time.t1 = recv_ns;
	m.time.t2 = agent_now(a);
	rb_tx_send(a->sock, NULL, &m, true);
}

static void welcome(struct session *s, const char *run, const char *campaign)
{
	if (!*run) {
		/* a service with no run knows this agent now; its Hellos go on as its
		 * liveness until a run welcomes it */
		if (!s->idle_said)
			rb_info("registered with the coordinator's service (no run yet)");
		s->idle_said = true;
		s->ever_welcomed = true;
		return;
	}
	if (!run_id_ok(run)) {
		/* it names a file in the state folder: never a path */
		rb_err("refused the coordinator's welcome: its run id is not a plain name (no "
		       "'/', '..', leading '.' or '-', or control characters)");
		return;
	}
	if (!s->welcomed)
		rb_info("registered with the coordinator (campaign '%s')", campaign);
	s->idle_said = false;
	s->welcomed = true;
	s->ever_welcomed = true;
	rb_delivery_for_run(&s->a, run);
}

/* One message from the coordinator, if one comes within the turn's wait, handled. */
static void receive(struct session *s)
{
	struct agent *a = &s->a;
	struct rb_msg *env = NULL;
	char err[512];
	int r = rb_tx_recv(a->sock, rb_agent_busy(a) ? RECV_BUSY_MS : RECV_IDLE_MS, NULL, &env, err,
			   sizeof(err));
	int64_t recv_ns = agent_now(a);

	if (r != 0) {
		if (r != -EAGAIN && r != -EINTR) {
			rb_err("bad message from the coordinator: %s", err);
			if (r == -EPROTONOSUPPORT) {
				char msg[600];

				snprintf(msg, sizeof(msg), "agent '%s': %s", a->cfg->name, err);
				send_error(a, -r, msg);
			}
		}
		return;
	}
	s->last_heard = recv_ns;
	a->coord_minor = env->minor; /* the same major: another is refused above */
	switch (env->kind) {
	case RB_MSG_WELCOME:
		welcome(s, env->welcome.run, env->welcome.campaign);
		break;
	case RB_MSG_ACK:
		rb_delivery_on_ack(a, env->ack.epoch, env->ack.seq);
		break;
	case RB_MSG_PREFLIGHT:
		rb_preflight_handle(a, &env->preflight);
		break;
	case RB_MSG_TIME_PROBE:
		time_reply(a, env->time.t0, recv_ns);
		break;
	case RB_MSG_ASSIGN:
		if (rb_agent_busy(a)) {
			send_error(a, EBUSY, "a point is already running");
			break;
		}
		if (a->ran_any && env->assign.point == a->ran_point &&
		    env->assign.attempt == a->ran_attempt) {
			/* an Assign sent again: what it measured is in the spool */
			rb_warn("point %u attempt %u was run already; not again", a->ran_point,
				a->ran_attempt);
			break;
		}
		a->ran_any = true;
		a->ran_point = env->assign.point;
		a->ran_attempt = env->assign.attempt;
		a->lost_data = false;
		rb_point_start(a, &env->assign);
		break;
	case RB_MSG_CAPTURE:
		rb_point_capture(a, &env->capture);
		break;
	case RB_MSG_STOP:
		rb_point_stop(a, env->stop.reason);
		s->welcomed = false;
		s->next.backoff = HELLO_BACKOFF_MIN_NS;
		s->next.hello = agent_now(a) + HELLO_AFTER_STOP_NS;
		break;
	case RB_MSG_ERROR:
		rb_err("coordinator: %s", env->error.message);
		break;
	default:
		rb_debug("ignoring %s message", rb_msg_name(env));
		break;
	}
	rb_msg_free(env);
}

int rb_agent_serve(const struct rb_agent_cfg *cfg)
{
	struct session s = { .a = { .cfg = cfg,
				    .clock = cfg->clock ? cfg->clock : &rb_clock_real,
				    .dlv.spool = { .fd = -1 } },
			     .next = { .backoff = HELLO_BACKOFF_MIN_NS } };
	struct agent *a = &s.a;
	int r = session_start(&s);

	if (r)
		return r;
	while (!rb_stop_flag) {
		int64_t now = agent_now(a);

		if (fresh_due(&s, now) && fresh_socket(&s, now))
			return RB_EXIT_FAILED;
		if (!rb_agent_busy(a) && now >= s.next.hello)
			hello(&s, now);
		receive(&s);
		if (now >= s.next.sync) {
			rb_delivery_sync(a);
			s.next.sync = now + SYNC_EVERY_NS;
		}
		if (s.welcomed && a->dlv.seq > a->dlv.spool.acked &&
		    now - a->dlv.last_ack_progress > RESEND_AFTER_NS) {
			rb_delivery_resend_unacked(a);
			a->dlv.last_ack_progress = now;
		}
		if (rb_agent_busy(a) && now >= s.next.beat) {
			heartbeat(a);
			s.next.beat = now + BEAT_EVERY_NS;
		}
		if (rb_point_measuring(a) && agent_now(a) >= a->pt.next_health)
			rb_point_health(a);
		/* the turn's samples as one batch; a finished point's or purge's results */
		rb_point_poll(a);
	}
	rb_point_end(a);
	rb_delivery_close(a);
	rb_info("agent '%s' exiting", cfg->name);
	rb_tx_close(a->sock);
	rb_tx_context_term();
	return RB_EXIT_OK;
}
