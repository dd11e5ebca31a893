// SPDX-License-Identifier: MIT
/*
 * What the agents are told to do: the pre-flight check of their drives and each
 * point's Assign (drives, volumes, rates, the workload as option text).
 */
#include <stdlib.h>
#include <string.h>

#include "coord_priv.h"
#include "campaign.h"
#include "exitcode.h"
#include "options.h"
#include "wire.h"

/* Whether drive i is left out of the points: refused, and the campaign skips such. */
static bool skipped(const struct coord *k, size_t i)
{
	return k->refusal.skipped && k->refusal.refused[i];
}

/*
 * The agent's drives of point p (NULL: of the campaign), their identity pins in
 * ret_serials, their filesystems in ret_fs (NULL when none has one).
 */
static const char **agent_drives(struct coord *k, struct ragent *a, const struct rb_point *p,
				 size_t *ret_n, const char ***ret_serials,
				 struct rb_msg_fs **ret_fs)
{
	const char **v = calloc(k->c->ndrives + 1, sizeof(*v));
	const char **s = calloc(k->c->ndrives + 1, sizeof(*s));
	struct rb_msg_fs *f = calloc(k->c->ndrives + 1, sizeof(*f));
	size_t n = 0;
	bool any = false;

	for (size_t i = 0; v && s && f && i < k->c->ndrives; i++)
		if (!strcmp(k->c->drives[i].agent, a->name) &&
		    (!p || (rb_point_has_drive(k->c, p, i) && !skipped(k, i)))) {
			const struct rb_fs_spec *fs = &k->c->drives[i].fs;

			f[n] = (struct rb_msg_fs){ fs->type, fs->mkfs_options, fs->mount_options };
			any |= rb_fs_spec_set(fs);
			s[n] = k->c->drives[i].serial;
			v[n++] = k->c->drives[i].path;
		}
	if (!any) {
		free(f);
		f = NULL;
	}
	*ret_n = n;
	*ret_serials = s;
	*ret_fs = f;
	return v;
}

/* The agent's volumes, for a Preflight or an Assign: units at point p (NULL: their own). */
static struct rb_msg_volume *agent_volumes(struct coord *k, struct ragent *a,
					   const struct rb_point *p, size_t *ret_n)
{
	size_t n = 0;
	struct rb_msg_volume *v = NULL;

	for (size_t i = 0; i < k->c->ndrives; i++) {
		const struct rb_drive_ref *d = &k->c->drives[i];
		struct rb_msg_volume *nv;
		const char **members, **serials;

		if (!d->nmembers || strcmp(d->agent, a->name) ||
		    (p && (!rb_point_has_drive(k->c, p, i) || skipped(k, i))))
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		members = calloc(d->nmembers, sizeof(char *));
		serials = calloc(d->nmembers, sizeof(char *));
		for (size_t m = 0; members && serials && m < d->nmembers; m++) {
			members[m] = d->members[m].path;
			serials[m] = d->members[m].serial;
		}
		v[n++] = (struct rb_msg_volume){
			.name = d->path,
			.stripe = p ? rb_volume_unit(d, p) : d->stripe,
			.members = members,
			.serials = serials,
			.nmembers = members && serials ? d->nmembers : 0,
			.nserials = members && serials ? d->nmembers : 0,
		};
	}
	*ret_n = n;
	return v;
}

static void volumes_free(struct rb_msg_volume *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((void *)v[i].members);
		free((void *)v[i].serials);
	}
	free(v);
}

/* The campaign's exec commands, each once (NULL-terminated; the strings: the points'). */
static const char **exec_commands(const struct rb_campaign *c, size_t *ret_n)
{
	const char **v = calloc(c->npoints + 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; v && i < c->npoints; i++) {
		bool seen = !c->points[i].exec[0];

		for (size_t k = 0; k < n && !seen; k++)
			seen = !strcmp(v[k], c->points[i].exec);
		if (!seen)
			v[n++] = c->points[i].exec;
	}
	*ret_n = v ? n : 0;
	return v;
}

/* An exec point's command and its parameters (from "KEY=VALUE" lines, into buf). */
static size_t exec_params(const struct rb_point *p, char *buf, size_t len, struct rb_kv *kv,
			  size_t max)
{
	size_t n = 0;

	snprintf(buf, len, "%s", p->exec_params);
	for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		kv[n++] = (struct rb_kv){ line, eq + 1 };
	}
	return n;
}

void ord_preflight(struct coord *k, struct ragent *a)
{
	struct rb_msg m;
	struct rb_msg_preflight *pf = &m.preflight;
	const char **drives, **serials;
	struct rb_msg_fs *fs;

	rb_msg_init(&m, RB_MSG_PREFLIGHT);
	pf->drives = drives = agent_drives(k, a, NULL, &pf->ndrives, &serials, &fs);
	pf->serials = serials;
	pf->nserials = pf->ndrives;
	pf->filesystems = fs;
	pf->nfilesystems = fs ? pf->ndrives : 0;
	const char **cmds = exec_commands(k->c, &pf->ncommands);

	pf->commands = cmds;
	pf->writes = rb_campaign_writes(k->c);
	pf->destructive = k->c->destructive;
	pf->wipe_signatures = k->c->wipe_signatures;
	struct rb_msg_volume *vols = agent_volumes(k, a, NULL, &pf->nvolumes);

	pf->volumes = vols;
	a->asked_ns = coord_now(k); /* before it goes: its answer may come at once */
	dlv_send(k, a, &m);
	free(drives);
	free(serials);
	free(fs);
	free(cmds);
	volumes_free(vols, pf->nvolumes);
}

/*
 * Sends the point to one agent, as the given attempt, to start at the point's common
 * instant or (a re-run of one agent's part) at once. Returns 0 or RB_EXIT_FAILED.
 */
int ord_assign(struct coord *k, struct ragent *a, const struct rb_point *p, uint32_t attempt,
	       bool at_start)
{
	struct rb_msg m;
	struct rb_msg_assign *as = &m.assign;
	struct rb_kv st[RB_WORKLOAD_MAX_OPTS];
	const char **drives, **serials;
	struct rb_msg_volume *vols;
	struct rb_msg_fs *fs;
	char *vals = malloc(RB_WORKLOAD_MAX_OPTS * (size_t)RB_OPT_VALUE_MAX);

	if (!vals)
		return RB_EXIT_FAILED;
	a->attempt = attempt;
	if (a->assigned && a->assigned[p->index] < attempt + 1)
		a->assigned[p->index] = attempt + 1;
	rb_msg_init(&m, RB_MSG_ASSIGN);
	as->point = p->index;
	as->attempt = attempt;
	as->destructive = k->c->destructive;
	as->wipe_signatures = k->c->wipe_signatures;
	as->drives = drives = agent_drives(k, a, p, &as->ndrives, &serials, &fs);
	as->serials = serials;
	as->nserials = as->ndrives;
	as->filesystems = fs;
	as->nfilesystems = fs ? as->ndrives : 0;
	char pbuf[sizeof(p->exec_params)];
	struct rb_kv params[32];
	struct rb_msg_exec ex = { p->exec, params, exec_params(p, pbuf, sizeof(pbuf), params, 32) };

	as->exec = p->exec[0] ? &ex : NULL;
	as->purge = p->purge;
	as->purge_ses = p->purge_ses;
	as->volumes = vols = agent_volumes(k, a, p, &as->nvolumes);
	/* the point's instant in the agent's clock */
	if (k->start_at && at_start && a->clk.n)
		as->start_at_ns = k->start_at + rb_clock_offset(&a->clk, NULL);
	uint64_t *rates = NULL;

	if (p->curve_pct > 0 && as->ndrives) {
		rates = calloc(as->ndrives, sizeof(*rates));
		for (size_t i = 0; rates && drives && i < as->ndrives; i++)
			rates[i] = ing_curve_rate(k, p, reg_agent_drive(k, a, drives[i]));
		as->drive_rate_iops = rates;
		as->nrates = rates ? as->ndrives : 0;
	}
	/* the workload travels as text of the option table, parsed by the same table */
	for (size_t o = 0; o < rb_workload_nopts; o++)
		st[o] = (struct rb_kv){ rb_workload_opts[o].key,
					rb_opt_format(&p->wl, &rb_workload_opts[o],
						      vals + o * RB_OPT_VALUE_MAX,
						      RB_OPT_VALUE_MAX) };
	as->nsettings = rb_workload_nopts;
	as->settings = st;
	if (as->ndrives && a->state != AGENT_DROPPED) {
		agent_enter(a, AGENT_RUNNING);
		a->asked_ns = coord_now(k);
		dlv_send(k, a, &m);
		free(a->assign_msg);
		a->assign_msg = NULL;
		/* kept packed: sent again if the agent turns out never to have had it */
		rb_msg_pack(&m, &a->assign_msg, &a->assign_len);
	} else if (a->state != AGENT_DROPPED) {
		agent_enter(a, AGENT_DONE); /* nothing of this point is its */
	}
	free(vals);
	free(drives);
	free(serials);
	free(fs);
	volumes_free(vols, as->nvolumes);
	free(rates);
	return 0;
}
