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

#include "execphase.h"
#include "fstarget.h"
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

/* A target's identity as the protocol carries it. */
void rb_preflight_identity(struct rb_identity *m, const struct rb_agent_cfg *c, const char *path,
			   const struct rb_target_info *x)
{
	const char *given = rb_agent_cfg_serial(c, path);

	memset(m, 0, sizeof(*m));
	rb_wire_strcpy(m->path, sizeof(m->path), path);
	rb_wire_strcpy(m->kind, sizeof(m->kind), rb_target_kind_name(x->kind));
	m->size_bytes = x->size_bytes;
	rb_wire_strcpy(m->model, sizeof(m->model), x->model);
	/* the drive's own serial, else the one agent.yaml gives it */
	rb_wire_strcpy(m->serial, sizeof(m->serial), x->serial[0] || !given ? x->serial : given);
	rb_wire_strcpy(m->firmware, sizeof(m->firmware), x->firmware);
	m->logical_block_size = x->logical_block_size;
}

void rb_preflight_hello(struct agent *a, uint64_t epoch)
{
	const struct rb_agent_cfg *c = a->cfg;
	struct rb_msg m;
	struct rb_msg_hello *h = &m.hello;
	struct utsname u;
	char host[256] = "";
	struct rb_kv *labels = calloc(c->nlabels + 1, sizeof(*labels));
	struct rb_identity *ti = calloc(c->ntargets + 1, sizeof(*ti));
	struct rb_target_info *info = calloc(c->ntargets + 1, sizeof(*info));
	char kernel[300] = "";
	struct rb_guard_policy gp = { .allow = c->allow, .nallow = c->nallow };

	if (!labels || !ti || !info)
		goto out;
	gethostname(host, sizeof(host));
	if (uname(&u) == 0)
		snprintf(kernel, sizeof(kernel), "%s %s", u.sysname, u.release);
	rb_msg_init(&m, RB_MSG_HELLO);
	h->name = c->name;
	h->hostname = host;
	h->kernel = kernel;
	h->rb_version = RB_VERSION;
	h->epoch = epoch;
	/* what a restarted coordinator must hear before it judges which points are done */
	h->run = a->dlv.run;
	h->spooled = a->dlv.spool.fd >= 0 ? a->dlv.seq : 0;
	for (size_t i = 0; i < c->nlabels; i++) {
		char *eq = strchr(c->labels[i], '=');

		*eq = '\0';
		labels[i].key = c->labels[i];
		labels[i].value = eq + 1;
	}
	h->nlabels = c->nlabels;
	h->labels = labels;
	for (size_t i = 0; i < c->ntargets; i++) {
		rb_target_probe(c->targets[i], &info[i]);
		rb_preflight_identity(&ti[i], c, c->targets[i], &info[i]);
		ti[i].writable = rb_guard_allowed(&gp, c->targets[i]);
	}
	h->ntargets = c->ntargets;
	h->targets = ti;
	rb_tx_send(a->sock, NULL, &m, true);
	for (size_t i = 0; i < c->nlabels; i++)
		c->labels[i][strlen(c->labels[i])] = '=';
out:
	free(labels);
	free(ti);
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

/*
 * The campaign's identity pin: the drive must report this serial (NVMe identify, else
 * sysfs, else the one agent.yaml gives it).
 */
void rb_preflight_pin(const struct rb_agent_cfg *c, const char *path, const char *serial,
		      struct rb_diags *d)
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
	if (!*got && rb_agent_cfg_serial(c, path))
		got = rb_agent_cfg_serial(c, path);
	if (strcmp(got, serial))
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "identity does not match the campaign's pin: the drive reports serial "
			     "'%s', the campaign pins '%s'",
			     got, serial);
}

void rb_preflight_layout_free(struct layout *L)
{
	free(L->paths);
	free(L->serials);
	free(L->vols);
	free(L->first);
	free(L->volume);
	free(L->fs);
	memset(L, 0, sizeof(*L));
}

/* Each drive's filesystem, from the message's: none on a volume, none too long. */
static int layout_fs(struct layout *L, const struct layout_msg *m, char *err, size_t errlen)
{
	for (size_t i = 0; i < m->n && i < m->nfs; i++) {
		const struct rb_msg_fs *f = &m->fs[i];
		struct rb_fs_spec *s = &L->fs[i];

		if (!f->type || !*f->type)
			continue;
		if (L->vols[i].stripe) {
			snprintf(err, errlen,
				 "volume '%s': a striped volume cannot take a filesystem",
				 m->drives[i]);
			return -EINVAL;
		}
		if (strlen(f->type) >= sizeof(s->type) ||
		    (f->mkfs_options && strlen(f->mkfs_options) >= sizeof(s->mkfs_options)) ||
		    (f->mount_options && strlen(f->mount_options) >= sizeof(s->mount_options))) {
			snprintf(err, errlen, "drive '%s': its filesystem's options are too long",
				 m->drives[i]);
			return -EINVAL;
		}
		snprintf(s->type, sizeof(s->type), "%s", f->type);
		snprintf(s->mkfs_options, sizeof(s->mkfs_options), "%s",
			 f->mkfs_options ? f->mkfs_options : "");
		snprintf(s->mount_options, sizeof(s->mount_options), "%s",
			 f->mount_options ? f->mount_options : "");
	}
	return 0;
}

int rb_preflight_layout(struct layout *L, const struct layout_msg *m, char *err, size_t errlen)
{
	const char *const *drives = m->drives, *const *serials = m->serials;
	const struct rb_msg_volume *vols = m->vols;
	size_t n = m->n, nserials = m->nserials, nvols = m->nvols, cap = 0;
	int r;

	memset(L, 0, sizeof(*L));
	snprintf(err, errlen, "out of memory");
	/* a unit of 0 would put every IO on the first member: refused, as is an empty one */
	for (size_t v = 0; v < nvols; v++)
		if (!vols[v].nmembers || vols[v].nmembers > 4096 || !vols[v].stripe ||
		    vols[v].stripe % 512) {
			snprintf(err, errlen,
				 "volume '%s': %zu member(s) in units of %llu bytes: "
				 "not a volume this agent can measure",
				 vols[v].name, vols[v].nmembers,
				 (unsigned long long)vols[v].stripe);
			return -EINVAL;
		}
	for (size_t i = 0; i < n; i++) {
		size_t k = 1;

		for (size_t v = 0; v < nvols; v++)
			if (!strcmp(vols[v].name, drives[i]))
				k = vols[v].nmembers;
		cap += k;
	}
	L->paths = calloc(cap + 1, sizeof(char *));
	L->serials = calloc(cap + 1, sizeof(char *));
	L->volume = calloc(cap + 1, sizeof(char *));
	L->vols = calloc(n + 1, sizeof(*L->vols));
	L->first = calloc(n + 1, sizeof(size_t));
	L->fs = calloc(n + 1, sizeof(*L->fs));
	if (!L->paths || !L->serials || !L->volume || !L->vols || !L->first || !L->fs) {
		rb_preflight_layout_free(L);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rb_msg_volume *vol = NULL;

		for (size_t v = 0; v < nvols; v++)
			if (!strcmp(vols[v].name, drives[i]))
				vol = &vols[v];
		L->first[i] = L->npaths;
		if (!vol) {
			L->vols[i] = (struct rb_volume){ .members = 1 };
			L->serials[L->npaths] = (char *)(i < nserials ? serials[i] : "");
			L->paths[L->npaths++] = (char *)drives[i];
			continue;
		}
		L->vols[i] = (struct rb_volume){ .members = (unsigned)vol->nmembers,
						 .stripe = vol->stripe };
		for (size_t k = 0; k < vol->nmembers; k++) {
			L->serials[L->npaths] = (char *)(k < vol->nserials ? vol->serials[k] : "");
			L->volume[L->npaths] = vol->name;
			L->paths[L->npaths++] = (char *)vol->members[k];
		}
	}
	if ((r = layout_fs(L, m, err, errlen))) {
		rb_preflight_layout_free(L);
		return r;
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

void rb_preflight_handle(struct agent *a, const struct rb_msg_preflight *pf)
{
	struct rb_msg m;
	struct rb_guard_policy gp;
	struct rb_diags d;
	struct layout L;
	char err[512];
	size_t cap = 0;

	rb_diags_init(&d);
	const struct layout_msg lm = {
		pf->drives,  pf->ndrives,  pf->serials,	    pf->nserials,
		pf->volumes, pf->nvolumes, pf->filesystems, pf->nfilesystems
	};

	rb_preflight_policy(a, pf->destructive, pf->wipe_signatures, &gp);
	if (rb_preflight_layout(&L, &lm, err, sizeof(err)))
		rb_diags_add(&d, RB_SEV_ERROR, NULL, 0, 0, a->cfg->name, "%s", err);
	for (size_t i = 0; i < L.npaths; i++) {
		if (!rb_preflight_offered(a->cfg, L.paths[i]))
			rb_diags_add(&d, RB_SEV_ERROR, NULL, 0, 0, L.paths[i],
				     "agent '%s' does not offer this target (see its --target)",
				     a->cfg->name);
		else
			rb_preflight_pin(a->cfg, L.paths[i], L.serials[i], &d);
	}
	/* each drive judged for the writes: a filesystem to make (the run's own filesystem
	 * is no signature), or the points' */
	for (size_t i = 0; i < pf->ndrives && L.first; i++) {
		bool own;

		for (size_t k = 0; k < L.vols[i].members; k++) {
			const char *path = L.paths[L.first[i] + k];

			if (!rb_preflight_offered(a->cfg, path))
				continue;
			if (rb_fs_spec_set(&L.fs[i]))
				rb_fs_target_check(&gp, &L.fs[i], path, a->dlv.run, &own, &d);
			else if (pf->writes)
				rb_guard_check_write(&gp, path, &d);
		}
	}
	/* an exec phase's command must be this agent's own (agent.yaml 'commands') */
	for (size_t i = 0; i < pf->ncommands; i++)
		rb_exec_allowed(&a->cfg->exec, a->cfg->name, pf->commands[i], &d);
	/* one device under two names: refused before any phase, read or write, runs */
	rb_guard_same_devices(L.paths, L.npaths, &d);
	rb_preflight_layout_subjects(&L, &d, 0);
	rb_preflight_layout_free(&L);
	cap = d.n;
	struct rb_refusal *rv = calloc(cap + 1, sizeof(*rv));

	rb_msg_init(&m, RB_MSG_PREFLIGHT_REPLY);
	if (rv) {
		for (size_t i = 0; i < d.n; i++)
			rv[i] = (struct rb_refusal){ d.v[i].subject, d.v[i].message };
		m.preflight_reply.nrefusals = d.n;
		m.preflight_reply.refusals = rv;
	}
	rb_delivery_send(a, &m);
	free(rv);
	rb_diags_release(&d);
}
