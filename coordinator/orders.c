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

/* The agent's drives of point p (NULL: of the campaign), their identity pins in
 * ret_serials. */
static char **agent_drives(struct coord *k, struct ragent *a, const struct rb_point *p,
			   size_t *ret_n, char ***ret_serials)
{
	char **v = calloc(k->c->ndrives + 1, sizeof(*v));
	char **s = calloc(k->c->ndrives + 1, sizeof(*s));
	size_t n = 0;

	for (size_t i = 0; v && s && i < k->c->ndrives; i++)
		if (!strcmp(k->c->drives[i].agent, a->name) &&
		    (!p || rb_point_has_drive(k->c, p, i))) {
			s[n] = k->c->drives[i].serial;
			v[n++] = k->c->drives[i].path;
		}
	*ret_n = n;
	*ret_serials = s;
	return v;
}

/* The agent's volumes, for a Preflight or an Assign: units at point p (NULL: their own). */
static Rb__Volume **agent_volumes(struct coord *k, struct ragent *a, const struct rb_point *p,
				  size_t *ret_n)
{
	size_t n = 0;
	Rb__Volume **v = NULL;

	for (size_t i = 0; i < k->c->ndrives; i++) {
		const struct rb_drive_ref *d = &k->c->drives[i];
		Rb__Volume *x, **nv;

		if (!d->nmembers || strcmp(d->agent, a->name) ||
		    (p && !rb_point_has_drive(k->c, p, i)))
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		x = calloc(1, sizeof(*x));
		if (!x)
			break;
		rb__volume__init(x);
		x->name = d->path;
		x->stripe = p ? rb_volume_unit(d, p) : d->stripe;
		x->members = calloc(d->nmembers, sizeof(char *));
		x->serials = calloc(d->nmembers, sizeof(char *));
		for (size_t m = 0; x->members && x->serials && m < d->nmembers; m++) {
			x->members[m] = d->members[m].path;
			x->serials[m] = d->members[m].serial;
		}
		x->n_members = x->n_serials = x->members && x->serials ? d->nmembers : 0;
		v[n++] = x;
	}
	*ret_n = n;
	return v;
}

static void volumes_free(Rb__Volume **v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i]->members);
		free(v[i]->serials);
		free(v[i]);
	}
	free(v);
}

void ord_preflight(struct coord *k, struct ragent *a)
{
	Rb__Envelope e;
	Rb__Preflight pf = RB__PREFLIGHT__INIT;

	pf.drives = agent_drives(k, a, NULL, &pf.n_drives, &pf.serials);
	pf.n_serials = pf.n_drives;
	pf.writes = rb_campaign_writes(k->c);
	pf.destructive = k->c->destructive;
	pf.wipe_signatures = k->c->wipe_signatures;
	pf.volumes = agent_volumes(k, a, NULL, &pf.n_volumes);
	rb_wire_init(&e);
	e.body_case = RB__ENVELOPE__BODY_PREFLIGHT;
	e.preflight = &pf;
	a->asked_ns = coord_now(k); /* before it goes: its answer may come at once */
	dlv_send(k, a, &e);
	free(pf.drives);
	free(pf.serials);
	volumes_free(pf.volumes, pf.n_volumes);
}

/*
 * Sends the point to one agent, as the given attempt, to start at the point's common
 * instant or (a re-run of one agent's part) at once. Returns 0 or RB_EXIT_FAILED.
 */
int ord_assign(struct coord *k, struct ragent *a, const struct rb_point *p, uint32_t attempt,
		  bool at_start)
{
	Rb__Envelope e;
	Rb__Assign as = RB__ASSIGN__INIT;
	Rb__Setting st[64], *sp[64];
	char *vals = malloc(64 * (size_t)RB_OPT_VALUE_MAX);

	if (!vals)
		return RB_EXIT_FAILED;
	a->attempt = attempt;
	if (a->assigned && a->assigned[p->index] < attempt + 1)
		a->assigned[p->index] = attempt + 1;
	as.point = p->index;
	as.attempt = attempt;
	as.destructive = k->c->destructive;
	as.wipe_signatures = k->c->wipe_signatures;
	as.drives = agent_drives(k, a, p, &as.n_drives, &as.serials);
	as.n_serials = as.n_drives;
	as.purge = (char *)p->purge;
	as.purge_ses = p->purge_ses;
	as.volumes = agent_volumes(k, a, p, &as.n_volumes);
	/* the point's instant in the agent's clock */
	if (k->start_at && at_start && a->clk.n)
		as.start_at_ns = k->start_at + rb_clock_offset(&a->clk, NULL);
	uint64_t *rates = NULL;

	if (p->curve_pct > 0 && as.n_drives) {
		rates = calloc(as.n_drives, sizeof(*rates));
		for (size_t i = 0; rates && i < as.n_drives; i++)
			rates[i] = ing_curve_rate(k, p, reg_agent_drive(k, a, as.drives[i]));
		as.drive_rate_iops = rates;
		as.n_drive_rate_iops = rates ? as.n_drives : 0;
	}
	/* the workload travels as text of the option table, parsed by the same table */
	for (size_t o = 0; o < rb_workload_nopts && o < 64; o++) {
		rb__setting__init(&st[o]);
		st[o].key = (char *)rb_workload_opts[o].key;
		st[o].value = rb_opt_format(&p->wl, &rb_workload_opts[o],
					    vals + o * RB_OPT_VALUE_MAX, RB_OPT_VALUE_MAX);
		sp[o] = &st[o];
	}
	as.n_settings = rb_workload_nopts < 64 ? rb_workload_nopts : 64;
	as.settings = sp;
	rb_wire_init(&e);
	e.body_case = RB__ENVELOPE__BODY_ASSIGN;
	e.assign = &as;
	if (as.n_drives && a->state != AGENT_DROPPED) {
		a->state = AGENT_RUNNING;
		a->asked_ns = coord_now(k);
		dlv_send(k, a, &e);
		free(a->assign_msg);
		a->assign_msg = NULL;
		/* kept packed: sent again if the agent turns out never to have had it */
		rb_wire_pack(&e, &a->assign_msg, &a->assign_len);
	} else if (a->state != AGENT_DROPPED) {
		a->state = AGENT_DONE; /* nothing of this point is its */
	}
	free(vals);
	free(as.drives);
	free(as.serials);
	volumes_free(as.volumes, as.n_volumes);
	free(rates);
	return 0;
}
