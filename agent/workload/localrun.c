// SPDX-License-Identifier: MIT
/* One job on this host, no coordinator: the run `rackbench-agent run` asks for. */
#include "localrun.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diskutil.h"
#include "engine.h"
#include "exitcode.h"
#include "fiojob.h"
#include "fioout.h"
#include "fstarget.h"
#include "history.h"
#include "jsonout.h"
#include "log.h"
#include "replay.h"
#include "runner.h"
#include "statedir.h"
#include "units.h"

static struct rb_run *volatile running;

static void on_signal(int sig)
{
	int saved_errno = errno; /* a handler leaves errno as it found it */

	(void)sig;
	if (running)
		rb_run_stop(running);
	errno = saved_errno;
}

static const char *dir_name(int d)
{
	return d == RB_DIR_READ ? "read" : d == RB_DIR_WRITE ? "write" : "trim";
}

static void print_dir_text(FILE *out, const struct rb_dir_stats *s, uint64_t elapsed_ns, int d)
{
	double secs = (double)elapsed_ns / 1e9;

	if (!s->ios && !s->errors)
		return;
	fprintf(out,
		"  %-5s IOPS=%.0f, BW=%.1fMiB/s (%.1fMB/s), %" PRIu64 " IOs, %" PRIu64 " errors\n",
		dir_name(d), secs > 0 ? (double)s->ios / secs : 0,
		secs > 0 ? (double)s->bytes / secs / 1048576.0 : 0,
		secs > 0 ? (double)s->bytes / secs / 1e6 : 0, s->ios, s->errors);
	if (!s->ios)
		return;
	fprintf(out,
		"        lat (us): min=%.2f mean=%.2f p50=%.2f p90=%.2f p99=%.2f p99.9=%.2f "
		"p99.99=%.2f max=%.2f\n",
		(double)s->lat_min_ns / 1e3, rb_dir_stats_mean_ns(s) / 1e3,
		(double)rb_hist_percentile(&s->hist, 50) / 1e3,
		(double)rb_hist_percentile(&s->hist, 90) / 1e3,
		(double)rb_hist_percentile(&s->hist, 99) / 1e3,
		(double)rb_hist_percentile(&s->hist, 99.9) / 1e3,
		(double)rb_hist_percentile(&s->hist, 99.99) / 1e3, (double)s->lat_max_ns / 1e3);
}

static void print_dir_json(FILE *out, const struct rb_dir_stats *s, uint64_t elapsed_ns)
{
	double secs = (double)elapsed_ns / 1e9;

	fprintf(out,
		"{\"ios\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"iops\": %.3f, "
		"\"bw_bytes_per_s\": %.3f, \"errors\": %" PRIu64 ", \"hist_ios\": %" PRIu64
		", \"lat_ns\": {"
		"\"min\": %" PRIu64 ", \"mean\": %.1f, \"p50\": %" PRIu64 ", \"p90\": %" PRIu64
		", \"p99\": %" PRIu64 ", \"p99_9\": %" PRIu64 ", \"p99_99\": %" PRIu64
		", \"max\": %" PRIu64 "}}",
		s->ios, s->bytes, secs > 0 ? (double)s->ios / secs : 0.0,
		secs > 0 ? (double)s->bytes / secs : 0.0, s->errors, s->hist.total,
		s->ios ? s->lat_min_ns : 0, rb_dir_stats_mean_ns(s),
		rb_hist_percentile(&s->hist, 50), rb_hist_percentile(&s->hist, 90),
		rb_hist_percentile(&s->hist, 99), rb_hist_percentile(&s->hist, 99.9),
		rb_hist_percentile(&s->hist, 99.99), s->lat_max_ns);
}

/* Prints a target's document; leaves it open (no closing brace) when !close. */
static void print_target_json(FILE *out, const struct rb_workload *wl,
			      const struct rb_target_result *res, const char *path, bool close)
{
	fprintf(out, "{\"target\": ");
	rb_json_str(out, path);
	fprintf(out, ", \"elapsed_ns\": %" PRIu64 ", \"read\": ", res->elapsed_ns);
	print_dir_json(out, &res->dir[RB_DIR_READ], res->elapsed_ns);
	fprintf(out, ", \"write\": ");
	print_dir_json(out, &res->dir[RB_DIR_WRITE], res->elapsed_ns);
	fprintf(out, ", \"trim\": ");
	print_dir_json(out, &res->dir[RB_DIR_TRIM], res->elapsed_ns);
	fprintf(out, ", \"cpu\": {\"usr_pct\": %.2f, \"sys_pct\": %.2f}, \"errors\": [",
		res->cpu_usr_pct, res->cpu_sys_pct);
	for (unsigned e = 0; e < res->nerrors; e++) {
		fprintf(out,
			"%s{\"offset\": %" PRIu64 ", \"length\": %u, \"direction\": \"%s\", "
			"\"errno\": %d, \"count\": %" PRIu64 ", \"message\": ",
			e ? ", " : "", res->errors[e].offset, res->errors[e].length,
			dir_name((int)res->errors[e].dir), res->errors[e].err,
			res->errors[e].count);
		rb_json_str(out, strerror(res->errors[e].err));
		fputc('}', out);
	}
	fprintf(out,
		"], \"verify\": {\"checked\": %" PRIu64 ", \"unwritten\": %" PRIu64
		", \"mismatches\": %" PRIu64 ", \"list\": [",
		res->verify.checked, res->verify.unwritten, res->verify.bad);
	for (unsigned e = 0; e < res->nmismatches; e++) {
		const struct rb_verify_mismatch *m = &res->mismatches[e];

		fprintf(out,
			"%s{\"offset\": %" PRIu64
			", \"kind\": \"%s\", \"expected_offset\": %" PRIu64
			", \"found_offset\": %" PRIu64 ", \"expected_crc\": %u, \"found_crc\": %u}",
			e ? ", " : "", m->offset,
			m->kind == RB_VERIFY_NO_HEADER	    ? "no_header"
			: m->kind == RB_VERIFY_WRONG_OFFSET ? "wrong_offset"
							    : "bad_crc",
			m->offset, m->found_offset, m->expected_crc, m->found_crc);
	}
	fprintf(out, "]}, \"settings\": {");
	for (size_t i = 0; i < rb_workload_nopts; i++) {
		char v[RB_OPT_VALUE_MAX];

		fprintf(out, "%s\"%s\": ", i ? ", " : "", rb_workload_opts[i].key);
		rb_json_str(out, rb_opt_format(wl, &rb_workload_opts[i], v, sizeof(v)));
	}
	fprintf(out, "}, \"bs_counts\": [");
	for (unsigned b = 0, first = 1; b < res->nbs; b++)
		for (int d = 0; d < RB_NDIR; d++)
			if (res->bs_ios[d][b]) {
				fprintf(out,
					"%s{\"direction\": \"%s\", \"bs\": %" PRIu64
					", \"ios\": %" PRIu64 "}",
					first ? "" : ", ", dir_name(d), res->bs[b],
					res->bs_ios[d][b]);
				first = 0;
			}
	fprintf(out, "], \"uring_features\": ");
	rb_json_str(out, res->features);
	fprintf(out, ", \"trim_method\": ");
	rb_json_str(out, res->trim_method);
	rb_replay_print_json(out, wl, res);
	if (close)
		fputc('}', out);
}

/* The job of jf that section names (or its only one): its index in x, or SIZE_MAX said. */
static size_t pick_job(const char *label, const char *section, const struct rb_fio_xlate *x,
		       size_t n)
{
	size_t pick = SIZE_MAX;

	for (size_t j = 0; j < n; j++)
		if (section ? !strcmp(x[j].name, section) : n == 1)
			pick = j;
	if (pick != SIZE_MAX)
		return pick;
	if (!section && !strcmp(label, "command line"))
		rb_err("fio's command line has several jobs (--name): rackbench-agent run runs "
		       "one; write them to a job file and convert it with `rackbench import-fio`");
	else
		rb_err("%s: %s; its jobs:", label,
		       section ? "no such job" : "several jobs: choose one with --section NAME");
	for (size_t j = 0; j < n; j++)
		fprintf(stderr, "  %s\n", x[j].name);
	return SIZE_MAX;
}

int rb_localrun_fio(const char *file, const char *const *line, size_t nline, const char *section,
		    struct rb_workload *wl, struct rb_fio_xlate **ret, size_t *ret_n,
		    char **targets, size_t *ntargets, bool *ret_verify_after)
{
	const char *label = file ? file : "command line";
	struct rb_fio_file jf;
	struct rb_diags d;
	int r = -EINVAL;

	if (!file && !nline) {
		if (section)
			rb_err("--section needs --fio JOB.fio");
		return section ? -EINVAL : 0;
	}
	rb_diags_init(&d);
	if ((file ? rb_fio_parse(file, &jf, &d) : rb_fio_cmdline(line, nline, &jf, &d)) == 0) {
		if (rb_fio_translate(&jf, ret, ret_n, &d) == 0) {
			size_t pick = pick_job(label, section, *ret, *ret_n);

			if (pick != SIZE_MAX) {
				const struct rb_fio_xlate *x = &(*ret)[pick];

				*wl = x->wl;
				*ret_verify_after = x->verify_after;
				for (size_t k = 0; k < x->nfilenames && k < RB_FIO_MAX_FILES; k++)
					targets[(*ntargets)++] = x->filenames[k];
				rb_diags_print(&x->notes, stderr);
				r = 0;
			}
		}
		rb_fio_release(&jf);
	}
	rb_diags_print(&d, stderr);
	rb_diags_release(&d);
	return r;
}

/*
 * What the run's intervals said, per target: fio's bw and iops samples per direction; what
 * the disks under the targets did; with --status-interval, the intervals so far added up.
 */
struct tally {
	struct rb_run *run;
	const struct rb_localrun *a;
	const struct rb_prepared *prep;
	const char *volname, *job;
	struct rb_fio_samples (*s)[RB_NDIR]; /* per target */
	struct rb_diskutil *disks;	     /* NULL: not watched */
	struct rb_fio_disk *du;		     /* what they did: at the end, or so far */
	unsigned ndu;
	struct rb_target_result *sofar; /* per target; NULL: no status snapshots */
	bool *ended;			/* per target: its last interval came */
	uint64_t next_status_ns;	/* measured time of the next snapshot */
};

static void status(struct tally *y);

/* An interval of a target: its rates over its own length (a last one may be short); a
 * status snapshot when every target's intervals reached the next one's time. */
static void on_interval(void *arg, unsigned target, unsigned interval, int64_t t_wall_ns,
			const struct rb_dir_stats *dirs, bool last)
{
	struct tally *y = arg;
	int64_t measured = rb_run_measure_wall_ns(y->run);
	int64_t start = measured + (int64_t)(interval * y->a->wl.interval_ns);
	double secs = (double)(t_wall_ns - start) / 1e9;

	for (int d = 0; d < RB_NDIR && secs > 0; d++)
		rb_fio_samples_add(&y->s[target][d], (double)dirs[d].bytes / 1024.0 / secs,
				   (double)dirs[d].ios / secs);
	if (!y->sofar)
		return;
	struct rb_target_result *so = &y->sofar[target];

	for (int d = 0; d < RB_NDIR; d++)
		rb_dir_stats_merge(&so->dir[d], &dirs[d]);
	so->start_wall_ns = measured;
	so->elapsed_ns = t_wall_ns > measured ? (uint64_t)(t_wall_ns - measured) : 0;
	y->ended[target] |= last;
	status(y);
}

/* fio's JSON, json+ or terse lines (fmt): a job per target, named after the fio job when
 * given (JOB:TARGET with several targets). */
static void print_fio(const struct tally *y, const struct rb_target_result *const *all, size_t nres,
		      int fmt)
{
	const struct rb_workload *wl = &y->a->wl;
	const char *job = y->job;
	static const char *const keys[] = { "rw",      "bs",	 "iodepth",   "numjobs",
					    "runtime", "direct", "rate_iops", "bssplit" };
	struct rb_fio_job_out *jobs = calloc(nres + 1, sizeof(*jobs));
	char vals[8][RB_OPT_VALUE_MAX], names[64][512];

	if (!jobs)
		return;
	for (size_t k = 0; k < 8; k++)
		rb_opt_format(wl, rb_opt_find(keys[k]), vals[k], sizeof(vals[k]));
	for (size_t t = 0; t < nres; t++) {
		const struct rb_target_result *res = all[t];
		struct rb_fio_job_out *x = &jobs[t];

		/* fio's name alone for one target, as fio names its job */
		snprintf(names[t % 64], sizeof(names[0]), "%s%s%s", job ? job : "",
			 job && nres > 1 ? ":" : "",
			 job && nres == 1 ? ""
			 : wl->stripe	  ? y->volname
					  : y->a->targets[t]);
		x->name = names[t % 64];
		for (size_t k = 0; k < 8; k++) {
			x->options[k][0] = keys[k];
			x->options[k][1] = vals[k];
		}
		for (int d = 0; d < 3; d++)
			x->dir[d] =
				(struct rb_fio_dir){ .ios = res->dir[d].ios,
						     .bytes = res->dir[d].bytes,
						     .errors = res->dir[d].errors,
						     .lat_sum_ns = res->dir[d].lat_sum_ns,
						     .lat_min_ns = res->dir[d].lat_min_ns,
						     .lat_max_ns = res->dir[d].lat_max_ns,
						     .hist = &res->dir[d].hist,
						     .runtime_ns = res->dir[d].ios ? res->elapsed_ns
										   : 0 };
		/* as fio: samples of the directions that had IO */
		for (int d = 0; d < 3; d++)
			if (res->dir[d].ios || res->dir[d].errors)
				rb_fio_samples_put(&y->s[t][d], &x->dir[d]);
		x->usr_cpu_pct = res->cpu_usr_pct;
		x->sys_cpu_pct = res->cpu_sys_pct;
		x->error = res->setup_err ? -res->setup_err : 0;
		x->start_ms = res->start_wall_ns / 1000000;
		x->iodepth = wl->iodepth;
		x->depths = &res->depths;
		x->rusage = true;
		x->ctx = res->ctx;
		x->majf = res->majf;
		x->minf = res->minf;
	}
	struct rb_fio_doc doc = { .jobs = jobs,
				  .njobs = (unsigned)(nres < 64 ? nres : 64),
				  .disks = y->du,
				  .ndisks = y->ndu };

	if (fmt == RB_FIO_FMT_TERSE)
		rb_fio_terse_write(stdout, &doc);
	else
		rb_fio_json_write(stdout, &doc, fmt == RB_FIO_FMT_JSONPLUS);
	free(jobs);
}

/* A target's error list overflow note and its verification, as text. */
static void print_verify_text(const struct rb_workload *wl, const struct rb_target_result *res)
{
	if (res->nerrors == RB_MAX_IO_ERRORS)
		printf("  (the first %d distinct failures are listed)\n", RB_MAX_IO_ERRORS);
	if (wl->verify)
		printf("  verify: %" PRIu64 " chunks of %d bytes checked, %" PRIu64
		       " mismatches, %" PRIu64 " never written\n",
		       res->verify.checked, RB_VERIFY_CHUNK, res->verify.bad,
		       res->verify.unwritten);
	for (unsigned e = 0; e < res->nmismatches; e++) {
		const struct rb_verify_mismatch *m = &res->mismatches[e];

		if (m->kind == RB_VERIFY_NO_HEADER)
			printf("  mismatch at offset %" PRIu64 ": %s\n", m->offset,
			       rb_verify_kind_name(m->kind));
		else
			printf("  mismatch at offset %" PRIu64 ": %s; the header says "
			       "offset %" PRIu64 " crc32c %08x, the data's crc32c is "
			       "%08x\n",
			       m->offset, rb_verify_kind_name(m->kind), m->found_offset,
			       m->found_crc, m->expected_crc);
	}
}

static void rc_print(const struct rb_diags *d, bool refused);

/* What a failed rb_runner_prepare says, and its exit code. */
static int prepare_failed(int r, const struct rb_diags *diags)
{
	rc_print(diags, r == -EPERM);
	return r == -EPERM ? RB_EXIT_REFUSED : r == -EINVAL ? RB_EXIT_USAGE : RB_EXIT_FAILED;
}

static void rc_print(const struct rb_diags *d, bool refused)
{
	if (refused)
		fprintf(stderr, "rackbench-agent: refused by the safety guard, nothing was "
				"written:\n");
	for (size_t i = 0; i < d->n; i++) {
		if (refused)
			fprintf(stderr, "  %s: %s\n", d->v[i].subject, d->v[i].message);
		else
			rb_err("%s: %s", d->v[i].subject, d->v[i].message);
	}
}

/* A striped volume is measured as one target, named after its members. */
static void volume_name(const struct rb_workload *wl, char **targets, size_t n, char *buf,
			size_t len)
{
	char u[32];
	size_t l = (size_t)snprintf(buf, len, "stripe(");

	for (size_t t = 0; t < n && l < len; t++)
		l += (size_t)snprintf(buf + l, len - l, "%s%s", t ? "," : "", targets[t]);
	if (l < len)
		snprintf(buf + l, len - l, "; %s)", rb_fmt_size(wl->stripe, u, sizeof(u)));
}

/*
 * --filesystem: the one target gets a filesystem, mounted privately; the workload runs
 * on a file of rackbench's own there. Returns 0 or the exit code, said.
 */
static int fs_prepare(struct rb_localrun *a, const struct rb_guard_policy *gp,
		      struct rb_fs_target *fst, struct rb_diags *d)
{
	char mnt[PATH_MAX];
	int r;

	if (a->ntargets != 1 || !a->wl.size) {
		rb_err("--filesystem takes one --target (a block device) and --size (the file's)");
		return RB_EXIT_USAGE;
	}
	snprintf(mnt, sizeof(mnt), "%s/fs/run-%d", gp->state_dir, (int)getpid());
	r = rb_fs_target_setup(gp, &a->fs, a->targets[0], mnt, "", fst, d);
	if (r) {
		rc_print(d, r == -EPERM);
		return r == -EPERM    ? RB_EXIT_REFUSED
		       : r == -EINVAL ? RB_EXIT_USAGE
				      : RB_EXIT_FAILED;
	}
	rb_info("%s: a new %s (mkfs options '%s', mount options '%s'), mounted privately at %s",
		a->targets[0], a->fs.type, a->fs.mkfs_options, a->fs.mount_options, fst->mnt);
	a->targets[0] = fst->file;
	return 0;
}

/* What the flags leave to check: a target (or the null engine's), a workload that holds. */
static int check_args(struct rb_localrun *a)
{
	char err[512];

	if (!a->ntargets) {
		if (rb_engine_needs_target(a->wl.engine)) {
			rb_err("no target: give --target PATH (see --help)");
			return -1;
		}
		a->targets[a->ntargets++] = (char *)"null";
	}
	if (rb_workload_check(&a->wl, err, sizeof(err))) {
		rb_err("%s", err);
		return -1;
	}
	if (a->wl.rw == RB_RW_CHECKPOINT) {
		rb_err("rw checkpoint runs in a campaign, on a drive with a 'filesystem' "
		       "(docs/campaigns.md); 'run' measures one target");
		return -1;
	}
	return 0;
}

static const char *state_dir_of(const struct rb_localrun *a)
{
	return a->state_dir ? a->state_dir : rb_default_state_dir();
}

/*
 * The run made ready: the filesystem when asked for, the targets opened through the guard,
 * the engine's run over them, its latency log. Returns 0 or the exit code, said.
 */
static int setup_run(struct rb_localrun *a, const struct rb_guard_policy *gp,
		     struct rb_fs_target *fst, struct rb_diags *d, struct rb_prepared **prep,
		     struct rb_run **run)
{
	char err[512];
	int r;

	if (a->fs.type[0] && (r = fs_prepare(a, gp, fst, d)))
		return r;
	r = rb_runner_prepare(&a->wl, a->targets, a->ntargets, gp, prep, d);
	if (r)
		return prepare_failed(r, d);
	r = rb_run_new(&a->wl, (*prep)->fds, (*prep)->spans, (*prep)->n, run, err, sizeof(err));
	if (r) {
		rb_err("%s", err);
		return RB_EXIT_FAILED;
	}
	if (a->lat_log && rb_run_set_lat_log(*run, a->lat_log, err, sizeof(err))) {
		rb_err("%s", err);
		return RB_EXIT_USAGE;
	}
	return 0;
}

/* The run, from start to its end, its intervals tallied in y (NULL: not); SIGINT and
 * SIGTERM stop it early. */
static void run_to_end(struct rb_run *run, struct tally *y)
{
	running = run;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (y && y->disks)
		rb_diskutil_start(y->disks, "", y->a->targets, y->a->ntargets);
	rb_run_start(run);
	while (!rb_run_poll(run, y ? on_interval : NULL, y)) {
		struct timespec ts = { 0, 20000000 }; /* 20 ms: the jobs need the CPUs */

		nanosleep(&ts, NULL);
	}
	rb_run_join(run);
	if (y && y->disks)
		y->ndu = rb_diskutil_read(y->disks, y->du);
	running = NULL;
}

/*
 * fio's verify phase after a write with verify: the written range read back on the same
 * descriptors, every chunk checked, what it checked added to the write's results.
 * Returns 0 or the exit code.
 */
static int verify_pass(const struct rb_localrun *a, const struct rb_prepared *prep,
		       struct rb_run *wrote)
{
	struct rb_workload check;
	struct rb_run *run = NULL;
	char err[512];

	rb_fio_verify_pass(&a->wl, &check);
	if (rb_run_new(&check, prep->fds, prep->spans, prep->n, &run, err, sizeof(err))) {
		rb_err("the verify pass: %s", err);
		return RB_EXIT_FAILED;
	}
	rb_info("reading back what was written, checked (fio's verify phase)");
	run_to_end(run, NULL);
	rb_run_absorb_verify(wrote, run);
	rb_run_free(run);
	return 0;
}

/* A result's name: the striped volume's, or its target's. */
static const char *res_name(const struct rb_localrun *a, const char *volname, size_t t)
{
	return a->wl.stripe ? volname : a->targets[t];
}

/*
 * Each target's setup error said, and what the run wrote noted in the drive's history.
 * Returns the exit code: 0, failed (a target did not set up), or IO errors.
 */
static int account(const struct rb_localrun *a, const struct rb_run *run,
		   const struct rb_prepared *prep, size_t nres, const char *volname)
{
	uint64_t total_errors = 0;
	int rc = RB_EXIT_OK;

	for (size_t t = 0; t < nres; t++) {
		const struct rb_target_result *res = rb_run_result(run, t);

		if (res->setup_err) {
			rb_err("%s: %s", res_name(a, volname, t), res->message);
			rc = RB_EXIT_FAILED;
		}
		total_errors += res->dir[RB_DIR_READ].errors + res->dir[RB_DIR_WRITE].errors +
				res->dir[RB_DIR_TRIM].errors + res->verify.bad;
		/* the drive's history: what this run wrote (not for a striped volume's parts) */
		if (!a->wl.stripe && t < prep->n)
			rb_history_note_run(state_dir_of(a), a->targets[t], prep->info[t].serial,
					    &a->wl, res->dir[RB_DIR_WRITE].bytes, prep->spans[t],
					    "rackbench-agent run");
	}
	if (rc == RB_EXIT_OK && total_errors && !a->errors_ok)
		rc = RB_EXIT_IO_ERRORS;
	return rc;
}

/* Every target's result merged into ALL (cleared by the caller): the run's top level. */
static void merge_results(const struct rb_run *run, size_t nres, struct rb_target_result *all)
{
	for (int d = 0; d < RB_NDIR; d++)
		rb_dir_stats_clear(&all->dir[d]);
	for (size_t t = 0; t < nres; t++) {
		const struct rb_target_result *res = rb_run_result(run, t);

		for (int d = 0; d < RB_NDIR; d++)
			rb_dir_stats_merge(&all->dir[d], &res->dir[d]);
		for (unsigned e = 0; e < res->nerrors; e++)
			rb_io_error_add(all->errors, &all->nerrors, RB_MAX_IO_ERRORS,
					&res->errors[e]);
		if (res->elapsed_ns > all->elapsed_ns)
			all->elapsed_ns = res->elapsed_ns;
		all->cpu_usr_pct += res->cpu_usr_pct;
		all->cpu_sys_pct += res->cpu_sys_pct;
		snprintf(all->features, sizeof(all->features), "%s", res->features);
		snprintf(all->trim_method, sizeof(all->trim_method), "%s", res->trim_method);
		all->verify.checked += res->verify.checked;
		all->verify.unwritten += res->verify.unwritten;
		all->verify.bad += res->verify.bad;
		for (unsigned e = 0; e < res->nmismatches && all->nmismatches < RB_MAX_IO_ERRORS;
		     e++)
			all->mismatches[all->nmismatches++] = res->mismatches[e];
		all->nbs = res->nbs;
		memcpy(all->bs, res->bs, sizeof(all->bs));
		for (int d = 0; d < RB_NDIR; d++)
			for (unsigned b = 0; b < res->nbs; b++)
				all->bs_ios[d][b] += res->bs_ios[d][b];
		rb_replay_merge(&all->replay, &res->replay, t == 0);
	}
}

/*
 * rackbench's JSON: the top level is the merge of every target; "targets" has each one.
 * Returns 0, or -ENOMEM with nothing printed.
 */
static int print_json(const struct rb_localrun *a, const struct rb_run *run, size_t nres,
		      const char *volname, int rc)
{
	struct rb_target_result *all = calloc(1, sizeof(*all));
	char dump[RB_WORKLOAD_DUMP_MAX];

	if (!all)
		return -ENOMEM;
	merge_results(run, nres, all);
	print_target_json(stdout, &a->wl, all, nres == 1 ? res_name(a, volname, 0) : "all", false);
	printf(", \"targets\": [");
	for (size_t t = 0; t < nres; t++) {
		if (t)
			printf(", ");
		print_target_json(stdout, &a->wl, rb_run_result(run, t), res_name(a, volname, t),
				  true);
	}
	printf("], \"exit_code\": %d, \"effective\": ", rc);
	rb_json_str(stdout, rb_workload_dump(&a->wl, dump, sizeof(dump)));
	printf("}\n");
	free(all);
	return 0;
}

/* The text output; a status snapshot's (snapshot) says when, and leaves out what only the
 * end knows (the verification, a replay's trace). */
static void print_text(const struct tally *y, const struct rb_target_result *const *all,
		       size_t nres, bool snapshot)
{
	const struct rb_localrun *a = y->a;
	const struct rb_prepared *prep = y->prep;
	const char *volname = y->volname;
	char dump[RB_WORKLOAD_DUMP_MAX];

	if (snapshot)
		printf("rackbench-agent run: status after %.2fs measured\n",
		       (double)all[0]->elapsed_ns / 1e9);
	else
		printf("rackbench-agent run: %s\n", rb_workload_dump(&a->wl, dump, sizeof(dump)));
	for (size_t t = 0; t < nres; t++) {
		const struct rb_target_result *res = all[t];

		if (res->setup_err) { /* no IO ran: no time measured, no figures */
			printf("%s: not measured: %s\n", res_name(a, volname, t), res->message);
			continue;
		}
		if (a->wl.stripe)
			printf("%s: %.2fs measured\n", volname, (double)res->elapsed_ns / 1e9);
		else
			printf("%s (%s, %llu bytes used): %.2fs measured\n", a->targets[t],
			       rb_target_kind_name(prep->info[t].kind),
			       (unsigned long long)prep->spans[t], (double)res->elapsed_ns / 1e9);
		for (int d = 0; d < RB_NDIR; d++)
			print_dir_text(stdout, &res->dir[d], res->elapsed_ns, d);
		printf("  cpu   usr=%.1f%% sys=%.1f%%", res->cpu_usr_pct, res->cpu_sys_pct);
		if (!snapshot) /* the ring's features are said at the end */
			printf("  io_uring: %s", res->features[0] ? res->features : "-");
		putchar('\n');
		for (unsigned e = 0; e < res->nerrors; e++)
			printf("  error %s at offset %" PRIu64 " (%u bytes), %" PRIu64
			       " time(s): %s\n",
			       dir_name((int)res->errors[e].dir), res->errors[e].offset,
			       res->errors[e].length, res->errors[e].count,
			       strerror(res->errors[e].err));
		if (snapshot)
			continue;
		print_verify_text(&a->wl, res);
		rb_replay_print_text(stdout, &a->wl, res);
	}
}

/*
 * A status snapshot (--status-interval), once every target's intervals reached its time
 * and none ended: the figures so far in the output's format, what the jobs used as of
 * their last interval, what the disks did until now.
 */
static void status(struct tally *y)
{
	size_t n = rb_run_ntargets(y->run);
	const struct rb_target_result *all[RB_FIO_MAX_FILES];
	uint64_t reached = UINT64_MAX;

	for (size_t t = 0; t < n; t++) {
		if (y->ended[t])
			return;
		if (y->sofar[t].elapsed_ns < reached)
			reached = y->sofar[t].elapsed_ns;
	}
	if (reached < y->next_status_ns)
		return;
	while (y->next_status_ns <= reached)
		y->next_status_ns += y->a->status_interval_ns;
	for (size_t t = 0; t < n && t < RB_FIO_MAX_FILES; t++) {
		struct rb_target_result *so = &y->sofar[t];
		double wall = (double)(so->elapsed_ns + y->a->wl.ramp_ns);
		struct rb_usage u;

		rb_run_usage(y->run, t, &u, &so->depths);
		so->cpu_usr_pct = wall > 0 ? 100.0 * (double)u.usr_ns / wall : 0;
		so->cpu_sys_pct = wall > 0 ? 100.0 * (double)u.sys_ns / wall : 0;
		so->ctx = u.ctx;
		so->majf = u.majf;
		so->minf = u.minf;
		all[t] = so;
	}
	if (y->disks)
		y->ndu = rb_diskutil_read(y->disks, y->du);
	if (y->a->fio_fmt)
		print_fio(y, all, n < RB_FIO_MAX_FILES ? n : RB_FIO_MAX_FILES, y->a->fio_fmt);
	else
		print_text(y, all, n < RB_FIO_MAX_FILES ? n : RB_FIO_MAX_FILES, true);
	fflush(stdout);
}

/* The run's results in the format asked for. Returns the exit code. */
static int report(const struct tally *y)
{
	const struct rb_localrun *a = y->a;
	size_t nres = rb_run_ntargets(y->run);
	const struct rb_target_result *all[RB_FIO_MAX_FILES];
	int rc = account(a, y->run, y->prep, nres, y->volname);

	for (size_t t = 0; t < nres && t < RB_FIO_MAX_FILES; t++)
		all[t] = rb_run_result(y->run, t);
	if (nres > RB_FIO_MAX_FILES)
		nres = RB_FIO_MAX_FILES;
	if (a->fio_fmt)
		print_fio(y, all, nres, a->fio_fmt);
	else if (!a->json)
		print_text(y, all, nres, false);
	else if (print_json(a, y->run, rb_run_ntargets(y->run), y->volname, rc))
		rc = RB_EXIT_FAILED;
	return rc;
}

/* The tally of a run about to start: 0, or the exit code (no memory). */
static int tally_init(struct tally *y, const struct rb_localrun *a, struct rb_run *run,
		      const struct rb_prepared *prep, const char *volname, const char *job)
{
	size_t n = rb_run_ntargets(run);

	*y = (struct tally){ .run = run, .a = a, .prep = prep, .volname = volname, .job = job };
	y->s = calloc(n, sizeof(*y->s));
	if (!y->s)
		return RB_EXIT_FAILED;
	if (a->fio_fmt) { /* fio's output says what the disks under the targets did */
		y->disks = malloc(sizeof(*y->disks));
		y->du = calloc(RB_DISKUTIL_MAX, sizeof(*y->du));
		if (!y->disks || !y->du)
			return RB_EXIT_FAILED;
	}
	if (a->status_interval_ns) {
		y->sofar = calloc(n, sizeof(*y->sofar));
		y->ended = calloc(n, sizeof(*y->ended));
		if (!y->sofar || !y->ended)
			return RB_EXIT_FAILED;
		for (size_t t = 0; t < n; t++)
			for (int d = 0; d < RB_NDIR; d++)
				rb_dir_stats_clear(&y->sofar[t].dir[d]);
		y->next_status_ns = a->status_interval_ns;
	}
	return 0;
}

static void tally_release(struct tally *y)
{
	free(y->s);
	free(y->disks);
	free(y->du);
	free(y->sofar);
	free(y->ended);
}

int rb_localrun(struct rb_localrun *a, const char *job)
{
	struct rb_fs_target fst = { 0 };
	int rc = RB_EXIT_USAGE;
	struct rb_diags diags;
	struct rb_prepared *prep = NULL;
	struct rb_run *run = NULL;
	struct tally y = { 0 };
	char volname[4096] = "";

	rb_diags_init(&diags);
	if (check_args(a))
		goto out;
	struct rb_guard_policy gp = {
		.destructive = a->destructive,
		.destructive_key = "--destructive",
		.allow = a->allow,
		.nallow = a->nallow,
		.state_dir = state_dir_of(a),
		.wipe_signatures = a->wipe,
		.root = "",
	};
	rc = setup_run(a, &gp, &fst, &diags, &prep, &run);
	if (rc)
		goto out;
	if (a->wl.stripe)
		volume_name(&a->wl, a->targets, a->ntargets, volname, sizeof(volname));
	rc = tally_init(&y, a, run, prep, volname, job);
	if (rc)
		goto out;
	run_to_end(run, &y);
	if (a->verify_after && (rc = verify_pass(a, prep, run)))
		goto out;
	rc = report(&y);
out:
	tally_release(&y);
	rb_run_free(run);
	rb_prepared_free(prep);
	rb_fs_target_teardown(&fst);
	rb_diags_release(&diags);
	return rc;
}
