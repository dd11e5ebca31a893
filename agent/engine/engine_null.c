/* SPDX-License-Identifier: MIT */
/* The null engine: the engine's own cost per IO, with nothing below it (engine_ops.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "engine_ops.h"

/*
 * Null backend: no syscall; every queued IO completes in full at the next reap.
 * It runs the same generators and timestamps, so it measures the engine's own cost.
 */
struct null_priv {
	unsigned n;
	struct rb_io *q[];
};

static int n_setup(struct rb_engine_ctx *c, char *err, size_t errlen)
{
	struct null_priv *p = calloc(1, sizeof(*p) + c->entries * sizeof(p->q[0]));

	(void)err;
	(void)errlen;
	if (!p)
		return -ENOMEM;
	c->priv = p;
	snprintf(c->features, sizeof(c->features), "none (null engine)");
	return 0;
}

static void n_teardown(struct rb_engine_ctx *c)
{
	free(c->priv);
	c->priv = NULL;
}

static void n_prep(struct rb_engine_ctx *c, struct rb_io *io)
{
	struct null_priv *p = c->priv;

	p->q[p->n++] = io;
}

static int n_submit_reap(struct rb_engine_ctx *c, uint64_t wait_ns, unsigned wait_nr,
			 struct rb_io **done, int *res, unsigned max)
{
	(void)wait_nr;
	struct null_priv *p = c->priv;
	unsigned n = p->n < max ? p->n : max;

	(void)wait_ns;
	for (unsigned i = 0; i < n; i++) {
		done[i] = p->q[i];
		res[i] = (int)p->q[i]->len;
	}
	memmove(p->q, p->q + n, (p->n - n) * sizeof(p->q[0]));
	p->n -= n;
	return (int)n;
}

const struct rb_engine_ops rb_engine_null = {
	.name = "null",
	.setup = n_setup,
	.teardown = n_teardown,
	.prep = n_prep,
	.submit_reap = n_submit_reap,
};
