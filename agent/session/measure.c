/* SPDX-License-Identifier: MIT */
/*
 * A point's measurement, one table per kind (session.h's struct measure_ops): the
 * engine's run, rw checkpoint's writers, an exec phase's commands. point.c and
 * point_result.c call the table; only the starts, which differ in what they take, name
 * a kind.
 */
#include "session.h"

#include <stdlib.h>

static bool run_poll(struct point *p, rb_sample_fn fn, void *arg)
{
	return rb_run_poll(p->run, fn, arg);
}
static void run_stop(struct point *p)
{
	rb_run_stop(p->run);
}
static void run_join(struct point *p)
{
	rb_run_join(p->run);
}
static const struct rb_target_result *run_result(const struct point *p, size_t t)
{
	return rb_run_result(p->run, t);
}
static void run_release(struct point *p)
{
	p->run = rb_run_free(p->run);
}

const struct measure_ops rb_measure_run = {
	.kind = "run",
	.poll = run_poll,
	.stop = run_stop,
	.join = run_join,
	.result = run_result,
	.release = run_release,
};

static bool ckpt_poll(struct point *p, rb_sample_fn fn, void *arg)
{
	return rb_ckpt_poll(p->ck, fn, arg);
}
static void ckpt_stop(struct point *p)
{
	rb_ckpt_stop(p->ck);
}
static void ckpt_join(struct point *p)
{
	rb_ckpt_join(p->ck);
}
static const struct rb_target_result *ckpt_result(const struct point *p, size_t t)
{
	return rb_ckpt_result(p->ck, t);
}
static void ckpt_release(struct point *p)
{
	p->ck = rb_ckpt_free(p->ck);
}

/* A checkpoint drive's rows, as its result carries them (the array returned: freed after). */
static void *ckpt_extras(const struct point *p, size_t t, struct rb_msg_result *dr)
{
	size_t n;
	const struct rb_ckpt_row *r = rb_ckpt_rows(p->ck, t, &n);
	struct rb_msg_checkpoint *v = calloc(n + 1, sizeof(*v));

	for (size_t i = 0; v && i < n; i++)
		v[i] = (struct rb_msg_checkpoint){
			.index = r[i].index,
			.direction = r[i].dir,
			.bytes = r[i].bytes,
			.start_ns = r[i].start_wall_ns,
			.duration_ns = r[i].duration_ns,
			.slowest_writer = r[i].slowest,
			.errors = r[i].errors,
			.fs_bytes = r[i].fs_bytes,
			.writer_ns = r[i].writer_ns,
			.writer_bytes = r[i].writer_bytes,
			.nwriters = r[i].nwriters,
		};
	dr->checkpoints = v;
	dr->ncheckpoints = v ? n : 0;
	return v;
}

const struct measure_ops rb_measure_ckpt = {
	.kind = "checkpoint",
	.poll = ckpt_poll,
	.stop = ckpt_stop,
	.join = ckpt_join,
	.result = ckpt_result,
	.result_extras = ckpt_extras,
	.release = ckpt_release,
};

static bool exec_poll(struct point *p, rb_sample_fn fn, void *arg)
{
	return rb_exec_poll(p->ex, fn, arg);
}
static void exec_stop(struct point *p)
{
	rb_exec_stop(p->ex);
}
static void exec_join(struct point *p)
{
	(void)p; /* its commands are reaped as they end (rb_exec_poll) */
}
static const struct rb_target_result *exec_result(const struct point *p, size_t t)
{
	return rb_exec_result(p->ex, t);
}
static void *exec_extras(const struct point *p, size_t t, struct rb_msg_result *dr)
{
	dr->exec = rb_exec_msg(p->ex, t);
	return NULL;
}
static void exec_release(struct point *p)
{
	p->ex = rb_exec_free(p->ex);
}

const struct measure_ops rb_measure_exec = {
	.kind = "exec",
	.poll = exec_poll,
	.stop = exec_stop,
	.join = exec_join,
	.result = exec_result,
	.result_extras = exec_extras,
	.release = exec_release,
	.all_dirs = true,
	.message_fails = true,
};
