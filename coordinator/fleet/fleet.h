/* SPDX-License-Identifier: MIT */
/*
 * `rackbench fleet`: one campaign across many rack services, each a cell that owns its
 * agents and files (docs/fleet.md). A stateless client: FLEET.yaml names the racks, each
 * service is asked over its admin endpoint (serve --admin-listen, CURVE, this client's key
 * on its admin allow-list), all at once and within one deadline, so an unreachable rack
 * is named, never waited on for ever.
 *
 * FLEET.yaml:
 *
 *   racks:
 *     - name: r01                          # a word: letters, digits, '-', '_', '.'
 *       endpoint: tcp://10.1.0.5:7471      # the service's --admin-listen
 *       public_key: "Z85..."               # its coordinator.pub's key (40 characters),
 *       # or public_key_file: r01.pub      #   or its file (beside FLEET.yaml)
 *       labels: {row: a, room: dc1}
 */
#ifndef RB_FLEET_H
#define RB_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "keys.h"

struct rb_fleet_rack {
	char *name, *endpoint;
	char pub[41];  /* the service's public key, Z85 */
	char **labels; /* "KEY=VALUE" */
	size_t nlabels;
	unsigned line, column;
};

struct rb_fleet {
	char *file;
	struct rb_fleet_rack *racks;
	size_t nracks;
};

#define RB_FLEET_MAX_RACKS 4096

/*
 * FLEET.yaml's text (file: its name in the errors, and the folder public_key_file is
 * found from). Returns 0, or -EINVAL with every problem in d as FILE:LINE:COLUMN.
 */
int rb_fleet_load(const char *file, const char *text, size_t len, struct rb_fleet **ret,
		  struct rb_diags *d);
int rb_fleet_load_file(const char *path, struct rb_fleet **ret, struct rb_diags *d);
struct rb_fleet *rb_fleet_free(struct rb_fleet *f);

/* A rack's answer: its reply text (to free), or err (-EAGAIN: none before the deadline). */
struct rb_fleet_reply {
	char *text;
	int err;
};

/*
 * Sends req to every rack at once with this client's key pair and waits for their replies
 * until deadline_ms has passed. ret (nracks of them) says each; returns how many answered.
 */
size_t rb_fleet_ask(const struct rb_fleet *f, const struct rb_keypair *me, const char *req,
		    int deadline_ms, struct rb_fleet_reply *ret);
void rb_fleet_replies_free(struct rb_fleet_reply *r, size_t n);

/* What a fleet command is given. */
struct rb_fleet_args {
	const char *fleet, *key; /* FLEET.yaml, this client's key pair */
	const char *id;		 /* status, abort: the fleet run's id */
	const char *campaign;	 /* plan: the campaign */
	uint64_t deadline_ns;	 /* how long a rack is waited for (0: 5 s) */
	bool json;
	uint64_t start_in_ns; /* run: how far ahead the fleet's instant is (0: 3 s) */
	const char *summary;  /* run: the summary's file (NULL: fleet-ID.json here) */
};

/* `fleet status ID`: each rack's shard of the fleet run. Returns the exit code. */
int rb_fleet_status(const struct rb_fleet_args *a);
/* `fleet abort ID`: each rack's shard aborted (or taken out of its queue). Exit code. */
int rb_fleet_abort(const struct rb_fleet_args *a);
/*
 * `fleet run CAMPAIGN`: each rack's shard submitted to its service (queued behind a run
 * going on) with the fleet's id and one UTC start instant in each rack's own wall clock,
 * followed in one view until every shard ended or was lost; the fleet table and summary.
 * Exit code: the worst of the racks', 4 when a rack is INCOMPLETE.
 */
int rb_fleet_run(const struct rb_fleet_args *a);
/* `fleet plan CAMPAIGN`: each rack's shard: agents, drives, points, time. Exit code. */
int rb_fleet_plan(const struct rb_fleet_args *a);

#endif
