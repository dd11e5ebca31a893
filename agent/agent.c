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
#include "keys.h"
#include "log.h"
#include "transport.h"

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

/* A coordinator's run id names the spool file: a plain name that stays in its folder. */
static bool run_id_ok(const char *run)
{
	size_t n = run ? strlen(run) : 0;

	if (!n || n >= sizeof(((struct agent *)0)->run) || run[0] == '.' || run[0] == '-' ||
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

int rb_agent_serve(const struct rb_agent_cfg *cfg)
{
	struct agent a = { .cfg = cfg, .spool = { .fd = -1 } };
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t epoch = 0;
	int64_t next_hello = 0, backoff = 200000000LL;
	bool welcomed = false;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (getrandom(&epoch, sizeof(epoch), 0) != sizeof(epoch))
		epoch = (uint64_t)rb_wall_ns();
	epoch &= (1ULL << 62) - 1; /* printable in a file name, never 0 */
	epoch |= 1;
	a.epoch = epoch;
	struct rb_keypair mine = { .pub = "" }, coord = { .pub = "" };

	if (cfg->insecure) {
		rb_warn("running without keys (--insecure): connections are neither authenticated "
			"nor encrypted");
	} else {
		char err[600];

		if (rb_keys_read(cfg->key, true, &mine, err, sizeof(err)) ||
		    rb_keys_read(cfg->coordinator_key, false, &coord, err, sizeof(err))) {
			rb_err("%s", err);
			return RB_EXIT_USAGE;
		}
	}
	a.sock = cfg->insecure ? rb_tx_dealer_connect(cfg->coordinator, cfg->name)
			       : rb_tx_dealer_connect_keyed(cfg->coordinator, cfg->name, &mine,
							    coord.pub);
	if (!a.sock) {
		rb_err("cannot connect to '%s': %s", cfg->coordinator, strerror(errno));
		return RB_EXIT_USAGE;
	}
	/*
	 * libzmq gives up on a connection whose CURVE handshake was refused: while no
	 * coordinator has welcomed us, start over with a fresh socket every few seconds
	 * (a key added to the allow-list later then gets in).
	 */
	int64_t fresh_at = rb_mono_ns() + 5000000000LL, next_beat = 0;
	bool ever_welcomed = false;	/* on this socket: its handshake went through */
	int64_t last_heard = rb_mono_ns();	/* anything from the coordinator */

	rb_info("agent '%s' offering %zu target(s), connecting to %s", cfg->name, cfg->ntargets,
		cfg->coordinator);
	while (!quit) {
		Rb__Envelope *env = NULL;
		char err[512];
		int64_t now = rb_mono_ns();
		int r;

		/*
		 * A socket never welcomed, or not heard on for 30 s: a refused handshake is not
		 * retried by libzmq. Not merely a stopped campaign's: closing that would drop
		 * what the next campaign sends before the new socket connects.
		 */
		if ((!ever_welcomed || now - last_heard > 30000000000LL) && !rb_agent_busy(&a) &&
		    now >= fresh_at) {
			ever_welcomed = false;
			rb_tx_close(a.sock);
			a.sock = cfg->insecure ? rb_tx_dealer_connect(cfg->coordinator, cfg->name)
					       : rb_tx_dealer_connect_keyed(cfg->coordinator, cfg->name,
									    &mine, coord.pub);
			if (!a.sock) {
				rb_err("cannot connect to '%s': %s", cfg->coordinator, strerror(errno));
				return RB_EXIT_FAILED;
			}
			fresh_at = now + 4000000000LL + (int64_t)(epoch % 2000000000ULL);
			next_hello = now;
		}
		if (!rb_agent_busy(&a) && now >= next_hello) {
			uint64_t j;

			rb_preflight_hello(&a, epoch);
			/* jittered back-off: 0.5x .. 1.5x, doubling up to 2 s */
			if (getrandom(&j, sizeof(j), 0) != sizeof(j))
				j = (uint64_t)now;
			next_hello = now + backoff / 2 + (int64_t)(j % (uint64_t)backoff);
			if (backoff < 2000000000LL)
				backoff *= 2;
		}
		r = rb_tx_recv(a.sock, rb_agent_busy(&a) ? 20 : 100, NULL, &env, err, sizeof(err));
		int64_t recv_ns = rb_mono_ns();

		if (r == 0) {
			last_heard = recv_ns;
			switch (env->body_case) {
			case RB__ENVELOPE__BODY_WELCOME:
				if (!run_id_ok(env->welcome->run)) {
					/* it names a file in the state folder: never a path */
					rb_err("refused the coordinator's welcome: its run id is not a "
					       "plain name (no '/', '..', leading '.' or '-', or control "
					       "characters)");
					break;
				}
				if (!welcomed)
					rb_info("registered with the coordinator (campaign '%s')",
						env->welcome->campaign);
				welcomed = true;
				ever_welcomed = true;
				rb_delivery_for_run(&a, env->welcome->run);
				break;
			case RB__ENVELOPE__BODY_ACK:
				rb_delivery_on_ack(&a, env->ack->epoch, env->ack->seq);
				break;
			case RB__ENVELOPE__BODY_PREFLIGHT:
				rb_preflight_handle(&a, env->preflight);
				break;
			case RB__ENVELOPE__BODY_TIME_PROBE: {
				/* answered at once: the round trip bounds the offset's error */
				Rb__Envelope te;
				Rb__TimeReply tr = RB__TIME_REPLY__INIT;

				tr.t1 = recv_ns;
				tr.t0 = env->time_probe->t0;
				rb_wire_init(&te);
				te.body_case = RB__ENVELOPE__BODY_TIME_REPLY;
				te.time_reply = &tr;
				tr.t2 = rb_mono_ns();
				rb_tx_send(a.sock, NULL, &te, true);
				break;
			}
			case RB__ENVELOPE__BODY_ASSIGN:
				if (rb_agent_busy(&a)) {
					send_error(&a, EBUSY, "a point is already running");
					break;
				}
				if (a.ran_any && env->assign->point == a.ran_point &&
				    env->assign->attempt == a.ran_attempt) {
					/* an Assign sent again: what it measured is in the spool */
					rb_warn("point %u attempt %u was run already; not again",
						a.ran_point, a.ran_attempt);
					break;
				}
				a.ran_any = true;
				a.ran_point = env->assign->point;
				a.ran_attempt = env->assign->attempt;
				a.lost_data = false;
				rb_point_start(&a, env->assign);
				break;
			case RB__ENVELOPE__BODY_STOP:
				rb_point_stop(&a, env->stop->reason);
				welcomed = false;
				backoff = 200000000LL;
				next_hello = rb_mono_ns() + 1000000000LL;
				break;
			case RB__ENVELOPE__BODY_ERROR:
				rb_err("coordinator: %s", env->error->message);
				break;
			default:
				rb_debug("ignoring %s message", rb_wire_body_name(env));
				break;
			}
			rb_wire_free(env);
		} else if (r != -EAGAIN && r != -EINTR) {
			rb_err("bad message from the coordinator: %s", err);
			if (r == -EPROTONOSUPPORT) {
				char msg[600];

				snprintf(msg, sizeof(msg), "agent '%s': %s", cfg->name, err);
				send_error(&a, -r, msg);
			}
		}
		/* the spool on disk every second; unacknowledged data again after 2 s of silence */
		if (now >= a.next_sync) {
			rb_spool_sync(&a.spool);
			a.next_sync = now + 1000000000LL;
			/* at the cap IO stops (and says so): what was measured stays, none dropped */
			if (a.pt.run && !a.pt.spool_full && a.spool.fd >= 0 &&
			    a.spool.bytes >= cfg->spool_max_bytes) {
				rb_err("the spool '%s' reached its cap (%s bytes) with %" PRIu64
				       " message(s) unacknowledged: stopping point %u",
				       a.spool.path, cfg->spool_max ? cfg->spool_max : "4g",
				       a.spool.last - a.spool.acked, a.pt.point);
				a.pt.spool_full = true;
				rb_run_stop(a.pt.run);
			}
		}
		if (welcomed && a.seq > a.spool.acked &&
		    now - a.last_ack_progress > 2000000000LL) {
			rb_delivery_resend_unacked(&a);
			a.last_ack_progress = now;
		}
		if (rb_agent_busy(&a) && now >= next_beat) {
			/* liveness while the samples may be minutes apart */
			Rb__Envelope be;
			Rb__Heartbeat hb = RB__HEARTBEAT__INIT;

			hb.epoch = epoch;
			hb.point = a.pt.point;
			rb_wire_init(&be);
			be.body_case = RB__ENVELOPE__BODY_HEARTBEAT;
			be.heartbeat = &hb;
			rb_tx_send(a.sock, NULL, &be, true);
			next_beat = now + 1000000000LL;
		}
		if (a.pt.run && rb_mono_ns() >= a.pt.next_health)
			rb_point_health(&a);
		rb_point_poll(&a);
	}
	rb_point_end(&a);
	rb_delivery_close(&a);
	rb_info("agent '%s' exiting", cfg->name);
	rb_tx_close(a.sock);
	rb_tx_context_term();
	return RB_EXIT_OK;
}
