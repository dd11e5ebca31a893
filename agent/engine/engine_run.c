// SPDX-License-Identifier: MIT
/*
 * A run of the engine: its targets and volumes (RAID 0 parts) laid out, its settings,
 * its jobs started on their threads (engine.c), polled for samples, stopped, collected
 * into per-target results, freed.
 */
#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "clock.h"
#include "engine_ops.h"
#include "engine_priv.h"
void rb_run_set_start_at(struct rb_run *r, int64_t mono_ns)
{
	r->start_at = mono_ns;
}

int rb_run_set_target_rate(struct rb_run *r, size_t target, uint64_t iops)
{
	if (target >= r->ntgt || r->started)
		return -EINVAL;
	r->tgts[target].rate_iops = iops;
	return 0;
}

int rb_run_set_lat_log(struct rb_run *r, const char *path, char *err, size_t errlen)
{
	for (size_t k = 0; k < r->njobs; k++) {
		char name[4096];

		if (r->njobs == 1)
			snprintf(name, sizeof(name), "%s", path);
		else
			snprintf(name, sizeof(name), "%s.%zu", path, k);
		r->jobs[k].latlog = fopen(name, "wxe");
		if (!r->jobs[k].latlog) {
			snprintf(err, errlen, "cannot create latency log '%s': %s", name,
				 strerror(errno));
			return -errno;
		}
		/* a large buffer: a write per 64 Ki IOs, not per IO */
		setvbuf(r->jobs[k].latlog, NULL, _IOFBF, 1 << 19);
	}
	return 0;
}

void rb_run_set_clock(struct rb_run *r, const struct rb_clock *c)
{
	r->clock = *c;
}

void rb_run_set_ops(struct rb_run *r, const struct rb_engine_ops *ops)
{
	r->ops = ops;
}

int rb_run_new(const struct rb_workload *wl, const int *fds, const uint64_t *span_bytes, size_t n,
	       struct rb_run **ret, char *err, size_t errlen)
{
	/* with 'stripe' the targets given form one volume */
	struct rb_volume one = { .members = (unsigned)n, .stripe = wl->stripe };

	return rb_run_new_volumes(wl, fds, span_bytes, n, wl->stripe ? &one : NULL,
				  wl->stripe ? 1 : n, ret, err, errlen);
}

/* The engines by the workload's engine key (options.c's choices, in their order). */
static const struct rb_engine_ops *const engines[] = {
	[RB_ENGINE_URING] = &rb_engine_uring,
	[RB_ENGINE_NULL] = &rb_engine_null,
	[RB_ENGINE_NOP] = &rb_engine_nop,
	[RB_ENGINE_URING_CMD] = &rb_engine_uring_cmd,
};

static const struct rb_engine_ops *ops_for(const struct rb_workload *wl)
{
	/* GPU memory (cuFile) is io_uring's place taken, the key still "uring" */
	if (wl->engine == RB_ENGINE_URING && wl->memory == RB_MEMORY_GPU)
		return &rb_engine_gpu;
	return wl->engine < sizeof(engines) / sizeof(engines[0]) ? engines[wl->engine]
								 : &rb_engine_uring;
}

/* The run and its copy of the descriptors; NULL when memory ran out. */
static struct rb_run *run_alloc(const struct rb_workload *wl, const int *fds, size_t nfds, size_t n)
{
	struct rb_run *r;
	uint64_t *spans;

	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->wl = *wl;
	r->clock = rb_clock_real;
	r->ops = ops_for(wl);
	r->member_fds = malloc(nfds * sizeof(int));
	spans = calloc(n, sizeof(*spans));
	if (!r->member_fds || !spans) {
		free(spans);
		free(r->member_fds);
		free(r);
		return NULL;
	}
	r->spans = spans;
	memcpy(r->member_fds, fds, nfds * sizeof(int));
	return r;
}

/*
 * Each volume's span: whole units of its smallest member, times its members (a target on
 * its own: its span). Returns 0 or -EINVAL, said in ERR.
 */
static int volume_spans(struct rb_run *r, const uint64_t *span_bytes, size_t nfds,
			const struct rb_volume *vols, size_t n, char *err, size_t errlen)
{
	size_t used = 0;

	for (size_t t = 0; t < n; t++) {
		unsigned nm = vols ? vols[t].members : 1;
		uint64_t unit = vols ? vols[t].stripe : 0, min = UINT64_MAX;

		if (!nm || used + nm > nfds) {
			snprintf(err, errlen, "target %zu: %u member(s), %zu descriptor(s) left", t,
				 nm, nfds - used);
			return -EINVAL;
		}
		for (unsigned m = 0; m < nm; m++)
			if (span_bytes[used + m] < min)
				min = span_bytes[used + m];
		r->spans[t] = unit ? (min / unit) * unit * nm : min;
		if (unit && !r->spans[t]) {
			snprintf(err, errlen, "'stripe' (%llu bytes) is larger than a member",
				 (unsigned long long)unit);
			return -EINVAL;
		}
		used += nm;
	}
	return 0;
}

/*
 * The run's shape from its workload: targets, jobs, intervals, and the block sizes (the
 * split, its smallest weighted size as the unit, its largest). Returns 0 or -EINVAL, said.
 */
static int run_settings(struct rb_run *r, size_t n, char *err, size_t errlen)
{
	const struct rb_workload *wl = &r->wl;

	r->ntgt = n;
	r->njobs = n * wl->numjobs;
	r->size_based = wl->io_size || wl->passes || wl->rw == RB_RW_REPLAY;
	if (r->size_based)
		r->nintervals = UINT32_MAX;
	else
		r->nintervals =
			(unsigned)((wl->runtime_ns + wl->interval_ns - 1) / wl->interval_ns);
	if (!r->nintervals)
		r->nintervals = 1;
	if (wl->bssplit[0]) {
		if (rb_bssplit_parse(wl->bssplit, &r->split, err, errlen))
			return -EINVAL;
	} else {
		r->split.n = 1;
		r->split.bs[0] = wl->bs;
		r->split.weight[0] = 1;
	}
	r->unit = r->max_bs = r->split.bs[0];
	for (unsigned k = 0; k < r->split.n; k++) {
		if (r->split.weight[k] > 0 && r->split.bs[k] < r->unit)
			r->unit = r->split.bs[k];
		if (r->split.bs[k] > r->max_bs)
			r->max_bs = r->split.bs[k];
	}
	rb_alias_init(&r->alias, r->split.weight, r->split.n);
	/* a replay's slots hold the trace's longest IO */
	if (wl->rw == RB_RW_REPLAY)
		return rb_engine_replay_setup(r, err, errlen);
	return 0;
}

/*
 * Target T: its members' descriptors (from FIRST on), span, stripe unit, rate and the
 * state its jobs share. Returns 0, -EINVAL said in ERR, or -ENOMEM.
 */
static int target_init(struct rb_run *r, size_t t, size_t first, const struct rb_volume *vols,
		       char *err, size_t errlen)
{
	const struct rb_workload *wl = &r->wl;
	struct tgt *tg = &r->tgts[t];

	if (r->spans[t] / wl->numjobs < r->max_bs) {
		snprintf(err, errlen,
			 "target %zu: %llu bytes hold fewer than numjobs (%u) blocks of %llu "
			 "bytes",
			 t, (unsigned long long)r->spans[t], wl->numjobs,
			 (unsigned long long)r->max_bs);
		return -EINVAL;
	}
	tg->run = r;
	tg->member_fds = r->member_fds + first;
	tg->nmembers = vols ? vols[t].members : 1;
	tg->stripe = vols ? vols[t].stripe : 0;
	tg->fd = tg->member_fds[0];
	tg->span = r->spans[t];
	/* an IO across units goes as parts, a submission each: they must fit a ring */
	if (tg->stripe &&
	    (tg->stripe % 512 || (r->max_bs / tg->stripe + 2) * wl->iodepth > 32768)) {
		snprintf(err, errlen,
			 "target %zu: a stripe unit of %llu bytes must be a multiple of 512, "
			 "and split %llu-byte IOs at depth %u into at most 32768 parts",
			 t, (unsigned long long)tg->stripe, (unsigned long long)r->max_bs,
			 wl->iodepth);
		return -EINVAL;
	}
	tg->rate_iops = wl->rate_iops;
	tg->job_last = malloc(wl->numjobs * sizeof(*tg->job_last));
	if (!tg->job_last)
		return -ENOMEM;
	for (unsigned k = 0; k < wl->numjobs; k++)
		tg->job_last[k] = UINT32_MAX;
	pthread_mutex_init(&tg->mu, NULL);
	pthread_cond_init(&tg->cv, NULL);
	for (int d = 0; d < RB_NDIR; d++)
		rb_dir_stats_clear(&tg->res.dir[d]);
	return 0;
}

/*
 * A job's share of its target: its region, its offsets and their seed, its byte limit
 * when size-based. Returns 0 or -ENOMEM.
 */
static int job_region(struct rb_run *r, struct job *j, const struct rb_dist *dist)
{
	const struct rb_workload *wl = &r->wl;
	uint64_t span = j->t->span, limit = 0;

	/* split: sequential jobs get their own region, and so do random ones that visit
	 * once or verify while writing; others roam the whole span. whole: every job the
	 * whole span (fio's numjobs: each job its own pass over the same file region) */
	if (wl->job_region == RB_REGION_WHOLE ||
	    (rb_rw_random(wl->rw) && !wl->visit_once &&
	     !(wl->verify && rb_workload_writes(wl) && wl->numjobs > 1))) {
		j->region_start = 0;
		j->region_bytes = span;
	} else {
		uint64_t per = span / wl->numjobs;

		per -= per % r->unit;
		j->region_start = j->idx * per;
		j->region_bytes = per;
	}
	rb_rng_seed(&j->rng, wl->seed ^ ((uint64_t)j->tidx << 40) ^ ((uint64_t)j->idx << 20));
	if (rb_offgen_init(&j->off, dist, (j->region_bytes - r->max_bs) / r->unit + 1,
			   wl->visit_once, &j->rng))
		return -ENOMEM;
	/* size-based: the target's bytes shared by its jobs */
	if (wl->passes)
		limit = span * wl->passes;
	else if (wl->io_size)
		limit = wl->io_size;
	if (limit && wl->job_region == RB_REGION_WHOLE) {
		j->limit_bytes = limit; /* each job its own passes or io_size */
	} else if (limit) {
		j->limit_bytes = limit / wl->numjobs + (j->idx == 0 ? limit % wl->numjobs : 0);
		if (!j->limit_bytes)
			j->limit_bytes = 1;
	}
	return 0;
}

/*
 * A job's ring context and its IO slots: buffers of random data, the free list, and the
 * parts an IO across a volume's units goes as. Returns 0 or -ENOMEM.
 */
/* Buffered IO: the kernel told random or sequential (no readahead for random reads, as
 * fio's fadvise_hint), and the range dropped from the page cache before the first pass. */
static void buffered_setup(struct rb_run *r, struct job *j)
{
	const struct rb_workload *wl = &r->wl;
	const int *fds = j->ctx.fds ? j->ctx.fds : &j->ctx.fd;
	unsigned n = j->ctx.nfds ? j->ctx.nfds : 1;

	if (wl->direct || fds[0] < 0 || !wl->invalidate || wl->rw == RB_RW_REPLAY ||
	    wl->rw == RB_RW_CHECKPOINT)
		return;
	for (unsigned i = 0; i < n; i++)
		posix_fadvise(fds[i], 0, 0,
			      rb_rw_random(wl->rw) ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL);
	j->invalidate = true;
	if (j->idx == 0) /* one job of the target drops it at the start */
		rb_engine_invalidate(j);
}

static int job_slots(struct rb_run *r, struct job *j)
{
	const struct rb_workload *wl = &r->wl;
	unsigned depth = wl->iodepth;

	struct stat st;

	j->ctx.fd = j->t->fd;
	j->ctx.fds = j->t->member_fds;
	j->ctx.nfds = j->t->nmembers;
	j->ctx.blockdev =
		fstat(j->ctx.fds ? j->ctx.fds[0] : j->ctx.fd, &st) == 0 && S_ISBLK(st.st_mode);
	j->ctx.zeroes = wl->rw == RB_RW_WRITEZEROES || wl->rw == RB_RW_RANDWRITEZEROES;
	buffered_setup(r, j);
	j->ctx.trim_want = wl->trim_method;
	/* a set rate spins to each due time, as fio does: no idle CPU's wake-up in the
	 * latency */
	j->ctx.completion = wl->completion != RB_COMPLETION_AUTO ? wl->completion
			    : wl->rate_iops			 ? RB_COMPLETION_SPIN
								 : RB_COMPLETION_WAIT;
	j->ctx.sqpoll = wl->sqpoll;
	j->ctx.iopoll = wl->iopoll;
	j->ctx.passthru = wl->engine == RB_ENGINE_URING_CMD;
	j->ctx.nodata = rb_rw_third(wl->rw);
	j->ctx.zone_append = wl->zns == RB_ZNS_APPEND;
	j->ctx.zone_op = wl->zns == RB_ZNS_RESET    ? RB_ZONE_RESET
			 : wl->zns == RB_ZNS_FINISH ? RB_ZONE_FINISH
						    : 0;
	/* checked with the campaign and at pre-flight: the ids the writes take in turn, each
	 * job from its own place in the list */
	{
		size_t n = 0;

		_Static_assert(RB_ENGINE_PLACEMENT_MAX == RB_PLACEMENT_MAX, "placement ids");
		if (wl->placement[0] && rb_parse_placement(wl->placement, j->ctx.placement, &n))
			n = 0;
		j->ctx.nplacement = (unsigned)n;
		j->ctx.place_turn = j->idx;
	}
	j->ctx.depth = depth;
	/* parts: an IO touches at most max_bs / unit + 2 units of a volume */
	j->pmax = j->t->stripe ? (unsigned)(r->max_bs / j->t->stripe) + 2 : 1;
	j->ctx.entries = depth * j->pmax;
	/* a slot a block, but a zone's management moves no data: a page a slot */
	j->ctx.bs = j->ctx.zone_op ? 4096 : r->max_bs;
	if (posix_memalign((void **)&j->ctx.bufs, 4096, depth * j->ctx.bs))
		return -ENOMEM;
	/* writes carry random data, never zeros a drive could compress away */
	for (size_t b = 0; b < depth * j->ctx.bs / 8; b++)
		((uint64_t *)j->ctx.bufs)[b] = rb_rng_next(&j->rng);
	j->ios = calloc(depth, sizeof(*j->ios));
	j->freelist = calloc(depth, sizeof(*j->freelist));
	j->done = calloc(j->ctx.entries, sizeof(*j->done));
	j->queued = calloc(depth, sizeof(*j->queued));
	j->res = calloc(j->ctx.entries, sizeof(*j->res));
	if (j->pmax > 1)
		j->parts = calloc((size_t)depth * j->pmax, sizeof(*j->parts));
	if (!j->ios || !j->freelist || !j->done || !j->queued || !j->res ||
	    (j->pmax > 1 && !j->parts))
		return -ENOMEM;
	for (unsigned i = 0; i < depth; i++) {
		j->ios[i].slot = i;
		j->ios[i].orig_buf = j->ctx.bufs + (size_t)i * j->ctx.bs;
		j->freelist[j->nfree++] = &j->ios[i];
	}
	for (int d = 0; d < RB_NDIR; d++) {
		rb_dir_stats_clear(&j->ival[d]);
		rb_dir_stats_clear(&j->total[d]);
	}
	return 0;
}

/* The run's targets, then their jobs. Returns 0, -EINVAL said in ERR, or -ENOMEM. */
static int targets_and_jobs(struct rb_run *r, const struct rb_volume *vols,
			    const struct rb_dist *dist, char *err, size_t errlen)
{
	unsigned numjobs = r->wl.numjobs;
	size_t first = 0;
	int e;

	r->tgts = calloc(r->ntgt, sizeof(*r->tgts));
	r->jobs = calloc(r->njobs, sizeof(*r->jobs));
	if (!r->tgts || !r->jobs)
		return -ENOMEM;
	for (size_t t = 0; t < r->ntgt; t++) {
		e = target_init(r, t, first, vols, err, errlen);
		if (e)
			return e;
		first += r->tgts[t].nmembers;
	}
	for (size_t k = 0; k < r->njobs; k++) {
		struct job *j = &r->jobs[k];

		j->run = r;
		j->t = &r->tgts[k / numjobs];
		j->tidx = (unsigned)(k / numjobs);
		j->idx = (unsigned)(k % numjobs);
		e = job_region(r, j, dist);
		if (!e)
			e = job_slots(r, j);
		if (!e && r->replay)
			e = rb_engine_replay_job(j, err, errlen);
		if (e)
			return e;
	}
	return 0;
}

int rb_run_new_volumes(const struct rb_workload *wl, const int *fds, const uint64_t *span_bytes,
		       size_t nfds, const struct rb_volume *vols, size_t n, struct rb_run **ret,
		       char *err, size_t errlen)
{
	struct rb_run *r;
	struct rb_dist dist;
	int e;

	if (!n || !nfds || !wl->bs || !wl->iodepth || !wl->numjobs) {
		snprintf(err, errlen, "nothing to run");
		return -EINVAL;
	}
	r = run_alloc(wl, fds, nfds, n);
	if (!r)
		return -ENOMEM;
	e = volume_spans(r, span_bytes, nfds, vols, n, err, errlen);
	if (e)
		goto out_free;
	e = run_settings(r, n, err, errlen);
	if (e)
		goto out_free;
	if (rb_dist_parse(wl->random_distribution[0] ? wl->random_distribution : "uniform", &dist,
			  err, errlen)) {
		e = -EINVAL;
		goto out_free;
	}
	e = targets_and_jobs(r, vols, &dist, err, errlen);
	if (e == -ENOMEM)
		snprintf(err, errlen, "out of memory setting up %zu jobs", r->njobs);
	if (e)
		goto out_free;
	*ret = r;
	return 0;
out_free:
	rb_run_free(r);
	return e;
}

int rb_run_start(struct rb_run *r)
{
	r->started = true;
	pthread_barrier_init(&r->b1, NULL, (unsigned)r->njobs);
	pthread_barrier_init(&r->b2, NULL, (unsigned)r->njobs);
	for (size_t k = 0; k < r->njobs; k++) {
		int e = pthread_create(&r->jobs[k].th, NULL, rb_job_main, &r->jobs[k]);

		if (e) {
			/* the barrier would never open: stop here, loudly */
			fprintf(stderr, "cannot start job thread: %s\n", strerror(e));
			abort();
		}
		r->jobs[k].started = true;
	}
	return 0;
}

/* Finished jobs whose last interval is before i: they will hand in nothing more. */
static unsigned done_before(const struct tgt *t, unsigned numjobs, unsigned i)
{
	unsigned n = 0;

	for (unsigned k = 0; k < numjobs; k++)
		n += t->job_last[k] != UINT32_MAX && t->job_last[k] < i;
	return n;
}

bool rb_run_poll(struct rb_run *r, rb_sample_fn fn, void *arg)
{
	bool all_done = true;

	for (size_t ti = 0; ti < r->ntgt; ti++) {
		struct tgt *t = &r->tgts[ti];

		for (;;) {
			struct slot *s;
			bool ready, finished, last_one = false;
			unsigned interval = 0;
			int64_t last = 0; /* a finished size-based target's last completion */

			pthread_mutex_lock(&t->mu);
			finished = t->jobs_done == r->wl.numjobs;
			/* its jobs wrote last_completion before they counted themselves done */
			for (size_t k = ti * r->wl.numjobs;
			     finished && r->size_based && k < (ti + 1) * r->wl.numjobs; k++)
				if (r->jobs[k].last_completion > last)
					last = r->jobs[k].last_completion;
			s = &t->slots[t->next_emit % SLOTS];
			if (finished && !s->used) {
				/* jobs stopped at different intervals: skip the gap */
				unsigned lo = UINT32_MAX;

				for (int k = 0; k < SLOTS; k++)
					if (t->slots[k].used && t->slots[k].interval < lo)
						lo = t->slots[k].interval;
				if (lo != UINT32_MAX) {
					t->next_emit = lo;
					s = &t->slots[lo % SLOTS];
				}
			}
			ready = s->used && s->interval == t->next_emit &&
				(finished ||
				 s->reported + done_before(t, r->wl.numjobs, s->interval) >=
					 r->wl.numjobs);
			if (ready) {
				interval = s->interval;
				memcpy(t->scratch, s->d, sizeof(t->scratch));
				s->used = false;
				t->next_emit++;
				/* its jobs ended and no other interval waits: the target's last */
				last_one = finished;
				for (int k = 0; last_one && k < SLOTS; k++)
					last_one = !t->slots[k].used;
				pthread_cond_broadcast(&t->cv);
			}
			pthread_mutex_unlock(&t->mu);
			if (!ready) {
				if (!finished)
					all_done = false;
				break;
			}
			if (fn) {
				int64_t end = r->measure_ns + (int64_t)((uint64_t)(interval + 1) *
									r->wl.interval_ns);

				/* the last interval ends with the point: at its planned end, or
				 * (size-based) at the target's last completion, not a whole
				 * interval later -- a rate over it would show a cliff */
				if (!r->size_based && end > r->end_ns)
					end = r->end_ns;
				if (last && end > last)
					end = last;
				fn(arg, (unsigned)ti, interval, end + r->wall_offset, t->scratch,
				   last_one);
			}
		}
	}
	return all_done;
}

void rb_run_stop(struct rb_run *r)
{
	atomic_store(&r->stop, true);
}

static void collect(struct rb_run *r)
{
	for (size_t ti = 0; ti < r->ntgt; ti++) {
		struct rb_target_result *res = &r->tgts[ti].res;
		int64_t last = 0;
		uint64_t usr = 0, sys = 0;

		for (size_t k = ti * r->wl.numjobs; k < (ti + 1) * r->wl.numjobs; k++) {
			struct job *j = &r->jobs[k];

			for (int d = 0; d < RB_NDIR; d++) {
				rb_dir_stats_merge(&res->dir[d], &j->total[d]);
				for (unsigned b = 0; b < r->split.n; b++)
					res->bs_ios[d][b] += j->bs_ios[d][b];
			}
			for (unsigned e = 0; e < j->nerrs; e++)
				rb_io_error_add(res->errors, &res->nerrors, RB_MAX_IO_ERRORS,
						&j->errs[e]);
			res->verify.checked += j->vst.checked;
			res->verify.unwritten += j->vst.unwritten;
			res->verify.bad += j->vst.bad;
			for (unsigned e = 0; e < j->nvmis && res->nmismatches < RB_MAX_IO_ERRORS;
			     e++)
				res->mismatches[res->nmismatches++] = j->vmis[e];
			if (j->last_completion > last)
				last = j->last_completion;
			usr += j->used.usr_ns;
			sys += j->used.sys_ns;
			res->ctx += j->used.ctx;
			res->majf += j->used.majf;
			res->minf += j->used.minf;
			for (int b = 0; b < RB_FIO_DEPTH_NR; b++) {
				res->depths.level[b] += j->depths.level[b];
				res->depths.submit[b] += j->depths.submit[b];
				res->depths.complete[b] += j->depths.complete[b];
			}
			if (j->err && !res->setup_err) {
				res->setup_err = j->err;
				snprintf(res->message, sizeof(res->message), "%s", j->msg);
			}
			snprintf(res->features, sizeof(res->features), "%s", j->ctx.features);
			snprintf(res->trim_method, sizeof(res->trim_method), "%s",
				 j->ctx.trim_method);
			rb_engine_replay_collect(j, res);
		}
		/* a replay's sizes are the trace's: no split to count them by */
		res->nbs = r->replay ? 0 : r->split.n;
		memcpy(res->bs, r->split.bs, sizeof(res->bs));
		res->elapsed_ns =
			last > r->measure_ns ? (uint64_t)(last - r->measure_ns) : r->wl.runtime_ns;
		res->start_wall_ns = r->measure_ns + r->wall_offset;
		res->start_mono_ns = r->start_ns;
		res->end_wall_ns = res->start_wall_ns + (int64_t)res->elapsed_ns;
		uint64_t wall = r->size_based ? res->elapsed_ns + r->wl.ramp_ns
					      : (uint64_t)(r->end_ns - r->start_ns);
		if (wall) {
			res->cpu_usr_pct = 100.0 * (double)usr / (double)wall;
			res->cpu_sys_pct = 100.0 * (double)sys / (double)wall;
		}
	}
}

void rb_run_join(struct rb_run *r)
{
	if (!r->started)
		return;
	/* jobs may wait for their intervals to be taken: keep draining until done */
	while (!rb_run_poll(r, NULL, NULL)) {
		struct timespec ts = { 0, 20000000 }; /* 20 ms: the jobs need the CPUs */

		nanosleep(&ts, NULL);
	}
	for (size_t k = 0; k < r->njobs; k++) {
		if (r->jobs[k].started) {
			pthread_join(r->jobs[k].th, NULL);
			r->jobs[k].started = false;
		}
	}
	collect(r);
}

size_t rb_run_ntargets(const struct rb_run *r)
{
	return r->ntgt;
}

int64_t rb_run_measure_wall_ns(const struct rb_run *r)
{
	return r->measure_ns + r->wall_offset;
}

void rb_run_usage(struct rb_run *r, size_t target, struct rb_usage *ret_used,
		  struct rb_fio_depths *ret_depths)
{
	struct tgt *t = &r->tgts[target];

	memset(ret_used, 0, sizeof(*ret_used));
	memset(ret_depths, 0, sizeof(*ret_depths));
	pthread_mutex_lock(&t->mu);
	for (size_t k = target * r->wl.numjobs; k < (target + 1) * r->wl.numjobs; k++) {
		const struct job *j = &r->jobs[k];

		ret_used->usr_ns += j->used_sofar.usr_ns;
		ret_used->sys_ns += j->used_sofar.sys_ns;
		ret_used->ctx += j->used_sofar.ctx;
		ret_used->majf += j->used_sofar.majf;
		ret_used->minf += j->used_sofar.minf;
		for (int b = 0; b < RB_FIO_DEPTH_NR; b++) {
			ret_depths->level[b] += j->depths_sofar.level[b];
			ret_depths->submit[b] += j->depths_sofar.submit[b];
			ret_depths->complete[b] += j->depths_sofar.complete[b];
		}
	}
	pthread_mutex_unlock(&t->mu);
}

const struct rb_target_result *rb_run_result(const struct rb_run *r, size_t target)
{
	return target < r->ntgt ? &r->tgts[target].res : NULL;
}

void rb_run_absorb_verify(struct rb_run *r, const struct rb_run *check)
{
	for (size_t t = 0; t < r->ntgt && t < check->ntgt; t++) {
		struct rb_target_result *a = &r->tgts[t].res;
		const struct rb_target_result *b = &check->tgts[t].res;

		a->verify.checked += b->verify.checked;
		a->verify.unwritten += b->verify.unwritten;
		a->verify.bad += b->verify.bad;
		for (unsigned e = 0; e < b->nmismatches && a->nmismatches < RB_MAX_IO_ERRORS; e++)
			a->mismatches[a->nmismatches++] = b->mismatches[e];
		/* a read that failed while checking is an IO error of the job */
		a->dir[RB_DIR_READ].errors += b->dir[RB_DIR_READ].errors;
		for (unsigned e = 0; e < b->nerrors; e++)
			rb_io_error_add(a->errors, &a->nerrors, RB_MAX_IO_ERRORS, &b->errors[e]);
		if (!a->setup_err && b->setup_err) {
			a->setup_err = b->setup_err;
			snprintf(a->message, sizeof(a->message), "verify pass: %s", b->message);
		}
	}
}

struct rb_run *rb_run_free(struct rb_run *r)
{
	if (!r)
		return NULL;
	for (size_t k = 0; r->jobs && k < r->njobs; k++) {
		struct job *j = &r->jobs[k];

		if (j->ctx_ready)
			r->ops->teardown(&j->ctx);
		free(j->ctx.bufs);
		free(j->ios);
		free(j->parts);
		free(j->freelist);
		free(j->done);
		free(j->queued);
		free(j->res);
		if (j->latlog)
			fclose(j->latlog);
		rb_engine_replay_free(j);
	}
	for (size_t t = 0; r->tgts && t < r->ntgt; t++) {
		free(r->tgts[t].job_last);
		pthread_mutex_destroy(&r->tgts[t].mu);
		pthread_cond_destroy(&r->tgts[t].cv);
	}
	if (r->started) {
		pthread_barrier_destroy(&r->b1);
		pthread_barrier_destroy(&r->b2);
	}
	free(r->jobs);
	free(r->tgts);
	free(r->member_fds);
	free(r->spans);
	free(r);
	return NULL;
}
