// SPDX-License-Identifier: MIT
/* io_uring backend: one ring per job, registered buffers and files. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/blkzoned.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <limits.h>
#include <stddef.h>
#include <linux/nvme_ioctl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine.h"
#include "engine_ops.h"

/* io_uring's block discard command (Linux 6.12, linux/blkdev.h): not in Debian 12's
 * headers. The start goes in the SQE's addr, the length in addr3. */
#ifndef BLOCK_URING_CMD_DISCARD
#define BLOCK_URING_CMD_DISCARD _IO(0x12, 0)
#endif

/* How the third kind of IO goes on this target. */
enum third { T_PUNCH, T_ZERO_RANGE, T_URING_CMD, T_IOCTL, T_NVME, T_ZONE };

/* A local IO not yet run: a blocking ioctl the next reap runs. */
#define LOCAL_PENDING INT_MIN

/* NVM command set opcodes (NVMe NVM Command Set Specification, figure 2) */
enum { NVME_OP_WRITE = 0x01, NVME_OP_READ = 0x02, NVME_OP_WRITE_ZEROES = 0x08, NVME_OP_DSM = 0x09 };
/* Zoned Namespace command set (NVMe ZNS specification, figure 29) */
enum { NVME_OP_ZONE_APPEND = 0x7d, NVME_OP_ZONE_MGMT_SEND = 0x79 };

/* A namespace as passthrough addresses it: its generic device, id and block size. */
struct pt_ns {
	int fd;
	uint32_t nsid;
	unsigned lba_shift;
	uint64_t max_bytes;  /* the largest transfer one command may carry */
	uint64_t zone_bytes; /* a zoned namespace's zone size (Zone Append); 0 none */
};

/* Dataset Management's range (figure 3 of its section): 16 bytes, little-endian. */
struct dsm_range {
	uint32_t cattr, nlb;
	uint64_t slba;
};

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
	/* passthrough: a namespace per member, their generic devices registered */
	struct pt_ns *ns;
	unsigned nns;
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
	static const char *const names[] = { "punch_hole", "zero_range", "uring_cmd",
					     "ioctl",	   "nvme_dsm",	 "zone" };

	if (c->zone_op && !c->passthru && !c->blockdev) {
		snprintf(err, errlen, "zns reset and finish need a zoned block device");
		return -EINVAL;
	}
	if (c->zone_op)
		p->third = c->passthru ? T_NVME : T_ZONE; /* a command, or the kernel's ioctl */
	else if (c->passthru)
		p->third = T_NVME;
	else if (c->zeroes)
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
		 c->zone_op == RB_ZONE_RESET		     ? "zone_reset"
		 : c->zone_op == RB_ZONE_FINISH		     ? "zone_finish"
		 : c->zeroes && (c->blockdev || c->passthru) ? "write_zeroes"
							     : names[p->third]);
	/* passthrough completes a misaligned IO here, as the ioctls do theirs */
	if (p->third == T_IOCTL || p->third == T_NVME || p->third == T_ZONE) {
		p->local = calloc(c->entries + 1, sizeof(*p->local));
		p->local_res = calloc(c->entries + 1, sizeof(*p->local_res));
		if (!p->local || !p->local_res)
			return -ENOMEM;
	}
	return 0;
}

/* A number of the block device's queue in sysfs (queue/NAME); 0 when absent. */
static uint64_t queue_num(dev_t rdev, const char *name)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/%s", major(rdev), minor(rdev),
		 name);
	f = fopen(path, "re");
	if (f && fscanf(f, "%llu", &v) != 1)
		v = 0;
	if (f)
		fclose(f);
	return v;
}

/*
 * The generic device of the namespace open at fd, found through sysfs: the block
 * device's node sits in its controller's folder (.../nvme/nvme0/nvme0n1) beside the
 * generic one (.../nvme0/ng0n1), whose dev file names the character device. The node
 * in /dev is opened and checked to be that device. 0 or negative errno, said in err.
 */
static int pt_open_one(int fd, struct pt_ns *ns, char *err, size_t errlen)
{
	char sys[PATH_MAX], real[PATH_MAX], ng[64], dev[64], *ctrl, tail;
	unsigned inst, maj, min, lbs = 0;
	struct stat st, gst;
	int id;
	FILE *f;

	if (fstat(fd, &st) || !S_ISBLK(st.st_mode)) {
		snprintf(err, errlen,
			 "engine uring_cmd: the target is not a block device (an "
			 "NVMe namespace, /dev/nvmeXnY or its /dev/ngXnY)");
		return -EINVAL;
	}
	id = ioctl(fd, NVME_IOCTL_ID);
	if (id <= 0) {
		snprintf(err, errlen, "engine uring_cmd: the target is not an NVMe namespace");
		return -ENOTTY;
	}
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (!realpath(sys, real) || !(ctrl = strrchr(real, '/'))) {
		snprintf(err, errlen, "engine uring_cmd: cannot find %s in sysfs", sys);
		return -ENOENT;
	}
	*ctrl = '\0';
	ctrl = strrchr(real, '/');
	if (!ctrl || sscanf(ctrl, "/nvme%u%c", &inst, &tail) != 1) {
		snprintf(err, errlen,
			 "engine uring_cmd: the namespace is a multipath node (%s): name the "
			 "path's own /dev/ngXnY",
			 real);
		return -EINVAL;
	}
	snprintf(ng, sizeof(ng), "ng%un%d", inst, id);
	snprintf(sys, sizeof(sys), "%s/%s/dev", real, ng);
	f = fopen(sys, "re");
	if (!f || fscanf(f, "%u:%u", &maj, &min) != 2) {
		if (f)
			fclose(f);
		snprintf(err, errlen,
			 "engine uring_cmd: the namespace has no generic device %s (Linux 5.13 "
			 "and later make one per namespace)",
			 ng);
		return -ENODEV;
	}
	fclose(f);
	snprintf(dev, sizeof(dev), "/dev/%s", ng);
	ns->fd = open(dev, O_RDWR | O_CLOEXEC);
	if (ns->fd < 0) {
		int e = errno;

		snprintf(err, errlen,
			 "engine uring_cmd: cannot open %s: %s (passthrough needs read and write "
			 "permission on the generic device; kernels before 6.2 also need "
			 "CAP_SYS_ADMIN, whatever its mode says)",
			 dev, strerror(e));
		return -e;
	}
	if (fstat(ns->fd, &gst) || !S_ISCHR(gst.st_mode) || major(gst.st_rdev) != maj ||
	    minor(gst.st_rdev) != min) {
		snprintf(err, errlen, "engine uring_cmd: %s is not the device sysfs names (%u:%u)",
			 dev, maj, min);
		return -EINVAL;
	}
	if (ioctl(fd, BLKSSZGET, &lbs) || !lbs || lbs & (lbs - 1)) {
		snprintf(err, errlen, "engine uring_cmd: cannot read the namespace's block size");
		return -EINVAL;
	}
	ns->nsid = (uint32_t)id;
	ns->lba_shift = (unsigned)__builtin_ctz(lbs);
	ns->max_bytes = queue_num(st.st_rdev, "max_hw_sectors_kb") << 10;
	ns->zone_bytes = queue_num(st.st_rdev, "chunk_sectors") * 512;
	return 0;
}

/* Every member's generic device, and the one-command limit checked against bs. */
static int pt_open(struct rb_engine_ctx *c, struct uring_priv *p, int *fds, char *err,
		   size_t errlen)
{
	unsigned n = c->nfds ? c->nfds : 1;

	p->ns = calloc(n, sizeof(*p->ns));
	if (!p->ns)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		p->ns[i].fd = -1;
	p->nns = n;
	for (unsigned i = 0; i < n; i++) {
		int r = pt_open_one(c->fds[i], &p->ns[i], err, errlen);

		if (r)
			return r;
		if (p->ns[i].max_bytes && c->bs > p->ns[i].max_bytes && !c->nodata) {
			snprintf(
				err, errlen,
				"engine uring_cmd sends each IO as one NVMe command: bs %llu is "
				"beyond the namespace's largest transfer, %llu bytes "
				"(max_hw_sectors_kb); the block path splits it, passthrough does not",
				(unsigned long long)c->bs, (unsigned long long)p->ns[i].max_bytes);
			return -EINVAL;
		}
		fds[i] = p->ns[i].fd;
	}
	return 0;
}

static void pt_close(struct uring_priv *p)
{
	for (unsigned i = 0; i < p->nns; i++)
		if (p->ns[i].fd >= 0)
			close(p->ns[i].fd);
	free(p->ns);
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

	/* passthrough: an NVMe command (64 bytes) in each entry, its result (16) in each
	 * completion */
	unsigned extra = (c->sqpoll ? IORING_SETUP_SQPOLL : 0) |
			 (c->iopoll ? IORING_SETUP_IOPOLL : 0) |
			 (c->passthru ? IORING_SETUP_SQE128 | IORING_SETUP_CQE32 : 0);
	struct io_uring_params par;
	int *ngfds = NULL;

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
		snprintf(err, errlen, "the kernel refused io_uring %s%s%s",
			 c->sqpoll ? "SQPOLL " : "", c->iopoll ? "IOPOLL " : "",
			 c->passthru ? "128-byte entries (NVMe passthrough: Linux 5.19 and later)"
				     : "");
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
	c->priv = p;
	if (c->passthru) {
		ngfds = calloc(c->nfds ? c->nfds : 1, sizeof(*ngfds));
		r = ngfds ? pt_open(c, p, ngfds, err, errlen) : -ENOMEM;
		if (r) {
			free(ngfds);
			c->priv = NULL;
			pt_close(p);
			if (p->fixed_bufs)
				io_uring_unregister_buffers(&p->ring);
			io_uring_queue_exit(&p->ring);
			free(p);
			return r;
		}
	}
	p->fixed_file = c->fds[0] >= 0 && io_uring_register_files(&p->ring, ngfds ? ngfds : c->fds,
								  c->nfds ? c->nfds : 1) == 0;
	free(ngfds);
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
	pt_close(p);
	free(p);
	c->priv = NULL;
}

_Static_assert(sizeof(struct io_uring_sqe) == 64 &&
		       offsetof(struct io_uring_sqe, splice_fd_in) == RB_SQE_WRITE_STREAM_OFFSET,
	       "the write stream byte is the first of the entry's splice_fd_in union");

static void u_prep(struct rb_engine_ctx *c, struct rb_io *io)
{
	struct uring_priv *p = c->priv;
	struct io_uring_sqe *sqe;
	int fd = p->fixed_file ? (int)io->fd_index : c->fds[io->fd_index];

	if (io->dir == RB_DIR_TRIM && (p->third == T_ZONE || p->third == T_IOCTL)) {
		/* a blocking ioctl: run by the reap, after the engine stamped its submission */
		p->local[p->nlocal] = io;
		p->local_res[p->nlocal++] = LOCAL_PENDING;
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
	/* after the prep, which zeroes the union the byte lies in */
	if (io->dir == RB_DIR_WRITE && c->nplacement)
		((uint8_t *)sqe)[RB_SQE_WRITE_STREAM_OFFSET] =
			(uint8_t)(c->placement[c->place_turn++ % c->nplacement] + 1);
	if (p->fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, io);
	p->queued++;
}

/* The blocking ioctl of a queued local IO: a zone reset or finish, or a discard. */
static int local_ioctl(struct rb_engine_ctx *c, const struct rb_io *io)
{
	int fd = c->fds[io->fd_index];

	if (c->zone_op) {
		/* a zone's size in sectors; the kernel checks the alignment */
		struct blk_zone_range range = { .sector = io->offset >> 9,
						.nr_sectors = io->len >> 9 };

		return ioctl(fd, c->zone_op == RB_ZONE_RESET ? BLKRESETZONE : BLKFINISHZONE, &range)
			       ? -errno
			       : (int)io->len;
	}
	uint64_t range[2] = { io->offset, io->len };

	return ioctl(fd, BLKDISCARD, range) ? -errno : (int)io->len;
}

static int u_submit_reap(struct rb_engine_ctx *c, uint64_t wait_ns, unsigned wait_nr,
			 struct rb_io **done, int *res, unsigned max)
{
	struct uring_priv *p = c->priv;
	struct io_uring_cqe *cqe;
	unsigned n = 0, head;
	int r;

	/* the ioctls are this call's to run: nothing to wait for while they are there */
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
	/* the blocking ones: one ioctl a call, so that each IO's time is its own ioctl's (and
	 * the wait of those queued before it), not the batch's; then the ones done already */
	for (bool ran = false; p->nlocal && n < max;) {
		struct rb_io *io = p->local[p->nlocal - 1];
		int *rv = &p->local_res[p->nlocal - 1];

		if (*rv == LOCAL_PENDING) {
			if (ran)
				break;
			*rv = local_ioctl(c, io);
			ran = true;
		}
		p->nlocal--;
		done[n] = io;
		res[n++] = *rv;
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

/*
 * Passthrough: the IO as one NVMe command in the entry's 80-byte command area. A read or
 * write carries its buffer (registered: no page pinning per IO); the third kind is Write
 * Zeroes, or Dataset Management deallocating one range, which the IO's own buffer holds.
 * An IO off the namespace's block size never reaches the drive: it completes -EINVAL.
 */
static void pt_prep(struct rb_engine_ctx *c, struct rb_io *io)
{
	struct uring_priv *p = c->priv;
	const struct pt_ns *ns = &p->ns[io->fd_index];
	uint64_t mask = (1ULL << ns->lba_shift) - 1, slba = io->offset >> ns->lba_shift;
	uint32_t nlb = io->len >> ns->lba_shift;
	struct nvme_uring_cmd cmd = { .nsid = ns->nsid,
				      .cdw10 = (uint32_t)slba,
				      .cdw11 = (uint32_t)(slba >> 32),
				      .cdw12 = nlb - 1 /* a count from 0 */ };
	struct io_uring_sqe *sqe;

	/* a count of blocks from 0 in 16 bits, but Dataset Management's range has 32 */
	if ((io->offset | io->len) & mask || !nlb ||
	    (nlb > 65536 && !(io->dir == RB_DIR_TRIM && !c->zeroes))) {
		p->local[p->nlocal] = io;
		p->local_res[p->nlocal++] = -EINVAL;
		return;
	}
	/* the entry's first 64 bytes set by prep_rw, the command fills the rest */
	sqe = io_uring_get_sqe(&p->ring);
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, p->fixed_file ? (int)io->fd_index : ns->fd, NULL,
			 0, 0);
	if (p->fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
	sqe->cmd_op = NVME_URING_CMD_IO;
	if (io->dir == RB_DIR_TRIM && c->zone_op) {
		/* Zone Management Send on the zone starting at SLBA: no data, its action */
		cmd.opcode = NVME_OP_ZONE_MGMT_SEND;
		cmd.cdw12 = 0;
		cmd.cdw13 = c->zone_op;
	} else if (io->dir == RB_DIR_TRIM && c->zeroes) {
		cmd.opcode = NVME_OP_WRITE_ZEROES;
	} else if (io->dir == RB_DIR_TRIM) {
		struct dsm_range *rg = (struct dsm_range *)(void *)io->buf;

		*rg = (struct dsm_range){ .nlb = htole32(nlb), .slba = htole64(slba) };
		cmd.opcode = NVME_OP_DSM;
		cmd.addr = (uint64_t)(uintptr_t)rg;
		cmd.data_len = sizeof(*rg);
		cmd.cdw10 = 0;	    /* one range */
		cmd.cdw11 = 1 << 2; /* attribute: deallocate */
		cmd.cdw12 = 0;
	} else {
		cmd.opcode = io->dir == RB_DIR_READ ? NVME_OP_READ : NVME_OP_WRITE;
		/* a Zone Append names its zone's start; the drive places the data */
		if (io->dir == RB_DIR_WRITE && c->zone_append && ns->zone_bytes) {
			uint64_t zs = (io->offset - io->offset % ns->zone_bytes) >> ns->lba_shift;

			cmd.opcode = NVME_OP_ZONE_APPEND;
			cmd.cdw10 = (uint32_t)zs;
			cmd.cdw11 = (uint32_t)(zs >> 32);
		}
		if (io->dir == RB_DIR_WRITE && c->nplacement)
			rb_nvme_placement(&cmd.cdw12, &cmd.cdw13,
					  c->placement[c->place_turn++ % c->nplacement]);
		cmd.addr = (uint64_t)(uintptr_t)io->buf;
		cmd.data_len = io->len;
		if (p->fixed_bufs) {
			sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
			sqe->buf_index = (uint16_t)io->slot;
		}
	}
	memcpy(sqe->cmd, &cmd, sizeof(cmd));
	io_uring_sqe_set_data(sqe, io);
	p->queued++;
}

/* A command's completion: 0 done (the whole IO), an NVMe status (positive) an IO error. */
static int pt_submit_reap(struct rb_engine_ctx *c, uint64_t wait_ns, unsigned wait_nr,
			  struct rb_io **done, int *res, unsigned max)
{
	int n = u_submit_reap(c, wait_ns, wait_nr, done, res, max);

	for (int i = 0; i < n; i++)
		res[i] = res[i] == 0 ? (int)done[i]->len : res[i] > 0 ? -EIO : res[i];
	return n;
}

const struct rb_engine_ops rb_engine_uring_cmd = {
	.name = "uring_cmd",
	.setup = u_setup,
	.teardown = u_teardown,
	.prep = pt_prep,
	.submit_reap = pt_submit_reap,
};

const struct rb_engine_ops rb_engine_uring = {
	.name = "uring",
	.setup = u_setup,
	.teardown = u_teardown,
	.prep = u_prep,
	.submit_reap = u_submit_reap,
};
