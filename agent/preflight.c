// SPDX-License-Identifier: MIT
/*
 * The agent's pre-flight: what it tells the coordinator of itself (Hello, its targets'
 * identities), the guard's policy for a campaign, the identity pins, a point's layout
 * (drives and volumes' members), and the pre-flight check the coordinator asks for.
 */
#include "session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "guard.h"
#include "nvme.h"
#include "target.h"
#include "transport.h"

bool rb_preflight_offered(const struct rb_agent_cfg *c, const char *path)
{
	for (size_t i = 0; i < c->ntargets; i++)
		if (!strcmp(c->targets[i], path))
			return true;
	return false;
}

/* A target's identity as the protocol carries it (strings stay x's). */
void rb_preflight_target_info(Rb__TargetInfo *m, const char *path, const struct rb_target_info *x)
{
	rb__target_info__init(m);
	m->path = (char *)path;
	m->kind = (char *)rb_target_kind_name(x->kind);
	m->size_bytes = x->size_bytes;
	m->model = (char *)x->model;
	m->serial = (char *)x->serial;
	m->firmware = (char *)x->firmware;
	m->logical_block_size = x->logical_block_size;
}

void rb_preflight_hello(struct agent *a, uint64_t epoch)
{
	const struct rb_agent_cfg *c = a->cfg;
	Rb__Envelope e;
	Rb__Hello h = RB__HELLO__INIT;
	struct utsname u;
	char host[256] = "";
	Rb__Label *labels = calloc(c->nlabels + 1, sizeof(*labels));
	Rb__Label **lp = calloc(c->nlabels + 1, sizeof(*lp));
	Rb__TargetInfo *ti = calloc(c->ntargets + 1, sizeof(*ti));
	Rb__TargetInfo **tp = calloc(c->ntargets + 1, sizeof(*tp));
	struct rb_target_info *info = calloc(c->ntargets + 1, sizeof(*info));
	char kernel[300] = "";
	struct rb_guard_policy gp = { .allow = c->allow, .nallow = c->nallow };

	if (!labels || !lp || !ti || !tp || !info)
		goto out;
	gethostname(host, sizeof(host));
	if (uname(&u) == 0)
		snprintf(kernel, sizeof(kernel), "%s %s", u.sysname, u.release);
	rb_wire_init(&e);
	h.name = c->name;
	h.hostname = host;
	h.kernel = kernel;
	h.rb_version = (char *)RB_VERSION;
	h.epoch = epoch;
	/* what a restarted coordinator must hear before it judges which points are done */
	h.run = a->run;
	h.spooled = a->spool.fd >= 0 ? a->seq : 0;
	for (size_t i = 0; i < c->nlabels; i++) {
		char *eq = strchr(c->labels[i], '=');

		rb__label__init(&labels[i]);
		*eq = '\0';
		labels[i].key = c->labels[i];
		labels[i].value = eq + 1;
		lp[i] = &labels[i];
	}
	h.n_labels = c->nlabels;
	h.labels = lp;
	for (size_t i = 0; i < c->ntargets; i++) {
		rb_target_probe(c->targets[i], &info[i]);
		rb_preflight_target_info(&ti[i], c->targets[i], &info[i]);
		ti[i].writable = rb_guard_allowed(&gp, c->targets[i]);
		tp[i] = &ti[i];
	}
	h.n_targets = c->ntargets;
	h.targets = tp;
	e.body_case = RB__ENVELOPE__BODY_HELLO;
	e.hello = &h;
	rb_tx_send(a->sock, NULL, &e, true);
	for (size_t i = 0; i < c->nlabels; i++)
		labels[i].key[strlen(labels[i].key)] = '=';
out:
	free(labels);
	free(lp);
	free(ti);
	free(tp);
	free(info);
}

void rb_preflight_policy(const struct agent *a, bool destructive, bool wipe,
			 struct rb_guard_policy *gp)
{
	memset(gp, 0, sizeof(*gp));
	gp->destructive = destructive;
	gp->wipe_signatures = wipe;
	gp->destructive_key = "'destructive: true' in the campaign";
	gp->allow = a->cfg->allow;
	gp->nallow = a->cfg->nallow;
	gp->state_dir = a->cfg->state_dir;
	gp->root = "";
}

/* The campaign's identity pin: the drive must report this serial (NVMe identify, else sysfs). */
void rb_preflight_pin(const char *path, const char *serial, struct rb_diags *d)
{
	struct rb_target_info ti;
	struct rb_nvme_id id;
	uint16_t st;
	const char *base = strrchr(path, '/');
	const char *got;

	if (!serial || !*serial)
		return;
	if (rb_target_probe(path, &ti)) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path, "cannot read its identity");
		return;
	}
	got = ti.serial;
	if (ti.kind == RB_TARGET_BLOCK && base && !strncmp(base + 1, "nvme", 4) &&
	    rb_nvme_read(&rb_nvme_libnvme, ti.real, &id, NULL, &st) == 0)
		got = id.serial;
	if (strcmp(got, serial))
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "identity does not match the campaign's pin: the drive reports serial "
			     "'%s', the campaign pins '%s'", got, serial);
}

void rb_preflight_layout_free(struct layout *L)
{
	free(L->paths);
	free(L->serials);
	free(L->vols);
	free(L->first);
	free(L->volume);
	memset(L, 0, sizeof(*L));
}

int rb_preflight_layout(struct layout *L, char **drives, size_t n, char **serials,
			size_t nserials, Rb__Volume **vols, size_t nvols, char *err, size_t errlen)
{
	size_t cap = 0;

	memset(L, 0, sizeof(*L));
	snprintf(err, errlen, "out of memory");
	/* a unit of 0 would put every IO on the first member: refused, as is an empty one */
	for (size_t v = 0; v < nvols; v++)
		if (!vols[v]->n_members || vols[v]->n_members > 4096 || !vols[v]->stripe ||
		    vols[v]->stripe % 512) {
			snprintf(err, errlen, "volume '%s': %zu member(s) in units of %llu bytes: "
				 "not a volume this agent can measure", vols[v]->name,
				 vols[v]->n_members, (unsigned long long)vols[v]->stripe);
			return -EINVAL;
		}
	for (size_t i = 0; i < n; i++) {
		size_t k = 1;

		for (size_t v = 0; v < nvols; v++)
			if (!strcmp(vols[v]->name, drives[i]))
				k = vols[v]->n_members;
		cap += k;
	}
	L->paths = calloc(cap + 1, sizeof(char *));
	L->serials = calloc(cap + 1, sizeof(char *));
	L->volume = calloc(cap + 1, sizeof(char *));
	L->vols = calloc(n + 1, sizeof(*L->vols));
	L->first = calloc(n + 1, sizeof(size_t));
	if (!L->paths || !L->serials || !L->volume || !L->vols || !L->first) {
		rb_preflight_layout_free(L);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const Rb__Volume *vol = NULL;

		for (size_t v = 0; v < nvols; v++)
			if (!strcmp(vols[v]->name, drives[i]))
				vol = vols[v];
		L->first[i] = L->npaths;
		if (!vol) {
			L->vols[i] = (struct rb_volume){ .members = 1 };
			L->serials[L->npaths] = i < nserials ? serials[i] : (char *)"";
			L->paths[L->npaths++] = drives[i];
			continue;
		}
		L->vols[i] = (struct rb_volume){ .members = (unsigned)vol->n_members,
						 .stripe = vol->stripe };
		for (size_t m = 0; m < vol->n_members; m++) {
			L->serials[L->npaths] = m < vol->n_serials ? vol->serials[m] : (char *)"";
			L->volume[L->npaths] = vol->name;
			L->paths[L->npaths++] = vol->members[m];
		}
	}
	return 0;
}

/* Diagnostics about a volume's member are the volume's, naming the member. */
void rb_preflight_layout_subjects(const struct layout *L, struct rb_diags *d, size_t from)
{
	for (size_t k = from; k < d->n; k++)
		for (size_t i = 0; d->v[k].subject && i < L->npaths; i++) {
			char *msg;

			if (!L->volume[i] || strcmp(d->v[k].subject, L->paths[i]))
				continue;
			if (asprintf(&msg, "member '%s': %s", L->paths[i], d->v[k].message) < 0)
				break;
			free(d->v[k].message);
			d->v[k].message = msg;
			free(d->v[k].subject);
			d->v[k].subject = strdup(L->volume[i]);
			break;
		}
}

void rb_preflight_handle(struct agent *a, const Rb__Preflight *pf)
{
	Rb__Envelope e;
	Rb__PreflightReply rep = RB__PREFLIGHT_REPLY__INIT;
	struct rb_guard_policy gp;
	struct rb_diags d;
	struct layout L;
	char err[512];
	size_t cap = 0;

	rb_diags_init(&d);
	rb_preflight_policy(a, pf->destructive, pf->wipe_signatures, &gp);
	if (rb_preflight_layout(&L, pf->drives, pf->n_drives, pf->serials, pf->n_serials,
				pf->volumes, pf->n_volumes, err, sizeof(err)))
		rb_diags_add(&d, RB_SEV_ERROR, NULL, 0, 0, a->cfg->name, "%s", err);
	for (size_t i = 0; i < L.npaths; i++) {
		if (!rb_preflight_offered(a->cfg, L.paths[i]))
			rb_diags_add(&d, RB_SEV_ERROR, NULL, 0, 0, L.paths[i],
				     "agent '%s' does not offer this target (see its --target)",
				     a->cfg->name);
		else {
			rb_preflight_pin(L.paths[i], L.serials[i], &d);
			if (pf->writes)
				rb_guard_check_write(&gp, L.paths[i], &d);
		}
	}
	/* one device under two names: refused before any phase, read or write, runs */
	rb_guard_same_devices(L.paths, L.npaths, &d);
	rb_preflight_layout_subjects(&L, &d, 0);
	rb_preflight_layout_free(&L);
	cap = d.n;
	Rb__Diagnostic *dv = calloc(cap + 1, sizeof(*dv));
	Rb__Diagnostic **dp = calloc(cap + 1, sizeof(*dp));

	if (dv && dp) {
		for (size_t i = 0; i < d.n; i++) {
			rb__diagnostic__init(&dv[i]);
			dv[i].subject = d.v[i].subject;
			dv[i].message = d.v[i].message;
			dp[i] = &dv[i];
		}
		rep.n_refusals = d.n;
		rep.refusals = dp;
	}
	rb_wire_init(&e);
	e.body_case = RB__ENVELOPE__BODY_PREFLIGHT_REPLY;
	e.preflight_reply = &rep;
	rb_delivery_send(a, &e);
	free(dv);
	free(dp);
	rb_diags_release(&d);
}
