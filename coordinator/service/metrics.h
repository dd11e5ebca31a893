/* SPDX-License-Identifier: MIT */
/*
 * `rackbench serve --metrics ADDR:PORT`: the service's figures as a Prometheus text page
 * (exposition format 0.0.4) at http://ADDR:PORT/metrics, for dashboards. The only file
 * that speaks libmicrohttpd.
 *
 * Who does what: the service's thread renders the page when its figures change (at most
 * once a second during a run: each sample interval, an agent's state, the queue) into a
 * new buffer, then swaps it in under a mutex; libmicrohttpd's own polling thread answers
 * each GET with a copy of the last page. The service's thread never waits on a client.
 * The page is the size of its fleet: about 1.5 KiB a drive, 200 bytes an agent.
 * docs/service.md lists every metric.
 */
#ifndef RB_METRICS_H
#define RB_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord.h"

#define RB_METRICS_PAGE_MAX (64u << 20) /* a page larger than this is refused */

struct rb_metrics_agent {
	const char *name, *host; /* host "": unknown (the label is left out) */
	bool connected, lost;
};

/*
 * A verdict row of a run that ended (its results file's verdicts table): the drive's
 * identity and labels (the figures of drive unused), its campaign and run, the rule
 * ("drive": the drive's own verdict) and the verdict (PASS, FAIL, INCOMPLETE).
 */
struct rb_metrics_verdict {
	struct rb_live_drive drive;
	const char *campaign, *run, *rule, *verdict;
	const char *domain; /* a fleet's hold: "rack=R" or "host=H" (no drive); NULL: none */
};

/* What a page shows: the service, its agents, the drives of the run going on, the
 * verdicts of the runs that ended. */
struct rb_metrics_snap {
	bool running;			    /* a run goes on */
	const char *run, *campaign, *phase; /* the run going on (NULL: none) */
	size_t point, npoints;		    /* the point running (index), of how many */
	unsigned queued;		    /* runs waiting their turn */
	uint64_t samples;		    /* sample rows taken since the service started */
	const struct rb_metrics_agent *agents;
	size_t nagents;
	const struct rb_live_drive *drives; /* the run's (coord.h); NULL none */
	size_t ndrives;
	const struct rb_metrics_verdict *verdicts; /* each campaign's last run's; NULL none */
	size_t nverdicts;
	/* the fleet's verdicts (rackbench judge) on those runs' drives, their racks and hosts */
	const struct rb_metrics_verdict *fleet;
	size_t nfleet;
};

/*
 * The page of s: every metric's # HELP and # TYPE lines, then its samples (a drive's
 * figures only when measured, its temperature only when known, labels left out when
 * unknown). *ret_text (NUL-terminated, *ret_len bytes) is the caller's to free.
 * 0, -ENOMEM, or -E2BIG past RB_METRICS_PAGE_MAX.
 */
int rb_metrics_render(const struct rb_metrics_snap *s, char **ret_text, size_t *ret_len);

/*
 * Checks "HOST:PORT", ":PORT" (every address) or "[IPV6]:PORT" (PORT 0 to 65535; 0: any
 * free one). 0, or -EINVAL with why filled.
 */
int rb_metrics_addr_check(const char *spec, char *why, size_t len);

struct rb_metrics;

/* Connections the HTTP server holds: in all, from one client address, and the seconds
 * one may stay idle before it is closed */
#define RB_METRICS_CONNECTIONS 64
#define RB_METRICS_PER_CLIENT 8
#define RB_METRICS_IDLE_S 5

/*
 * Listens on spec (as rb_metrics_addr_check takes it) and answers on libmicrohttpd's
 * thread: GET /metrics the last page published (empty before), 404 other paths, 405
 * other methods; a client over RB_METRICS_PER_CLIENT connections is refused the extra
 * ones. NULL with err filled ("cannot serve metrics on 'SPEC': WHY").
 */
struct rb_metrics *rb_metrics_start(const char *spec, char *err, size_t errlen);
/* The address it listens on, as "HOST:PORT" (the port chosen when spec said 0). */
const char *rb_metrics_address(const struct rb_metrics *m);
/* Renders s and makes it the page: 0 or rb_metrics_render's error (the old page stays). */
int rb_metrics_publish(struct rb_metrics *m, const struct rb_metrics_snap *s);
/*
 * The service's page: s with its agents ag (n, as the service's registry heard them)
 * overridden by what the run going on says of them (l; NULL: no run, or no word from
 * it): connected or lost. An agent a run had connected stays connected for 5 s after
 * (the registry hears it again once the run lets go of it). l's drives are the page's.
 * 0 or rb_metrics_render's error.
 */
int rb_metrics_update(struct rb_metrics *m, struct rb_metrics_snap *s, struct rb_metrics_agent *ag,
		      size_t n, const struct rb_coord_live *l);
/* Stops the server (waits for its thread). Takes NULL; returns NULL. */
struct rb_metrics *rb_metrics_free(struct rb_metrics *m);

#endif
