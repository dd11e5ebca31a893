// SPDX-License-Identifier: MIT
/*
 * The wire codec (wire.h): struct rb_msg to rb.Envelope and back. Sending builds the
 * generated structs on a scratch list that points at the caller's data; receiving keeps
 * the decoded envelope (its strings) and the arrays made from it on the message's own
 * list, released by rb_msg_free().
 */
#include "wire.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rackbench.pb-c.h"
#include "wire_priv.h"

static __thread size_t decode_left;

static void *bounded_alloc(void *data, size_t size)
{
	(void)data;
	if (size > decode_left)
		return NULL;
	decode_left -= size;
	return malloc(size);
}

static void plain_free(void *data, void *p)
{
	(void)data;
	free(p);
}

static ProtobufCAllocator bounded = { bounded_alloc, plain_free, NULL };

/* test hooks: speak as another version, or add a field this version does not know */
static uint32_t major_ = RB_PROTO_MAJOR, minor_ = RB_PROTO_MINOR;
static bool extra_field;

__attribute__((constructor)) static void wire_test_hooks(void)
{
	const char *ma = getenv("RB_TEST_PROTO_MAJOR"), *mi = getenv("RB_TEST_PROTO_MINOR");

	if (ma)
		major_ = (uint32_t)strtoul(ma, NULL, 10);
	if (mi)
		minor_ = (uint32_t)strtoul(mi, NULL, 10);
	extra_field = getenv("RB_TEST_WIRE_EXTRA_FIELD") != NULL;
}

static void pool_release(struct pool *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

struct rb_wire_priv {
	Rb__Envelope *env;
	struct pool pool;
};

/* ---- sending: domain structs to the generated ones ---- */

static char **strs_out(struct pool *p, const char *const *v, size_t n)
{
	char **o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++)
		o[i] = str_out(v[i]);
	return o;
}

/* Labels and settings have the same shape; the generated types differ in name only. */
static Rb__Label **kvs_out(struct pool *p, const struct rb_kv *v, size_t n)
{
	Rb__Label **o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++) {
		if (!(o[i] = pool_alloc(p, 1, sizeof(**o))))
			return NULL;
		rb__label__init(o[i]);
		o[i]->key = str_out(v[i].key);
		o[i]->value = str_out(v[i].value);
	}
	return o;
}

static Rb__Volume **volumes_out(struct pool *p, const struct rb_msg_volume *v, size_t n)
{
	Rb__Volume **o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++) {
		Rb__Volume *x = o[i] = pool_alloc(p, 1, sizeof(*x));

		if (!x)
			return NULL;
		rb__volume__init(x);
		x->name = str_out(v[i].name);
		x->stripe = v[i].stripe;
		x->n_members = v[i].nmembers;
		x->members = strs_out(p, v[i].members, v[i].nmembers);
		x->n_serials = v[i].nserials;
		x->serials = strs_out(p, v[i].serials, v[i].nserials);
	}
	return o;
}

static Rb__Filesystem **fs_out(struct pool *p, const struct rb_msg_fs *v, size_t n)
{
	Rb__Filesystem **o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++) {
		if (!(o[i] = pool_alloc(p, 1, sizeof(**o))))
			return NULL;
		*o[i] = (Rb__Filesystem)RB__FILESYSTEM__INIT;
		o[i]->type = str_out(v[i].type);
		o[i]->mkfs_options = str_out(v[i].mkfs_options);
		o[i]->mount_options = str_out(v[i].mount_options);
	}
	return o;
}

static Rb__Hello *hello_out(struct pool *p, const struct rb_msg_hello *m)
{
	Rb__Hello *h = pool_alloc(p, 1, sizeof(*h));

	if (!h)
		return NULL;
	rb__hello__init(h);
	h->name = str_out(m->name);
	h->hostname = str_out(m->hostname);
	h->kernel = str_out(m->kernel);
	h->rb_version = str_out(m->rb_version);
	h->n_labels = m->nlabels;
	h->labels = kvs_out(p, m->labels, m->nlabels);
	h->n_targets = m->ntargets;
	h->targets = idents_out(p, m->targets, m->ntargets);
	h->epoch = m->epoch;
	h->run = str_out(m->run);
	h->spooled = m->spooled;
	return h;
}

static Rb__Preflight *preflight_out(struct pool *p, const struct rb_msg_preflight *m)
{
	Rb__Preflight *f = pool_alloc(p, 1, sizeof(*f));

	if (!f)
		return NULL;
	rb__preflight__init(f);
	f->n_drives = m->ndrives;
	f->drives = strs_out(p, m->drives, m->ndrives);
	f->n_serials = m->nserials;
	f->serials = strs_out(p, m->serials, m->nserials);
	f->n_volumes = m->nvolumes;
	f->volumes = volumes_out(p, m->volumes, m->nvolumes);
	f->writes = m->writes;
	f->destructive = m->destructive;
	f->wipe_signatures = m->wipe_signatures;
	f->n_filesystems = m->nfilesystems;
	f->filesystems = fs_out(p, m->filesystems, m->nfilesystems);
	f->n_commands = m->ncommands;
	f->commands = strs_out(p, m->commands, m->ncommands);
	return f;
}

static Rb__PreflightReply *reply_out(struct pool *p, const struct rb_msg_preflight_reply *m)
{
	Rb__PreflightReply *r = pool_alloc(p, 1, sizeof(*r));
	Rb__Diagnostic **d;

	if (!r)
		return NULL;
	rb__preflight_reply__init(r);
	r->n_drives = m->ndrives;
	r->drives = strs_out(p, m->drives, m->ndrives);
	d = pool_alloc(p, m->nrefusals, sizeof(*d));
	for (size_t i = 0; d && i < m->nrefusals; i++) {
		if (!(d[i] = pool_alloc(p, 1, sizeof(**d))))
			return NULL;
		rb__diagnostic__init(d[i]);
		d[i]->subject = str_out(m->refusals[i].subject);
		d[i]->message = str_out(m->refusals[i].message);
	}
	r->n_refusals = m->nrefusals;
	r->refusals = d;
	return r;
}

static Rb__Assign *assign_out(struct pool *p, const struct rb_msg_assign *m)
{
	Rb__Assign *a = pool_alloc(p, 1, sizeof(*a));

	if (!a)
		return NULL;
	rb__assign__init(a);
	a->point = m->point;
	a->attempt = m->attempt;
	a->n_drives = m->ndrives;
	a->drives = strs_out(p, m->drives, m->ndrives);
	a->n_settings = m->nsettings;
	a->settings = settings_out(p, m->settings, m->nsettings);
	a->destructive = m->destructive;
	a->wipe_signatures = m->wipe_signatures;
	a->n_serials = m->nserials;
	a->serials = strs_out(p, m->serials, m->nserials);
	a->n_drive_rate_iops = m->nrates;
	a->drive_rate_iops = (uint64_t *)m->drive_rate_iops;
	a->purge = str_out(m->purge);
	a->purge_ses = m->purge_ses;
	a->start_at_ns = m->start_at_ns;
	a->n_volumes = m->nvolumes;
	a->volumes = volumes_out(p, m->volumes, m->nvolumes);
	a->n_filesystems = m->nfilesystems;
	a->filesystems = fs_out(p, m->filesystems, m->nfilesystems);
	if (m->exec) {
		if (!(a->exec = pool_alloc(p, 1, sizeof(*a->exec))))
			return NULL;
		rb__exec__init(a->exec);
		a->exec->command = str_out(m->exec->command);
		a->exec->n_params = m->exec->nparams;
		a->exec->params = settings_out(p, m->exec->params, m->exec->nparams);
	}
	return a;
}

static Rb__SampleBatch *samples_out(struct pool *p, const struct rb_msg_samples *m)
{
	Rb__SampleBatch *b = pool_alloc(p, 1, sizeof(*b));
	Rb__Sample *v = pool_alloc(p, m->n, sizeof(*v));
	Rb__Sample **pv = pool_alloc(p, m->n, sizeof(*pv));

	if (!b || !v || !pv)
		return NULL;
	rb__sample_batch__init(b);
	for (size_t i = 0; i < m->n; i++) {
		const struct rb_msg_sample *s = &m->v[i];
		Rb__Sample *x = &v[i];

		rb__sample__init(x);
		x->point = s->point;
		x->attempt = s->attempt;
		x->drive = str_out(s->drive);
		x->interval = s->interval;
		x->direction = s->direction;
		x->t_ns = s->t_ns;
		x->ios = s->ios;
		x->bytes = s->bytes;
		x->errors = s->errors;
		x->lat_sum_ns = s->lat_sum_ns;
		x->n_hist_idx = x->n_hist_cnt = s->hist.n;
		x->hist_idx = (uint32_t *)s->hist.idx;
		x->hist_cnt = (uint64_t *)s->hist.cnt;
		x->last = s->last;
		pv[i] = x;
	}
	b->n_samples = m->n;
	b->samples = pv;
	return b;
}

/* A Health's numbers: the snapshot's names on both sides (common/wire/healthsnap.h). */
#define OUT_SCALAR(col, type, name, known, agg, unit) to->name = from->h.name;
#define IN_SCALAR(col, type, name, known, agg, unit) to->h.name = from->name;

static Rb__Health *health_out(struct pool *p, const struct rb_msg_health *from)
{
	Rb__Health *to = pool_alloc(p, 1, sizeof(*to));

	if (!to)
		return NULL;
	rb__health__init(to);
	to->point = from->point;
	to->attempt = from->attempt;
	to->t_ns = from->t_ns;
	to->when = from->when;
	RB_HEALTH_FIELDS(OUT_SCALAR)
	to->drive = str_out(from->drive);
	to->member = str_out(from->member);
	to->slot = (char *)from->h.slot;
	return to;
}

/* The small bodies: one or two scalars each. */
static int small_out(struct pool *p, const struct rb_msg *m, Rb__Envelope *e)
{
	switch (m->kind) {
	case RB_MSG_WELCOME:
		if (!(e->welcome = pool_alloc(p, 1, sizeof(*e->welcome))))
			return -ENOMEM;
		rb__welcome__init(e->welcome);
		e->welcome->campaign = str_out(m->welcome.campaign);
		e->welcome->run = str_out(m->welcome.run);
		break;
	case RB_MSG_POINT_DONE:
		if (!(e->point_done = pool_alloc(p, 1, sizeof(*e->point_done))))
			return -ENOMEM;
		rb__point_done__init(e->point_done);
		e->point_done->point = m->point_done.point;
		e->point_done->attempt = m->point_done.attempt;
		break;
	case RB_MSG_STOP:
		if (!(e->stop = pool_alloc(p, 1, sizeof(*e->stop))))
			return -ENOMEM;
		rb__stop__init(e->stop);
		e->stop->reason = str_out(m->stop.reason);
		break;
	case RB_MSG_ERROR:
		if (!(e->error = pool_alloc(p, 1, sizeof(*e->error))))
			return -ENOMEM;
		rb__error__init(e->error);
		e->error->code = m->error.code;
		e->error->message = str_out(m->error.message);
		break;
	case RB_MSG_HEARTBEAT:
		if (!(e->heartbeat = pool_alloc(p, 1, sizeof(*e->heartbeat))))
			return -ENOMEM;
		rb__heartbeat__init(e->heartbeat);
		e->heartbeat->epoch = m->heartbeat.epoch;
		e->heartbeat->point = m->heartbeat.point;
		break;
	case RB_MSG_TIME_PROBE:
		if (!(e->time_probe = pool_alloc(p, 1, sizeof(*e->time_probe))))
			return -ENOMEM;
		rb__time_probe__init(e->time_probe);
		e->time_probe->t0 = m->time.t0;
		break;
	case RB_MSG_TIME_REPLY:
		if (!(e->time_reply = pool_alloc(p, 1, sizeof(*e->time_reply))))
			return -ENOMEM;
		rb__time_reply__init(e->time_reply);
		e->time_reply->t0 = m->time.t0;
		e->time_reply->t1 = m->time.t1;
		e->time_reply->t2 = m->time.t2;
		break;
	case RB_MSG_ACK:
		if (!(e->ack = pool_alloc(p, 1, sizeof(*e->ack))))
			return -ENOMEM;
		rb__ack__init(e->ack);
		e->ack->epoch = m->ack.epoch;
		e->ack->seq = m->ack.seq;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* The body's case in the envelope, by kind (the same order as enum rb_msg_kind). */
static const Rb__Envelope__BodyCase body_case[] = {
	[RB_MSG_NONE] = RB__ENVELOPE__BODY__NOT_SET,
	[RB_MSG_HELLO] = RB__ENVELOPE__BODY_HELLO,
	[RB_MSG_WELCOME] = RB__ENVELOPE__BODY_WELCOME,
	[RB_MSG_PREFLIGHT] = RB__ENVELOPE__BODY_PREFLIGHT,
	[RB_MSG_PREFLIGHT_REPLY] = RB__ENVELOPE__BODY_PREFLIGHT_REPLY,
	[RB_MSG_ASSIGN] = RB__ENVELOPE__BODY_ASSIGN,
	[RB_MSG_SAMPLES] = RB__ENVELOPE__BODY_SAMPLES,
	[RB_MSG_RESULT] = RB__ENVELOPE__BODY_RESULT,
	[RB_MSG_POINT_DONE] = RB__ENVELOPE__BODY_POINT_DONE,
	[RB_MSG_STOP] = RB__ENVELOPE__BODY_STOP,
	[RB_MSG_ERROR] = RB__ENVELOPE__BODY_ERROR,
	[RB_MSG_HEALTH] = RB__ENVELOPE__BODY_HEALTH,
	[RB_MSG_HEARTBEAT] = RB__ENVELOPE__BODY_HEARTBEAT,
	[RB_MSG_TIME_PROBE] = RB__ENVELOPE__BODY_TIME_PROBE,
	[RB_MSG_TIME_REPLY] = RB__ENVELOPE__BODY_TIME_REPLY,
	[RB_MSG_ACK] = RB__ENVELOPE__BODY_ACK,
	[RB_MSG_EVIDENCE_DATA] = RB__ENVELOPE__BODY_EVIDENCE_DATA,
	[RB_MSG_CAPTURE] = RB__ENVELOPE__BODY_CAPTURE,
	[RB_MSG_CAPTURED] = RB__ENVELOPE__BODY_CAPTURED,
};

static int envelope_out(struct pool *p, const struct rb_msg *m, Rb__Envelope *e)
{
	void *body = NULL;

	if ((unsigned)m->kind >= sizeof(body_case) / sizeof(body_case[0]) || m->kind == RB_MSG_NONE)
		return -EINVAL;
	rb__envelope__init(e);
	e->version_major = m->major;
	e->version_minor = m->minor;
	e->epoch = m->epoch;
	e->seq = m->seq;
	e->body_case = body_case[m->kind];
	switch (m->kind) {
	case RB_MSG_HELLO:
		body = e->hello = hello_out(p, &m->hello);
		break;
	case RB_MSG_PREFLIGHT:
		body = e->preflight = preflight_out(p, &m->preflight);
		break;
	case RB_MSG_PREFLIGHT_REPLY:
		body = e->preflight_reply = reply_out(p, &m->preflight_reply);
		break;
	case RB_MSG_ASSIGN:
		body = e->assign = assign_out(p, &m->assign);
		break;
	case RB_MSG_SAMPLES:
		body = e->samples = samples_out(p, &m->samples);
		break;
	case RB_MSG_RESULT:
		body = e->result = result_out(p, &m->result);
		break;
	case RB_MSG_HEALTH:
		body = e->health = health_out(p, &m->health);
		break;
	case RB_MSG_EVIDENCE_DATA:
		body = e->evidence_data = evidence_data_out(p, &m->evidence_data);
		break;
	case RB_MSG_CAPTURE:
		body = e->capture = capture_out(p, &m->capture);
		break;
	case RB_MSG_CAPTURED:
		body = e->captured = captured_out(p, &m->captured);
		break;
	default:
		return small_out(p, m, e);
	}
	return body && !p->failed ? 0 : -ENOMEM;
}

void rb_msg_init(struct rb_msg *m, enum rb_msg_kind kind)
{
	memset(m, 0, sizeof(*m));
	m->major = major_;
	m->minor = minor_;
	m->kind = kind;
}

/* test hooks: every message through protobuf-c, both ways (the direct codec's reference);
 * how many messages this thread's direct codec took */
static __thread bool generic_only;
static __thread unsigned long direct_decodes, direct_encodes;

void rb_wire_generic_only(bool on)
{
	generic_only = on;
}

unsigned long rb_wire_direct_decodes(void)
{
	return direct_decodes;
}

unsigned long rb_wire_direct_encodes(void)
{
	return direct_encodes;
}

int rb_wire_same_encode(const struct rb_msg *m, bool *ret_direct)
{
	uint8_t *pa = NULL, *pb = NULL;
	size_t la = 0, lb = 0;
	unsigned long direct = direct_encodes;
	bool was = generic_only;
	int ra, rb, same;

	ra = rb_msg_pack(m, &pa, &la);
	if (ret_direct)
		*ret_direct = direct_encodes != direct;
	direct = direct_encodes;
	generic_only = true;
	rb = rb_msg_pack(m, &pb, &lb);
	generic_only = was;
	/* the reference must not have taken the direct encoder itself */
	same = direct_encodes == direct && ra == rb &&
	       (ra || (la == lb && memcmp(pa, pb, la) == 0));
	free(pa);
	free(pb);
	return same ? 0 : -1;
}

int rb_msg_pack(const struct rb_msg *m, uint8_t **ret_buf, size_t *ret_len)
{
	struct pool p = { 0 };
	Rb__Envelope e;
	uint8_t *buf;
	size_t n;
	int r;

	if (m->kind == RB_MSG_SAMPLES && !generic_only && !extra_field) {
		/* samples, the commonest message, encoded directly */
		r = rb_wire_samples_out(m, ret_buf, ret_len);
		direct_encodes += !r;
		return r;
	}
	r = envelope_out(&p, m, &e);

	if (r)
		goto out;
	n = rb__envelope__get_packed_size(&e);
	if (n > RB_WIRE_MAX_BYTES) {
		r = -EMSGSIZE;
		goto out;
	}
	if (!(buf = malloc(n + 3))) {
		r = -ENOMEM;
		goto out;
	}
	rb__envelope__pack(&e, buf);
	if (extra_field) {
		/* field 99, varint 5: what a newer minor version might add */
		buf[n++] = 0x98;
		buf[n++] = 0x06;
		buf[n++] = 0x05;
	}
	*ret_buf = buf;
	*ret_len = n;
out:
	pool_release(&p);
	return r;
}

/* ---- receiving: the generated structs to domain ones ---- */

static const char *const *strs_in(char **v)
{
	return (const char *const *)v;
}

static struct rb_msg_volume *volumes_in(struct pool *p, Rb__Volume **v, size_t n)
{
	struct rb_msg_volume *o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++) {
		o[i].name = v[i]->name;
		o[i].stripe = v[i]->stripe;
		o[i].members = strs_in(v[i]->members);
		o[i].nmembers = v[i]->n_members;
		o[i].serials = strs_in(v[i]->serials);
		o[i].nserials = v[i]->n_serials;
	}
	return o;
}

static struct rb_msg_fs *fs_in(struct pool *p, Rb__Filesystem **v, size_t n)
{
	struct rb_msg_fs *o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++)
		o[i] = (struct rb_msg_fs){ v[i]->type, v[i]->mkfs_options, v[i]->mount_options };
	return o;
}

static void hello_in(struct pool *p, struct rb_msg_hello *m, const Rb__Hello *h)
{
	struct rb_kv *kv = pool_alloc(p, h->n_labels, sizeof(*kv));

	for (size_t i = 0; kv && i < h->n_labels; i++)
		kv[i] = (struct rb_kv){ h->labels[i]->key, h->labels[i]->value };
	m->name = h->name;
	m->hostname = h->hostname;
	m->kernel = h->kernel;
	m->rb_version = h->rb_version;
	m->labels = kv;
	m->nlabels = h->n_labels;
	m->targets = idents_in(p, h->targets, h->n_targets);
	m->ntargets = h->n_targets;
	m->epoch = h->epoch;
	m->run = h->run;
	m->spooled = h->spooled;
}

static void preflight_in(struct pool *p, struct rb_msg_preflight *m, const Rb__Preflight *f)
{
	m->drives = strs_in(f->drives);
	m->ndrives = f->n_drives;
	m->serials = strs_in(f->serials);
	m->nserials = f->n_serials;
	m->volumes = volumes_in(p, f->volumes, f->n_volumes);
	m->nvolumes = f->n_volumes;
	m->writes = f->writes;
	m->destructive = f->destructive;
	m->wipe_signatures = f->wipe_signatures;
	m->filesystems = fs_in(p, f->filesystems, f->n_filesystems);
	m->nfilesystems = m->filesystems ? f->n_filesystems : 0;
	m->commands = strs_in(f->commands);
	m->ncommands = f->n_commands;
}

static void reply_in(struct pool *p, struct rb_msg_preflight_reply *m, const Rb__PreflightReply *r)
{
	struct rb_refusal *v = pool_alloc(p, r->n_refusals, sizeof(*v));

	for (size_t i = 0; v && i < r->n_refusals; i++)
		v[i] = (struct rb_refusal){ r->refusals[i]->subject, r->refusals[i]->message };
	m->drives = strs_in(r->drives);
	m->ndrives = r->n_drives;
	m->refusals = v;
	m->nrefusals = r->n_refusals;
}

static void assign_in(struct pool *p, struct rb_msg_assign *m, const Rb__Assign *a)
{
	struct rb_kv *kv = pool_alloc(p, a->n_settings, sizeof(*kv));

	for (size_t i = 0; kv && i < a->n_settings; i++)
		kv[i] = (struct rb_kv){ a->settings[i]->key, a->settings[i]->value };
	m->point = a->point;
	m->attempt = a->attempt;
	m->drives = strs_in(a->drives);
	m->ndrives = a->n_drives;
	m->settings = kv;
	m->nsettings = a->n_settings;
	m->destructive = a->destructive;
	m->wipe_signatures = a->wipe_signatures;
	m->serials = strs_in(a->serials);
	m->nserials = a->n_serials;
	m->drive_rate_iops = a->drive_rate_iops;
	m->nrates = a->n_drive_rate_iops;
	m->purge = a->purge;
	m->purge_ses = a->purge_ses;
	m->start_at_ns = a->start_at_ns;
	m->volumes = volumes_in(p, a->volumes, a->n_volumes);
	m->nvolumes = a->n_volumes;
	m->filesystems = fs_in(p, a->filesystems, a->n_filesystems);
	m->nfilesystems = m->filesystems ? a->n_filesystems : 0;
	if (a->exec) {
		struct rb_msg_exec *x = pool_alloc(p, 1, sizeof(*x));

		if (x) {
			x->command = a->exec->command;
			x->params = settings_in(p, a->exec->params, a->exec->n_params);
			x->nparams = x->params ? a->exec->n_params : 0;
		}
		m->exec = x;
	}
}

static void samples_in(struct pool *p, struct rb_msg_samples *m, const Rb__SampleBatch *b)
{
	struct rb_msg_sample *v = pool_alloc(p, b->n_samples, sizeof(*v));

	for (size_t i = 0; v && i < b->n_samples; i++) {
		const Rb__Sample *s = b->samples[i];

		v[i] = (struct rb_msg_sample){
			.point = s->point,
			.attempt = s->attempt,
			.drive = s->drive,
			.interval = s->interval,
			.direction = s->direction,
			.t_ns = s->t_ns,
			.ios = s->ios,
			.bytes = s->bytes,
			.errors = s->errors,
			.lat_sum_ns = s->lat_sum_ns,
			.hist = sparse_in(s->hist_idx, s->n_hist_idx, s->hist_cnt, s->n_hist_cnt),
			.last = s->last,
		};
	}
	m->v = v;
	m->n = b->n_samples;
}

static void health_in(struct rb_msg_health *to, const Rb__Health *from)
{
	*to = (struct rb_msg_health){ .point = from->point,
				      .attempt = from->attempt,
				      .drive = from->drive,
				      .member = from->member,
				      .t_ns = from->t_ns,
				      .when = from->when };
	RB_HEALTH_FIELDS(IN_SCALAR)
	snprintf(to->h.slot, sizeof(to->h.slot), "%s", from->slot ? from->slot : "");
}

static void body_in(struct pool *p, struct rb_msg *m, const Rb__Envelope *e)
{
	switch (e->body_case) {
	case RB__ENVELOPE__BODY_HELLO:
		m->kind = RB_MSG_HELLO;
		hello_in(p, &m->hello, e->hello);
		break;
	case RB__ENVELOPE__BODY_WELCOME:
		m->kind = RB_MSG_WELCOME;
		m->welcome = (struct rb_msg_welcome){ e->welcome->campaign, e->welcome->run };
		break;
	case RB__ENVELOPE__BODY_PREFLIGHT:
		m->kind = RB_MSG_PREFLIGHT;
		preflight_in(p, &m->preflight, e->preflight);
		break;
	case RB__ENVELOPE__BODY_PREFLIGHT_REPLY:
		m->kind = RB_MSG_PREFLIGHT_REPLY;
		reply_in(p, &m->preflight_reply, e->preflight_reply);
		break;
	case RB__ENVELOPE__BODY_ASSIGN:
		m->kind = RB_MSG_ASSIGN;
		assign_in(p, &m->assign, e->assign);
		break;
	case RB__ENVELOPE__BODY_SAMPLES:
		m->kind = RB_MSG_SAMPLES;
		samples_in(p, &m->samples, e->samples);
		break;
	case RB__ENVELOPE__BODY_RESULT:
		m->kind = RB_MSG_RESULT;
		result_in(p, &m->result, e->result);
		break;
	case RB__ENVELOPE__BODY_POINT_DONE:
		m->kind = RB_MSG_POINT_DONE;
		m->point_done =
			(struct rb_msg_point_done){ e->point_done->point, e->point_done->attempt };
		break;
	case RB__ENVELOPE__BODY_STOP:
		m->kind = RB_MSG_STOP;
		m->stop.reason = e->stop->reason;
		break;
	case RB__ENVELOPE__BODY_ERROR:
		m->kind = RB_MSG_ERROR;
		m->error = (struct rb_msg_error){ e->error->code, e->error->message };
		break;
	case RB__ENVELOPE__BODY_HEALTH:
		m->kind = RB_MSG_HEALTH;
		health_in(&m->health, e->health);
		break;
	case RB__ENVELOPE__BODY_HEARTBEAT:
		m->kind = RB_MSG_HEARTBEAT;
		m->heartbeat =
			(struct rb_msg_heartbeat){ e->heartbeat->epoch, e->heartbeat->point };
		break;
	case RB__ENVELOPE__BODY_TIME_PROBE:
		m->kind = RB_MSG_TIME_PROBE;
		m->time.t0 = e->time_probe->t0;
		break;
	case RB__ENVELOPE__BODY_TIME_REPLY:
		m->kind = RB_MSG_TIME_REPLY;
		m->time = (struct rb_msg_time){ e->time_reply->t0, e->time_reply->t1,
						e->time_reply->t2 };
		break;
	case RB__ENVELOPE__BODY_ACK:
		m->kind = RB_MSG_ACK;
		m->ack = (struct rb_msg_ack){ e->ack->epoch, e->ack->seq };
		break;
	case RB__ENVELOPE__BODY_EVIDENCE_DATA:
		m->kind = RB_MSG_EVIDENCE_DATA;
		evidence_data_in(&m->evidence_data, e->evidence_data);
		break;
	case RB__ENVELOPE__BODY_CAPTURE:
		m->kind = RB_MSG_CAPTURE;
		m->capture = (struct rb_msg_capture){ e->capture->point, e->capture->attempt,
						      e->capture->drive, e->capture->reason };
		break;
	case RB__ENVELOPE__BODY_CAPTURED:
		m->kind = RB_MSG_CAPTURED;
		captured_in(p, &m->captured, e->captured);
		break;
	default:
		m->kind = RB_MSG_NONE;
		break;
	}
}

/* A SampleBatch envelope by wire_samples.c: 0 decoded, 1 not its shape, < 0 an error. */
static int samples_fast(const uint8_t *buf, size_t len, struct rb_msg **ret, char *err,
			size_t errlen)
{
	struct rb_msg *m = calloc(1, sizeof(*m));
	int r;

	if (!m || !(m->priv = calloc(1, sizeof(*m->priv)))) {
		free(m);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	m->priv->pool.budget = &decode_left;
	r = rb_wire_samples_in(&m->priv->pool, buf, len, m);
	m->priv->pool.budget = NULL;
	if (r) {
		rb_msg_free(m);
		if (r < 0)
			snprintf(err, errlen, "out of memory");
		return r;
	}
	direct_decodes++;
	*ret = m;
	return 0;
}

int rb_msg_unpack(const uint8_t *buf, size_t len, struct rb_msg **ret, char *err, size_t errlen)
{
	struct rb_msg *m;
	Rb__Envelope *e;

	if (len > RB_WIRE_MAX_BYTES) {
		snprintf(err, errlen, "message of %zu bytes exceeds the %u byte limit", len,
			 RB_WIRE_MAX_BYTES);
		return -EMSGSIZE;
	}
	decode_left = RB_WIRE_DECODE_BUDGET;
	if (!generic_only) {
		/* samples, the commonest message, decoded directly where it can be */
		int r = samples_fast(buf, len, ret, err, errlen);

		if (r <= 0)
			return r;
		decode_left = RB_WIRE_DECODE_BUDGET;
	}
	e = rb__envelope__unpack(&bounded, len, buf);
	if (!e) {
		snprintf(err, errlen, "malformed message (%zu bytes) is not a rackbench envelope",
			 len);
		return -EBADMSG;
	}
	if (e->version_major != RB_PROTO_MAJOR) {
		snprintf(err, errlen,
			 "protocol version %u.%u is not compatible with this side's %u.%u",
			 e->version_major, e->version_minor, RB_PROTO_MAJOR, RB_PROTO_MINOR);
		rb__envelope__free_unpacked(e, &bounded);
		return -EPROTONOSUPPORT;
	}
	if (e->body_case == RB__ENVELOPE__BODY__NOT_SET) {
		snprintf(err, errlen, "message has no body this version understands");
		rb__envelope__free_unpacked(e, &bounded);
		return -EBADMSG;
	}
	if (e->body_case == RB__ENVELOPE__BODY_RESULT &&
	    rb_status_parse(e->result->status, NULL) < 0) {
		snprintf(err, errlen,
			 "result of drive '%.200s' point %u has status '%.32s', not one of ok, "
			 "error, refused, stopped, lost",
			 e->result->drive, e->result->point, e->result->status);
		rb__envelope__free_unpacked(e, &bounded);
		return -EBADMSG;
	}
	m = calloc(1, sizeof(*m));
	if (!m || !(m->priv = calloc(1, sizeof(*m->priv)))) {
		free(m);
		rb__envelope__free_unpacked(e, &bounded);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	m->priv->env = e;
	m->major = e->version_major;
	m->minor = e->version_minor;
	m->epoch = e->epoch;
	m->seq = e->seq;
	m->priv->pool.budget = &decode_left;
	body_in(&m->priv->pool, m, e);
	m->priv->pool.budget = NULL;
	if (m->priv->pool.failed) {
		bool over = m->priv->pool.over;

		rb_msg_free(m);
		if (over)
			snprintf(err, errlen,
				 "message of %zu bytes needs more than a message may use", len);
		else
			snprintf(err, errlen, "out of memory");
		return over ? -EMSGSIZE : -ENOMEM;
	}
	*ret = m;
	return 0;
}

void rb_msg_free(struct rb_msg *m)
{
	if (!m)
		return;
	if (m->priv) {
		if (m->priv->env)
			rb__envelope__free_unpacked(m->priv->env, &bounded);
		pool_release(&m->priv->pool);
		free(m->priv);
	}
	free(m);
}
