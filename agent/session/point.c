// SPDX-License-Identifier: MIT
/*
 * A point's life on the agent: started from its Assign (checked, laid out, prepared
 * through the guard), its samples batched and sent, its health before, during and after,
 * its results per drive at the end; a purge point's purges on a thread of their own.
 */
#include "session.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkpoint.h"
#include "clock.h"
#include "fstarget.h"
#include "health.h"
#include "history.h"
#include "log.h"
#include "nvme.h"
#include "purge.h"
#include "grow.h"

/* A purge point: the purges run on a thread while the loop keeps the heartbeats going. */
struct purging {
	pthread_t th;
	atomic_bool done;
	struct rb_purge_req req;
	struct rb_guard_policy gp;
	size_t n;
	char **drives;
	int *rc;
	char (*msg)[1024];
};

static void point_release(struct point *p);

static void send_point_done(struct agent *a, uint32_t point, uint32_t attempt)
{
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_POINT_DONE);
	m.point_done.point = point;
	m.point_done.attempt = attempt;
	rb_delivery_send(a, &m);
	/* a point's data on disk at its end */
	rb_spool_sync(&a->dlv.spool);
}

static void send_drive_status(struct agent *a, uint32_t point, uint32_t attempt, const char *drive,
			      enum rb_status status, const char *msg)
{
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_RESULT);
	m.result.point = point;
	m.result.attempt = attempt;
	m.result.drive = drive;
	m.result.status = status;
	m.result.message = msg;
	rb_delivery_send(a, &m);
}

static void fail_point(struct agent *a, const struct rb_msg_assign *as, enum rb_status status,
		       const struct rb_diags *d, const char *msg)
{
	for (size_t i = 0; i < as->ndrives; i++) {
		char buf[2048] = "";
		size_t n = 0;

		for (size_t k = 0; d && k < d->n && n < sizeof(buf); k++)
			if (!d->v[k].subject || !strcmp(d->v[k].subject, as->drives[i]))
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
						      n ? "; " : "", d->v[k].message);
		if (!n && msg)
			snprintf(buf, sizeof(buf), "%s", msg);
		/* the drive that failed, by name: the coordinator reports each drive apart */
		if (!n && !msg && d && d->n && d->v[0].subject)
			snprintf(buf, sizeof(buf), "not run: drive '%s' of this point failed",
				 d->v[0].subject);
		else if (!n && !msg && d && d->n)
			snprintf(buf, sizeof(buf), "not run: another drive of this point failed");
		send_drive_status(a, as->point, as->attempt, as->drives[i], status, buf);
	}
	send_point_done(a, as->point, as->attempt);
}

/*
 * A volume's health: its members' counters added, the hottest temperature, the lowest
 * spare, the most wear, every warning. Each member's own is read the same way.
 */
static void health_add(struct rb_health_snap *acc, const struct rb_health_snap *h, bool first)
{
	if (first) {
		*acc = *h;
		return;
	}
#define AGG_SUM(f) acc->f += h->f;
#define AGG_MAX(f)                                                                                 \
	if (h->f > acc->f)                                                                         \
		acc->f = h->f;
#define AGG_MIN(f)                                                                                 \
	if (h->f < acc->f)                                                                         \
		acc->f = h->f;
#define AGG_OR(f) acc->f |= h->f;
#define AGG_AND(f) acc->f &= h->f;
#define AGG_NONE(f)
#define AGG(col, type, name, known, agg, unit) AGG_##agg(name)
	RB_HEALTH_FIELDS(AGG)
#undef AGG
	acc->pcie = false; /* a volume has no link: its members' snapshots carry theirs */
}

/* One snapshot as a Health message: of the drive, or of member (NULL: the drive). */
static void send_health_one(struct agent *a, const char *drive, const char *member, unsigned when,
			    const struct rb_health_snap *h, bool alert)
{
	struct point *p = &a->pt;
	struct rb_msg e;
	struct rb_msg_health m = { 0 };

	m.point = p->point;
	m.attempt = p->attempt;
	m.drive = drive;
	m.member = member ? member : "";
	m.t_ns = rb_clock_wall(a->clock);
	m.when = when;
	m.h = *h;
	rb_msg_init(&e, RB_MSG_HEALTH);
	e.health = m;
	rb_delivery_send(a, &e);
	if (alert && h->nvme && h->critical_warning) {
		char w[256];

		rb_nvme_warning_text(h->critical_warning, w, sizeof(w));
		if (member)
			rb_warn("drive '%s' (of volume '%s') health alert: %s", member, drive, w);
		else
			rb_warn("drive '%s' health alert: %s", drive, w);
	}
}

/*
 * One health snapshot per drive of the point: when 0 before, 1 during, 2 after. A
 * volume's members each send theirs, then the volume its members' added up.
 */
static void send_health(struct agent *a, unsigned when)
{
	struct point *p = &a->pt;

	for (size_t i = 0; i < p->ndrives; i++) {
		struct rb_health_snap h = { 0 }, one;
		unsigned got = 0;

		for (unsigned k = 0; k < p->vols[i].members; k++) {
			const char *path = p->paths[p->first[i] + k];

			if (rb_health_read(path, rb_nvme_runs(), &one))
				break; /* files have no health of their own */
			/* a drive's slot: agent.yaml's for it, else its PCI slot's name */
			if (rb_agent_cfg_slot(a->cfg, path))
				snprintf(one.slot, sizeof(one.slot), "%s",
					 rb_agent_cfg_slot(a->cfg, path));
			if (p->vols[i].stripe)
				send_health_one(a, p->drives[i], path, when, &one, true);
			health_add(&h, &one, !got++);
		}
		/* a volume's alerts were said per member */
		if (got && got == p->vols[i].members)
			send_health_one(a, p->drives[i], NULL, when, &h, !p->vols[i].stripe);
	}
}

static void *purge_main(void *arg)
{
	struct purging *pg = arg;

	for (size_t i = 0; i < pg->n; i++) {
		struct rb_diags d;
		struct rb_purge_req req = pg->req;
		size_t l = 0;

		rb_diags_init(&d);
		req.path = pg->drives[i];
		pg->rc[i] = rb_purge(&req, &pg->gp, &rb_nvme_libnvme, &d, stderr);
		for (size_t k = 0; k < d.n && l < sizeof(pg->msg[i]); k++)
			l += (size_t)snprintf(pg->msg[i] + l, sizeof(pg->msg[i]) - l, "%s%s",
					      l ? "; " : "", d.v[k].message);
		rb_diags_release(&d);
	}
	atomic_store(&pg->done, true);
	return NULL;
}

static void purging_free(struct purging *pg)
{
	if (!pg)
		return;
	for (size_t i = 0; pg->drives && i < pg->n; i++)
		free(pg->drives[i]);
	free(pg->drives);
	free(pg->rc);
	free(pg->msg);
	free(pg);
}

/* A purge point's results: a status per drive, then the point is done. */
static void finish_purge(struct agent *a)
{
	struct point *p = &a->pt;
	struct purging *pg = p->purge;

	pthread_join(pg->th, NULL);
	/* a status per drive of the campaign: a volume's from all its members */
	for (size_t i = 0; i < p->ndrives; i++) {
		char msg[2048] = "";
		size_t l = 0;
		int rc = 0;

		for (unsigned k = 0; k < p->vols[i].members; k++) {
			size_t j = p->first[i] + k;

			if (!pg->rc[j])
				continue;
			if (!rc || pg->rc[j] == -EPERM)
				rc = pg->rc[j];
			rb_err("point %u: purge of '%s': %s", p->point, pg->drives[j], pg->msg[j]);
			if (l < sizeof(msg))
				l += (size_t)snprintf(msg + l, sizeof(msg) - l, "%s%s%s%s%s",
						      l ? "; " : "",
						      p->vols[i].stripe ? "member '" : "",
						      p->vols[i].stripe ? pg->drives[j] : "",
						      p->vols[i].stripe ? "': " : "", pg->msg[j]);
		}
		send_drive_status(a, p->point, p->attempt, p->drives[i],
				  rc == 0	 ? RB_STATUS_OK
				  : rc == -EPERM ? RB_STATUS_REFUSED
						 : RB_STATUS_ERROR,
				  rc ? msg : "purged");
	}
	send_point_done(a, p->point, p->attempt);
	rb_info("point %u (purge) done", p->point);
	purging_free(pg);
	point_release(p);
}

static void start_purge(struct agent *a, const struct rb_msg_assign *as,
			const struct rb_guard_policy *gp)
{
	struct point *p = &a->pt;
	struct purging *pg = calloc(1, sizeof(*pg));

	if (!pg || !(pg->drives = calloc(p->npaths + 1, sizeof(char *))) ||
	    !(pg->rc = calloc(p->npaths + 1, sizeof(int))) ||
	    !(pg->msg = calloc(p->npaths + 1, sizeof(*pg->msg))) ||
	    rb_purge_method_parse(as->purge, &pg->req.method)) {
		purging_free(pg);
		fail_point(a, as, RB_STATUS_ERROR, NULL, "cannot run this purge (unknown method?)");
		point_release(p);
		return;
	}
	pg->req.ses = as->purge_ses;
	pg->gp = *gp;
	/* a volume's members are purged one by one */
	pg->n = p->npaths;
	for (size_t i = 0; i < p->npaths; i++)
		pg->drives[i] = strdup(p->paths[i]);
	p->purge = pg;
	rb_info("point %u: purge (%s) of %zu drive(s)", as->point, as->purge, p->npaths);
	if (pthread_create(&pg->th, NULL, purge_main, pg)) {
		p->purge = NULL;
		purging_free(pg);
		fail_point(a, as, RB_STATUS_ERROR, NULL, "cannot start the purge");
		point_release(p);
	}
}

/* The point's drives, paths and volumes, copied from the message and the layout. */
static int point_adopt(struct point *p, const struct rb_msg_assign *as, struct layout *L)
{
	p->point = as->point;
	p->attempt = as->attempt;
	p->drives = calloc(as->ndrives + 1, sizeof(char *));
	p->paths = calloc(L->npaths + 1, sizeof(char *));
	if (!p->drives || !p->paths)
		return -ENOMEM;
	p->ndrives = as->ndrives;
	for (size_t i = 0; i < as->ndrives; i++)
		if (!(p->drives[i] = strdup(as->drives[i])))
			return -ENOMEM;
	p->npaths = L->npaths;
	for (size_t i = 0; i < L->npaths; i++)
		if (!(p->paths[i] = strdup(L->paths[i])))
			return -ENOMEM;
	p->first = L->first;
	p->vols = L->vols;
	L->first = NULL;
	L->vols = NULL;
	return 0;
}

/*
 * The point's drives with a filesystem: each made (once a run) and mounted under the state
 * folder, its file in the drive's place among the paths the engine opens. 0, or -EPERM
 * (the guard refused) or another negative errno, said in d.
 */
static int fs_up(struct agent *a, const struct layout *L, const struct rb_guard_policy *gp,
		 struct rb_diags *d)
{
	struct point *p = &a->pt;
	char mnt[PATH_MAX], txt[600];
	int r = 0;

	if (!(p->io_paths = calloc(p->npaths + 1, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; i < p->npaths; i++)
		p->io_paths[i] = p->paths[i];
	for (size_t t = 0; t < p->ndrives; t++) {
		const char *dev = p->paths[p->first[t]], *base;
		char real[PATH_MAX];
		struct rb_fs_target *f;
		int e;

		if (!rb_fs_spec_set(&L->fs[t]))
			continue;
		/* named as the kernel names the device: a later start finds it in /dev */
		if (!realpath(dev, real))
			snprintf(real, sizeof(real), "%s", dev);
		base = strrchr(real, '/');
		if (!p->fs && !(p->fs = calloc(p->ndrives, sizeof(*p->fs))))
			return -ENOMEM;
		f = &p->fs[t];
		snprintf(mnt, sizeof(mnt), "%s/fs/%s", a->cfg->state_dir, base ? base + 1 : real);
		e = rb_fs_target_setup(gp, &L->fs[t], dev, mnt, a->dlv.run, f, d);
		if (e) {
			r = r ? r : e;
			continue;
		}
		rb_info("point %u: %s: %s %s, mounted at %s", p->point, dev,
			f->made ? "a new" : "the run's",
			rb_fs_spec_text(&L->fs[t], txt, sizeof(txt)), f->mnt);
		p->io_paths[p->first[t]] = f->file;
	}
	return r;
}

/* Every filesystem of the point unmounted (its files closed first). */
static void fs_down(struct point *p)
{
	for (size_t t = 0; p->fs && t < p->ndrives; t++)
		rb_fs_target_teardown(&p->fs[t]);
	free(p->fs);
	free(p->io_paths);
	p->fs = NULL;
	p->io_paths = NULL;
}

static void point_release(struct point *p)
{
	/* a measurement never outlives its point (a failed start, the agent's exit) */
	if (p->mk)
		p->mk->release(p);
	fs_down(p);
	free(p->devinfo);
	for (size_t i = 0; p->drives && i < p->ndrives; i++)
		free(p->drives[i]);
	for (size_t i = 0; p->paths && i < p->npaths; i++)
		free(p->paths[i]);
	free(p->drives);
	free(p->paths);
	free(p->first);
	free(p->vols);
	free(p->batch);
	memset(p, 0, sizeof(*p));
}

/* The point's start once running: health before, the next health due, said. */
static void started(struct agent *a, const struct rb_msg_assign *as)
{
	struct point *p = &a->pt;
	char buf[RB_WORKLOAD_DUMP_MAX];

	rb_info("point %u: %s on %zu drive(s)", as->point,
		rb_workload_dump(&p->wl, buf, sizeof(buf)), as->ndrives);
	send_health(a, 0);
	p->next_health = p->wl.health_interval_ns ? agent_now(a) + (int64_t)p->wl.health_interval_ns
						  : INT64_MAX;
}

/* rw checkpoint: the writers on each drive's filesystem, in the engine's place. */
static void ckpt_start(struct agent *a, const struct rb_msg_assign *as)
{
	struct point *p = &a->pt;
	char err[512], **dirs = calloc(p->ndrives + 1, sizeof(char *));
	int r = dirs ? 0 : -ENOMEM;

	snprintf(err, sizeof(err), "out of memory");
	for (size_t t = 0; !r && t < p->ndrives; t++) {
		if (!p->fs || !p->fs[t].mounted) {
			snprintf(
				err, sizeof(err),
				"drive '%s': rw checkpoint writes files on the drive's filesystem, "
				"and the campaign gives it none ('filesystem')",
				p->drives[t]);
			r = -EINVAL;
			break;
		}
		dirs[t] = p->fs[t].mnt;
	}
	if (!r)
		r = rb_ckpt_new(&p->wl, dirs, p->ndrives, &p->ck, err, sizeof(err));
	if (!r)
		p->mk = &rb_measure_ckpt;
	free(dirs);
	if (r) {
		fail_point(a, as, RB_STATUS_ERROR, NULL, err);
		point_release(p);
		return;
	}
	if (as->start_at_ns)
		rb_ckpt_set_start_at(p->ck, as->start_at_ns);
	started(a, as);
	if ((r = rb_ckpt_start(p->ck)))
		rb_err("point %u: cannot start the checkpoint's writers: %s", p->point,
		       strerror(-r));
}

/*
 * An exec point: the agent's command on each drive (a drive without a filesystem of ours
 * judged as a write first: what the command does to it is not known). 0 once started, or
 * -EPERM / -EINVAL said in d.
 */
static int exec_start(struct agent *a, const struct rb_msg_assign *as,
		      const struct rb_guard_policy *gp, struct rb_diags *d)
{
	struct point *p = &a->pt;
	struct rb_exec_drive *xd = calloc(p->ndrives + 1, sizeof(*xd));
	char err[512];
	int r = 0;

	p->devinfo = calloc(p->ndrives + 1, sizeof(*p->devinfo));
	if (!xd || !p->devinfo) {
		free(xd);
		return -ENOMEM;
	}
	for (size_t t = 0; t < p->ndrives; t++) {
		const char *dev = p->paths[p->first[t]];
		bool fs = p->fs && p->fs[t].mounted;

		if (p->vols[t].stripe) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, p->drives[t],
				     "an exec phase runs on drives, not striped volumes");
			r = -EINVAL;
		} else if (!fs && rb_guard_check_write(gp, dev, d)) {
			r = -EPERM;
		}
		rb_target_probe(dev, &p->devinfo[t]);
		xd[t] = (struct rb_exec_drive){ p->drives[t], dev, fs ? p->fs[t].mnt : "" };
	}
	if (!r &&
	    (r = rb_exec_new(&a->cfg->exec, a->cfg->name, a->cfg->state_dir, as->exec, xd,
			     p->ndrives, p->point, p->wl.interval_ns, &p->ex, err, sizeof(err))))
		for (size_t t = 0; t < p->ndrives; t++)
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, p->paths[p->first[t]], "%s", err);
	else if (!r)
		p->mk = &rb_measure_exec;
	free(xd);
	if (r)
		return r;
	if (as->start_at_ns)
		rb_exec_set_start_at(p->ex, as->start_at_ns);
	started(a, as);
	return 0;
}

void rb_point_start(struct agent *a, const struct rb_msg_assign *as)
{
	struct point *p = &a->pt;
	struct layout L;
	struct rb_guard_policy gp;
	struct rb_diags d;
	char err[512];
	int r;

	rb_diags_init(&d);
	memset(p, 0, sizeof(*p));
	memset(&L, 0, sizeof(L));
	rb_workload_defaults(&p->wl);
	for (size_t i = 0; i < as->nsettings; i++) {
		const struct rb_opt *o = rb_opt_find(as->settings[i].key);

		if (!o) {
			/* a newer coordinator's setting: tolerated, said once */
			rb_warn("ignoring unknown workload setting '%s'", as->settings[i].key);
			continue;
		}
		if (rb_opt_set(&p->wl, o, as->settings[i].value, err, sizeof(err))) {
			fail_point(a, as, RB_STATUS_ERROR, NULL, err);
			return;
		}
	}
	/* a volume's members stand in its place (each drive is one target of the engine) */
	const struct layout_msg lm = {
		as->drives,  as->ndrives,  as->serials,	    as->nserials,
		as->volumes, as->nvolumes, as->filesystems, as->nfilesystems
	};

	if (rb_preflight_layout(&L, &lm, err, sizeof(err))) {
		fail_point(a, as, RB_STATUS_ERROR, NULL, err);
		goto out;
	}
	for (size_t i = 0; i < L.npaths; i++)
		if (!rb_preflight_offered(a->cfg, L.paths[i]))
			rb_diags_add(&d, RB_SEV_ERROR, NULL, 0, 0, L.paths[i],
				     "agent '%s' does not offer this target", a->cfg->name);
	if (d.n) {
		rb_preflight_layout_subjects(&L, &d, 0);
		fail_point(a, as, RB_STATUS_ERROR, &d, NULL);
		goto out;
	}
	/* the pin again at the moment of the run: a drive swapped since is refused */
	for (size_t i = 0; i < L.npaths; i++)
		rb_preflight_pin(a->cfg, L.paths[i], L.serials[i], &d);
	if (d.n) {
		rb_preflight_layout_subjects(&L, &d, 0);
		fail_point(a, as, RB_STATUS_REFUSED, &d, NULL);
		goto out;
	}
	if (point_adopt(p, as, &L)) {
		point_release(p);
		fail_point(a, as, RB_STATUS_ERROR, NULL, "out of memory");
		goto out;
	}
	rb_preflight_policy(a, as->destructive, as->wipe_signatures, &gp);
	if (as->purge && *as->purge) {
		start_purge(a, as, &gp);
		goto out;
	}
	r = fs_up(a, &L, &gp, &d);
	if (!r && as->exec) {
		if (!(r = exec_start(a, as, &gp, &d)))
			goto out;
	} else if (!r && p->wl.rw == RB_RW_CHECKPOINT) {
		ckpt_start(a, as);
		goto out;
	}
	if (!r)
		r = rb_runner_prepare(&p->wl, p->io_paths, p->npaths, &gp, &p->prep, &d);
	if (r) {
		rb_preflight_layout_subjects(&L, &d, 0);
		for (size_t i = 0; i < d.n; i++)
			rb_err("point %u: %s: %s", as->point, d.v[i].subject, d.v[i].message);
		fail_point(a, as, r == -EPERM ? RB_STATUS_REFUSED : RB_STATUS_ERROR, &d, NULL);
		point_release(p);
		goto out;
	}
	r = rb_run_new_volumes(&p->wl, p->prep->fds, p->prep->spans, p->prep->n, p->vols,
			       p->ndrives, &p->run, err, sizeof(err));
	if (!r)
		p->mk = &rb_measure_run;
	if (r) {
		p->prep = rb_prepared_free(p->prep);
		fail_point(a, as, RB_STATUS_ERROR, NULL, err);
		point_release(p);
		goto out;
	}
	/* every agent of the point starts at the coordinator's instant, in our clock */
	if (as->start_at_ns)
		rb_run_set_start_at(p->run, as->start_at_ns);
	/* per-drive rates (curves): a volume is one target, with one rate */
	for (size_t i = 0; i < as->nrates && i < p->ndrives; i++)
		rb_run_set_target_rate(p->run, i, as->drive_rate_iops[i]);
	started(a, as);
	rb_run_start(p->run);
out:
	rb_preflight_layout_free(&L);
	rb_diags_release(&d);
}

/* Whether pattern rw issues IOs of direction d (a replay's trace may issue each). */
static bool dir_used(uint32_t rw, int d)
{
	bool trim = rb_rw_third(rw);

	if (rw == RB_RW_REPLAY)
		return true;
	if (d == RB_DIR_READ)
		return rb_rw_reads(rw);
	if (d == RB_DIR_WRITE)
		return rb_rw_writes(rw) && !trim;
	return trim;
}

static void on_sample(void *arg, unsigned target, unsigned interval, int64_t t_wall_ns,
		      const struct rb_dir_stats *dirs, bool last)
{
	struct agent *a = arg;
	struct point *p = &a->pt;

	for (int d = 0; d < RB_NDIR; d++) {
		const struct rb_dir_stats *s = &dirs[d];
		struct rb_msg_sample *sm;

		/* a direction the workload never uses is not sampled */
		/* an exec's command reads and writes as it pleases: both, as the kernel counts */
		if (!(p->mk->all_dirs && d != RB_DIR_TRIM) && !dir_used(p->wl.rw, d))
			continue;
		if (RB_GROW(p->batch, p->capbatch, p->nbatch, 16))
			return;
		sm = &p->batch[p->nbatch++];
		*sm = (struct rb_msg_sample){
			.point = p->point,
			.attempt = p->attempt,
			.drive = p->drives[target],
			.interval = interval,
			.direction = (uint32_t)d,
			.t_ns = t_wall_ns,
			.ios = s->ios,
			.bytes = s->bytes,
			.errors = s->errors,
			.lat_sum_ns = s->lat_sum_ns,
			.hist = rb_point_sparse_new(&s->hist),
			.last = last,
		};
	}
}

static void flush_batch(struct agent *a)
{
	struct point *p = &a->pt;
	struct rb_msg m;

	if (!p->nbatch)
		return;
	rb_msg_init(&m, RB_MSG_SAMPLES);
	m.samples.v = p->batch;
	m.samples.n = p->nbatch;
	rb_delivery_send(a, &m);
	for (size_t i = 0; i < p->nbatch; i++)
		rb_point_sparse_free(&p->batch[i].hist);
	p->nbatch = 0;
}

/* The measurement's intervals sent on; true once it ended and all is sent. */
static bool measure_poll(struct point *p, struct agent *a)
{
	return p->mk->poll(p, on_sample, a);
}

static void finish_point(struct agent *a)
{
	struct point *p = &a->pt;

	/*
	 * Every interval sampled before the join, which would drain them unseen: a point
	 * stopped at the agent's exit is not polled to its end by the loop.
	 */
	while (!measure_poll(p, a))
		nanosleep(&(struct timespec){ .tv_nsec = 5000000 }, NULL);
	p->mk->join(p);
	flush_batch(a);
	/* after, and before the results: the coordinator computes the deltas with them */
	send_health(a, 2);
	for (size_t t = 0; t < p->ndrives; t++)
		rb_point_send_result(a, t);
	send_point_done(a, p->point, p->attempt);
	rb_info("point %u done", p->point);
	p->prep = rb_prepared_free(p->prep);
	point_release(p);
}

void rb_point_stop(struct agent *a, const char *reason)
{
	if (rb_point_measuring(a)) {
		rb_warn("stopping point %u: %s", a->pt.point, reason);
		rb_point_halt(a, HALT_COORDINATOR);
	}
}

void rb_point_health(struct agent *a)
{
	send_health(a, 1);
	a->pt.next_health = agent_now(a) + (int64_t)a->pt.wl.health_interval_ns;
}

void rb_point_poll(struct agent *a)
{
	if (a->pt.purge && atomic_load(&a->pt.purge->done))
		finish_purge(a);
	if (rb_point_measuring(a)) {
		bool done = measure_poll(&a->pt, a);

		flush_batch(a);
		if (done)
			finish_point(a);
	}
}

void rb_point_end(struct agent *a)
{
	if (a->pt.purge) {
		/* a purge is not interrupted halfway: the drive would be in no known state */
		rb_warn("waiting for the purge of point %u to finish", a->pt.point);
		finish_purge(a);
	}
	if (rb_point_measuring(a)) {
		/* cut short, unless it had ended: its result must not pass for a full run */
		bool ended = measure_poll(&a->pt, a);

		if (!ended)
			rb_warn("stopping point %u: the agent is shutting down", a->pt.point);
		rb_point_halt(a, ended ? HALT_NONE : HALT_SHUT_DOWN);
		finish_point(a);
	}
}
