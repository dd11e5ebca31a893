// SPDX-License-Identifier: MIT
/*
 * The racks asked together (fleet.h): one REQ socket a rack over its admin endpoint, every
 * request sent at once, the replies taken as they come until the deadline; and `fleet
 * status` and `fleet abort` from them. A rack that is down, cut off or refusing this
 * client's key answers nothing: it is named when the deadline passes.
 */
#include "fleet.h"
#include "fleet_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "diag.h"
#include "exitcode.h"
#include "log.h"
#include "serve.h"
#include "transport.h"

size_t rb_fleet_ask(const struct rb_fleet *f, const struct rb_keypair *me, const char *req,
		    int deadline_ms, struct rb_fleet_reply *ret)
{
	return fleet_ask_each(f, me, NULL, req, deadline_ms, ret);
}

size_t fleet_ask_each(const struct rb_fleet *f, const struct rb_keypair *me,
		      const char *const *reqs, const char *req, int deadline_ms,
		      struct rb_fleet_reply *ret)
{
	void **socks = calloc(f->nracks + 1, sizeof(*socks));
	void **live = calloc(f->nracks + 1, sizeof(*live));
	size_t *which = calloc(f->nracks + 1, sizeof(*which));
	unsigned char *ready = calloc(f->nracks + 1, 1);
	int64_t end = rb_mono_ns() + (int64_t)deadline_ms * 1000000;
	size_t answered = 0, waiting = 0;

	for (size_t i = 0; i < f->nracks; i++)
		ret[i] = (struct rb_fleet_reply){ .text = NULL, .err = -EAGAIN };
	if (!socks || !live || !which || !ready) {
		for (size_t i = 0; i < f->nracks; i++)
			ret[i].err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < f->nracks; i++) {
		const char *q = reqs ? reqs[i] : req;

		if (!q) {
			ret[i].err = -ENOENT; /* nothing to ask this rack */
			continue;
		}
		socks[i] =
			rb_tx_admin_connect(f->racks[i].endpoint, me, f->racks[i].pub, deadline_ms);
		if (!socks[i]) {
			ret[i].err = -errno;
			continue;
		}
		ret[i].err = rb_tx_text_send(socks[i], q, strlen(q));
	}
	for (;;) {
		int64_t left = (end - rb_mono_ns()) / 1000000;

		waiting = 0;
		for (size_t i = 0; i < f->nracks; i++)
			if (socks[i] && ret[i].err == -EAGAIN && !ret[i].text) {
				live[waiting] = socks[i];
				which[waiting++] = i;
			} else if (socks[i] && ret[i].err == 0 && !ret[i].text) {
				ret[i].err = -EAGAIN; /* sent: now waiting for its reply */
				live[waiting] = socks[i];
				which[waiting++] = i;
			}
		if (!waiting || left <= 0)
			break;
		if (rb_tx_poll_many(live, waiting, (int)left, ready) < 0)
			continue;
		for (size_t w = 0; w < waiting; w++) {
			size_t i = which[w], len;

			if (!ready[w])
				continue;
			ret[i].err = rb_tx_text_recv(socks[i], 0, &ret[i].text, &len);
			if (!ret[i].err)
				answered++;
			else if (ret[i].err == -EAGAIN)
				ret[i].err = -EIO; /* ready, yet nothing: no longer waited for */
		}
	}
out:
	for (size_t i = 0; socks && i < f->nracks; i++)
		rb_tx_close(socks[i]);
	free(socks);
	free(live);
	free(which);
	free(ready);
	return answered;
}

void rb_fleet_replies_free(struct rb_fleet_reply *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		free(r[i].text);
	free(r);
}

/* A rack's failure to answer, in words. */
const char *fleet_why_not(int err, int deadline_ms, char *buf, size_t len)
{
	if (err == -EAGAIN)
		snprintf(buf, len,
			 "no answer within %.1f s (down, cut off, or not holding this key on its "
			 "admin list)",
			 deadline_ms / 1e3);
	else
		snprintf(buf, len, "%s", strerror(-err));
	return buf;
}

int fleet_need(const struct rb_fleet_args *a, bool id)
{
	if (!a->fleet) {
		rb_err("which fleet: --fleet FLEET.yaml");
		return RB_EXIT_USAGE;
	}
	if (id && (!a->id || !*a->id || strlen(a->id) >= RB_RUN_ID_MAX || strpbrk(a->id, "\n\t"))) {
		rb_err("a fleet run id is a word of at most %d characters", RB_RUN_ID_MAX - 1);
		return RB_EXIT_USAGE;
	}
	return 0;
}

int fleet_setup(const struct rb_fleet_args *a, struct rb_fleet **ret_f, struct rb_keypair *me,
		int *deadline_ms)
{
	struct rb_diags d;
	char err[600];
	int r;

	if (!a->key) {
		rb_err("the fleet client needs its key pair: --key FILE (on each service's "
		       "--admin-keys list)");
		return RB_EXIT_USAGE;
	}
	if (rb_keys_read(a->key, true, me, err, sizeof(err))) {
		rb_err("%s", err);
		return RB_EXIT_USAGE;
	}
	rb_diags_init(&d);
	r = rb_fleet_load_file(a->fleet, ret_f, &d);
	if (r)
		rb_diags_print(&d, stderr);
	rb_diags_release(&d);
	if (r)
		return RB_EXIT_USAGE;
	*deadline_ms = a->deadline_ns ? (int)(a->deadline_ns / 1000000) : 5000;
	if (*deadline_ms < 1)
		*deadline_ms = 1;
	return 0;
}

struct rb_fleet_reply *fleet_ask_all(const struct rb_fleet *f, const struct rb_keypair *me,
				     const char *req, int deadline_ms)
{
	struct rb_fleet_reply *rep = calloc(f->nracks + 1, sizeof(*rep));

	if (!rep) {
		rb_err("out of memory");
		return NULL;
	}
	rb_fleet_ask(f, me, req, deadline_ms, rep);
	return rep;
}

int rb_fleet_status(const struct rb_fleet_args *a)
{
	struct rb_fleet *f = NULL;
	struct rb_keypair me;
	struct rb_fleet_reply *rep;
	char *req = NULL, why[256];
	int deadline_ms, rc = fleet_need(a, true);
	size_t lost = 0;

	if (rc || (rc = fleet_setup(a, &f, &me, &deadline_ms)))
		return rc;
	if (asprintf(&req, "status\nfleet=%s\n", a->id) < 0 ||
	    !(rep = fleet_ask_all(f, &me, req, deadline_ms))) {
		free(req);
		rb_fleet_free(f);
		return RB_EXIT_FAILED;
	}
	printf("%-16s %-10s %-24s %-9s %-6s %s\n", "rack", "state", "run", "point", "exit",
	       "results");
	for (size_t i = 0; i < f->nracks; i++) {
		char st[32] = "?", id[RB_RUN_ID_MAX] = "-", pt[16] = "", pts[16] = "", ex[16] = "-";
		char res[4096] = "-", point[40] = "-";
		const char *t = rep[i].text;

		if (!t) {
			printf("%-16s %-10s %s\n", f->racks[i].name, "UNREACHABLE",
			       fleet_why_not(rep[i].err, deadline_ms, why, sizeof(why)));
			lost++;
			continue;
		}
		if (strncmp(t, "ok\n", 3)) {
			printf("%-16s %-10s %.*s\n", f->racks[i].name, "NONE",
			       (int)strcspn(t + 6, "\n"), strlen(t) > 6 ? t + 6 : t);
			lost++;
			continue;
		}
		rb_control_field(t, "state", st, sizeof(st));
		rb_control_field(t, "id", id, sizeof(id));
		rb_control_field(t, "results", res, sizeof(res));
		if (rb_control_field(t, "point", pt, sizeof(pt)) &&
		    rb_control_field(t, "points", pts, sizeof(pts)))
			snprintf(point, sizeof(point), "%ld/%s", strtol(pt, NULL, 10) + 1, pts);
		if (rb_control_field(t, "exit", ex, sizeof(ex)))
			rc = rb_exit_worse(rc, (int)strtol(ex, NULL, 10));
		printf("%-16s %-10s %-24s %-9s %-6s %s\n", f->racks[i].name, st, id, point, ex,
		       *res ? res : "-");
	}
	if (lost) {
		rb_err("fleet run %s: %zu of %zu rack(s) without an answer or a shard: INCOMPLETE",
		       a->id, lost, f->nracks);
		rc = rb_exit_worse(rc, RB_EXIT_PARTIAL);
	}
	free(req);
	rb_fleet_replies_free(rep, f->nracks);
	rb_fleet_free(f);
	return rc;
}

int rb_fleet_abort(const struct rb_fleet_args *a)
{
	struct rb_fleet *f = NULL;
	struct rb_keypair me;
	struct rb_fleet_reply *rep;
	char *req = NULL, why[256];
	int deadline_ms, rc = fleet_need(a, true);
	size_t missed = 0;

	if (rc || (rc = fleet_setup(a, &f, &me, &deadline_ms)))
		return rc;
	if (asprintf(&req, "abort\nfleet=%s\n", a->id) < 0 ||
	    !(rep = fleet_ask_all(f, &me, req, deadline_ms))) {
		free(req);
		rb_fleet_free(f);
		return RB_EXIT_FAILED;
	}
	for (size_t i = 0; i < f->nracks; i++) {
		const char *t = rep[i].text;
		char id[RB_RUN_ID_MAX] = "?", dq[8];

		if (!t) {
			printf("%-16s UNREACHABLE: %s\n", f->racks[i].name,
			       fleet_why_not(rep[i].err, deadline_ms, why, sizeof(why)));
			missed++;
		} else if (!strncmp(t, "ok\n", 3)) {
			rb_control_field(t, "id", id, sizeof(id));
			printf("%-16s run %s %s\n", f->racks[i].name, id,
			       rb_control_field(t, "dequeued", dq, sizeof(dq))
				       ? "taken out of the queue"
				       : "abort requested");
		} else {
			printf("%-16s %.*s\n", f->racks[i].name, (int)strcspn(t + 6, "\n"),
			       strlen(t) > 6 ? t + 6 : t);
		}
	}
	if (missed) {
		rb_err("fleet run %s: %zu rack(s) could not be asked to abort", a->id, missed);
		rc = RB_EXIT_PARTIAL;
	}
	free(req);
	rb_fleet_replies_free(rep, f->nracks);
	rb_fleet_free(f);
	return rc;
}
