// SPDX-License-Identifier: MIT
#include "options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

static const char *const rw_choices[] = { "read",   "write",	  "randread",	 "randwrite",
					  "rw",	    "randrw",	  "trim",	 "randtrim",
					  "replay", "checkpoint", "writezeroes", "randwritezeroes",
					  NULL };
static const char *const trim_choices[] = { "auto", "uring_cmd", "ioctl", NULL };
static const char *const zns_choices[] = { "off", "write", "append", "reset", "finish", NULL };
static const char *const completion_choices[] = { "auto", "wait", "spin", "poll", NULL };
static const char *const model_choices[] = { "none",	    "llama3-8b", "llama3-70b",
					     "llama3-405b", "llama3-1t", NULL };
static const char *const format_choices[] = { "auto",	 "iolog",    "blkparse", "msr",
					      "alibaba", "blktrace", NULL };
static const char *const remap_choices[] = { "modulo", "refuse", NULL };
static const char *const engine_choices[] = { "uring", "null", "nop", "uring_cmd", NULL };
static const char *const bool_choices[] = { "false", "true", NULL };
static const char *const memory_choices[] = { "host", "gpu", NULL };
static const char *const region_choices[] = { "split", "whole", NULL };

#define F(field) offsetof(struct rb_workload, field), sizeof(((struct rb_workload *)0)->field)

const struct rb_opt rb_workload_opts[] = {
	{ "rw", RB_OPT_ENUM, F(rw), 0, 11, "randread", rw_choices, "PATTERN",
	  "IO pattern: read, write, randread, randwrite, rw (sequential mix), randrw, trim, "
	  "randtrim (a discard: on a block device its discard command, NVMe's Deallocate; on "
	  "a file a punched hole), replay (the IOs of a block trace: 'replay'), checkpoint (an "
	  "AI training job's checkpoints on a drive's filesystem: 'checkpoints'), "
	  "writezeroes, randwritezeroes (the range zeroed: NVMe's Write Zeroes, not a discard)",
	  NULL },
	{ "bs", RB_OPT_SIZE, F(bs), 512, RB_MAX_BS, "4k", NULL, "SIZE",
	  "block size (binary units: 4k = 4096)", NULL },
	{ "iodepth", RB_OPT_UINT, F(iodepth), 1, 4096, "1", NULL, "N", "IOs in flight per job",
	  NULL },
	{ "numjobs", RB_OPT_UINT, F(numjobs), 1, 1024, "1", NULL, "N",
	  "job threads per target, each with its own io_uring", NULL },
	{ "runtime", RB_OPT_DURATION, F(runtime_ns), 1000000ULL, 31ULL * 86400 * 1000000000ULL,
	  "10s", NULL, "DURATION", "measured time, after the ramp (ns, us, ms, s, m, h, d)", NULL },
	{ "ramp", RB_OPT_DURATION, F(ramp_ns), 0, 86400ULL * 1000000000ULL, "0s", NULL, "DURATION",
	  "time run before measuring starts, excluded from results", NULL },
	{ "rwmixread", RB_OPT_UINT, F(rwmixread), 0, 100, "50", NULL, "PCT",
	  "percent of reads in rw and randrw", NULL },
	{ "direct", RB_OPT_BOOL, F(direct), 0, 1, "true", bool_choices, "BOOL",
	  "O_DIRECT (false: buffered IO, recorded in the results)", NULL },
	{ "invalidate", RB_OPT_BOOL, F(invalidate), 0, 1, "true", bool_choices, "BOOL",
	  "buffered IO (direct: false): drop the range's page cache before the first pass and "
	  "each one after, as fio does (its invalidate=1; a block device's buffers flushed and "
	  "dropped), and advise the kernel of random or sequential access; false: passes after "
	  "the first read the page cache, not the drive",
	  NULL },
	{ "size", RB_OPT_SIZE, F(size), 0, UINT64_MAX, "0", NULL, "SIZE",
	  "bytes of the target to use from the offset (0: all; files are created this size)",
	  NULL },
	{ "offset", RB_OPT_SIZE, F(offset), 0, UINT64_MAX, "0", NULL, "SIZE",
	  "start of the range used within the target", NULL },
	{ "size_pct", RB_OPT_UINT, F(size_pct), 0, 100, "0", NULL, "PCT",
	  "percent of the target from offset to use (25: the 25% section vdbench reviews test "
	  "on); 0: size, or all of it",
	  NULL },
	{ "rate_iops", RB_OPT_UINT, F(rate_iops), 0, UINT64_MAX, "0", NULL, "IOPS",
	  "IOPS limit, total across numjobs (fio's rate_iops is per job), evenly spaced; 0: none",
	  NULL },
	{ "seed", RB_OPT_UINT, F(seed), 0, UINT64_MAX, "1", NULL, "N",
	  "seed of every random choice (offsets, mix)", NULL },
	{ "engine", RB_OPT_ENUM, F(engine), 0, 3, "uring", engine_choices, "ENGINE",
	  "uring (io_uring, through the block layer); uring_cmd (NVMe commands through "
	  "io_uring passthrough on the namespace's /dev/ngXnY); null (no IO, no system call: "
	  "the engine's own cost); nop (IORING_OP_NOP through the same ring, submit and reap "
	  "path: the io_uring limit)",
	  NULL },
	{ "interval", RB_OPT_DURATION, F(interval_ns), 10000000ULL, 3600ULL * 1000000000ULL, "1s",
	  NULL, "DURATION", "sample interval", NULL },
	{ "bssplit", RB_OPT_TEXT, F(bssplit), 0, 0, "", NULL, "SPLIT",
	  "block sizes with weights, any number, fractional: 4k/10:64k/50.5:128k/39.5 "
	  "(replaces bs)",
	  rb_check_bssplit },
	{ "random_distribution", RB_OPT_TEXT, F(random_distribution), 0, 0, "uniform", NULL, "DIST",
	  "offsets of random IO: uniform, zipf:THETA, pareto:H, normal:STDDEV_PCT, "
	  "zoned:IO%/RANGE%:...",
	  rb_check_distribution },
	{ "visit_once", RB_OPT_BOOL, F(visit_once), 0, 1, "false", bool_choices, "BOOL",
	  "random IO visits every block exactly once per pass (uniform only)", NULL },
	{ "io_size", RB_OPT_SIZE, F(io_size), 0, UINT64_MAX, "0", NULL, "SIZE",
	  "bytes per target to transfer, then stop (runtime does not cut it short); 0: time-based",
	  NULL },
	{ "passes", RB_OPT_UINT, F(passes), 0, 1000, "0", NULL, "N",
	  "passes over the range per target, then stop (2: write the drive twice); 0: time-based",
	  NULL },
	{ "job_region", RB_OPT_ENUM, F(job_region), 0, 1, "split", region_choices, "HOW",
	  "how a target's numjobs share it: split (the range's passes or io_size divided "
	  "between them, a slice each for sequential jobs, visit_once and verifying writers); "
	  "whole (every job the whole range and its own passes or io_size over it: fio's "
	  "numjobs, numjobs 4 and size 8m move 32 MiB)",
	  NULL },
	{ "power_state", RB_OPT_TEXT, F(power_state), 0, 0, "", NULL, "PS",
	  "the NVMe power state (0 to the drive's NPSS) the point runs in, set with Set Features "
	  "02h before it; the drive's state before is put back after it, also after a kill "
	  "(recorded in the state folder); \"\": the drive's own",
	  rb_check_power_state },
	{ "placement", RB_OPT_TEXT, F(placement), 0, 0, "", NULL, "IDS",
	  "FDP placement ids the writes carry, in turn (0,1 or 0-3; 0 to 127, 16 at most): "
	  "engine uring_cmd sets the Data Placement directive on each Write (the id indexes "
	  "the namespace's placement handles); engine uring writes to the block layer's write "
	  "stream id + 1 (Linux 6.16 on, a namespace with FDP enabled); the point is refused "
	  "where neither is there; \"\": none",
	  rb_check_placement },
	{ "zns", RB_OPT_ENUM, F(zns), 0, 4, "off", zns_choices, "HOW",
	  "writes on a zoned namespace: write (each job its own zones, in order, at iodepth 1, "
	  "after resetting them) or append (NVMe Zone Append at any iodepth; engine uring_cmd); "
	  "one pass, zone-aligned offset and size, the open-zone limits checked before the run. "
	  "Or zone management timed as a point: reset or finish (rw trim, bs the zone size: "
	  "each IO resets or finishes one zone, its time in the trim histogram; engine uring: "
	  "the kernel's BLKRESETZONE/BLKFINISHZONE, uring_cmd: NVMe Zone Management Send at "
	  "any iodepth)",
	  NULL },
	{ "trim_method", RB_OPT_ENUM, F(trim_method), 0, 2, "auto", trim_choices, "HOW",
	  "how a block device's trims go: auto (io_uring's block discard command where the "
	  "kernel has it, Linux 6.12 on, else the BLKDISCARD ioctl), uring_cmd, ioctl; the "
	  "results' trim_method says which went (a file's: punch_hole)",
	  NULL },
	{ "completion", RB_OPT_ENUM, F(completion), 0, 3, "auto", completion_choices, "HOW",
	  "how a job waits for its next due IO and for completions: wait (sleeps in the "
	  "kernel for both: no CPU while idle); spin (as fio at a set rate: waits for what is "
	  "in flight, sleeps to 1 ms before the next due IO and spins the rest, so the CPU "
	  "never idles between IOs); poll (spins, and reaps completions without sleeping "
	  "within 1 ms of an event: the lowest latency, a CPU busy); auto: spin for a point "
	  "with a rate_iops, wait otherwise. The run's uring_features name spin or poll",
	  NULL },
	{ "max_runtime", RB_OPT_DURATION, F(max_runtime_ns), 0, 31ULL * 86400 * 1000000000ULL, "0s",
	  NULL, "DURATION",
	  "a size-based point (passes, io_size) stops here if its bytes are not moved yet "
	  "(fio's runtime without time_based); 0: no limit",
	  NULL },
	{ "sqpoll", RB_OPT_BOOL, F(sqpoll), 0, 1, "false", bool_choices, "BOOL",
	  "io_uring SQPOLL: a kernel thread picks up submissions (latency starts when the IO "
	  "is made visible to it)",
	  NULL },
	{ "iopoll", RB_OPT_BOOL, F(iopoll), 0, 1, "false", bool_choices, "BOOL",
	  "io_uring IOPOLL: completions are polled, not interrupted (NVMe with poll queues: "
	  "nvme.poll_queues=N)",
	  NULL },
	{ "submit_batch", RB_OPT_UINT, F(submit_batch), 0, 4096, "0", NULL, "N",
	  "at most N IOs per submission (0: every free slot at once)", NULL },
	{ "complete_batch", RB_OPT_UINT, F(complete_batch), 1, 4096, "1", NULL, "N",
	  "wait for N completions before refilling (capped at the IOs in flight)", NULL },
	{ "cpus", RB_OPT_TEXT, F(cpus), 0, 0, "", NULL, "LIST",
	  "pin job i to the i-th CPU of a list such as 0-3,8 (round robin)", rb_check_cpus },
	{ "numa", RB_OPT_BOOL, F(numa), 0, 1, "false", bool_choices, "BOOL",
	  "pin jobs to the CPUs of the target's NUMA node (where sysfs names one)", NULL },
	{ "stripe", RB_OPT_SIZE, F(stripe), 0, 1ULL << 30, "0", NULL, "SIZE",
	  "the targets form one volume striped in units of SIZE (RAID 0), measured as one; "
	  "0: each target on its own. In a campaign: the unit of its volumes at this point "
	  "(a volume is a drive entry {volume, members, stripe})",
	  NULL },
	{ "health_interval", RB_OPT_DURATION, F(health_interval_ns), 0, 86400ULL * 1000000000ULL,
	  "10s", NULL, "DURATION",
	  "drive health (SMART, kernel IO counters) every DURATION during a campaign point, "
	  "besides before and after it; 0: before and after only",
	  NULL },
	{ "verify", RB_OPT_BOOL, F(verify), 0, 1, "false", bool_choices, "BOOL",
	  "writes carry a header (offset, generation, seed) and crc32c per 512 bytes; reads check "
	  "them (a read-only run is a verify pass: every chunk must carry one)",
	  NULL },
	{ "allow_holes", RB_OPT_BOOL, F(allow_holes), 0, 1, "false", bool_choices, "BOOL",
	  "read a file target's holes (sparse ranges) although they measure no device; without "
	  "it such a read is refused, naming the first hole",
	  NULL },
	{ "layout", RB_OPT_BOOL, F(layout), 0, 1, "false", bool_choices, "BOOL",
	  "write a file target's whole range before the run, so reads measure data (a write: "
	  "both keys of the guard for a file rackbench did not create)",
	  NULL },
	{ "replay", RB_OPT_TEXT, F(replay), 0, 0, "", NULL, "FILE",
	  "rw replay: the block trace to replay, a file on the agent's host; one job per target "
	  "issues its IOs in order (a trace that writes or trims needs both keys of the guard)",
	  NULL },
	{ "replay_format", RB_OPT_ENUM, F(replay_format), 0, 5, "auto", format_choices, "FORMAT",
	  "the trace's format: auto (told from its start), iolog (fio's, v2 or v3), blkparse "
	  "(its default text: queue events), msr (MSR Cambridge CSV), alibaba (Alibaba block "
	  "trace CSV), blktrace (the kernel's binary records: blkparse -d's merged dump, or one "
	  "CPU's file)",
	  NULL },
	{ "replay_speed", RB_OPT_TEXT, F(replay_speed), 0, 0, "1", NULL, "FACTOR",
	  "the trace's pace: 1 its own timing, 2 twice as fast, 0.5 half; 0 as fast as iodepth "
	  "allows",
	  rb_check_speed },
	{ "replay_remap", RB_OPT_ENUM, F(replay_remap), 0, 1, "modulo", remap_choices, "HOW",
	  "an IO of the trace past the target's end: modulo (its offset modulo the target's "
	  "span, on the logical block grid), refuse (an error naming the trace's line)",
	  NULL },
	{ "replay_device", RB_OPT_TEXT, F(replay_device), 0, 0, "", NULL, "DEVICE",
	  "replay one device of a trace of several: blkparse's MAJ,MIN, MSR's DiskNumber, "
	  "Alibaba's device_id, iolog's file name; empty: all of them",
	  NULL },
	{ "checkpoint_model", RB_OPT_ENUM, F(checkpoint_model), 0, 4, "none", model_choices,
	  "MODEL",
	  "rw checkpoint: the checkpoint's size from MLPerf Storage's LLaMA 3 table (binary units: "
	  "8b 105 GiB, 70b 912 GiB, 405b 5.29 TiB, 1t 18 TiB), divided by checkpoint_scale; none: "
	  "checkpoint_size",
	  NULL },
	{ "checkpoint_size", RB_OPT_SIZE, F(checkpoint_size), 0, 1ULL << 50, "0", NULL, "SIZE",
	  "rw checkpoint: one checkpoint's bytes on each drive (checkpoint_model none), divided "
	  "by checkpoint_scale",
	  NULL },
	{ "checkpoint_scale", RB_OPT_UINT, F(checkpoint_scale), 1, 1000000, "1", NULL, "N",
	  "rw checkpoint: the checkpoint (a model's or checkpoint_size) divided by N, to fit a "
	  "job's sizes onto smaller drives or times (recorded with the point's settings)",
	  NULL },
	{ "checkpoints", RB_OPT_UINT, F(checkpoints), 1, 10000, "5", NULL, "K",
	  "rw checkpoint: checkpoints written in a row, each by numjobs writers per drive (its "
	  "shards: a model and an optimizer file per writer, fsync'd), all starting together",
	  NULL },
	{ "checkpoint_pause", RB_OPT_DURATION, F(checkpoint_pause_ns), 0, 86400ULL * 1000000000ULL,
	  "0s", NULL, "DURATION", "rw checkpoint: idle time between two checkpoints", NULL },
	{ "checkpoint_restore", RB_OPT_BOOL, F(checkpoint_restore), 0, 1, "true", bool_choices,
	  "BOOL",
	  "rw checkpoint: after the writes, read each kept checkpoint back (its page cache dropped "
	  "first), timed the same way",
	  NULL },
	{ "memory", RB_OPT_ENUM, F(memory), 0, 1, "host", memory_choices, "WHERE",
	  "the IO buffers: host, or gpu -- GPU memory, with GPUDirect Storage (cuFile) where "
	  "its driver opens, else copied to and from host buffers; NVIDIA's CUDA runtime "
	  "(libcudart) is loaded at run time, and a host without it refuses the point",
	  NULL },
	{ "checkpoint_keep", RB_OPT_UINT, F(checkpoint_keep), 0, 10000, "0", NULL, "N",
	  "rw checkpoint: checkpoints kept on the filesystem; the oldest is deleted before one "
	  "more would be written; 0: all",
	  NULL },
};
const size_t rb_workload_nopts = sizeof(rb_workload_opts) / sizeof(rb_workload_opts[0]);
/* an Assign carries every key of the table (coordinator/run/orders.c) */
_Static_assert(sizeof(rb_workload_opts) / sizeof(rb_workload_opts[0]) <= RB_WORKLOAD_MAX_OPTS,
	       "more workload keys than an Assign carries");

const struct rb_opt *rb_opt_find(const char *key)
{
	for (size_t i = 0; i < rb_workload_nopts; i++)
		if (strcmp(rb_workload_opts[i].key, key) == 0)
			return &rb_workload_opts[i];
	return NULL;
}

static void store(struct rb_workload *wl, const struct rb_opt *o, uint64_t v)
{
	char *p = (char *)wl + o->offset;

	if (o->type == RB_OPT_TEXT)
		return;

	if (o->width == 4) {
		uint32_t x = (uint32_t)v;

		memcpy(p, &x, 4);
	} else {
		memcpy(p, &v, 8);
	}
}

uint64_t rb_opt_get(const struct rb_workload *wl, const struct rb_opt *o)
{
	const char *p = (const char *)wl + o->offset;

	if (o->type == RB_OPT_TEXT)
		return 0;

	if (o->width == 4) {
		uint32_t x;

		memcpy(&x, p, 4);
		return x;
	}
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

void rb_workload_defaults(struct rb_workload *wl)
{
	char err[256];

	memset(wl, 0, sizeof(*wl));
	for (size_t i = 0; i < rb_workload_nopts; i++)
		rb_opt_set(wl, &rb_workload_opts[i], rb_workload_opts[i].def, err, sizeof(err));
}

static void range_text(const struct rb_opt *o, char *buf, size_t len)
{
	char a[32], b[32];

	switch (o->type) {
	case RB_OPT_SIZE:
		if (o->max == UINT64_MAX)
			snprintf(buf, len, "at least %s", rb_fmt_size(o->min, a, sizeof(a)));
		else
			snprintf(buf, len, "%s to %s", rb_fmt_size(o->min, a, sizeof(a)),
				 rb_fmt_size(o->max, b, sizeof(b)));
		break;
	case RB_OPT_DURATION:
		snprintf(buf, len, "%s to %s", rb_fmt_duration(o->min, a, sizeof(a)),
			 rb_fmt_duration(o->max, b, sizeof(b)));
		break;
	default:
		if (o->max == UINT64_MAX)
			snprintf(buf, len, "at least %" PRIu64, o->min);
		else
			snprintf(buf, len, "%" PRIu64 " to %" PRIu64, o->min, o->max);
		break;
	}
}

static void choices_text(const struct rb_opt *o, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; o->choices[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", o->choices[i]);
}

int rb_opt_set(struct rb_workload *wl, const struct rb_opt *o, const char *value, char *err,
	       size_t errlen)
{
	char rng[256];
	uint64_t v = 0;
	int r = 0;

	if (!value) {
		snprintf(err, errlen, "'%s' needs a value", o->key);
		return -EINVAL;
	}
	if (o->type == RB_OPT_TEXT) {
		if (strlen(value) >= o->width) {
			snprintf(err, errlen, "'%s' is longer than %zu characters", o->key,
				 o->width - 1);
			return -EINVAL;
		}
		if (*value && o->check && (r = o->check(value, err, errlen)))
			return r;
		memcpy((char *)wl + o->offset, value, strlen(value) + 1);
		return 0;
	}
	switch (o->type) {
	case RB_OPT_TEXT:
		return -EINVAL; /* handled above */
	case RB_OPT_ENUM:
	case RB_OPT_BOOL:
		for (v = 0; o->choices[v]; v++)
			if (strcmp(o->choices[v], value) == 0)
				break;
		if (o->type == RB_OPT_BOOL && !o->choices[v]) {
			if (!strcmp(value, "yes") || !strcmp(value, "on") || !strcmp(value, "1"))
				v = 1;
			else if (!strcmp(value, "no") || !strcmp(value, "off") ||
				 !strcmp(value, "0"))
				v = 0;
		}
		if (!o->choices[v] && !(o->type == RB_OPT_BOOL && v <= 1)) {
			choices_text(o, rng, sizeof(rng));
			snprintf(err, errlen, "'%s' must be one of %s, not '%s'", o->key, rng,
				 value);
			return -EINVAL;
		}
		store(wl, o, v);
		return 0;
	case RB_OPT_SIZE:
		r = rb_parse_size(value, &v);
		if (r) {
			snprintf(
				err, errlen,
				"'%s' must be a size such as 4k, 128k, 1m or 2g (binary units), not '%s'",
				o->key, value);
			return r;
		}
		break;
	case RB_OPT_DURATION:
		r = rb_parse_duration(value, &v);
		if (r) {
			snprintf(err, errlen,
				 "'%s' must be a duration such as 500ms, 30s, 5m or 1h, not '%s'",
				 o->key, value);
			return r;
		}
		break;
	case RB_OPT_UINT:
		r = rb_parse_u64(value, &v);
		if (r) {
			range_text(o, rng, sizeof(rng));
			snprintf(err, errlen, "'%s' must be a whole number (%s), not '%s'", o->key,
				 rng, value);
			return r;
		}
		break;
	}
	if (v < o->min || v > o->max) {
		range_text(o, rng, sizeof(rng));
		snprintf(err, errlen, "'%s' is out of range: %s, not %s", o->key, rng, value);
		return -ERANGE;
	}
	store(wl, o, v);
	return 0;
}

char *rb_opt_format(const struct rb_workload *wl, const struct rb_opt *o, char *buf, size_t len)
{
	uint64_t v = rb_opt_get(wl, o);

	switch (o->type) {
	case RB_OPT_ENUM:
	case RB_OPT_BOOL:
		snprintf(buf, len, "%s", o->choices[v]);
		return buf;
	case RB_OPT_SIZE:
		return rb_fmt_size(v, buf, len);
	case RB_OPT_DURATION:
		return rb_fmt_duration(v, buf, len);
	case RB_OPT_UINT:
		snprintf(buf, len, "%" PRIu64, v);
		return buf;
	case RB_OPT_TEXT:
		snprintf(buf, len, "%s", (const char *)wl + o->offset);
		return buf;
	}
	buf[0] = '\0';
	return buf;
}

/* What a replay asks of the other keys. 0 or -EINVAL with err. */
static int replay_check(const struct rb_workload *wl, char *err, size_t errlen)
{
	const char *why = NULL;

	if (!wl->replay[0])
		why = "'rw: replay' needs 'replay': the trace file, on the agent's host";
	else if (wl->numjobs != 1)
		why = "a replay is one job per target: 'numjobs' must be 1";
	else if (wl->verify)
		why = "'verify' does not work with a replay (the trace says what is written)";
	else if (wl->rate_iops)
		why = "a replay keeps the trace's pace: give 'replay_speed', not 'rate_iops'";
	else if (wl->io_size || wl->passes)
		why = "a replay ends with its trace: 'io_size' and 'passes' do not apply";
	if (!why)
		return 0;
	snprintf(err, errlen, "%s", why);
	return -EINVAL;
}

/* MLPerf Storage's checkpoint sizes of LLaMA 3, binary units ("GB" meaning GiB) */
static const uint64_t ckpt_bytes[RB_CKPT_NMODELS] = {
	0, 105ULL << 30, 912ULL << 30, (uint64_t)(5.29 * (1ULL << 40)), 18ULL << 40,
};

uint64_t rb_ckpt_bytes(const struct rb_workload *wl)
{
	uint64_t b = wl->checkpoint_model && wl->checkpoint_model < RB_CKPT_NMODELS
			     ? ckpt_bytes[wl->checkpoint_model]
			     : wl->checkpoint_size;

	return b / (wl->checkpoint_scale ? wl->checkpoint_scale : 1);
}

uint64_t rb_ckpt_moved(const struct rb_workload *wl)
{
	uint64_t k = wl->checkpoints,
		 kept = wl->checkpoint_keep && wl->checkpoint_keep < k ? wl->checkpoint_keep : k;

	return rb_ckpt_bytes(wl) * (k + (wl->checkpoint_restore ? kept : 0));
}

const char *rb_ckpt_model_name(uint32_t model)
{
	return model < RB_CKPT_NMODELS ? model_choices[model] : "?";
}

bool rb_workload_size_based(const struct rb_workload *wl)
{
	return wl->io_size || wl->passes || wl->rw == RB_RW_CHECKPOINT;
}

static int checkpoint_check(const struct rb_workload *wl, char *err, size_t errlen)
{
	const char *why = NULL;
	uint64_t b = rb_ckpt_bytes(wl);

	if (wl->checkpoint_model && wl->checkpoint_size)
		why = "give 'checkpoint_model' or 'checkpoint_size', not both";
	else if (!wl->checkpoint_model && !wl->checkpoint_size)
		why = "rw checkpoint needs 'checkpoint_model' or 'checkpoint_size'";
	else if (b / wl->numjobs < 2 * wl->bs)
		why = "a checkpoint must hold at least two blocks (bs) per writer (numjobs)";
	else if (wl->io_size || wl->passes || wl->rate_iops || wl->verify || wl->stripe)
		why = "a checkpoint writes its shards in full: 'io_size', 'passes', 'rate_iops', "
		      "'verify' and 'stripe' do not apply";
	else if (wl->engine != RB_ENGINE_URING)
		why = "a checkpoint runs on the uring engine";
	if (!why)
		return 0;
	snprintf(err, errlen, "%s", why);
	return -EINVAL;
}

/* zns: what a zoned namespace takes, whatever the namespace (its geometry is the agent's) */
static int zns_check(const struct rb_workload *wl, char *err, size_t errlen)
{
	const char *why = NULL;

	if (wl->job_region != RB_REGION_SPLIT)
		why = "zns gives each job its own zones: job_region must be split";
	else if (wl->memory == RB_MEMORY_GPU)
		why = "zns does not go with memory gpu (its file IO knows no zones)";
	else if (wl->zns == RB_ZNS_RESET || wl->zns == RB_ZNS_FINISH)
		why = wl->rw != RB_RW_TRIM
			      ? "zns reset and finish time zone management, one zone an IO: rw must "
				"be trim (and bs the zone size)"
		      : wl->passes != 1 || wl->verify || wl->stripe || wl->bssplit[0] || wl->ramp_ns
			      ? "zns reset and finish go over each zone once, each measured: "
				"passes: 1, without verify, stripe, bssplit or ramp"
		      : wl->engine != RB_ENGINE_URING && wl->engine != RB_ENGINE_URING_CMD
			      ? "zns reset and finish need engine uring (the kernel's zone ioctls) "
				"or uring_cmd (NVMe Zone Management Send)"
			      : NULL;
	else if (wl->rw != RB_RW_WRITE)
		why = "zns writes zones in order: rw must be write";
	else if (wl->passes != 1)
		why = "zns writes each zone once: give passes: 1 (a second pass would need the zones "
		      "reset first)";
	else if (wl->verify || wl->stripe || wl->bssplit[0])
		why = "zns does not go with verify, stripe or bssplit";
	else if (wl->zns == RB_ZNS_APPEND && wl->engine != RB_ENGINE_URING_CMD)
		why = "zns append sends NVMe Zone Append commands: it needs engine uring_cmd";
	else if (wl->zns == RB_ZNS_WRITE && wl->iodepth != 1)
		why = "zns write keeps a zone's writes in order at iodepth 1 (Zone Append, zns "
		      "append, takes any depth)";
	if (!why)
		return 0;
	snprintf(err, errlen, "%s", why);
	return -EINVAL;
}

/* placement: ids that writes of data carry, on an engine that can send them */
static int placement_check(const struct rb_workload *wl, char *err, size_t errlen)
{
	const char *why = NULL;

	if (wl->engine != RB_ENGINE_URING && wl->engine != RB_ENGINE_URING_CMD)
		why = "placement needs engine uring (write streams) or uring_cmd (the FDP "
		      "directive)";
	else if (!rb_workload_writes(wl) || rb_rw_third(wl->rw) || wl->rw == RB_RW_REPLAY ||
		 wl->rw == RB_RW_CHECKPOINT)
		why = "placement ids are carried by writes: rw must write data (write, randwrite, "
		      "or rw/randrw with writes)";
	else if (wl->zns)
		why = "placement does not go with zns: a zoned namespace places data by zone";
	else if (!wl->direct)
		why = "placement needs direct: true (the block layer carries a write stream on "
		      "direct IO; buffered writes would go unplaced)";
	if (!why)
		return 0;
	snprintf(err, errlen, "%s", why);
	return -EINVAL;
}

int rb_workload_check(const struct rb_workload *wl, char *err, size_t errlen)
{
	if (wl->memory == RB_MEMORY_GPU &&
	    (wl->engine != RB_ENGINE_URING || wl->verify || wl->rw == RB_RW_CHECKPOINT)) {
		snprintf(err, errlen,
			 "memory gpu runs on the uring engine, without verify, and "
			 "not for checkpoints");
		return -EINVAL;
	}
	if (wl->rw == RB_RW_CHECKPOINT && checkpoint_check(wl, err, errlen))
		return -EINVAL;
	if (wl->rw == RB_RW_REPLAY && replay_check(wl, err, errlen))
		return -EINVAL;
	if (wl->visit_once && strcmp(wl->random_distribution, "uniform") &&
	    *wl->random_distribution) {
		snprintf(err, errlen, "'visit_once' works with the uniform distribution only");
		return -EINVAL;
	}
	if (wl->stripe % 512) {
		snprintf(err, errlen, "'stripe' must be a multiple of 512");
		return -EINVAL;
	}
	if (wl->size && wl->size_pct) {
		snprintf(err, errlen, "give 'size' or 'size_pct', not both");
		return -EINVAL;
	}
	if (wl->io_size && wl->passes) {
		snprintf(err, errlen, "give 'io_size' or 'passes', not both");
		return -EINVAL;
	}
	if (wl->zns && zns_check(wl, err, errlen))
		return -EINVAL;
	if (wl->placement[0] && placement_check(wl, err, errlen))
		return -EINVAL;
	if (wl->engine == RB_ENGINE_URING_CMD && !wl->direct) {
		snprintf(err, errlen,
			 "engine uring_cmd sends NVMe commands past the block layer: there is no "
			 "page cache to go through ('direct' must be true)");
		return -EINVAL;
	}
	if (rb_engine_needs_target(wl->engine) && wl->direct && wl->bs % 512) {
		snprintf(err, errlen, "'bs' must be a multiple of 512 bytes with direct IO");
		return -EINVAL;
	}
	if (wl->offset % wl->bs && wl->offset % 4096) {
		snprintf(err, errlen, "'offset' must be aligned to 4k or to 'bs'");
		return -EINVAL;
	}
	if (wl->size && wl->job_region == RB_REGION_SPLIT && wl->size < wl->bs * wl->numjobs) {
		snprintf(err, errlen, "'size' must hold at least one block per job (bs x numjobs)");
		return -EINVAL;
	}
	/* a chunk's header names one writer's pass: jobs writing over each other's chunks
	 * leave headers a read cannot check */
	if (wl->verify && wl->job_region == RB_REGION_WHOLE && wl->numjobs > 1 &&
	    rb_workload_writes(wl)) {
		snprintf(err, errlen,
			 "verify with several jobs writing the same range (job_region: whole) "
			 "cannot tell whose data a chunk holds: give each job its own "
			 "(job_region: split)");
		return -EINVAL;
	}
	if (wl->max_runtime_ns && !wl->passes && !wl->io_size) {
		snprintf(err, errlen,
			 "'max_runtime' limits a size-based point (passes or io_size); a timed "
			 "one ends at its runtime");
		return -EINVAL;
	}
	return 0;
}

char *rb_workload_dump(const struct rb_workload *wl, char *buf, size_t len)
{
	size_t n = 0;
	char v[RB_OPT_VALUE_MAX];

	buf[0] = '\0';
	for (size_t i = 0; i < rb_workload_nopts && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", i ? " " : "",
				      rb_workload_opts[i].key,
				      rb_opt_format(wl, &rb_workload_opts[i], v, sizeof(v)));
	return buf;
}

char *rb_opt_describe(const struct rb_opt *o, char *buf, size_t len)
{
	char rng[256];

	if (o->choices)
		choices_text(o, rng, sizeof(rng));
	else if (o->type == RB_OPT_TEXT)
		snprintf(rng, sizeof(rng), "text");
	else
		range_text(o, rng, sizeof(rng));
	snprintf(buf, len, "default %s; %s", *o->def ? o->def : "none", rng);
	return buf;
}

const char *rb_engine_name(uint32_t engine)
{
	return engine <= RB_ENGINE_URING_CMD ? engine_choices[engine] : "?";
}

const char *rb_rw_name(enum rb_rw rw)
{
	return rw <= RB_RW_RANDWRITEZEROES ? rw_choices[rw] : "?";
}

bool rb_rw_writes(enum rb_rw rw)
{
	/* a trim destroys data as a write does: the guard treats it as one; a replay may */
	return rw == RB_RW_WRITE || rw == RB_RW_RANDWRITE || rw == RB_RW_RW || rw == RB_RW_RANDRW ||
	       rw == RB_RW_TRIM || rw == RB_RW_RANDTRIM || rw == RB_RW_REPLAY ||
	       rw == RB_RW_CHECKPOINT || rb_rw_third(rw);
}

bool rb_rw_reads(enum rb_rw rw)
{
	return rw != RB_RW_WRITE && rw != RB_RW_RANDWRITE && !rb_rw_third(rw);
}

bool rb_rw_random(enum rb_rw rw)
{
	return rw == RB_RW_RANDREAD || rw == RB_RW_RANDWRITE || rw == RB_RW_RANDRW ||
	       rw == RB_RW_RANDTRIM || rw == RB_RW_RANDWRITEZEROES;
}

int rb_check_power_state(const char *value, char *err, size_t errlen)
{
	char *end;
	unsigned long v;

	if (!*value)
		return 0;
	v = strtoul(value, &end, 10);
	if (*end || value[0] == '-' || value[0] == '+' || v > 31 || end == value) {
		snprintf(err, errlen, "'%s' is no NVMe power state: give 0 to 31", value);
		return -EINVAL;
	}
	return 0;
}

int rb_parse_placement(const char *text, uint16_t *ret, size_t *ret_n)
{
	unsigned v[RB_PLACEMENT_MAX];
	size_t n;

	if (rb_parse_cpus(text, v, RB_PLACEMENT_MAX, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (v[i] > RB_PLACEMENT_MAX_ID)
			return -EINVAL;
		ret[i] = (uint16_t)v[i];
	}
	*ret_n = n;
	return 0;
}

int rb_check_placement(const char *value, char *err, size_t errlen)
{
	uint16_t ids[RB_PLACEMENT_MAX];
	size_t n;

	if (*value && rb_parse_placement(value, ids, &n)) {
		snprintf(err, errlen,
			 "'placement' must be placement ids such as 0,1 or 0-3 (0 to %d, %d at "
			 "most), not '%s'",
			 RB_PLACEMENT_MAX_ID, RB_PLACEMENT_MAX, value);
		return -EINVAL;
	}
	return 0;
}

bool rb_rw_third(enum rb_rw rw)
{
	return rw == RB_RW_TRIM || rw == RB_RW_RANDTRIM || rw == RB_RW_WRITEZEROES ||
	       rw == RB_RW_RANDWRITEZEROES;
}

int rb_parse_cpus(const char *text, unsigned *ret, size_t max, size_t *ret_n)
{
	char buf[256], *save = NULL, *tok;
	size_t n = 0;

	if (strlen(text) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", text);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t a, b;
		char *dash = strchr(tok, '-');

		if (dash)
			*dash = '\0';
		if (rb_parse_u64(tok, &a) || (dash && rb_parse_u64(dash + 1, &b)))
			return -EINVAL;
		if (!dash)
			b = a;
		if (b < a || b >= 4096)
			return -EINVAL;
		for (uint64_t c = a; c <= b; c++) {
			if (n == max)
				return -E2BIG;
			ret[n++] = (unsigned)c;
		}
	}
	if (!n)
		return -EINVAL;
	*ret_n = n;
	return 0;
}

int rb_check_cpus(const char *value, char *err, size_t errlen)
{
	unsigned v[4096];
	size_t n;

	if (rb_parse_cpus(value, v, 4096, &n)) {
		snprintf(err, errlen, "'cpus' must be a CPU list such as 0-3,8, not '%s'", value);
		return -EINVAL;
	}
	return 0;
}

int rb_parse_speed(const char *text, double *ret)
{
	char *end;
	double v;

	if (!*text || strspn(text, "0123456789.") != strlen(text))
		return -EINVAL;
	errno = 0;
	v = strtod(text, &end);
	if (errno || *end || !(v >= 0) || v > 1e6)
		return -EINVAL;
	*ret = v;
	return 0;
}

int rb_check_speed(const char *value, char *err, size_t errlen)
{
	double v;

	if (rb_parse_speed(value, &v)) {
		snprintf(err, errlen,
			 "'replay_speed' must be a factor such as 1, 2 or 0.5 (0: as fast as it "
			 "goes), not '%s'",
			 value);
		return -EINVAL;
	}
	return 0;
}

uint64_t rb_workload_pct_of(uint64_t avail, uint64_t pct)
{
	return (uint64_t)((unsigned __int128)avail * pct / 100);
}

bool rb_workload_writes(const struct rb_workload *wl)
{
	if (!rb_engine_needs_target(wl->engine))
		return false;
	if (wl->rw == RB_RW_RW || wl->rw == RB_RW_RANDRW)
		return wl->rwmixread < 100;
	return rb_rw_writes(wl->rw);
}
