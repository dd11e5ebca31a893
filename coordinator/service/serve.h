/* SPDX-License-Identifier: MIT */
/*
 * `rackbench serve`: the coordinator as a service. It binds the agents' socket once
 * (CURVE and its ZAP handler, or keyless), keeps the registry of the agents connected
 * to it, and runs campaigns one at a time, submitted over a local control socket by
 * `rackbench run`, `resume` (with --queue one submitted during a run waits its turn, in
 * order, with an id and a log of its own from the start), and inspected with `agents`,
 * `status` (the queue too), `abort` (a queued run taken out).
 *
 * The control socket is a ZeroMQ REP socket on a Unix socket file only its owner may use: by
 * default /run/rackbench/control as root, else /tmp/rackbench-UID/control, or
 * $RACKBENCH_CONTROL, or --control PATH. Requests and replies are one frame of text:
 * a command line, then "key=value" lines; a run's campaign text follows an empty line.
 * A reply starts with "ok" or "error". A run's output goes to a log file the client
 * follows (the service and its clients are on one host).
 *
 * With --admin-listen the same requests come over TCP too, from clients on other hosts
 * (`rackbench fleet`): CURVE, each client's key on the service's admin allow-list
 * (--admin-keys, NAME KEY lines as the agents'), every request logged with the key's
 * name. Fields that name files on the service's host are refused there (admin.c).
 */
#ifndef RB_SERVE_H
#define RB_SERVE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* The control socket's path: given, else $RACKBENCH_CONTROL, else the default. */
const char *rb_control_path(const char *given, char *buf, size_t len);
/*
 * Whether dir may hold a service's socket and logs: a real folder of this user that no one
 * else may write to; strict: that no one else may even enter (0700). 0, or -EPERM (why).
 */
int rb_service_private_dir(const char *dir, bool strict, char *why, size_t len);
/* Whether a service listens at path (a connect to the socket file, nothing sent). */
bool rb_service_present(const char *path);
/* A service to hand a command to: the control socket's path (ctl, else the default) in
 * buf, and whether a service listens there (never with no_service). */
bool rb_service_use(const char *ctl, bool no_service, char *buf, size_t len);
/* path as the service finds it from its own folder: absolute (malloc'd); NULL: NULL. */
char *rb_path_absolute(const char *path);

/* The value of "key=" among a request's or reply's lines (after its first line, before
 * an empty one) copied into buf, or NULL (none, or longer than len - 1). */
const char *rb_control_field(const char *msg, const char *key, char *buf, size_t len);
/* A run id's length, and any other field's, with its NUL: longer ones are refused. */
#define RB_RUN_ID_MAX 64
#define RB_CONTROL_VALUE_MAX 4096
/*
 * Whether every field of a request fits (the service reads a field too long for its
 * buffer as absent: an abort with a long id would stop the run going on). 0, or -E2BIG
 * with the error in err.
 */
int rb_control_fields_fit(const char *req, char *err, size_t len);

/* What a service is asked to be: its endpoints, keys and folders (NULL: the defaults). */
struct rb_serve_args {
	const char *listen, *key, *agent_keys, *ctl, *log_dir, *results_dir;
	const char *
		metrics; /* ADDR:PORT of the metrics page (coordinator/service/metrics.h), or NULL */
	/* the admin endpoint (tcp://ADDR:PORT, CURVE) and its allow-list of admin keys; NULL */
	const char *admin_listen, *admin_keys;
	/* the fleet's database each run's file is exported into (a campaign's results_db
	 * wins), or NULL */
	const char *results_db;
	bool insecure;
};
/* Serves until SIGTERM or SIGINT; says what was wrong. Returns the exit code. */
int rb_serve(const struct rb_serve_args *a);
/*
 * Asks the service at the control socket ctl (NULL: the default) "agents", "status"
 * (of run id, NULL: the last, and the queue) or "abort" (run id, NULL: the one going
 * on; a queued one is taken out), and prints its answer (agents as JSON with json).
 * Returns the exit code: with an id, that run's.
 */
int rb_control_ask(const char *cmd, const char *ctl, const char *id, bool json, bool drives);
/* A run submitted to a service. */
struct rb_submit {
	const char *ctl;  /* the control socket */
	const char *kind; /* "run" or "resolve" (arg: the campaign file, text its text) or
			   * "resume" (arg: the results path) */
	const char *arg, *text, *results_dir, *events;
	const char *lock; /* kind "resolve" (plan --resolve): the lock file to write; NULL */
	bool queue;	  /* when another run goes on, wait its turn (else refused as busy) */
	bool detach;	  /* return once the service took it: its id on stdout */
	volatile sig_atomic_t *interrupted;
};
/*
 * Submits a run to the service and, unless detached, follows its output to stderr
 * until it ends (Ctrl-C asks the service to abort it, or to take it out of the queue)
 * and returns its exit code.
 */
int rb_service_submit(const struct rb_submit *sub);

#endif
