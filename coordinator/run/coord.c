// SPDX-License-Identifier: MIT
/*
 * The coordinator's entry points -- run, resume, resolve -- and the run's course: set-up
 * (keys, socket), the phases in order (agents, drives, pre-flight, points), the end
 * (status, the results file closed, the summary). The phases' work is in the modules
 * coord_priv.h lists.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "coord_priv.h"
#include "exitcode.h"
#include "journal.h"
#include "keys.h"
#include "log.h"
#include "progress.h"
#include "units.h"

/* What a run is asked to do besides running: resume a crashed one, or only resolve. */
struct mode {
	const struct rb_journal_meta *resume; /* its journal's description */
	bool resolve;			      /* plan --resolve: no IO */
	const char *lock;		      /* plan --lock: the file to write */
};

/* The run's results file: the campaign's name made a file name, inside the folder. */
static int results_path(const struct rb_campaign *c, char *buf, size_t len)
{
	return rb_campaign_results_path(c, time(NULL), buf, len);
}

/* The folder a results file is in, and its free space ("?" when it cannot be read). */
static void folder_space(const char *path, char *dir, size_t dirlen, char *free_s, size_t flen)
{
	const char *slash = strrchr(path, '/');
	struct statvfs v;

	if (!slash)
		snprintf(dir, dirlen, ".");
	else if (slash == path)
		snprintf(dir, dirlen, "/");
	else
		snprintf(dir, dirlen, "%.*s", (int)(slash - path), path);
	if (statvfs(dir, &v))
		snprintf(free_s, flen, "?");
	else
		rb_fmt_size_human((uint64_t)v.f_bavail * v.f_frsize, free_s, flen);
}

static void report_store_failure(struct coord *k, const char *path)
{
	char dir[4096], fr[32];

	folder_space(path, dir, sizeof(dir), fr, sizeof(fr));
	rb_err("the run stopped: the results folder '%s' could not store what came (%s; %s "
	       "free); the journal holds everything acknowledged and the agents' spools the "
	       "rest: free space, then run 'rackbench resume %s'",
	       dir, strerror(k->store_err), fr, path);
}

/*
 * A rough size of what the run stores (journal and HDF5 file): per sample interval and
 * drive, about 2 KiB for both directions with their histograms. Warns when the results
 * folder has less free space than that.
 */
static void check_space(struct coord *k, const char *path)
{
	const struct rb_campaign *c = k->c;
	double need = 0;
	char dir[4096], fr[32], nd[32];
	struct statvfs v;

	for (size_t i = 0; i < c->npoints; i++) {
		const struct rb_point *p = &c->points[i];
		uint64_t iv = p->wl.interval_ns ? p->wl.interval_ns : 1000000000ULL;
		size_t nd_ = 0;

		for (size_t d = 0; d < c->ndrives; d++)
			nd_ += rb_point_has_drive(c, p, d);
		need += ((double)(p->wl.ramp_ns + p->wl.runtime_ns) / (double)iv + 2) *
			(double)nd_ * 2048.0;
	}
	folder_space(path, dir, sizeof(dir), fr, sizeof(fr));
	if (statvfs(dir, &v))
		return;
	if ((double)v.f_bavail * (double)v.f_frsize < need) {
		rb_fmt_size_human((uint64_t)need, nd, sizeof(nd));
		rb_warn("the results folder '%s' has %s free; this run may need about %s (a full "
			"folder stops the run: resume it once there is room)",
			dir, fr, nd);
	}
}

/* The run's own state, before any agent: its agents, identity and clock. */
static int coord_init(struct coord *k, struct rb_campaign *c, const struct rb_coord_opts *o)
{
	*k = (struct coord){ .c = c, .o = o, .jr.journal = -1, .so_far.url = o->results_db };
	k->clock = o->clock ? o->clock : &rb_clock_real;
	coord_enter(k, PHASE_WAITING);
	/* this run's identity: the agents' spool files carry it */
	snprintf(k->run, sizeof(k->run), "%" PRIx64 "-%d", (uint64_t)coord_wall(k), (int)getpid());
	return reg_init(k) ? RB_EXIT_FAILED : 0;
}

/*
 * Resume: the same run (the agents' spools and numbering go on where they were), its
 * journal reopened and walked. Returns 0, RB_EXIT_FAILED, or -1 when the run in the file
 * is complete (nothing to do, and not a byte of file or journal changes).
 */
static int open_resumed(struct coord *k, const struct mode *m)
{
	const char *path = k->o->results_path; /* the crashed run's file */
	int r;

	snprintf(k->run, sizeof(k->run), "%s", m->resume->run);
	snprintf(k->jr.journal_path, sizeof(k->jr.journal_path), "%s.journal", path);
	if (rsm_run_complete(path)) {
		rb_info("the run in '%s' is complete: there is nothing to resume", path);
		return -1;
	}
	r = rb_journal_open(k->jr.journal_path, true, &k->jr.journal);
	if (r == -EWOULDBLOCK) {
		pid_t pid = rb_journal_holder(k->jr.journal_path);

		if (pid > 0)
			rb_err("the run in '%s' is still going: its coordinator (pid %d) holds the "
			       "journal '%s'; not resumed",
			       path, (int)pid, k->jr.journal_path);
		else
			rb_err("the run in '%s' is still going: another process holds the journal "
			       "'%s'; not resumed",
			       path, k->jr.journal_path);
		return RB_EXIT_FAILED;
	}
	if (r) {
		rb_err("cannot reopen the journal '%s': %s", k->jr.journal_path, strerror(-r));
		return RB_EXIT_FAILED;
	}
	return rsm_pass(k, J_SEQS, 0) ? RB_EXIT_FAILED : 0;
}

/* The ROUTER socket and its keys: the caller's (demo, service), or bound here. */
static int coord_listen(struct coord *k, struct rb_campaign *c)
{
	const struct rb_coord_opts *o = k->o;
	struct rb_keypair server;
	char err[512], bound[256] = "";

	if (o->router) {
		k->zap = o->zap;
		c->insecure = !o->zap;
		if (c->insecure)
			rb_warn("running without keys (insecure): agents are not authenticated and "
				"traffic is not encrypted");
		k->sock = o->router;
		return 0;
	}
	if (!c->insecure) {
		if (!c->key || !c->agent_keys) {
			rb_err("%s: a keyed run needs 'key' (the coordinator's key pair) and "
			       "'agent_keys' (the allow-list); or say 'insecure: true'",
			       c->file);
			return RB_EXIT_USAGE;
		}
		if (rb_keys_read(c->key, true, &server, err, sizeof(err))) {
			rb_err("%s", err);
			return RB_EXIT_USAGE;
		}
		/* the handler first: bound before the socket, or libzmq accepts any key */
		k->zap = rb_zap_start(c->agent_keys, err, sizeof(err));
		if (!k->zap) {
			rb_err("%s", err);
			return RB_EXIT_USAGE;
		}
	} else {
		rb_warn("running without keys (insecure): agents are not authenticated and "
			"traffic is not encrypted");
	}
	k->sock = rb_tx_router_bind_keyed(c->listen, c->insecure ? NULL : &server, bound,
					  sizeof(bound));
	if (!k->sock) {
		rb_err("cannot listen on '%s': %s", c->listen, strerror(errno));
		return RB_EXIT_FAILED;
	}
	rb_info("listening on %s", bound);
	return 0;
}

/* The agents connected, the drives chosen and checked as the agents offer them. */
static int coord_prepare(struct coord *k, struct rb_campaign *c)
{
	char err[512];
	int rc;

	loop_known(k);
	rc = loop_wait_agents(k);
	if (rc)
		return rc;
	/*
	 * A resume knew its named agents at open; a group's agents are known only now: where
	 * their numbered messages stand, from the journal (the walk leaves the others as
	 * they are), before anything of theirs is acknowledged.
	 */
	if (k->jr.journal >= 0 && c->ngroups && rsm_pass(k, J_SEQS, 0))
		return RB_EXIT_FAILED;
	/* the drives are known now: selectors chose theirs from what the agents offer */
	coord_enter(k, PHASE_SELECTING);
	rc = reg_select_drives(k, c);
	if (rc)
		return rc;
	reg_index_drives(k);
	k->sum = calloc(c->npoints * c->ndrives + 1, sizeof(*k->sum));
	k->health = calloc(c->ndrives + 1, sizeof(*k->health));
	k->vinfo = calloc(c->ndrives + 1, sizeof(*k->vinfo));
	k->prog = rb_progress_new(c, k->o->events, err, sizeof(err));
	if (!k->sum || !k->health || !k->vinfo || !k->prog || live_init(k)) {
		rb_err("%s", k->prog ? "out of memory" : err);
		return RB_EXIT_USAGE;
	}
	rc = reg_check_offered(k);
	if (rc)
		return rc;
	/* a size-based point's progress is its bytes: each drive's as its agent offered it */
	for (size_t i = 0; i < c->ndrives; i++) {
		const struct rb_identity *t =
			c->drives[i].nmembers
				? NULL
				: reg_target(reg_agent(k, c->drives[i].agent), c->drives[i].path);

		if (t)
			rb_progress_capacity(k->prog, i, t->size_bytes);
	}
	k->refusal.refused = calloc(c->ndrives + 1, sizeof(bool));
	k->refusal.refusal_why = calloc(c->ndrives + 1, sizeof(*k->refusal.refusal_why));
	k->warned = calloc(c->ndrives + 1, 1);
	return k->refusal.refused && k->refusal.refusal_why && k->warned ? 0 : RB_EXIT_FAILED;
}

/* The results file (and a new run's journal), named to the caller and the service. */
static int open_results(struct coord *k, const struct mode *m, char *path, size_t len)
{
	const struct rb_campaign *c = k->c;
	const struct rb_coord_opts *o = k->o;
	char err[512], method[24];
	int r;

	/* another run of the campaign may take the same name in the same second: the next
	 * free one then (results_path skips the names taken) */
	for (int tries = 0; !k->res && tries < 3; tries++) {
		struct stat st;

		if (o->results_path) {
			snprintf(path, len, "%s", o->results_path);
		} else if ((r = results_path(c, path, len))) {
			rb_err("cannot create results folder '%s': %s", c->results_dir,
			       strerror(-r));
			return RB_EXIT_FAILED;
		}
		k->res = rb_results_create(
			path,
			&(struct rb_results_meta){
				.campaign_name = c->name,
				.campaign_text = c->text,
				.methodology = rb_campaign_methodology(c, method, sizeof(method)),
				.start_ns = m->resume ? m->resume->start_ns : coord_wall(k),
				.insecure = c->insecure },
			err, sizeof(err));
		if (o->results_path || lstat(path, &st))
			break;
	}
	if (!k->res) {
		rb_err("%s", err);
		return RB_EXIT_FAILED;
	}
	/* evidence the agents send is kept beside it: RESULTS.evidence */
	snprintf(k->evidence_dir, sizeof(k->evidence_dir), "%.*s.evidence",
		 (int)(strlen(path) > 3 && !strcmp(path + strlen(path) - 3, ".h5")
			       ? strlen(path) - 3
			       : strlen(path)),
		 path);
	if (o->ret_path)
		snprintf(o->ret_path, o->ret_path_len, "%s", path);
	if (o->state) {
		snprintf(o->state->results, sizeof(o->state->results), "%s", path);
		o->state->npoints = c->npoints;
	}
	/* every data message an agent sends, as received, before it is acknowledged */
	if (!m->resume && rsm_journal_create(k, path))
		return RB_EXIT_FAILED;
	check_space(k, path);
	ing_agent_rows(k);
	return 0;
}

/* Whether point i ends a round of a steady-state phase that the judge says is over. */
static bool round_ends_phase(struct coord *k, size_t i)
{
	const struct rb_campaign *c = k->c;
	const struct rb_point *p = &c->points[i];

	return p->round &&
	       (i + 1 == c->npoints || c->points[i + 1].phase != p->phase ||
		c->points[i + 1].round != p->round) &&
	       p->round >= c->phases[p->phase].steady_window && srun_check(k, p->phase, p->round);
}

/*
 * One point: restored from the journal when a resume finds it whole there; else run
 * (after what the journal has of it, when it is the first a resume runs).
 */
static int one_point(struct coord *k, size_t i, bool *replaying)
{
	const struct rb_point *p = &k->c->points[i];
	uint32_t attempt = 0;
	int rc = 0;

	if (*replaying && rsm_point_whole(k, i)) {
		rc = rsm_replay(k, p, p->index);
		rb_info("point %u ('%s'): restored from the journal", p->index, p->name);
		return rc;
	}
	if (*replaying) {
		/* what the journal has of this point stays, as its old attempt(s) */
		attempt = rsm_next_attempt(k, i);
		rc = rsm_replay(k, p, UINT32_MAX);
		*replaying = false;
		rb_info("resuming at point %u ('%s') as attempt %u", p->index, p->name, attempt);
	}
	rb_progress_point(k->prog, i, k->refusal.skipped ? k->refusal.refused : NULL);
	if (!rc)
		rc = loop_run_point(k, p, attempt);
	/* however it ended: no Assign goes again */
	coord_enter(k, rc || loop_stopped(k) ? PHASE_STOPPING : PHASE_IDLE);
	rb_progress_point_done(k->prog, loop_stopped(k) ? RB_POINT_ABORTED
					: rc		? RB_POINT_FAILED
							: RB_POINT_OK);
	return rc;
}

/* The points in order; a resume replays those its journal holds whole, then runs on. */
static int run_points(struct coord *k, const struct mode *m, const char *path)
{
	const struct rb_campaign *c = k->c;
	unsigned skip_phase = UINT_MAX;
	bool replaying = m->resume != NULL;
	int rc = 0;

	if (replaying) {
		k->jr.jp = calloc(c->npoints * c->nagents + 1, sizeof(*k->jr.jp));
		if (!k->jr.jp || rsm_pass(k, J_POINTS, 0))
			return RB_EXIT_FAILED;
	}
	for (size_t i = 0; i < c->npoints; i++) {
		const struct rb_point *p = &c->points[i];

		/* a steady-state phase ends at its first steady round */
		if (p->round && p->phase == skip_phase)
			continue;
		ing_point_row(k, p);
		if (k->o->state)
			k->o->state->point = i;
		rc = one_point(k, i, &replaying);
		ing_drive_rows(k);
		if (rc)
			break;
		if (round_ends_phase(k, i))
			skip_phase = p->phase;
		rb_results_flush(k->res);
		size_t next = i + 1;

		while (next < c->npoints && c->points[next].round &&
		       c->points[next].phase == skip_phase)
			next++;
		/* the fleet's database hears of the point now (the run's end: of the file),
		 * from a reader of the file: the point's rows on disk first */
		if (next < c->npoints && !replaying && !loop_stopped(k) && k->so_far.url &&
		    !rb_results_sync(k->res))
			rb_resdb_so_far_point(&k->so_far, path, p->index);
		if (next < c->npoints && !replaying)
			loop_idle(k, c->phases[p->phase].idle_ns);
		if (loop_stopped(k))
			break;
	}
	/* every point was whole in the journal: what came after the last one, too */
	if (replaying && c->npoints && !rc)
		rc = rsm_replay(k, &c->points[c->npoints - 1], UINT32_MAX);
	return rc;
}

/* How the run ended, said to the agents; returns the exit code, *status the file's. */
static int run_end(struct coord *k, const char *path, int rc, const char **status)
{
	coord_enter(k, PHASE_STOPPING);
	/* the last messages acknowledged before the agents are told to stop */
	dlv_flush_acks(k, true);
	*status = "complete";
	if (k->store_err) {
		*status = "aborted";
		dlv_stop_agents(k, "the coordinator's results folder is full (or failing)");
		/* their stop reaches them and their last messages stay in their spools */
		loop_await_stopped(k);
		report_store_failure(k, path);
		return RB_EXIT_PARTIAL;
	}
	if (k->fatal) {
		*status = "failed";
		return RB_EXIT_FAILED;
	}
	if (k->lost_abort) {
		*status = "aborted";
		dlv_stop_agents(k, "campaign aborted: an agent was lost");
		return RB_EXIT_FAILED;
	}
	if (loop_stopped(k)) {
		*status = "aborted";
		dlv_stop_agents(k, "campaign aborted by the user");
		loop_await_stopped(k);
		rb_err("campaign aborted; results so far are in %s", path);
		return RB_EXIT_FAILED;
	}
	/*
	 * A campaign with verdicts stops its agents after them: a FAILed drive's evidence is
	 * captured first. Without verdicts they stop now, while the file closes: the Stop
	 * has that time to leave before the socket goes.
	 */
	if (rb_verdict_rules_any(&k->c->verdict))
		k->finished = true;
	else
		dlv_stop_agents(k, "campaign finished");
	if (k->bad_drives || k->refusal.skipped)
		rc = rb_exit_worse(rc, RB_EXIT_PARTIAL);
	if (rc == RB_EXIT_PARTIAL)
		*status = "partial";
	else if (rc)
		*status = "failed";
	if (k->io_errors)
		rc = rb_exit_worse(rc, RB_EXIT_IO_ERRORS);
	return rc;
}

/* The rules of point p: its phase's merged over the campaign's. */
static const struct rb_verdict_rules *point_rules(const void *arg, uint32_t point)
{
	const struct coord *k = arg;

	return point < k->c->npoints ? &k->vrules[k->c->points[point].phase] : NULL;
}

static bool point_has(const void *arg, uint32_t point, uint32_t drive)
{
	const struct coord *k = arg;

	return point < k->c->npoints && drive < k->c->ndrives &&
	       rb_point_has_drive(k->c, &k->c->points[point], drive);
}

/*
 * The drives judged, when the campaign asks for verdicts (or skipped a drive): the
 * verdicts stored in the closed file and printed. A failed drive makes the exit code 5,
 * an incomplete one 4, whatever the run's own code said short of a failure.
 */
static int run_verdicts(struct coord *k, const char *path, int rc)
{
	const struct rb_campaign *c = k->c;
	char err[512];
	int v;

	if (!rb_verdict_rules_any(&c->verdict) && !k->refusal.skipped)
		return rc;
	k->vrules = calloc(c->nphases + 1, sizeof(*k->vrules));
	if (!k->vrules) {
		rb_err("out of memory judging the drives");
		return RB_EXIT_FAILED;
	}
	for (size_t i = 0; i < c->nphases; i++)
		rb_verdict_rules_merge(&k->vrules[i], &c->verdict, &c->phases[i].verdict);
	v = rb_verdict_file(path, &c->verdict, point_rules, point_has, k, stdout, err, sizeof(err));
	if (v < 0) {
		rb_err("%s", err);
		return RB_EXIT_FAILED;
	}
	/* the vendor will ask for what the drive says of itself: captured now, while the
	 * agents are still here */
	if (v == RB_FAIL && k->finished)
		ing_capture_failed(k, path);
	/* a FAIL holds the IO errors and mismatches that failed it (exitcode.h's order) */
	return rb_exit_worse(rc, v == RB_FAIL	      ? RB_EXIT_BELOW_SPEC
				 : v == RB_INCOMPLETE ? RB_EXIT_PARTIAL
						      : RB_EXIT_OK);
}

/* The results file closed with its status (never "complete" if it could not be); the
 * summary printed. */
static int run_close(struct coord *k, const char *path, int rc, const char *status)
{
	rb_progress_end(k->prog, status, rc);
	ing_drive_rows(k);
	/* no reader of the file while it closes (its end is written in a second open) */
	rb_resdb_so_far_end(&k->so_far);
	if (rb_results_close(k->res, status, coord_wall(k))) {
		rb_err("cannot finish '%s'%s", path,
		       k->store_err ? ": its journal holds what was acknowledged" : "");
		if (!strcmp(status, "complete")) {
			status = "failed";
			rc = RB_EXIT_FAILED;
		}
	}
	k->res = NULL;
	ing_print_summary(k, stdout);
	if (strcmp(status, "failed"))
		rc = run_verdicts(k, path, rc);
	printf("\nresults: %s (%s)\n", path, status);
	fflush(stdout);
	return rc;
}

static void coord_release(struct coord *k)
{
	/* a run that ended before its points (its journal could not be created): the file
	 * is closed, and says so */
	rb_resdb_so_far_end(&k->so_far);
	if (k->res && rb_results_close(k->res, "failed", coord_wall(k)))
		rb_err("cannot finish the results file");
	k->res = NULL;
	reg_release(k);
	if (k->zap != k->o->zap)
		rb_zap_stop(k->zap);
	free(k->sum);
	free(k->health);
	free(k->vinfo);
	srun_roll_free(k);
	if (k->jr.journal >= 0) {
		fdatasync(k->jr.journal);
		close(k->jr.journal);
	}
	free(k->steady.ss);
	free(k->jr.jp);
	free(k->jr.gaps);
	ing_seen_release(k);
	free(k->refusal.refused);
	free(k->refusal.refusal_why);
	free(k->vrules);
	free(k->cap.rows);
	free(k->warned);
	rb_progress_free(k->prog);
	live_release(k);
}

/* The run with its mode; returns the process exit code (common/util/exitcode.h). */
static int coord_main(struct rb_campaign *c, const struct rb_coord_opts *o, const struct mode *m)
{
	struct coord k;
	char path[4096];
	const char *status;
	bool started = false;
	int rc = coord_init(&k, c, o);

	if (!rc && m->resume)
		rc = open_resumed(&k, m);
	if (rc) {
		rc = rc < 0 ? RB_EXIT_OK : rc;
		goto out;
	}
	rc = coord_listen(&k, c);
	if (rc)
		goto out;
	rc = coord_prepare(&k, c);
	if (rc)
		goto out_close;
	rc = loop_preflight(&k);
	if (m->resolve) {
		rc = rsv_print(&k, m->lock, rc);
		dlv_stop_agents(&k, "plan --resolve done");
		started = true;
		goto out_close;
	}
	if (rc)
		goto out_close;
	if (m->resume) {
		loop_await_spooled(&k);
		if (rsm_set_aside(k.o->results_path)) {
			rc = RB_EXIT_FAILED;
			goto out_close;
		}
	}
	rc = open_results(&k, m, path, sizeof(path));
	if (rc)
		goto out_close;
	started = true;
	rc = run_points(&k, m, path);
	rc = run_end(&k, path, rc, &status);
	rc = run_close(&k, path, rc, status);
	if (k.finished) {
		dlv_stop_agents(&k, "campaign finished");
		loop_await_quiet(&k);
	}
out_close:
	if (!started)
		dlv_stop_agents(&k, "campaign failed before it started");
	/* let queued stops leave before the socket goes */
	if (!o->router && k.sock)
		rb_tx_close(k.sock);
out:
	coord_enter(&k, PHASE_DONE);
	live_publish(&k, true); /* the run's last figures (its samples all counted) */
	coord_release(&k);
	return rc;
}

int rb_coord_run(struct rb_campaign *c, const struct rb_coord_opts *o)
{
	return coord_main(c, o, &(struct mode){ 0 });
}

int rb_coord_resume(struct rb_campaign *c, const struct rb_coord_opts *o,
		    const struct rb_journal_meta *m)
{
	if (!o->results_path)
		return RB_EXIT_USAGE;
	return coord_main(c, o, &(struct mode){ .resume = m });
}

int rb_coord_resolve(struct rb_campaign *c, const struct rb_coord_opts *o, const char *lock)
{
	return coord_main(c, o, &(struct mode){ .resolve = true, .lock = lock });
}
