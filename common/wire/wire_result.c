// SPDX-License-Identifier: MIT
/* The wire codec of a drive's result (DriveResult), both ways; wire.c calls it. */
#include <stdint.h>

#include <string.h>

#include "wire_priv.h"

static Rb__Checkpoint **ckpts_out(struct pool *p, const struct rb_msg_checkpoint *v, size_t n)
{
	Rb__Checkpoint **o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++) {
		Rb__Checkpoint *x = o[i] = pool_alloc(p, 1, sizeof(*x));

		if (!x)
			return NULL;
		rb__checkpoint__init(x);
		x->index = v[i].index;
		x->direction = v[i].direction;
		x->bytes = v[i].bytes;
		x->start_ns = v[i].start_ns;
		x->duration_ns = v[i].duration_ns;
		x->slowest_writer = v[i].slowest_writer;
		x->fs_bytes = v[i].fs_bytes;
		x->errors = v[i].errors;
		x->n_writer_ns = x->n_writer_bytes = v[i].nwriters;
		x->writer_ns = (uint64_t *)v[i].writer_ns;
		x->writer_bytes = (uint64_t *)v[i].writer_bytes;
	}
	return o;
}

static struct rb_msg_checkpoint *ckpts_in(struct pool *p, Rb__Checkpoint **v, size_t n)
{
	struct rb_msg_checkpoint *o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++) {
		const Rb__Checkpoint *x = v[i];

		o[i] = (struct rb_msg_checkpoint){
			.index = x->index,
			.direction = x->direction,
			.bytes = x->bytes,
			.start_ns = x->start_ns,
			.duration_ns = x->duration_ns,
			.slowest_writer = x->slowest_writer,
			.errors = x->errors,
			.fs_bytes = x->fs_bytes,
			.writer_ns = x->writer_ns,
			.writer_bytes = x->writer_bytes,
			.nwriters = x->n_writer_ns < x->n_writer_bytes ? x->n_writer_ns
								       : x->n_writer_bytes,
		};
	}
	return o;
}

static Rb__Zone **zones_out(struct pool *p, const struct rb_msg_zone *v, size_t n)
{
	Rb__Zone **o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++) {
		Rb__Zone *x = o[i] = pool_alloc(p, 1, sizeof(*x));

		if (!x)
			return NULL;
		rb__zone__init(x);
		x->start_bytes = v[i].start_bytes;
		x->len_bytes = v[i].len_bytes;
		x->capacity_bytes = v[i].capacity_bytes;
		x->wp_bytes = v[i].wp_bytes;
		x->cond = v[i].cond;
		x->type = v[i].type;
	}
	return o;
}

static struct rb_msg_zone *zones_in(struct pool *p, Rb__Zone **v, size_t n)
{
	struct rb_msg_zone *o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++)
		o[i] = (struct rb_msg_zone){ v[i]->start_bytes,	   v[i]->len_bytes,
					     v[i]->capacity_bytes, v[i]->wp_bytes,
					     v[i]->cond,	   v[i]->type };
	return o;
}

static Rb__FdpEvent **fdp_events_out(struct pool *p, const struct rb_msg_fdp_event *v, size_t n)
{
	Rb__FdpEvent **o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++) {
		Rb__FdpEvent *x = o[i] = pool_alloc(p, 1, sizeof(*x));

		if (!x)
			return NULL;
		rb__fdp_event__init(x);
		x->type = v[i].type;
		x->flags = v[i].flags;
		x->pid = v[i].pid;
		x->nsid = v[i].nsid;
		x->rgid = v[i].rgid;
		x->ruhid = v[i].ruhid;
		x->timestamp_ms = v[i].timestamp_ms;
		x->nlbam = v[i].nlbam;
		x->lba_valid = v[i].lba_valid;
		x->lba = v[i].lba;
	}
	return o;
}

/* Each field cut to the log's own width: a wider value is none a drive logged. */
static struct rb_msg_fdp_event *fdp_events_in(struct pool *p, Rb__FdpEvent **v, size_t n)
{
	struct rb_msg_fdp_event *o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++)
		o[i] = (struct rb_msg_fdp_event){ .type = (uint8_t)v[i]->type,
						  .flags = (uint8_t)v[i]->flags,
						  .ruhid = (uint8_t)v[i]->ruhid,
						  .pid = (uint16_t)v[i]->pid,
						  .rgid = (uint16_t)v[i]->rgid,
						  .nlbam = (uint16_t)v[i]->nlbam,
						  .nsid = v[i]->nsid,
						  .timestamp_ms = v[i]->timestamp_ms,
						  .lba_valid = v[i]->lba_valid,
						  .lba = v[i]->lba };
	return o;
}

static Rb__ExecResult *exec_out(struct pool *p, const struct rb_msg_exec_result *m)
{
	Rb__ExecResult *x = pool_alloc(p, 1, sizeof(*x));

	if (!x)
		return NULL;
	rb__exec_result__init(x);
	x->command = str_out(m->command);
	x->exit_code = m->exit_code;
	x->timed_out = m->timed_out;
	x->duration_ns = m->duration_ns;
	x->stdout_tail = str_out(m->stdout_tail);
	x->stderr_tail = str_out(m->stderr_tail);
	x->parser = str_out(m->parser);
	x->n_metrics = m->nmetrics;
	x->metrics = settings_out(p, m->metrics, m->nmetrics);
	return x;
}

static struct rb_msg_exec_result *exec_in(struct pool *p, const Rb__ExecResult *x)
{
	struct rb_msg_exec_result *m = pool_alloc(p, 1, sizeof(*m));

	if (!m)
		return NULL;
	*m = (struct rb_msg_exec_result){
		.command = x->command,
		.exit_code = x->exit_code,
		.timed_out = x->timed_out,
		.duration_ns = x->duration_ns,
		.stdout_tail = x->stdout_tail,
		.stderr_tail = x->stderr_tail,
		.parser = x->parser,
		.metrics = settings_in(p, x->metrics, x->n_metrics),
		.nmetrics = x->n_metrics,
	};
	if (!m->metrics)
		m->nmetrics = 0;
	return m;
}

/* A drive's own latency buckets, both ways: four of each list, or none (not valid). */
static Rb__DeviceLatency *dev_lat_out(struct pool *p, const struct rb_dev_latency *m)
{
	Rb__DeviceLatency *d = pool_alloc(p, 1, sizeof(*d));

	if (!d)
		return NULL;
	rb__device_latency__init(d);
	d->n_threshold_ms = d->n_reads = d->n_writes = d->n_trims = 4;
	d->threshold_ms = (uint32_t *)m->threshold_ms;
	d->reads = (uint64_t *)m->cmds[0];
	d->writes = (uint64_t *)m->cmds[1];
	d->trims = (uint64_t *)m->cmds[2];
	return d;
}

static void dev_lat_in(struct rb_dev_latency *m, const Rb__DeviceLatency *d)
{
	memset(m, 0, sizeof(*m));
	if (!d || d->n_threshold_ms != 4 || d->n_reads != 4 || d->n_writes != 4 || d->n_trims != 4)
		return; /* another shape is no reading */
	m->valid = true;
	memcpy(m->threshold_ms, d->threshold_ms, sizeof(m->threshold_ms));
	memcpy(m->cmds[0], d->reads, sizeof(m->cmds[0]));
	memcpy(m->cmds[1], d->writes, sizeof(m->cmds[1]));
	memcpy(m->cmds[2], d->trims, sizeof(m->cmds[2]));
}

/* An OCP drive's C0h counters, both ways: absent is not read. */
static Rb__OcpCounters *ocp_out(struct pool *p, const struct rb_ocp_counters *m)
{
	Rb__OcpCounters *o = m->valid ? pool_alloc(p, 1, sizeof(*o)) : NULL;

	if (!o)
		return NULL;
	rb__ocp_counters__init(o);
	o->throttle_events = m->throttle_events;
	o->throttle_status = m->throttle_status;
	o->pcie_correctable = m->pcie_correctable;
	o->link_retrains = m->link_retrains;
	o->power_state_changes = m->power_state_changes;
	return o;
}

static void ocp_in(struct rb_ocp_counters *m, const Rb__OcpCounters *o)
{
	memset(m, 0, sizeof(*m));
	if (!o)
		return;
	m->valid = true;
	m->throttle_events = o->throttle_events;
	/* a level the log cannot hold is none the drive gave */
	m->throttle_status = o->throttle_status <= 0xff ? (uint8_t)o->throttle_status : 0;
	m->pcie_correctable = o->pcie_correctable;
	m->link_retrains = o->link_retrains;
	m->power_state_changes = o->power_state_changes;
}

/* Files of evidence, both ways. */
static Rb__Evidence **evidence_out(struct pool *p, const struct rb_msg_evidence *v, size_t n)
{
	Rb__Evidence **ev = pool_alloc(p, n, sizeof(*ev));

	for (size_t i = 0; ev && i < n; i++) {
		if (!(ev[i] = pool_alloc(p, 1, sizeof(**ev))))
			return NULL;
		rb__evidence__init(ev[i]);
		ev[i]->kind = str_out(v[i].kind);
		ev[i]->path = str_out(v[i].path);
		ev[i]->sha256 = str_out(v[i].sha256);
		ev[i]->bytes = v[i].bytes;
	}
	return ev;
}

static struct rb_msg_evidence *evidence_in(struct pool *p, Rb__Evidence *const *v, size_t n)
{
	struct rb_msg_evidence *ev = pool_alloc(p, n, sizeof(*ev));

	for (size_t i = 0; ev && i < n; i++)
		ev[i] = (struct rb_msg_evidence){ v[i]->kind, v[i]->path, v[i]->sha256,
						  v[i]->bytes };
	return ev;
}

Rb__DriveResult *result_out(struct pool *p, const struct rb_msg_result *m)
{
	Rb__DriveResult *r = pool_alloc(p, 1, sizeof(*r));
	Rb__DirResult **d = pool_alloc(p, m->ndirs, sizeof(*d));
	Rb__BsCount **b = pool_alloc(p, m->nbs_counts, sizeof(*b));
	Rb__IoError **e = pool_alloc(p, m->nio_errors, sizeof(*e));
	Rb__Evidence **ev = evidence_out(p, m->evidence, m->nevidence);

	if (!r || !d || !b || !e || !ev)
		return NULL;
	rb__drive_result__init(r);
	for (size_t i = 0; i < m->ndirs; i++) {
		const struct rb_dir_result *s = &m->dirs[i];
		Rb__DirResult *x = d[i] = pool_alloc(p, 1, sizeof(*x));

		if (!x)
			return NULL;
		rb__dir_result__init(x);
		x->direction = s->direction;
		x->ios = s->ios;
		x->bytes = s->bytes;
		x->errors = s->errors;
		x->lat_sum_ns = s->lat_sum_ns;
		x->lat_min_ns = s->lat_min_ns;
		x->lat_max_ns = s->lat_max_ns;
		x->n_hist_idx = x->n_hist_cnt = s->hist.n;
		x->hist_idx = (uint32_t *)s->hist.idx;
		x->hist_cnt = (uint64_t *)s->hist.cnt;
	}
	for (size_t i = 0; i < m->nbs_counts; i++) {
		if (!(b[i] = pool_alloc(p, 1, sizeof(**b))))
			return NULL;
		rb__bs_count__init(b[i]);
		b[i]->direction = m->bs_counts[i].direction;
		b[i]->bs = m->bs_counts[i].bs;
		b[i]->ios = m->bs_counts[i].ios;
	}
	for (size_t i = 0; i < m->nio_errors; i++) {
		const struct rb_msg_io_error *s = &m->io_errors[i];

		if (!(e[i] = pool_alloc(p, 1, sizeof(**e))))
			return NULL;
		rb__io_error__init(e[i]);
		e[i]->offset = s->offset;
		e[i]->length = s->length;
		e[i]->direction = s->direction;
		e[i]->err = s->err;
		e[i]->count = s->count;
	}
	r->point = m->point;
	r->attempt = m->attempt;
	r->drive = str_out(m->drive);
#define OUT(type, name, wire, unit) r->wire = m->core.name;
	RB_RESULT_FIELDS(OUT)
#undef OUT
	r->n_dirs = m->ndirs;
	r->dirs = d;
	r->n_bs_counts = m->nbs_counts;
	r->bs_counts = b;
	r->n_io_errors = m->nio_errors;
	r->io_errors = e;
	r->status = (char *)rb_status_name(m->status);
	r->message = str_out(m->message);
	r->uring_features = str_out(m->uring_features);
	r->trim_method = str_out(m->trim_method);
	r->n_evidence = m->nevidence;
	r->evidence = ev;
	r->zones = zones_out(p, m->zones, m->nzones);
	r->n_zones = r->zones ? m->nzones : 0;
	r->device_latency = m->dev_lat.valid ? dev_lat_out(p, &m->dev_lat) : NULL;
	r->ocp_smart = m->ocp_smart;
	r->ocp_media_bytes = m->ocp_media_bytes;
	r->ocp_counters = ocp_out(p, &m->ocp);
	r->fdp_events = fdp_events_out(p, m->fdp_events, m->nfdp_events);
	r->n_fdp_events = r->fdp_events ? m->nfdp_events : 0;
	r->fdp = m->fdp;
	r->fdp_host_bytes = m->fdp_host_bytes;
	r->fdp_media_bytes = m->fdp_media_bytes;
	r->target = m->target ? ident_out(p, m->target) : NULL;
	r->purge_method = str_out(m->purge_method);
	r->start_mono_ns = m->start_mono_ns;
	r->n_members = m->nmembers;
	r->members = idents_out(p, m->members, m->nmembers);
	r->n_checkpoints = m->ncheckpoints;
	r->checkpoints = ckpts_out(p, m->checkpoints, m->ncheckpoints);
	r->exec = m->exec ? exec_out(p, m->exec) : NULL;
	return r;
}

void result_in(struct pool *p, struct rb_msg_result *m, const Rb__DriveResult *r)
{
	struct rb_dir_result *d = pool_alloc(p, r->n_dirs, sizeof(*d));
	struct rb_bs_count *b = pool_alloc(p, r->n_bs_counts, sizeof(*b));
	struct rb_msg_io_error *e = pool_alloc(p, r->n_io_errors, sizeof(*e));
	struct rb_msg_evidence *ev = evidence_in(p, r->evidence, r->n_evidence);
	struct rb_identity *t = r->target ? idents_in(p, &r->target, 1) : NULL;

	for (size_t i = 0; d && i < r->n_dirs; i++) {
		const Rb__DirResult *x = r->dirs[i];

		d[i] = (struct rb_dir_result){
			.direction = x->direction,
			.ios = x->ios,
			.bytes = x->bytes,
			.errors = x->errors,
			.lat_sum_ns = x->lat_sum_ns,
			.lat_min_ns = x->lat_min_ns,
			.lat_max_ns = x->lat_max_ns,
			.hist = sparse_in(x->hist_idx, x->n_hist_idx, x->hist_cnt, x->n_hist_cnt),
		};
	}
	for (size_t i = 0; b && i < r->n_bs_counts; i++)
		b[i] = (struct rb_bs_count){ r->bs_counts[i]->direction, r->bs_counts[i]->bs,
					     r->bs_counts[i]->ios };
	for (size_t i = 0; e && i < r->n_io_errors; i++) {
		const Rb__IoError *x = r->io_errors[i];

		e[i] = (struct rb_msg_io_error){ x->offset, x->length, x->direction, x->err,
						 x->count };
	}
	*m = (struct rb_msg_result){
		.point = r->point,
		.attempt = r->attempt,
		.drive = r->drive,
		.dirs = d,
		.ndirs = r->n_dirs,
		.bs_counts = b,
		.nbs_counts = r->n_bs_counts,
		.io_errors = e,
		.nio_errors = r->n_io_errors,
		.status = rb_status_of(r->status), /* checked by rb_msg_decode */
		.message = r->message,
		.uring_features = r->uring_features,
		.trim_method = r->trim_method,
		.evidence = ev,
		.nevidence = ev ? r->n_evidence : 0,
		.zones = zones_in(p, r->zones, r->n_zones),
		.fdp = r->fdp,
		.fdp_host_bytes = r->fdp_host_bytes,
		.fdp_media_bytes = r->fdp_media_bytes,
		.target = t,
		.purge_method = r->purge_method,
		.start_mono_ns = r->start_mono_ns,
		.members = idents_in(p, r->members, r->n_members),
		.nmembers = r->n_members,
		.checkpoints = ckpts_in(p, r->checkpoints, r->n_checkpoints),
		.ncheckpoints = r->n_checkpoints,
		.exec = r->exec ? exec_in(p, r->exec) : NULL,
	};
	m->nzones = m->zones ? r->n_zones : 0;
	dev_lat_in(&m->dev_lat, r->device_latency);
	m->ocp_smart = r->ocp_smart;
	m->ocp_media_bytes = r->ocp_media_bytes;
	ocp_in(&m->ocp, r->ocp_counters);
	m->fdp_events = fdp_events_in(p, r->fdp_events, r->n_fdp_events);
	m->nfdp_events = m->fdp_events ? r->n_fdp_events : 0;
#define IN(type, name, wire, unit) m->core.name = (type)r->wire;
	RB_RESULT_FIELDS(IN)
#undef IN
}

Rb__EvidenceData *evidence_data_out(struct pool *p, const struct rb_msg_evidence_data *m)
{
	Rb__EvidenceData *e = pool_alloc(p, 1, sizeof(*e));

	if (!e)
		return NULL;
	rb__evidence_data__init(e);
	e->point = m->point;
	e->attempt = m->attempt;
	e->drive = str_out(m->drive);
	e->path = str_out(m->path);
	e->offset = m->offset;
	e->bytes = m->bytes;
	e->sha256 = str_out(m->sha256);
	e->data = (ProtobufCBinaryData){ m->len, (uint8_t *)m->data };
	return e;
}

void evidence_data_in(struct rb_msg_evidence_data *m, const Rb__EvidenceData *e)
{
	*m = (struct rb_msg_evidence_data){ .point = e->point,
					    .attempt = e->attempt,
					    .drive = e->drive,
					    .path = e->path,
					    .sha256 = e->sha256,
					    .offset = e->offset,
					    .bytes = e->bytes,
					    .data = e->data.data,
					    .len = e->data.len };
}

Rb__Capture *capture_out(struct pool *p, const struct rb_msg_capture *m)
{
	Rb__Capture *c = pool_alloc(p, 1, sizeof(*c));

	if (!c)
		return NULL;
	rb__capture__init(c);
	c->point = m->point;
	c->attempt = m->attempt;
	c->drive = str_out(m->drive);
	c->reason = str_out(m->reason);
	return c;
}

Rb__Captured *captured_out(struct pool *p, const struct rb_msg_captured *m)
{
	Rb__Captured *c = pool_alloc(p, 1, sizeof(*c));
	Rb__Evidence **ev = evidence_out(p, m->evidence, m->nevidence);

	if (!c || !ev)
		return NULL;
	rb__captured__init(c);
	c->point = m->point;
	c->attempt = m->attempt;
	c->drive = str_out(m->drive);
	c->error = str_out(m->error);
	c->n_evidence = m->nevidence;
	c->evidence = ev;
	return c;
}

void captured_in(struct pool *p, struct rb_msg_captured *m, const Rb__Captured *c)
{
	struct rb_msg_evidence *ev = evidence_in(p, c->evidence, c->n_evidence);

	*m = (struct rb_msg_captured){ .point = c->point,
				       .attempt = c->attempt,
				       .drive = c->drive,
				       .error = c->error,
				       .evidence = ev,
				       .nevidence = ev ? c->n_evidence : 0 };
}
