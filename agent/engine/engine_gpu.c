// SPDX-License-Identifier: MIT
/*
 * The engine's buffers in GPU memory (workload 'memory: gpu', agent/engine/gpu.h): an ops table
 * beside io_uring's. With GPUDirect Storage (cuFile's driver open) every IO goes between
 * the drive and device memory through cuFileRead/cuFileWrite, synchronously in the job's
 * thread (as gdsio's GPU-direct transfers); without it IO goes through io_uring into the
 * job's host buffers, and each read is copied to device memory when it completes, each
 * write's data copied from device memory before it is queued (gdsio's CPU-to-GPU bounce):
 * the copies are inside the IO's measured time, as the application pays them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "engine_ops.h"
#include "gpu.h"

struct gpu_priv {
	const struct rb_gpu *g;
	char *dev;   /* depth * bs of device memory, the host buffers' twin */
	void *inner; /* the copy path: io_uring's own */
	rb_cufile_handle *fh;
	unsigned nfh;
	struct rb_io **q; /* GDS: queued until submit */
	unsigned nq;
};

/* Calls io_uring's op with its own priv in the context. */
#define INNER(c, p, call)                                                                          \
	do {                                                                                       \
		(c)->priv = (p)->inner;                                                            \
		call;                                                                              \
		(p)->inner = (c)->priv;                                                            \
		(c)->priv = (p);                                                                   \
	} while (0)

static size_t dev_off(const struct rb_engine_ctx *c, const struct rb_io *io)
{
	return (size_t)(io->buf - c->bufs);
}

static int gds_setup(struct rb_engine_ctx *c, struct gpu_priv *p, char *err, size_t errlen)
{
	unsigned n = c->nfds ? c->nfds : 1;

	p->fh = calloc(n, sizeof(*p->fh));
	p->q = calloc(c->entries + 1, sizeof(*p->q));
	if (!p->fh || !p->q)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		rb_cufile_descr d = { .type = 1, .handle.fd = c->fds[i] };

		if (p->g->handle_register(&p->fh[i], &d).err) {
			snprintf(err, errlen,
				 "cuFile cannot register the target for GPUDirect Storage (it "
				 "needs O_DIRECT on a filesystem or device GDS supports)");
			return -EIO;
		}
		p->nfh++;
	}
	if (p->g->buf_register(p->dev, (size_t)c->depth * c->bs, 0).err) {
		snprintf(err, errlen, "cuFile cannot register the device buffers");
		return -EIO;
	}
	snprintf(c->features, sizeof(c->features), "gpu gds");
	return 0;
}

static void g_teardown(struct rb_engine_ctx *c);

static int g_setup(struct rb_engine_ctx *c, char *err, size_t errlen)
{
	struct gpu_priv *p = calloc(1, sizeof(*p));
	size_t size = (size_t)c->depth * c->bs;
	int r;

	if (!p)
		return -ENOMEM;
	c->priv = p;
	if (!(p->g = rb_gpu_get(err, errlen))) {
		g_teardown(c);
		return -ENODEV;
	}
	if (p->g->malloc_((void **)&p->dev, size) || !p->dev) {
		snprintf(err, errlen, "cudaMalloc of %zu bytes failed", size);
		g_teardown(c);
		return -ENOMEM;
	}
	/* the data written is the host buffers' random data, now in the device's memory */
	p->g->memcpy_(p->dev, c->bufs, size, RB_CUDA_H2D);
	if (p->g->gds) {
		r = gds_setup(c, p, err, errlen);
	} else {
		INNER(c, p, r = rb_engine_uring.setup(c, err, errlen));
		if (!r) {
			size_t l = strlen(c->features);

			snprintf(c->features + l, sizeof(c->features) - l, "%sgpu copy",
				 l ? " " : "");
		}
	}
	if (r)
		g_teardown(c);
	return r;
}

static void g_teardown(struct rb_engine_ctx *c)
{
	struct gpu_priv *p = c->priv;

	if (!p)
		return;
	if (p->inner)
		INNER(c, p, rb_engine_uring.teardown(c));
	for (unsigned i = 0; i < p->nfh; i++)
		p->g->handle_deregister(p->fh[i]);
	if (p->g && p->g->gds && p->dev && p->q)
		p->g->buf_deregister(p->dev);
	if (p->dev)
		p->g->free_(p->dev);
	free(p->fh);
	free(p->q);
	free(p);
	c->priv = NULL;
}

static void g_prep(struct rb_engine_ctx *c, struct rb_io *io)
{
	struct gpu_priv *p = c->priv;

	if (p->g->gds) {
		p->q[p->nq++] = io;
		return;
	}
	/* a write's data comes from device memory, as the application's would */
	if (io->dir == RB_DIR_WRITE)
		p->g->memcpy_(io->buf, p->dev + dev_off(c, io), io->len, RB_CUDA_D2H);
	INNER(c, p, rb_engine_uring.prep(c, io));
}

/* GDS: every queued IO, one after the other; completions all at once. */
static int gds_submit(struct rb_engine_ctx *c, struct gpu_priv *p, struct rb_io **done, int *res,
		      unsigned max)
{
	unsigned n = 0;

	for (; n < p->nq && n < max; n++) {
		struct rb_io *io = p->q[n];
		rb_cufile_handle fh = p->fh[io->fd_index];
		ssize_t r;

		if (io->dir == RB_DIR_READ)
			r = p->g->read(fh, p->dev, io->len, (off_t)io->offset,
				       (off_t)dev_off(c, io));
		else if (io->dir == RB_DIR_WRITE)
			r = p->g->write(fh, p->dev, io->len, (off_t)io->offset,
					(off_t)dev_off(c, io));
		else
			r = fallocate(c->fds[io->fd_index],
				      FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)io->offset,
				      io->len) == 0
				    ? (ssize_t)io->len
				    : -errno;
		done[n] = io;
		res[n] = r < 0 ? (r == -1 ? -EIO : (int)r) : (int)r;
	}
	memmove(p->q, p->q + n, (p->nq - n) * sizeof(*p->q));
	p->nq -= n;
	return (int)n;
}

static int g_submit_reap(struct rb_engine_ctx *c, uint64_t wait_ns, unsigned wait_nr,
			 struct rb_io **done, int *res, unsigned max)
{
	struct gpu_priv *p = c->priv;
	int n;

	if (p->g->gds)
		return gds_submit(c, p, done, res, max);
	INNER(c, p, n = rb_engine_uring.submit_reap(c, wait_ns, wait_nr, done, res, max));
	/* each read, as it completes, copied into device memory */
	for (int i = 0; i < n; i++)
		if (done[i]->dir == RB_DIR_READ && res[i] > 0)
			p->g->memcpy_(p->dev + dev_off(c, done[i]), done[i]->buf, (size_t)res[i],
				      RB_CUDA_H2D);
	return n;
}

const struct rb_engine_ops rb_engine_gpu = {
	.name = "gpu",
	.setup = g_setup,
	.teardown = g_teardown,
	.prep = g_prep,
	.submit_reap = g_submit_reap,
};
