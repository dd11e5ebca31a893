/* SPDX-License-Identifier: MIT */
/*
 * The workload option table: one declarative list of every workload setting (name,
 * type, unit, range, default, help, CLI flag, campaign key, results column). It
 * drives `rackbench-agent run` flags, the campaign's `workload:` and `matrix:` keys,
 * `--help`, the settings sent to agents, and the effective configuration stored with
 * results. Add a setting here and everything else follows.
 */
#ifndef RB_OPTIONS_H
#define RB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum rb_rw {
	RB_RW_READ,
	RB_RW_WRITE,
	RB_RW_RANDREAD,
	RB_RW_RANDWRITE,
	RB_RW_RW,
	RB_RW_RANDRW,
	RB_RW_TRIM,
	RB_RW_RANDTRIM,
	RB_RW_REPLAY, /* a block trace's IOs (agent/workload/trace.h), in order */
	RB_RW_CHECKPOINT, /* an AI training job's checkpoints: shard files (agent/workload/checkpoint.h) */
	RB_RW_WRITEZEROES,     /* the range zeroed: Write Zeroes, not a discard */
	RB_RW_RANDWRITEZEROES, /* the same at random offsets */
};
/* How a block device's trims go (the key trim_method; results say which went). */
enum rb_trim_method { RB_TRIM_AUTO, RB_TRIM_URING_CMD, RB_TRIM_IOCTL };
/* Writes to a zoned namespace (the key zns): none, in order per zone, or Zone Append; or
 * a point of zone management, each IO one zone reset or finished (rw trim, bs a zone). */
enum rb_zns { RB_ZNS_OFF, RB_ZNS_WRITE, RB_ZNS_APPEND, RB_ZNS_RESET, RB_ZNS_FINISH };
/* How a job waits for what is due and what completes (the key completion). */
enum rb_completion {
	RB_COMPLETION_AUTO,
	RB_COMPLETION_WAIT,
	RB_COMPLETION_SPIN,
	RB_COMPLETION_POLL
};
enum rb_engine_kind { RB_ENGINE_URING, RB_ENGINE_NULL, RB_ENGINE_NOP, RB_ENGINE_URING_CMD };

/* The null and NOP engines touch no target: their range is the workload's size. */
static inline bool rb_engine_needs_target(uint32_t engine)
{
	return engine == RB_ENGINE_URING || engine == RB_ENGINE_URING_CMD;
}

/* The longest text value of an option (a bssplit of 256 sizes fits), and of a dump. */
#define RB_OPT_VALUE_MAX 4096
#define RB_WORKLOAD_DUMP_MAX 8192

struct rb_workload {
	uint32_t rw; /* enum rb_rw */
	uint64_t bs; /* bytes */
	uint32_t iodepth;
	uint32_t numjobs;
	uint64_t runtime_ns;
	uint64_t ramp_ns;
	uint32_t rwmixread; /* percent of reads in rw/randrw */
	uint32_t direct;    /* bool */
	uint64_t size;	    /* bytes of the target used; 0 = all of it */
	uint64_t offset;    /* bytes */
	uint32_t size_pct;  /* percent of the target from offset; 0: size (or all) */
	uint64_t rate_iops; /* total across numjobs; 0 = unlimited */
	uint64_t seed;
	uint32_t engine;		/* enum rb_engine_kind */
	uint64_t interval_ns;		/* sample interval */
	char bssplit[RB_OPT_VALUE_MAX]; /* "" or SIZE/WEIGHT:...; replaces bs */
	char random_distribution[256];	/* uniform, zipf:T, pareto:H, normal:S, zoned:... */
	uint32_t visit_once;		/* random: every block exactly once per pass */
	uint64_t io_size;		/* bytes per target to transfer, then stop; 0: time-based */
	uint32_t passes;	 /* passes over the range per target, then stop; 0: time-based */
	uint32_t verify;	 /* writes carry headers and crc32c; reads check them */
	uint32_t sqpoll;	 /* io_uring SQPOLL: a kernel thread submits */
	uint32_t iopoll;	 /* io_uring IOPOLL: completions are polled (needs poll queues) */
	uint32_t submit_batch;	 /* at most this many IOs per submission; 0: all free */
	uint32_t complete_batch; /* wait for this many completions (capped at in flight) */
	char cpus[256];		 /* job i runs on the i-th CPU of this list; "" none */
	uint32_t numa;		 /* jobs run on the CPUs of the device's NUMA node */
	uint64_t stripe;	 /* >0: the targets form one volume striped in units of this */
	uint64_t health_interval_ns; /* health snapshots during a point; 0: before/after only */
	uint32_t allow_holes; /* reads of a file's holes are allowed (they measure no device) */
	uint32_t layout;      /* write a file's range before the run (a write: both keys) */
	char replay[RB_OPT_VALUE_MAX]; /* rw replay: the trace file, on the agent's host */
	uint32_t replay_format;	 /* auto, iolog, blkparse, msr, alibaba (agent/workload/trace.h) */
	char replay_speed[32];	 /* a factor of the trace's pace; 0: as fast as it goes */
	uint32_t replay_remap;	 /* modulo, refuse: an IO past the target's end */
	char replay_device[256]; /* the trace's device to replay; "": all of them */
	/* rw checkpoint: numjobs writers per drive each write their shards of every one */
	uint32_t checkpoint_model;    /* enum rb_ckpt_model: its size from the table; 0 none */
	uint64_t checkpoint_size;     /* bytes of one checkpoint on a drive (model none) */
	uint32_t checkpoint_scale;    /* the model's size divided by this */
	uint32_t checkpoints;	      /* written in a row */
	uint64_t checkpoint_pause_ns; /* between two of them */
	uint32_t checkpoint_restore;  /* read each kept one back, after the page cache is dropped */
	uint32_t checkpoint_keep;     /* on the filesystem at most; older ones deleted; 0: all */
	uint32_t memory;	      /* enum rb_memory: where the IO buffers are */
	uint32_t job_region;	      /* enum rb_job_region: how a target's jobs share it */
	uint64_t max_runtime_ns;      /* a size-based point stops here (fio's runtime); 0 none */
	uint32_t trim_method;	      /* enum rb_trim_method */
	uint32_t completion;	      /* enum rb_completion: how a job waits between IOs */
	uint32_t invalidate;	      /* buffered: the range's page cache dropped each pass */
	uint32_t zns;		      /* enum rb_zns: writes on a zoned namespace */
	char power_state[8];	      /* "" none, else the NVMe power state 0..31 to run in */
	char placement[64];	      /* "" none, else the placement ids writes carry in turn */
};

/* The largest block size (bs, a bssplit's sizes). */
#define RB_MAX_BS (64ULL << 20)

/* The most keys the workload table may have: an Assign carries them all. */
#define RB_WORKLOAD_MAX_OPTS 64

/* How a target's jobs share its range (the key job_region). */
enum rb_job_region {
	RB_REGION_SPLIT, /* the range and its bytes shared: a slice each where it matters */
	RB_REGION_WHOLE, /* every job the whole range and its own bytes (fio's numjobs) */
};

/* Where the engine's IO buffers are (agent/engine/gpu.h). */
enum rb_memory { RB_MEMORY_HOST, RB_MEMORY_GPU };

/* The checkpoint models (MLPerf Storage's LLaMA 3 sizes, binary units). */
enum rb_ckpt_model {
	RB_CKPT_NONE,
	RB_CKPT_LLAMA3_8B,
	RB_CKPT_LLAMA3_70B,
	RB_CKPT_LLAMA3_405B,
	RB_CKPT_LLAMA3_1T,
	RB_CKPT_NMODELS
};
/* A checkpoint's bytes on one drive for wl (the model's or checkpoint_size, / scale). */
uint64_t rb_ckpt_bytes(const struct rb_workload *wl);
/* The bytes wl's checkpoints move on one drive: every one written, the kept ones read. */
uint64_t rb_ckpt_moved(const struct rb_workload *wl);
/* The model's name ("llama3-405b"), or "none". */
const char *rb_ckpt_model_name(uint32_t model);

enum rb_opt_type {
	RB_OPT_ENUM,
	RB_OPT_SIZE,
	RB_OPT_DURATION,
	RB_OPT_UINT,
	RB_OPT_BOOL,
	RB_OPT_TEXT
};

struct rb_opt {
	const char *key; /* campaign key; the CLI flag is --key */
	enum rb_opt_type type;
	size_t offset;
	size_t width;		    /* 4 or 8 bytes */
	uint64_t min, max;	    /* inclusive, in the option's unit (bytes, ns, count) */
	const char *def;	    /* default, in the text form the parser takes */
	const char *const *choices; /* RB_OPT_ENUM: NULL-terminated */
	const char *metavar;
	const char *help;
	/* RB_OPT_TEXT: checks a value; 0 or -EINVAL with err filled */
	int (*check)(const char *value, char *err, size_t errlen);
};

/* Validators of text options, set by the module that interprets them (common/workload/gen.c). */
int rb_check_bssplit(const char *value, char *err, size_t errlen);
/* power_state: "" or a whole number 0 to 31. */
int rb_check_power_state(const char *value, char *err, size_t errlen);

/* The most placement ids a workload names, and the highest (a namespace's placement handle
 * list holds 128 at most). */
#define RB_PLACEMENT_MAX 16
#define RB_PLACEMENT_MAX_ID 127
/* placement's ids ("0,1" or "0-3"), in the order writes take them: 0, or -EINVAL. */
int rb_parse_placement(const char *text, uint16_t *ret, size_t *ret_n);
int rb_check_placement(const char *value, char *err, size_t errlen);
int rb_check_distribution(const char *value, char *err, size_t errlen);
int rb_check_cpus(const char *value, char *err, size_t errlen);
int rb_check_speed(const char *value, char *err, size_t errlen);
/* replay_speed as a number: 0 or -EINVAL (not a decimal number from 0 to 1000000). */
int rb_parse_speed(const char *text, double *ret);
/* Parses a CPU list "0-3,8" into ret (at most max). 0, -EINVAL or -E2BIG. */
int rb_parse_cpus(const char *text, unsigned *ret, size_t max, size_t *ret_n);

extern const struct rb_opt rb_workload_opts[];
extern const size_t rb_workload_nopts;

/* The option named key, or NULL. */
const struct rb_opt *rb_opt_find(const char *key);
/* Sets every option to its default. */
void rb_workload_defaults(struct rb_workload *wl);
/*
 * Parses value with the option's type and range and stores it. On error returns
 * -EINVAL (or -ERANGE) and writes a message naming what was expected into err.
 */
int rb_opt_set(struct rb_workload *wl, const struct rb_opt *o, const char *value, char *err,
	       size_t errlen);
/* The option's value in the text form the parser takes back ("4k", "2s", "randread"). */
char *rb_opt_format(const struct rb_workload *wl, const struct rb_opt *o, char *buf, size_t len);
/* Raw numeric value of an option (enum index, bytes, ns, count). */
uint64_t rb_opt_get(const struct rb_workload *wl, const struct rb_opt *o);
/* Checks relations between options (offset aligned to bs, ...). 0 or -EINVAL with err. */
int rb_workload_check(const struct rb_workload *wl, char *err, size_t errlen);
/* "key=value key=value ..." of every option: the effective configuration. */
char *rb_workload_dump(const struct rb_workload *wl, char *buf, size_t len);
/* "default 4k; 512 to 64m": an option's default and range, for --help. */
char *rb_opt_describe(const struct rb_opt *o, char *buf, size_t len);

/*
 * Whether the workload writes at all (a mix with rwmixread=100 and the null engine do not).
 * A replay may: only the agent sees its trace, and scans it before the run.
 */
bool rb_workload_writes(const struct rb_workload *wl);
/* size_pct's bytes of avail (the target from offset): avail x pct / 100, not rounded first */
uint64_t rb_workload_pct_of(uint64_t avail, uint64_t pct);
/* The point ends by what it moves (io_size, passes, checkpoints), not by its runtime. */
bool rb_workload_size_based(const struct rb_workload *wl);
const char *rb_rw_name(enum rb_rw rw);
/* "uring", "null", "nop" or "uring_cmd". */
const char *rb_engine_name(uint32_t engine);
bool rb_rw_writes(enum rb_rw rw);
bool rb_rw_reads(enum rb_rw rw);
bool rb_rw_random(enum rb_rw rw);
/* Whether rw issues the third kind of IO (the results' trim direction): trims, or
 * write-zeroes, which the engine sends as the pattern says. */
bool rb_rw_third(enum rb_rw rw);

#endif
