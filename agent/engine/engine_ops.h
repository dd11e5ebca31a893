/* SPDX-License-Identifier: MIT */
/* The engine seam: an ops table per IO backend (io_uring, null). Internal to the engine. */
#ifndef RB_ENGINE_OPS_H
#define RB_ENGINE_OPS_H

#include <stdbool.h>
#include <stdint.h>

struct rb_io {
	uint64_t offset; /* current (advances on a short IO) */
	uint64_t orig_offset;
	uint32_t len; /* remaining */
	uint32_t orig_len;
	uint32_t dir; /* enum rb_dir */
	uint32_t slot;
	uint32_t bs_index;   /* which size of the split */
	uint32_t fd_index;   /* which of the context's files (striped volumes) */
	uint64_t log_offset; /* offset in the volume, for reports and verify */
	/*
	 * An IO across a volume's unit boundaries goes as parts, one per unit touched (on
	 * their members, into the slot's buffer): the parts are queued, not the IO, and the
	 * IO completes -- measured once -- when its last part has.
	 */
	struct rb_io *parent; /* a part: its IO */
	struct rb_io *parts;  /* an IO: its first part (nparts of them), else NULL */
	uint32_t nparts, pending;
	bool failed; /* a part failed: the IO is an error, not measured */
	bool busy;   /* in flight */
	int64_t submit_ns;
	char *buf; /* current position in the slot's buffer */
	char *orig_buf;
};

/* Zone Management Send's actions (NVMe ZNS: CDW13 bits 7:0), the zone_op values. */
enum { RB_ZONE_FINISH = 2, RB_ZONE_RESET = 4 };

/* The most placement ids a job's writes take in turn (options.h RB_PLACEMENT_MAX). */
#define RB_ENGINE_PLACEMENT_MAX 16

/*
 * The Data Placement directive on an NVMe Write: directive type 2 in CDW12 bits 23:20,
 * its specific field (the placement id: an index into the namespace's placement handle
 * list) in CDW13 bits 31:16; the other bits (the block count in CDW12) kept.
 */
static inline void rb_nvme_placement(uint32_t *cdw12, uint32_t *cdw13, uint16_t dspec)
{
	*cdw12 = (*cdw12 & ~(0xfu << 20)) | (2u << 20);
	*cdw13 = (*cdw13 & 0xffffu) | ((uint32_t)dspec << 16);
}

/*
 * Linux 6.16's write stream of a write through the block layer: one byte of the
 * submission entry at offset 44 (struct io_uring_sqe's write_stream, beside __pad4; the
 * headers rackbench builds with are older). Stream 0 is none; a namespace with FDP
 * enabled gives its placement handles as streams 1 to queue/max_write_streams.
 */
#define RB_SQE_WRITE_STREAM_OFFSET 44

struct rb_engine_ctx {
	int fd;		/* fds[0] */
	const int *fds; /* a striped volume's members; else &fd */
	unsigned nfds;
	unsigned depth;	     /* IO slots (buffers) */
	unsigned entries;    /* submissions in flight at most: depth, or more with parts */
	bool sqpoll, iopoll; /* io_uring setup asked for */
	bool passthru;	     /* NVMe commands on the namespaces' generic devices (uring_cmd) */
	bool nodata;	     /* only the third kind of IO: no data moves (no transfer limit) */
	bool zone_append;    /* passthrough writes are Zone Appends at their zone's start */
	/* the third kind of IO is zone management, one zone an IO: 0 none, else the NVMe
	 * Zone Send Action (RB_ZONE_FINISH, RB_ZONE_RESET) */
	uint8_t zone_op;
	/* FDP placement (the key placement): the ids writes carry, in turn; none when 0 */
	uint16_t placement[RB_ENGINE_PLACEMENT_MAX];
	unsigned nplacement, place_turn;
	uint32_t completion; /* enum rb_completion resolved: wait, spin or poll */
	char *bufs;	     /* depth * bs, aligned */
	uint64_t bs;	     /* bytes per IO slot: the largest block size */
	bool blockdev;	     /* fd is a block device (a volume's members are) */
	bool zeroes;	     /* the third kind of IO is write-zeroes, not a trim */
	uint32_t trim_want;  /* enum rb_trim_method: how a block device's trims go */
	void *priv;
	char features[128];
	char trim_method[16]; /* how the third kind went: uring_cmd, ioctl, punch_hole,
			       * write_zeroes, zero_range ("" none) */
};

struct rb_engine_ops {
	const char *name;
	/* sets up for depth IOs over fd with the given buffers; 0 or negative errno */
	int (*setup)(struct rb_engine_ctx *c, char *err, size_t errlen);
	void (*teardown)(struct rb_engine_ctx *c);
	/* queues one IO; it is submitted by the next submit() */
	void (*prep)(struct rb_engine_ctx *c, struct rb_io *io);
	/*
	 * Submits everything queued and reaps up to max completions, waiting for at least
	 * wait_nr of them (at least one) for up to wait_ns (0: do not wait, but reap what has
	 * completed by now; UINT64_MAX: no limit). Fills done[] and res[] (bytes or negative
	 * errno) and returns the count, or negative errno.
	 */
	int (*submit_reap)(struct rb_engine_ctx *c, uint64_t wait_ns, unsigned wait_nr,
			   struct rb_io **done, int *res, unsigned max);
};

extern const struct rb_engine_ops rb_engine_uring;
/*
 * io_uring NVMe passthrough: each IO an NVMe command (Read, Write, Write Zeroes, Dataset
 * Management's deallocate) sent with IORING_OP_URING_CMD to the generic character device
 * (/dev/ngXnY) of the namespace the descriptor is open on, past the block layer.
 */
extern const struct rb_engine_ops rb_engine_uring_cmd;
/* IORING_OP_NOP through the same ring, submit and reap path: the io_uring limit. */
extern const struct rb_engine_ops rb_engine_nop;
struct rb_run;
/* Replaces the backend (before rb_run_start): the seam tests put a fake behind. */
void rb_run_set_ops(struct rb_run *r, const struct rb_engine_ops *ops);
extern const struct rb_engine_ops rb_engine_null;
/* io_uring's, with the buffers in GPU memory (engine_gpu.c): cuFile or copies. */
extern const struct rb_engine_ops rb_engine_gpu;

#endif
