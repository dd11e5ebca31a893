// SPDX-License-Identifier: MIT
/*
 * The engine's replay: a run of rw replay reads its trace (agent/workload/trace.h) once to size
 * its IO slots, then each target's one job reads it again in order, each record placed
 * on the target (aligned; wrapped or refused past its end) and due at its time over the
 * speed after the start. The issue lag -- the submission instant minus the due one -- goes
 * into a histogram per job (one job a target). The hot path (engine.c) calls in here only
 * from its replay loop; the loop of every other workload never does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>

#include "engine_priv.h"
#include "trace.h"

_Static_assert((int)RB_TRACE_READ == (int)RB_DIR_READ && (int)RB_TRACE_WRITE == (int)RB_DIR_WRITE &&
		       (int)RB_TRACE_TRIM == (int)RB_DIR_TRIM,
	       "a trace's directions are the engine's");

struct rb_engine_replay {
	struct rb_trace *tr;
	struct rb_trace_rec next; /* read, not yet issued (when have) */
	uint64_t next_off, next_len;
	bool have, ended;
	uint64_t span;
	uint32_t lbs;
	int64_t *due; /* per slot: the instant its IO was due */
	uint64_t ios, last_line;
	uint64_t lag_max;
	struct rb_hist lag;
};

int rb_engine_replay_setup(struct rb_run *r, char *err, size_t errlen)
{
	const struct rb_workload *wl = &r->wl;
	struct rb_trace_summary s;
	double speed = 1;
	int e;

	if (wl->replay_speed[0] && rb_parse_speed(wl->replay_speed, &speed)) {
		snprintf(err, errlen, "'replay_speed' is not a factor: '%s'", wl->replay_speed);
		return -EINVAL;
	}
	e = rb_trace_scan(wl->replay, (int)wl->replay_format, wl->replay_device, &s, err, errlen);
	if (e)
		return e == -ENOMEM ? e : -EINVAL;
	r->replay = true;
	r->replay_speed = speed;
	/* slots hold the trace's longest IO, in whole pages (lengths round up to blocks) */
	r->max_bs = (s.max_len + 4095) / 4096 * 4096;
	r->unit = 512;
	return 0;
}

/* The target's logical block size: a block device's own, else 512 bytes. */
static uint32_t block_size(int fd)
{
	struct stat st;
	int lbs = 0;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISBLK(st.st_mode) &&
	    ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs > 0)
		return (uint32_t)lbs;
	return 512;
}

int rb_engine_replay_job(struct job *j, char *err, size_t errlen)
{
	const struct rb_workload *wl = &j->run->wl;
	struct rb_engine_replay *rp = calloc(1, sizeof(*rp));
	int e;

	if (!rp)
		return -ENOMEM;
	j->rp = rp;
	rp->due = calloc(wl->iodepth, sizeof(*rp->due));
	if (!rp->due)
		return -ENOMEM;
	rp->span = j->region_bytes;
	rp->lbs = block_size(j->t->fd);
	rb_hist_clear(&rp->lag);
	e = rb_trace_open(wl->replay, (int)wl->replay_format, wl->replay_device, &rp->tr, err,
			  errlen);
	return e == -ENOMEM ? e : e ? -EINVAL : 0;
}

int rb_engine_replay_peek(struct job *j, int64_t *ret_due)
{
	struct rb_engine_replay *rp = j->rp;
	const struct rb_run *r = j->run;
	int e;

	if (!rp->have) {
		if (rp->ended)
			return 0;
		e = rb_trace_next(rp->tr, &rp->next, j->msg, sizeof(j->msg));
		if (e <= 0) {
			rp->ended = e == 0;
			return e;
		}
		if (rb_trace_place(&rp->next, rp->span, rp->lbs, (int)r->wl.replay_remap,
				   &rp->next_off, &rp->next_len) ||
		    rp->next_len > r->max_bs) {
			snprintf(j->msg, sizeof(j->msg),
				 "%s:%llu: the IO at byte %llu (%llu bytes) has no place on the "
				 "target's %llu bytes",
				 r->wl.replay, (unsigned long long)rp->next.line,
				 (unsigned long long)rp->next.offset,
				 (unsigned long long)rp->next.len, (unsigned long long)rp->span);
			return -ERANGE;
		}
		rp->have = true;
	}
	/* at speed 0 every IO is due at once: it goes as soon as a slot is free */
	*ret_due = r->replay_speed > 0
			   ? r->start_ns + (int64_t)((double)rp->next.t_ns / r->replay_speed)
			   : INT64_MIN;
	return 1;
}

void rb_engine_replay_take(struct job *j, unsigned slot, int64_t due, uint64_t *ret_pos,
			   uint64_t *ret_len, uint32_t *ret_dir)
{
	struct rb_engine_replay *rp = j->rp;

	rp->have = false;
	rp->due[slot] = due;
	rp->ios++;
	rp->last_line = rp->next.line;
	*ret_pos = rp->next_off;
	*ret_len = rp->next_len;
	*ret_dir = rp->next.dir;
}

void rb_engine_replay_submitted(struct job *j, struct rb_io *const *q, unsigned n, int64_t ts)
{
	struct rb_engine_replay *rp = j->rp;

	if (!(j->run->replay_speed > 0))
		return;
	for (unsigned k = 0; k < n; k++) {
		int64_t d = rp->due[q[k]->slot];
		uint64_t lag = ts > d ? (uint64_t)(ts - d) : 0;

		rb_hist_record(&rp->lag, lag);
		if (lag > rp->lag_max)
			rp->lag_max = lag;
	}
}

void rb_engine_replay_collect(const struct job *j, struct rb_target_result *res)
{
	const struct rb_engine_replay *rp = j->rp;

	if (!rp)
		return;
	res->replay.ios = rp->ios;
	res->replay.last_line = rp->last_line;
	res->replay.complete = rp->ended && !rp->have;
	res->replay.timed = j->run->replay_speed > 0;
	res->replay.lag_max_ns = rp->lag_max;
	res->replay.lag = rp->lag;
}

void rb_engine_replay_free(struct job *j)
{
	if (!j->rp)
		return;
	rb_trace_free(j->rp->tr);
	free(j->rp->due);
	free(j->rp);
	j->rp = NULL;
}
