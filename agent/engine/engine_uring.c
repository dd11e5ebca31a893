// SPDX-License-Identifier: MIT
/* io_uring backend: one ring per job, registered buffers and files. */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#include "engine.h"
#include "engine_ops.h"

/* io_uring's block discard command (Linux 6.12, linux/blkdev.h): not in Debian 12's
 * headers. The start goes in the SQE's addr, the length in addr3. */
#ifndef BLOCK_URING_CMD_DISCARD
#define BLOCK_URING_CMD_DISCARD _IO(0x12, 0)
#endif

/* How the third kind of IO goes on this target. */
enum third { T_PUNCH, T_ZERO_RANGE, T_URING_CMD, T_IOCTL };

struct uring_priv {
	struct io_uring ring;
	bool fixed_bufs;
	bool fixed_file;
	bool ring_fd_registered;
	unsigned queued;
	enum third third;
	/* the BLKDISCARD ioctl's trims, done as they were queued: returned by the next reap */
	struct rb_io **local;
	int *local_res;
	unsigned nlocal;
};

/*
 * Whether the kernel takes io_uring's block discard command on fd (a block device that
 * discards): a discard of no bytes, which the command refuses as a range (-EINVAL) once
 * it exists, and a kernel or device without it refuses as unsupported (-EOPNOTSUPP).
 */
static bool discard_cmd_works(struct io_uring *ring, int fd)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int res;

	if (!sqe)
		return false;
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = BLOCK_URING_CMD_DISCARD;
	sqe->addr = 0;
	sqe->addr3 = 0;
	io_uring_sqe_set_data(sqe, NULL);
	if (io_uring_submit(ring) != 1 || io_uring_wait_cqe(ring, &cqe))
		return false;
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res == -EINVAL;
}

/* The way this target's third kind of IO goes, said in c->trim_method; 0 or -errno. */
static int third_way(struct rb_engine_ctx *c, struct uring_priv *p, char *err, size_t errlen)
{
	static const char *const names[] = { "punch_hole", "zero_range", "uring_cmd", "ioctl" };

	if (c->zeroes)
		p->third = T_ZERO_RANGE;
	else if (!c->blockdev)
		p->third = T_PUNCH;
	else if (c->trim_want != RB_TRIM_IOCTL && discard_cmd_works(&p->ring, c->fds[0]))
		p->third = T_URING_CMD;
	else if (c->trim_want == RB_TRIM_URING_CMD) {
		snprintf(err, errlen,
			 "trim_method uring_cmd: this kernel or device takes no io_uring discard "
			 "command (Linux 6.12 and a device that discards); auto falls back to the "
			 "BLKDISCARD ioctl");
		return -EOPNOTSUPP;
	} else {
		p->third = T_IOCTL;
	}
	/* write-zeroes on a block device is Write Zeroes (fallocate's zero range, which the
	 * block layer sends as such); on a file, the range zeroed in place */
	snprintf(c->trim_method, sizeof(c->trim_method), "%s",
		 c->zeroes && c->blockdev ? "write_zeroes" : names[p->third]);
	if (p->third == T_IOCTL) {
		p->local = calloc(c->entries + 1, sizeof(*p->local));
		p->local_res = calloc(c->entries + 1, sizeof(*p->local_res));
		if (!p->local || !p->local_res)
			return -ENOMEM;
	}
	return 0;
}

static int u_setup(struct rb_engine_ctx *c, char *err, size_t errlen)
{
	struct uring_priv *p = calloc(1, sizeof(*p));
	struct iovec *iov;
	int r;

	if (!p)
		return -ENOMEM;
	/*
	 * One thread submits and reaps: completion work runs when that thread enters
	 * the ring (SINGLE_ISSUER, DEFER_TASKRUN), never interrupting it; fio 3.33 sets
	 * the same. Fall back on kernels that lack the flags.
	 */
	static const unsigned tries[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_COOP_TASKRUN,
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
		0,
	};
	unsigned used = 0;

	unsigned extra =
		(c->sqpoll ? IORING_SETUP_SQPOLL : 0) | (c->iopoll ? IORING_SETUP_IOPOLL : 0);
	struct io_uring_params par;

	r = -EINVAL;
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		/* DEFER_TASKRUN does not go with SQPOLL: the kernel thread is the issuer */
		used = (c->sqpoll ? tries[i] & ~(IORING_SETUP_SINGLE_ISSUER |
						 IORING_SETUP_DEFER_TASKRUN)
				  : tries[i]) |
		       extra;
		memset(&par, 0, sizeof(par));
		par.flags = used;
		par.sq_thread_idle = 1000; /* ms */
		r = io_uring_queue_init_params(c->entries < 2 ? 2 : c->entries, &p->ring, &par);
		if (r != -EINVAL)
			break;
	}
	if (r == -EINVAL && extra) {
		snprintf(err, errlen, "the kernel refused io_uring %s%s",
			 c->sqpoll ? "SQPOLL " : "", c->iopoll ? "IOPOLL" : "");
		free(p);
		return r;
	}
	if (r < 0) {
		if (r == -EPERM || r == -ENOSYS)
			snprintf(
				err, errlen,
				"io_uring is not available here (%s): the kernel has it disabled "
				"(sysctl kernel.io_uring_disabled) or a seccomp profile blocks it, "
				"as container runtimes do by default",
				strerror(-r));
		else
			snprintf(err, errlen, "cannot set up an io_uring of %u entries: %s",
				 c->entries, strerror(-r));
		free(p);
		return r;
	}
	iov = calloc(c->depth, sizeof(*iov));
	if (iov) {
		for (unsigned i = 0; i < c->depth; i++) {
			iov[i].iov_base = c->bufs + (size_t)i * c->bs;
			iov[i].iov_len = c->bs;
		}
		p->fixed_bufs = io_uring_register_buffers(&p->ring, iov, c->depth) == 0;
		free(iov);
	}
	/*
	 * Registered files (a volume's members at their fd_index): no file lookup and
	 * reference per IO. They are unregistered explicitly at teardown, which releases
	 * them before the call returns -- left to the ring's own teardown they would be
	 * released some 100 ms later (with DEFER_TASKRUN), keeping an O_EXCL-claimed device
	 * busy after the run (a mkfs right after `run` failed).
	 */
	p->fixed_file = c->fds[0] >= 0 &&
			io_uring_register_files(&p->ring, c->fds, c->nfds ? c->nfds : 1) == 0;
	/* the ring's own descriptor registered: no file lookup at every io_uring_enter */
	p->ring_fd_registered = io_uring_register_ring_fd(&p->ring) == 1;
	snprintf(c->features, sizeof(c->features), "%s%s%s%s%s%s%s",
		 p->ring_fd_registered ? "registered_ring " : "",
		 used & IORING_SETUP_SQPOLL ? "sqpoll " : "",
		 used & IORING_SETUP_IOPOLL ? "iopoll " : "", p->fixed_bufs ? "fixed_buffers " : "",
		 p->fixed_file ? "fixed_files " : "",
		 used & IORING_SETUP_DEFER_TASKRUN ? "defer_taskrun " : "",
		 used & IORING_SETUP_COOP_TASKRUN ? "coop_taskrun" : "");
	c->priv = p;
	return third_way(c, p, err, errlen);
}

static void u_teardown(struct rb_engine_ctx *c)
{
	struct uring_priv *p = c->priv;

	if (!p)
		return;
	free(p->local);
	free(p->local_res);
	if (p->fixed_bufs)
		io_uring_unregister_buffers(&p->ring);
	if (p->fixed_file)
		io_uring_unregister_files(&p->ring);
	io_uring_queue_exit(&p->ring);
	free(p);
	c->priv = NULL;
}

static void u_prep(struct rb_engine_ctx *c, struct rb_io *io)
{
	struct uring_priv *p = c->priv;
	struct io_uring_sqe *sqe;
	int fd = p->fixed_file ? (int)io->fd_index : c->fds[io->fd_index];

	if (io->dir == RB_DIR_TRIM && p->third == T_IOCTL) {
		/* the ioctl blocks: done now, its completion handed back by the next reap */
		uint64_t range[2] = { io->offset, io->len };

		p->local[p->nlocal] = io;
		p->local_res[p->nlocal++] =
			ioctl(c->fds[io->fd_index], BLKDISCARD, range) ? -errno : (int)io->len;
		return;
	}
	/* a resubmitted remainder of a short IO may not start on the slot's boundary;
	 * fixed buffers accept any range inside the registered one */
	sqe = io_uring_get_sqe(&p->ring);
	if (io->dir == RB_DIR_TRIM && p->third == T_URING_CMD) {
		/* a real discard (NVMe Deallocate), not a write of zeroes */
		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
		sqe->cmd_op = BLOCK_URING_CMD_DISCARD;
		sqe->addr = io->offset;
		sqe->addr3 = io->len;
	} else if (io->dir == RB_DIR_TRIM) {
		/* a file's discard is a punched hole; write-zeroes zeroes the range (on a
		 * block device fallocate's zero range is its Write Zeroes); the size kept */
		io_uring_prep_fallocate(
			sqe, fd,
			(p->third == T_ZERO_RANGE ? FALLOC_FL_ZERO_RANGE : FALLOC_FL_PUNCH_HOLE) |
				FALLOC_FL_KEEP_SIZE,
			io->offset, io->len);
	} else if (p->fixed_bufs) {
		if (io->dir == RB_DIR_READ)
			io_uring_prep_read_fixed(sqe, fd, io->buf, io->len, io->offset,
						 (int)io->slot);
		else
			io_uring_prep_write_fixed(sqe, fd, io->buf, io->len, io->offset,
						  (int)io->slot);
	} else if (io->dir == RB_DIR_READ) {
		io_uring_prep_read(sqe, fd, io->buf, io->len, io->offset);
	} else {
		io_uring_prep_write(sqe, fd, io->buf, io->len, io->offset);
	}
	if (p->fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, io);
	p->queued++;
}

static int u_submit_reap(struct rb_engine_ctx *c, uint64_t wait_ns, unsigned wait_nr,
			 struct rb_io **done, int *res, unsigned max)
{
	struct uring_priv *p = c->priv;
	struct io_uring_cqe *cqe;
	unsigned n = 0, head;
	int r;

	/* the ioctl's trims are done already: nothing to wait for while they are there */
	if (p->nlocal)
		wait_ns = 0;
	if (wait_ns == UINT64_MAX) {
		/*
		 * No deadline: submit, then wait without a timer to arm. Two enters, as
		 * fio does (bench/engine_vs_fio.py compares the two tools as they are).
		 */
		if (p->queued) {
			r = io_uring_submit(&p->ring);
			if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
				return r;
		}
		r = io_uring_wait_cqe_nr(&p->ring, &cqe, wait_nr ? wait_nr : 1);
		if (r < 0 && r != -EINTR && r != -EAGAIN)
			return r;
	} else if (wait_ns) {
		struct __kernel_timespec ts = { .tv_sec = (long long)(wait_ns / 1000000000ULL),
						.tv_nsec = (long long)(wait_ns % 1000000000ULL) };

		/* submit and wait in one io_uring_enter */
		r = io_uring_submit_and_wait_timeout(&p->ring, &cqe, 1, &ts, NULL);
		if (r < 0 && r != -ETIME && r != -EINTR && r != -EAGAIN && r != -EBUSY)
			return r;
	} else {
		/* no wait: submit, and enter for what has completed (with DEFER_TASKRUN the
		 * kernel posts completions only when the ring's task enters) */
		r = io_uring_submit_and_get_events(&p->ring);
		if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
			return r;
	}
	p->queued = 0;
	/* the ioctl's trims first: they are done */
	while (p->nlocal && n < max) {
		p->nlocal--;
		done[n] = p->local[p->nlocal];
		res[n] = p->local_res[p->nlocal];
		n++;
	}
	io_uring_for_each_cqe(&p->ring, head, cqe)
	{
		if (n == max)
			break;
		done[n] = io_uring_cqe_get_data(cqe);
		res[n] = cqe->res;
		n++;
	}
	io_uring_cq_advance(&p->ring, n);
	return (int)n;
}

/*
 * NOP: the same ring, set-up, submission and reaping as for real IO, each IO an
 * IORING_OP_NOP that the kernel completes at once. What is left is io_uring's own cost
 * and the engine's: the ceiling a real engine's cost per IO is compared with (fio's
 * t/io_uring -N1 measures the same). A NOP completes with 0: counted as the whole IO.
 */
static void nop_prep(struct rb_engine_ctx *c, struct rb_io *io)
{
	struct uring_priv *p = c->priv;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);

	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data(sqe, io);
	p->queued++;
}

static int nop_submit_reap(struct rb_engine_ctx *c, uint64_t wait_ns, unsigned wait_nr,
			   struct rb_io **done, int *res, unsigned max)
{
	int n = u_submit_reap(c, wait_ns, wait_nr, done, res, max);

	for (int i = 0; i < n; i++)
		if (res[i] == 0)
			res[i] = (int)done[i]->len;
	return n;
}

const struct rb_engine_ops rb_engine_nop = {
	.name = "nop",
	.setup = u_setup,
	.teardown = u_teardown,
	.prep = nop_prep,
	.submit_reap = nop_submit_reap,
};

const struct rb_engine_ops rb_engine_uring = {
	.name = "uring",
	.setup = u_setup,
	.teardown = u_teardown,
	.prep = u_prep,
	.submit_reap = u_submit_reap,
};

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
