// SPDX-License-Identifier: MIT
/*
 * fio's options as rackbench workload keys: one table (keys[]) that a job file's options
 * and fio's flags on `rackbench-agent run` both go through. An option either maps to a
 * key (the same meaning), is translated by its handler (fio's meaning said in
 * rackbench's terms), changes only fio's own reporting (ignored), or is refused naming
 * what to use instead.
 */
#include "fiojob.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "parseopt.h"
#include "units.h"

struct xstate {
	struct rb_fio_xlate *x;
	struct rb_diags *d; /* errors */
	bool time_based, have_runtime, have_direct, have_loops, randommap, have_visit;
	bool do_verify, fill_device;
	uint64_t runtime_ns;
	const struct rb_fio_opt *rate, *bw;	      /* where rate_iops, rate were set */
	const struct rb_fio_opt *verify, *numjobs;    /* where they were set (notes) */
	const struct rb_fio_opt *sizes, *split_sizes; /* bs, bssplit with sizes per direction */
};

static void note(struct xstate *s, const struct rb_fio_opt *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int refuse(struct xstate *s, const struct rb_fio_opt *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(struct xstate *s, const struct rb_fio_opt *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rb_diags_add(&s->x->notes, RB_SEV_WARNING, o->file, o->line, 1, o->key, "%s", msg);
}

/* An error placed at o: -EINVAL. */
static int refuse(struct xstate *s, const struct rb_fio_opt *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rb_diags_add(s->d, RB_SEV_ERROR, o->file, o->line, 1, o->key, "%s", msg);
	return -EINVAL;
}

static int set(struct xstate *s, const struct rb_fio_opt *o, const char *key, const char *value)
{
	char err[512];

	if (rb_opt_set(&s->x->wl, rb_opt_find(key), value, err, sizeof(err)))
		return refuse(s, o, "'%s=%s': %s", o->key, o->value, err);
	return 0;
}

/* fio's bare numbers of seconds ("runtime=60") as a rackbench duration. */
static int set_seconds(struct xstate *s, const struct rb_fio_opt *o, const char *key)
{
	char v[64];
	size_t n = strlen(o->value);

	snprintf(v, sizeof(v), "%s%s", o->value,
		 n && isdigit((unsigned char)o->value[n - 1]) ? "s" : "");
	return set(s, o, key, v);
}

static bool truthy(const char *v)
{
	return !*v || !strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
	       !strcasecmp(v, "on");
}

static int percent(struct xstate *s, const struct rb_fio_opt *o, uint64_t *ret)
{
	if (rb_parse_u64(o->value, ret) || *ret > 100)
		return refuse(s, o, "'%s=%s': a percentage from 0 to 100", o->key, o->value);
	return 0;
}

static int split_filenames(struct rb_fio_xlate *x, const char *v)
{
	char *copy = strdup(v), *p, *start;

	if (!copy)
		return -ENOMEM;
	for (size_t i = 0; i < x->nfilenames; i++)
		free(x->filenames[i]);
	x->nfilenames = 0;
	for (p = start = copy;; p++) {
		/* fio separates with ':', '\:' escapes one */
		if (*p == '\\' && p[1] == ':') {
			memmove(p, p + 1, strlen(p));
			continue;
		}
		if (*p != ':' && *p)
			continue;
		bool end = !*p;

		*p = '\0';
		if (*start) {
			char **v2 = realloc(x->filenames, (x->nfilenames + 1) * sizeof(*v2));

			if (!v2)
				break;
			x->filenames = v2;
			x->filenames[x->nfilenames++] = strdup(start);
		}
		if (end)
			break;
		start = p + 1;
	}
	free(copy);
	return 0;
}

/* ---- the options with a meaning of their own ---- */

static int h_rw(struct xstate *s, const struct rb_fio_opt *o)
{
	const char *v = o->value, *colon = strchr(v, ':');
	char pat[64];

	snprintf(pat, sizeof(pat), "%.*s", colon ? (int)(colon - v) : (int)strlen(v), v);
	if (colon && strncmp(pat, "rand", 4))
		return refuse(s, o,
			      "'%s': a hole of %s after every IO is not supported; use '%s' "
			      "(every block in order) or 'rand%s' with random_distribution",
			      v, colon + 1, pat, pat);
	if (colon)
		return refuse(s, o,
			      "'%s': runs of %s IOs in order from each random offset are not "
			      "supported; use '%s' (a random offset every IO), or '%s' with a "
			      "bs %s times as large",
			      v, colon + 1, pat, pat, colon + 1);
	if (!strcmp(pat, "readwrite"))
		snprintf(pat, sizeof(pat), "rw");
	if (!strcmp(pat, "trimwrite") || !strcmp(pat, "randtrimwrite"))
		return refuse(s, o,
			      "'%s' (each block trimmed, then written) is not supported; run "
			      "'trim' and 'write' as two jobs",
			      pat);
	return set(s, o, "rw", pat);
}

static int h_rwmixwrite(struct xstate *s, const struct rb_fio_opt *o)
{
	char mix[32];
	uint64_t w;

	if (percent(s, o, &w))
		return -EINVAL;
	snprintf(mix, sizeof(mix), "%" PRIu64, 100 - w);
	return set(s, o, "rwmixread", mix);
}

/*
 * fio's verify modes: crc32c as rackbench does it; meta (a header: offset, pass) and the
 * other checksums as rackbench's own header and crc32c -- the same check, another sum;
 * pattern (a fixed pattern, no checksum) rackbench cannot do: refused by name.
 */
static int h_verify(struct xstate *s, const struct rb_fio_opt *o)
{
	static const char *const sums[] = { "md5",	"crc64",    "crc32",   "crc16", "crc7",
					    "xxhash",	"sha512",   "sha256",  "sha1",	"sha3-224",
					    "sha3-256", "sha3-384", "sha3-512" };
	const char *v = o->value;

	s->verify = o;
	if (!strcmp(v, "0") || !strcmp(v, "none") || !strcmp(v, "null"))
		return set(s, o, "verify", "false");
	if (!strcmp(v, "crc32c") || !strcmp(v, "crc32c-intel") || !strcmp(v, "1"))
		return set(s, o, "verify", "true");
	if (!strcmp(v, "meta")) {
		note(s, o,
		     "verify=meta: rackbench checks its own header (offset, pass) and a crc32c of "
		     "every 512 bytes: meta's check and the data's");
		return set(s, o, "verify", "true");
	}
	for (size_t i = 0; i < sizeof(sums) / sizeof(sums[0]); i++)
		if (!strcmp(v, sums[i])) {
			note(s, o,
			     "verify=%s: rackbench checks a crc32c of every 512 bytes and its own "
			     "header instead: the same check, another checksum",
			     v);
			return set(s, o, "verify", "true");
		}
	return refuse(s, o,
		      "'verify=%s' is not supported: rackbench verifies writes with a crc32c and "
		      "a header per 512 bytes of random data (verify=crc32c); a pattern it cannot "
		      "check",
		      v);
}

/* fio's engines: io_uring (and null) as they are, the others mapped onto io_uring. */
static int h_ioengine(struct xstate *s, const struct rb_fio_opt *o)
{
	static const char *const like[] = { "libaio", "psync",	 "sync",
					    "pvsync", "pvsync2", "posixaio" };
	const char *v = o->value, *near = "io_uring";
	size_t best = rb_parseopt_distance(v, "io_uring");

	if (!strcmp(v, "null"))
		return set(s, o, "engine", "null");
	if (!strcmp(v, "io_uring"))
		return set(s, o, "engine", "uring");
	/* fio's NVMe passthrough (its cmd_type=nvme, the default): rackbench's uring_cmd */
	if (!strcmp(v, "io_uring_cmd"))
		return set(s, o, "engine", "uring_cmd");
	for (size_t i = 0; i < sizeof(like) / sizeof(like[0]); i++) {
		if (!strcmp(v, like[i])) {
			note(s, o,
			     "ioengine=%s runs on rackbench's io_uring engine: compare with fio "
			     "run with ioengine=io_uring",
			     v);
			return set(s, o, "engine", "uring");
		}
		if (rb_parseopt_distance(v, like[i]) < best)
			best = rb_parseopt_distance(v, like[i]), near = like[i];
	}
	if (best <= 2)
		return refuse(s, o, "'ioengine=%s' is no engine; did you mean '%s'?", v, near);
	return refuse(s, o,
		      "'ioengine=%s' is not supported: rackbench drives block devices and files "
		      "through io_uring (ioengine=io_uring; libaio and the sync engines map onto "
		      "it), or none (ioengine=null)",
		      v);
}

/* rate_iops (IOs) and rate (bytes) per second, per job and direction: at the job's end */
static int h_rate(struct xstate *s, const struct rb_fio_opt *o)
{
	*(!strcmp(o->key, "rate") ? &s->bw : &s->rate) = o;
	return 0;
}

/*
 * bsrange=MIN-MAX: fio draws MIN + MAX x uniform(0,1), rounded down to a multiple of MIN
 * and capped at MAX (io_u.c get_next_buflen) -- each multiple of MIN up to MAX equally
 * likely, MAX taking what is left -- written as the bssplit that draws the same.
 */
static int h_bsrange(struct xstate *s, const struct rb_fio_opt *o)
{
	char split[RB_OPT_VALUE_MAX], lo[32], hi[32];
	const char *dash = strchr(o->value, '-');
	uint64_t min, max;
	size_t n = 0;

	if (strchr(o->value, ','))
		return refuse(s, o,
			      "'%s': separate ranges for reads and writes are not supported; "
			      "one range",
			      o->value);
	snprintf(lo, sizeof(lo), "%.*s", dash ? (int)(dash - o->value) : 0, o->value);
	snprintf(hi, sizeof(hi), "%s", dash ? dash + 1 : "");
	if (!dash || rb_parse_size(lo, &min) || rb_parse_size(hi, &max) || !min || min > max ||
	    min % 512 || max % 512)
		return refuse(s, o, "'%s=%s': MIN-MAX, sizes of whole sectors (4k-64k)", o->key,
			      o->value);
	if (max / min > RB_BS_MAX)
		return refuse(s, o, "'%s=%s': at most %d sizes (MAX / MIN)", o->key, o->value,
			      RB_BS_MAX);
	if (min == max)
		return set(s, o, "bs", lo);
	split[0] = '\0';
	for (uint64_t k = 1;; k++) {
		uint64_t size = k * min < max ? k * min : max;
		/* the chance that floor(MAX x u / MIN) = k - 1, u uniform in [0, 1) */
		double w = (double)(size - (k - 1) * min) / (double)max * 100.0;

		n += (size_t)snprintf(split + n, sizeof(split) - n, "%s%" PRIu64 "/%.6g",
				      n ? ":" : "", size, w);
		if (size == max)
			break;
	}
	return set(s, o, "bssplit", split);
}

/*
 * bs/bssplit "READ,WRITE[,TRIM]": kept until the job's rw is known (the end of the job):
 * the size of the direction the job does, refused when it does two with different sizes.
 */
static int h_sizes(struct xstate *s, const struct rb_fio_opt *o)
{
	const char *key = !strcmp(o->key, "bssplit") ? "bssplit" : "bs";

	if (!strchr(o->value, ','))
		return set(s, o, key, o->value);
	*(!strcmp(key, "bssplit") ? &s->split_sizes : &s->sizes) = o;
	return 0;
}

static int h_size(struct xstate *s, const struct rb_fio_opt *o)
{
	size_t vl = strlen(o->value);
	char buf[32];

	if (vl < 2 || o->value[vl - 1] != '%')
		return set(s, o, "size", o->value);
	snprintf(buf, sizeof(buf), "%.*s", (int)(vl - 1), o->value);
	return set(s, o, "size_pct", buf);
}

static int h_offset(struct xstate *s, const struct rb_fio_opt *o)
{
	size_t vl = strlen(o->value);
	char buf[32];
	uint64_t p;

	if (vl < 2 || o->value[vl - 1] != '%')
		return set(s, o, "offset", o->value);
	snprintf(buf, sizeof(buf), "%.*s", (int)(vl - 1), o->value);
	if (rb_parse_u64(buf, &p) || p > 100)
		return refuse(s, o, "'%s=%s': a percentage from 0 to 100", o->key, o->value);
	if (p)
		return refuse(s, o,
			      "'%s=%s': an offset in percent is not supported; give it in bytes "
			      "(offset=1g)",
			      o->key, o->value);
	return set(s, o, "offset", "0");
}

/* timeout: fio's older name of runtime */
static int h_runtime(struct xstate *s, const struct rb_fio_opt *o)
{
	int e = set_seconds(s, o, "runtime");

	s->have_runtime = true;
	s->runtime_ns = s->x->wl.runtime_ns;
	return e;
}

static int h_numjobs(struct xstate *s, const struct rb_fio_opt *o)
{
	s->numjobs = o;
	return set(s, o, "numjobs", o->value);
}

static int h_flag(struct xstate *s, const struct rb_fio_opt *o)
{
	bool on = truthy(o->value);

	if (!strcmp(o->key, "do_verify"))
		s->do_verify = on;
	else if (!strcmp(o->key, "time_based"))
		s->time_based = on;
	else if (!strcmp(o->key, "norandommap"))
		s->randommap = !on;
	else
		s->fill_device = on; /* fill_device, fill_fs */
	return 0;
}

static int h_verify_extra(struct xstate *s, const struct rb_fio_opt *o)
{
	uint64_t b;

	if (!strcmp(o->key, "verify_pattern"))
		note(s, o,
		     "'%s': rackbench writes random data (a drive cannot compress it away) "
		     "with a crc32c header per 512 bytes, not a pattern",
		     o->value);
	else if (rb_parse_size(o->value, &b) || b != 512)
		note(s, o, "'%s': rackbench checks every 512 bytes", o->value);
	return 0;
}

static int h_ramp(struct xstate *s, const struct rb_fio_opt *o)
{
	return set_seconds(s, o, "ramp");
}

static int h_loops(struct xstate *s, const struct rb_fio_opt *o)
{
	s->have_loops = true;
	return set(s, o, "passes", o->value);
}

static int h_direct(struct xstate *s, const struct rb_fio_opt *o)
{
	bool direct = truthy(o->value) == !strcmp(o->key, "direct");

	s->have_direct = true;
	return set(s, o, "direct", direct ? "true" : "false");
}

static int h_distribution(struct xstate *s, const struct rb_fio_opt *o)
{
	return set(s, o, "random_distribution", !strcmp(o->value, "random") ? "uniform" : o->value);
}

static int h_filename(struct xstate *s, const struct rb_fio_opt *o)
{
	return split_filenames(s->x, o->value);
}

static int h_name(struct xstate *s, const struct rb_fio_opt *o)
{
	snprintf(s->x->name, sizeof(s->x->name), "%s", o->value);
	return 0;
}

/* stonewall, wait_for_previous, new_group, wait_for: a new phase starts here */
static int h_stonewall(struct xstate *s, const struct rb_fio_opt *o)
{
	(void)o;
	s->x->stonewall = true;
	return 0;
}

static int h_poll(struct xstate *s, const struct rb_fio_opt *o)
{
	return set(s, o, !strcmp(o->key, "hipri") ? "iopoll" : "sqpoll",
		   truthy(o->value) ? "true" : "false");
}

/*
 * Every fio option rackbench takes. rb: the workload key of the same meaning (fn NULL);
 * fn: its handler; neither: it changes only fio's own reporting or set-up, not what is
 * measured. set: fio's command line takes it without a value (FIO_OPT_STR_SET).
 */
static const struct fio_key {
	const char *fio, *rb;
	int (*fn)(struct xstate *s, const struct rb_fio_opt *o);
	bool set;
} keys[] = {
	{ "name", NULL, h_name, false },
	{ "filename", NULL, h_filename, false },
	{ "ioengine", NULL, h_ioengine, false },
	{ "rw", NULL, h_rw, false },
	{ "readwrite", NULL, h_rw, false },
	{ "rwmixread", "rwmixread", NULL, false },
	{ "rwmixwrite", NULL, h_rwmixwrite, false },
	{ "bs", NULL, h_sizes, false },
	{ "blocksize", NULL, h_sizes, false },
	{ "bssplit", NULL, h_sizes, false },
	{ "bsrange", NULL, h_bsrange, false },
	{ "blocksize_range", NULL, h_bsrange, false },
	{ "iodepth", "iodepth", NULL, false },
	{ "iodepth_batch_submit", "submit_batch", NULL, false },
	{ "iodepth_batch", "submit_batch", NULL, false },
	{ "iodepth_batch_complete_min", "complete_batch", NULL, false },
	{ "iodepth_batch_complete", "complete_batch", NULL, false },
	{ "iodepth_batch_complete_max", NULL, NULL, false }, /* rackbench reaps what is there */
	{ "offset", NULL, h_offset, false },
	{ "size", NULL, h_size, false },
	{ "filesize", NULL, h_size, false },
	{ "io_size", "io_size", NULL, false },
	{ "io_limit", "io_size", NULL, false },
	{ "randseed", "seed", NULL, false },
	{ "cpus_allowed", "cpus", NULL, false },
	{ "runtime", NULL, h_runtime, false },
	{ "timeout", NULL, h_runtime, false },
	{ "time_based", NULL, h_flag, true },
	{ "ramp_time", NULL, h_ramp, false },
	{ "loops", NULL, h_loops, false },
	{ "numjobs", NULL, h_numjobs, false },
	{ "direct", NULL, h_direct, false },
	{ "buffered", NULL, h_direct, false },
	{ "rate_iops", NULL, h_rate, false },
	{ "rate", NULL, h_rate, false },
	{ "random_distribution", NULL, h_distribution, false },
	{ "norandommap", NULL, h_flag, true },
	{ "randrepeat", NULL, NULL, false }, /* offsets always come again from the seed */
	{ "random_generator", NULL, NULL, false },
	{ "verify", NULL, h_verify, false },
	{ "do_verify", NULL, h_flag, false },
	{ "verify_pattern", NULL, h_verify_extra, false },
	{ "verify_interval", NULL, h_verify_extra, false },
	{ "fill_device", NULL, h_flag, false },
	{ "fill_fs", NULL, h_flag, false },
	{ "stonewall", NULL, h_stonewall, true },
	{ "wait_for_previous", NULL, h_stonewall, true },
	{ "new_group", NULL, h_stonewall, true },
	{ "wait_for", NULL, h_stonewall, false },
	{ "sqthread_poll", NULL, h_poll, false },
	{ "hipri", NULL, h_poll, false },
	{ "group_reporting", NULL, NULL, true },
	{ "thread", NULL, NULL, true },
	{ "exitall", NULL, NULL, true },
	{ "lat_percentiles", NULL, NULL, false },
	{ "clat_percentiles", NULL, NULL, false },
	{ "slat_percentiles", NULL, NULL, false },
	{ "percentile_list", NULL, NULL, false },
	{ "write_bw_log", NULL, NULL, false },
	{ "write_lat_log", NULL, NULL, false },
	{ "write_iops_log", NULL, NULL, false },
	{ "write_hist_log", NULL, NULL, false },
	{ "log_avg_msec", NULL, NULL, false },
	{ "log_hist_msec", NULL, NULL, false },
	{ "per_job_logs", NULL, NULL, false },
	{ "log_offset", NULL, NULL, false },
	{ "disable_lat", NULL, NULL, false },
	{ "disable_clat", NULL, NULL, false },
	{ "disable_slat", NULL, NULL, false },
	{ "gtod_reduce", NULL, NULL, false },
	{ "invalidate", "invalidate", NULL, false },
	{ "unified_rw_reporting", NULL, NULL, false },
	{ "fixedbufs", NULL, NULL, false },
	{ "registerfiles", NULL, NULL, false },
	{ "description", NULL, NULL, false },
	{ "clocksource", NULL, NULL, false },
	{ "overwrite", NULL, NULL, false },
	{ "create_on_open", NULL, NULL, false },
	{ "allow_file_create", NULL, NULL, false },
	{ "kb_base", NULL, NULL, false },
	{ "significant_figures", NULL, NULL, false },
	{ "cpumode", NULL, NULL, false },
	{ "userspace_reap", NULL, NULL, false },
	{ "nonvectored", NULL, NULL, false },
	{ "sqthread_poll_cpu", NULL, NULL, false },
	{ "fadvise_hint", NULL, NULL, false },
};

static const struct fio_key *find_key(const char *fio)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i].fio, fio))
			return &keys[i];
	return NULL;
}

int rb_fio_option_kind(const char *key)
{
	const struct fio_key *k = find_key(key);

	return !k ? -1 : k->set ? 1 : 0;
}

static int one(struct xstate *s, const struct rb_fio_opt *o)
{
	const struct fio_key *k = find_key(o->key);

	if (!k) {
		note(s, o, "'%s' is not supported", o->key);
		return 0;
	}
	if (k->fn)
		return k->fn(s, o);
	return k->rb ? set(s, o, k->rb, o->value) : 0;
}

/* ---- a job's end: what needs the whole job ---- */

/*
 * fio's "R,W[,T]" values (bs, bssplit, rate, rate_iops): a value not ended by a comma
 * applies to the directions after it, an empty one is fio's default (def). The part of
 * the direction the job does into part; 1 when the job does reads and writes with
 * different parts, -EINVAL when more than three.
 */
static int part_for_rw(const struct rb_workload *wl, const char *v, const char *def, char *part,
		       size_t len)
{
	char p[3][RB_OPT_VALUE_MAX] = { "", "", "" };
	bool rd = rb_rw_reads(wl->rw) && wl->rwmixread > 0,
	     wr = rb_workload_writes(wl) && !rb_rw_third(wl->rw);
	const char *c = v;
	int n = 0;

	for (; c && n < 3; n++) {
		const char *e = strchr(c, ',');

		snprintf(p[n], sizeof(p[n]), "%.*s", e ? (int)(e - c) : (int)strlen(c), c);
		c = e ? e + 1 : NULL;
	}
	if (c)
		return -EINVAL;
	for (int i = n; i < 3; i++) /* not ended by a comma: the last for the rest */
		memcpy(p[i], p[n - 1], sizeof(p[i]));
	for (int i = 0; i < 3; i++)
		if (!p[i][0])
			snprintf(p[i], sizeof(p[i]), "%s", def);
	snprintf(part, len, "%s", rb_rw_third(wl->rw) ? p[2] : wr && !rd ? p[1] : p[0]);
	return rd && wr && strcmp(p[0], p[1]) ? 1 : 0;
}

static int sizes_for_rw(struct xstate *s, const struct rb_fio_opt *o, const char *key)
{
	char part[RB_OPT_VALUE_MAX];
	int r = part_for_rw(&s->x->wl, o->value, !strcmp(key, "bs") ? "4k" : "", part,
			    sizeof(part));

	if (r < 0)
		return refuse(s, o, "'%s=%s': at most three sizes (reads, writes, trims)", o->key,
			      o->value);
	if (r)
		return refuse(s, o,
			      "'%s=%s': rackbench uses one %s for reads and writes; give one "
			      "(%s=%s), or run the reads and the writes as two jobs",
			      o->key, o->value, key, o->key, part);
	return set(s, o, key, part);
}

/* A rate's part for the job's direction as IOs per second: 0, or -EINVAL refused. */
static int rate_of(struct xstate *s, const struct rb_fio_opt *o, uint64_t *ret)
{
	const struct rb_workload *wl = &s->x->wl;
	bool bw = !strcmp(o->key, "rate");
	char part[64];
	uint64_t v = 0;
	int r = part_for_rw(wl, o->value, "", part, sizeof(part));

	if (rb_rw_reads(wl->rw) && wl->rwmixread > 0 && wl->rwmixread < 100 &&
	    (wl->rw == RB_RW_RW || wl->rw == RB_RW_RANDRW))
		return refuse(s, o,
			      "'%s=%s' on a job of reads and writes: fio limits each direction "
			      "on its own (its mix gives way to the rate), rackbench the total "
			      "at the mix; give rackbench's rate_iops, the total",
			      o->key, o->value);
	if (r < 0 || (part[0] && (bw ? rb_parse_size(part, &v) : rb_parse_u64(part, &v))))
		return refuse(s, o, "'%s=%s': %s per second (0 or more)", o->key, o->value,
			      bw ? "bytes (4m, 500k)" : "a whole number of IOs");
	if (bw && v && (wl->bssplit[0] || !wl->bs))
		return refuse(s, o,
			      "'rate=%s' with several block sizes: rackbench limits IOs per "
			      "second, which is bytes per second only at one size; give "
			      "rate_iops",
			      o->value);
	*ret = bw && v ? v / wl->bs : v;
	if (bw && v % wl->bs)
		note(s, o,
		     "rate=%s is not a whole number of %" PRIu64 "-byte IOs per second: %" PRIu64
		     " IOs per second",
		     part, wl->bs, *ret);
	if (bw && v && !*ret)
		return refuse(s, o, "'rate=%s' is less than one IO per second", o->value);
	return 0;
}

/* rate_iops and rate: fio's per job, rackbench's the total of the job's jobs */
static int rates(struct xstate *s)
{
	const struct rb_workload *wl = &s->x->wl;
	const struct rb_fio_opt *at = s->bw ? s->bw : s->rate;
	uint64_t per_job = 0, other = 0;
	char v[64];

	if (!at)
		return 0;
	if (rate_of(s, at, &per_job) || (s->bw && s->rate && rate_of(s, s->rate, &other)))
		return -EINVAL;
	if (s->bw && s->rate && per_job && other)
		return refuse(s, s->bw, "rate and rate_iops both given: give one");
	per_job = per_job ? per_job : other;
	if (!per_job)
		return 0;
	snprintf(v, sizeof(v), "%" PRIu64, per_job * wl->numjobs);
	if (wl->numjobs > 1)
		note(s, at,
		     "fio's %s is per job: %" PRIu64 " IOs x numjobs %u is rackbench's total, "
		     "rate_iops: %s",
		     at->key, per_job, wl->numjobs, v);
	return set(s, at, "rate_iops", v);
}

/* fio's stop rule: time_based runs for runtime; else one pass (or loops), runtime a cap */
static int stop_rule(struct xstate *s, const struct rb_fio_job *job)
{
	char v[64];

	if (s->fill_device)
		s->x->wl.size = 0, s->x->wl.size_pct = 0;
	if (!s->time_based) {
		if (!s->have_loops && !s->x->wl.io_size)
			rb_opt_set(&s->x->wl, rb_opt_find("passes"), "1", v, sizeof(v));
		if (s->have_runtime) {
			snprintf(v, sizeof(v), "%" PRIu64 "ns", s->runtime_ns);
			rb_opt_set(&s->x->wl, rb_opt_find("max_runtime"), v, v, sizeof(v));
		}
		return 0;
	}
	if (s->have_runtime)
		return 0;
	rb_diags_add(s->d, RB_SEV_ERROR, job->file, job->line, 0, job->name,
		     "time_based without a runtime runs for ever");
	return -EINVAL;
}

/*
 * fio's numjobs: every job does the whole job, over the same region of the same file
 * (numjobs 4 with size 8m moves 32 MiB) -- said in the workload, job_region: whole.
 * Verifying writers each get a slice: over one another's chunks no header would hold
 * (fio gives each job a file of its own unless filename= names one).
 */
static void jobs_region(struct xstate *s)
{
	struct rb_workload *wl = &s->x->wl;
	bool verifying = wl->verify && rb_workload_writes(wl);
	char v[64];

	if (wl->numjobs <= 1)
		return;
	rb_opt_set(wl, rb_opt_find("job_region"), verifying ? "split" : "whole", v, sizeof(v));
	if (verifying && s->numjobs)
		note(s, s->numjobs,
		     "numjobs=%u writing with verify: each job writes and checks a slice of the "
		     "target of its own (job_region: split), as fio's jobs each write a file of "
		     "their own",
		     wl->numjobs);
}

static int translate_job(const struct rb_fio_file *f, size_t j, struct rb_fio_xlate *x,
			 struct rb_diags *d)
{
	struct xstate s = { .x = x, .d = d, .randommap = true, .do_verify = true };
	const struct rb_fio_job *job = &f->jobs[j];
	char v[64];
	int r = 0;

	memset(x, 0, sizeof(*x));
	rb_diags_init(&x->notes);
	rb_workload_defaults(&x->wl);
	snprintf(x->name, sizeof(x->name), "%s", job->name);
	/* fio's defaults where they differ from rackbench's: buffered IO */
	rb_opt_set(&x->wl, rb_opt_find("direct"), "false", v, sizeof(v));
	/* every [global] before the job, then the job's own options */
	for (size_t g = 0; g <= j; g++) {
		if (g < j && strcmp(f->jobs[g].name, "global"))
			continue;
		for (size_t k = 0; k < f->jobs[g].nopts; k++)
			if (one(&s, &f->jobs[g].opts[k]))
				r = -EINVAL;
	}
	if (s.sizes && sizes_for_rw(&s, s.sizes, "bs"))
		r = -EINVAL;
	if (s.split_sizes && sizes_for_rw(&s, s.split_sizes, "bssplit"))
		r = -EINVAL;
	if (rates(&s) || stop_rule(&s, job))
		r = -EINVAL;
	/* fio visits every block once per pass unless norandommap (uniform offsets) */
	if (s.randommap && !strcmp(x->wl.random_distribution, "uniform") &&
	    (x->wl.rw == RB_RW_RANDREAD || x->wl.rw == RB_RW_RANDWRITE ||
	     x->wl.rw == RB_RW_RANDRW || x->wl.rw == RB_RW_RANDTRIM ||
	     x->wl.rw == RB_RW_RANDWRITEZEROES))
		rb_opt_set(&x->wl, rb_opt_find("visit_once"), "true", v, sizeof(v));
	jobs_region(&s);
	/* fio's write with verify reads it all back and checks it after (do_verify=1) */
	x->verify_after = x->wl.verify && s.do_verify && rb_workload_writes(&x->wl);
	if (!r && rb_workload_check(&x->wl, v, sizeof(v))) {
		rb_diags_add(d, RB_SEV_ERROR, job->file, job->line, 0, job->name, "%s", v);
		r = -EINVAL;
	}
	return r;
}

int rb_fio_translate(const struct rb_fio_file *f, struct rb_fio_xlate **ret, size_t *ret_n,
		     struct rb_diags *d)
{
	struct rb_fio_xlate *x = calloc(f->njobs + 1, sizeof(*x));
	size_t n = 0;
	int r = 0;

	if (!x)
		return -ENOMEM;
	for (size_t j = 0; j < f->njobs; j++) {
		if (!strcmp(f->jobs[j].name, "global"))
			continue;
		if (translate_job(f, j, &x[n], d))
			r = -EINVAL;
		n++;
	}
	if (!n) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, f->njobs ? f->jobs[0].file : "(job file)",
			     "no job in the file (only [global] sections)");
		r = -EINVAL;
	}
	if (r) {
		rb_fio_xlate_free(x, n);
		return r;
	}
	*ret = x;
	*ret_n = n;
	return 0;
}

void rb_fio_xlate_free(struct rb_fio_xlate *x, size_t n)
{
	if (!x)
		return;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < x[i].nfilenames; k++)
			free(x[i].filenames[k]);
		free(x[i].filenames);
		rb_diags_release(&x[i].notes);
	}
	free(x);
}

void rb_fio_verify_pass(const struct rb_workload *wrote, struct rb_workload *ret)
{
	char err[128];

	*ret = *wrote;
	rb_opt_set(ret, rb_opt_find("rw"), "read", err, sizeof(err));
	rb_opt_set(ret, rb_opt_find("verify"), "true", err, sizeof(err));
	rb_opt_set(ret, rb_opt_find("passes"), "1", err, sizeof(err));
	ret->io_size = 0;
	ret->rate_iops = 0;
	ret->max_runtime_ns = 0;
	ret->visit_once = 0;
	ret->ramp_ns = 0;
	/* each job reads back the slice it wrote */
	ret->job_region = RB_REGION_SPLIT;
}
