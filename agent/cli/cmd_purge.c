// SPDX-License-Identifier: MIT
/* `rackbench-agent purge`: its flags to one guarded purge, and what the guard said. */
#include "agent.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "exitcode.h"
#include "log.h"
#include "nvme.h"
#include "parseopt.h"
#include "purge.h"
#include "statedir.h"

static struct {
	struct rb_purge_req req;
	bool destructive, have_method;
	const char *state, *root, *nvme_pages;
	struct rb_popt_list allow;
} F;

static int method_flag(const struct rb_popt *o, const char *name, const char *value, void *ctx)
{
	(void)o;
	(void)name;
	(void)ctx;
	if (rb_purge_method_parse(value, &F.req.method)) {
		rb_err("'--method' must be format, sanitize, sanitize-crypto, deallocate, discard or "
		       "zero, not '%s'",
		       value);
		return -1;
	}
	F.have_method = true;
	return 0;
}

static int ses_flag(const struct rb_popt *o, const char *name, const char *value, void *ctx)
{
	(void)o;
	(void)name;
	(void)ctx;
	F.req.ses = !strcmp(value, "user") ? 1 : !strcmp(value, "crypto") ? 2 : 0;
	if (!F.req.ses) {
		rb_err("'--ses' must be user or crypto, not '%s'", value);
		return -1;
	}
	return 0;
}

static const struct rb_popt purge_opts[] = {
	{ RB_POPT_CALLBACK, "method", 0, "METHOD",
	  "format: NVMe Format (--ses user|crypto adds a secure erase); sanitize: NVMe "
	  "Sanitize, block erase (waits, with progress); sanitize-crypto: NVMe Sanitize, crypto "
	  "erase; deallocate: NVMe Dataset Management, deallocate the namespace; discard: a "
	  "block device (BLKDISCARD) or punch a file; zero: write zeroes (BLKZEROOUT, or zero a "
	  "file's range)",
	  NULL, method_flag, 0 },
	{ RB_POPT_CALLBACK, "ses", 0, "user|crypto", "with --method format: a secure erase", NULL,
	  ses_flag, 0 },
	{ RB_POPT_FLAG, "destructive", 0, NULL, "the run's key for the purge", &F.destructive, NULL,
	  0 },
	{ RB_POPT_LIST, "allow", 0, "PATH", "the agent's key for PATH (repeatable)", &F.allow, NULL,
	  0 },
	{ RB_POPT_FLAG, "dry-run", 0, NULL, "check and name what would be purged, touch nothing",
	  &F.req.dry_run, NULL, 0 },
	{ RB_POPT_STRING, "state-dir", 0, "DIR",
	  "rackbench's own files, and the history (default $RB_STATE_DIR, else "
	  "~/.local/state/rackbench, as root /var/lib/rackbench)",
	  &F.state, NULL, 0 },
	{ RB_POPT_STRING, "root", 0, "DIR", "recorded sysfs/proc trees (tests)", &F.root, NULL, 0 },
	{ RB_POPT_STRING, "nvme-pages", 0, "DIR", "recorded NVMe pages (tests)", &F.nvme_pages,
	  NULL, 0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct rb_parg purge_args[] = {
	{ "DEVICE", &F.req.path, 0 },
	{ NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_agent_purge_spec = {
	.name = "rackbench-agent purge",
	.summary = "return a drive to a known state: format, sanitize, deallocate, discard, zero",
	.usage = "DEVICE --method METHOD [--destructive] [--allow PATH ...] [options]",
	.desc = "Returns a drive to a known state. Guarded like a write, and wider: every\n"
		"namespace the command touches must pass (a Format the controller applies to all\n"
		"namespaces, any Sanitize), and be on --allow.",
	.opts = purge_opts,
	.args = purge_args,
	.epilog =
		"The result is appended to STATE_DIR/history.jsonl. Exit codes: 0 done, 1 failed,\n"
		"2 bad arguments, 3 refused by the safety guard.",
};

/* The purge and what it said: the exit code. */
static int purge(const struct rb_nvme_ops *ops)
{
	struct rb_guard_policy gp = { .destructive = F.destructive,
				      .destructive_key = "--destructive",
				      .allow = (char *const *)F.allow.v,
				      .nallow = F.allow.n,
				      .state_dir = F.state ? F.state : rb_default_state_dir(),
				      .root = F.root ? F.root : "" };
	struct rb_diags d;
	int r, rc;

	rb_diags_init(&d);
	r = rb_purge(&F.req, &gp, ops, &d, stdout);
	if (r == -EPERM) {
		fprintf(stderr,
			"rackbench-agent: purge of %s refused by the safety guard, nothing "
			"was touched:\n",
			F.req.path);
		for (size_t i = 0; i < d.n; i++)
			fprintf(stderr, "  %s: %s\n", d.v[i].subject, d.v[i].message);
		rc = RB_EXIT_REFUSED;
	} else if (r) {
		for (size_t i = 0; i < d.n; i++)
			rb_err("%s: %s", d.v[i].subject, d.v[i].message);
		rc = r == -EINVAL ? RB_EXIT_USAGE : RB_EXIT_FAILED;
	} else {
		rc = RB_EXIT_OK;
	}
	rb_diags_release(&d);
	return rc;
}

int rb_agent_purge_cmd(int argc, char **argv)
{
	const struct rb_nvme_ops *ops = &rb_nvme_libnvme;
	int rc;

	memset(&F, 0, sizeof(F));
	F.req.method = RB_PURGE_DISCARD;
	rc = rb_parseopt(&rb_agent_purge_spec, argc, argv, NULL);
	if (rc) {
		rc = rb_parseopt_exit(rc);
		goto out;
	}
	rc = RB_EXIT_USAGE;
	if (!F.have_method) {
		rb_err("give a DEVICE and --method (see 'rackbench-agent purge --help')");
		goto out;
	}
	if (F.req.ses && F.req.method != RB_PURGE_FORMAT) {
		rb_err("'--ses' goes with --method format only");
		goto out;
	}
	if (F.nvme_pages) {
		rb_nvme_pages_dir(F.nvme_pages);
		ops = &rb_nvme_pages;
	}
	rc = purge(ops);
out:
	rb_popt_list_release(&F.allow);
	return rc;
}
