// SPDX-License-Identifier: MIT
/* `rackbench-agent run`: its flags (the workload keys among them) to one local run. */
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exitcode.h"
#include "fiojob.h"
#include "localrun.h"
#include "log.h"
#include "parseopt.h"

/* A workload flag's value, kept to apply over a --fio job's workload, in order. */
struct setting {
	const struct rb_opt *o;
	const char *value;
};

/* What the flags say, before the workload is made from them. */
struct run_flags {
	bool json, minimal, destructive, errors_ok, wipe;
	const char *output_format, *output, *state_dir, *fio, *section, *filesystem, *mkfs_options,
		*mount_options, *lat_log;
	struct rb_popt_list fio_line; /* fio's command line (a --name given): its options */
	struct rb_popt_list targets, allow;
	uint64_t status_interval_ns;
	struct setting *settings;
	size_t nsettings;
};

static struct run_flags F;

static int workload_flag(const struct rb_popt *o, const char *name, const char *value, void *ctx)
{
	struct run_flags *f = ctx;
	struct setting *v = realloc(f->settings, (f->nsettings + 1) * sizeof(*v));

	(void)o;
	if (!v) {
		rb_err("out of memory");
		return -1;
	}
	f->settings = v;
	v[f->nsettings++] = (struct setting){ rb_opt_find(name), value };
	return 0;
}

static const struct rb_popt run_opts[] = {
	{ RB_POPT_LIST, "target", 0, "PATH",
	  "block device or file (repeat for several; all run at once)", &F.targets, NULL, 0 },
	{ RB_POPT_FLAG, "json", 0, NULL,
	  "print the result as JSON (schemas/run-output.schema.json)", &F.json, NULL, 0 },
	{ RB_POPT_STRING, "output-format", 0, "FMT",
	  "text, json (as --json), or fio's own: fio-json, json+ (with clat_ns.bins in fio's "
	  "histogram layout), terse (fio's semicolon-separated line, version 3)",
	  &F.output_format, NULL, 0 },
	{ RB_POPT_STRING, "output", 0, "FILE",
	  "write the result to FILE (a regular file, made or replaced) instead of stdout",
	  &F.output, NULL, 0 },
	{ RB_POPT_FLAG, "minimal", 0, NULL, "fio's terse line (as --output-format terse)",
	  &F.minimal, NULL, 0 },
	{ RB_POPT_DURATION, "status-interval", 0, "N",
	  "also print the output so far while running, every N (seconds, or 500ms, 1m...): at "
	  "the end of the first --interval that reaches each multiple of N, in the output's "
	  "format (text, or fio's; not --json)",
	  &F.status_interval_ns, NULL, 0 },
	{ RB_POPT_FLAG, "destructive", 0, NULL, "the run's key for writes", &F.destructive, NULL,
	  0 },
	{ RB_POPT_LIST, "allow", 0, "PATH", "the agent's key for writes to PATH (repeatable)",
	  &F.allow, NULL, 0 },
	{ RB_POPT_STRING, "state-dir", 0, "DIR",
	  "rackbench's own files (default $RB_STATE_DIR, else ~/.local/state/rackbench, as "
	  "root /var/lib/rackbench)",
	  &F.state_dir, NULL, 0 },
	{ RB_POPT_FLAG, "errors-ok", 0, NULL, "exit 0 even when IOs failed (default: exit 6)",
	  &F.errors_ok, NULL, 0 },
	{ RB_POPT_STRING, "fio", 0, "JOB.fio",
	  "the workload of a fio job file's job (--section NAME when it has several); its "
	  "filename= are the targets unless --target is given; the other flags override it",
	  &F.fio, NULL, 0 },
	{ RB_POPT_STRING, "section", 0, "NAME", "the job of --fio's file to run", &F.section, NULL,
	  0 },
	{ RB_POPT_STRING, "filesystem", 0, "ext4|xfs",
	  "make this filesystem on the (one, block device) target, a write: both keys; mount it "
	  "privately (no other process sees it; gone when the run ends, even killed) and run "
	  "the workload on a file of --size there",
	  &F.filesystem, NULL, 0 },
	{ RB_POPT_STRING, "mkfs-options", 0, "OPTS", "given to mkfs", &F.mkfs_options, NULL, 0 },
	{ RB_POPT_STRING, "mount-options", 0, "OPTS", "the mount's data", &F.mount_options, NULL,
	  0 },
	{ RB_POPT_STRING, "lat-log", 0, "FILE",
	  "debug: every measured IO's latency, uint64 ns each in completion order (FILE.N per "
	  "job with several jobs)",
	  &F.lat_log, NULL, 0 },
	{ RB_POPT_FLAG, "wipe-signatures", 0, NULL,
	  "let writes overwrite filesystem, RAID, LVM, swap signatures and partition tables "
	  "(every other check still holds)",
	  &F.wipe, NULL, 0 },
	{ RB_POPT_GROUP, NULL, 0, NULL,
	  "Workload options (the same keys as a campaign's workload:):", NULL, NULL, 0 },
	{ RB_POPT_WORKLOAD, NULL, 0, NULL, NULL, NULL, workload_flag, 0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_agent_run_spec = {
	.name = "rackbench-agent run",
	.summary = "one workload on this host's targets, without a coordinator",
	.usage = "--target PATH [--target PATH ...] [options]",
	.desc = "Runs one workload on this host's targets, without a coordinator, through the\n"
		"same engine and safety guard as a campaign. Writes need both keys:\n"
		"--destructive and the target on --allow (or a file under the state folder).\n"
		"A flag of two words takes '-' or '_' between them (--rate-iops, --rate_iops).\n"
		"A command line with --name=JOB is fio's: its options mean what they mean to\n"
		"fio (fio's --runtime is a cap without --time_based, --rate_iops is per job),\n"
		"through the same table as a job file's (docs/fio.md); rackbench's own flags\n"
		"(--target, --destructive, --allow, --state-dir, --output-format, ...) and\n"
		"workload keys fio has not (--passes) still apply. --output-format json is\n"
		"then fio's JSON.",
	.opts = run_opts,
	.epilog = "Exit codes: 0 ok, 1 failed, 2 bad arguments, 3 refused by the safety guard, "
		  "6 IO errors.",
	.foreign_trigger = "name",
	.foreign_kind = rb_fio_option_kind,
	.foreign_hint = "fio's option: a command line with --name=JOB is read as fio's "
			"(docs/fio.md); or give rackbench's own flags (see 'rackbench-agent run "
			"--help')",
	.foreign_list = &F.fio_line,
};

static int output_format(const char *v, bool *json, int *fio)
{
	*json = !strcmp(v, "json");
	*fio = !strcmp(v, "fio-json")				? RB_FIO_FMT_JSON
	       : !strcmp(v, "json+") || !strcmp(v, "fio-json+") ? RB_FIO_FMT_JSONPLUS
	       : !strcmp(v, "terse")				? RB_FIO_FMT_TERSE
								: 0;
	if (*json || *fio || !strcmp(v, "text"))
		return 0;
	rb_err("--output-format is text, json (rackbench's), fio-json, json+ or terse (fio's), "
	       "not '%s'",
	       v);
	return -EINVAL;
}

/* The run from the flags: the --fio job's workload and targets first, then the flags. */
static int make_run(struct rb_localrun *a, struct rb_fio_xlate **fx, size_t *nfx)
{
	char err[512];

	if (F.section && !F.fio) {
		rb_err("--section needs --fio JOB.fio");
		return -1;
	}
	if (F.fio && F.fio_line.n) {
		rb_err("--fio JOB.fio and fio's command line (--name): give one");
		return -1;
	}
	if (rb_localrun_fio(F.fio, F.fio_line.v, F.fio_line.n, F.section, &a->wl, fx, nfx,
			    a->targets, &a->ntargets, &a->verify_after))
		return -1;
	for (size_t i = 0; i < F.nsettings; i++)
		if (rb_opt_set(&a->wl, F.settings[i].o, F.settings[i].value, err, sizeof(err))) {
			rb_err("%s", err);
			return -1;
		}
	if (F.targets.n) /* --target replaces the job's filename= */
		a->ntargets = 0;
	for (size_t i = 0; i < F.targets.n; i++)
		a->targets[a->ntargets++] = (char *)F.targets.v[i];
	for (size_t i = 0; i < F.allow.n; i++)
		a->allow[a->nallow++] = (char *)F.allow.v[i];
	/* the flags may have turned verify off, or the writes */
	a->verify_after = a->verify_after && a->wl.verify && rb_workload_writes(&a->wl);
	a->json = F.json;
	if (F.minimal && ((F.output_format && strcmp(F.output_format, "terse")) || F.json)) {
		rb_err("--minimal is fio's terse line: it takes no other output format");
		return -1;
	}
	if (F.minimal)
		F.output_format = "terse";
	/* on fio's line, fio's formats: json is fio's JSON, normal the text */
	if (F.output_format && F.fio_line.n)
		F.output_format = !strcmp(F.output_format, "json")     ? "fio-json"
				  : !strcmp(F.output_format, "normal") ? "text"
								       : F.output_format;
	if (F.output_format && output_format(F.output_format, &a->json, &a->fio_fmt))
		return -1;
	if (F.status_interval_ns && a->json) {
		rb_err("--status-interval prints text or fio's output; rackbench's JSON is one "
		       "document a run");
		return -1;
	}
	a->status_interval_ns = F.status_interval_ns;
	a->destructive = F.destructive;
	a->errors_ok = F.errors_ok;
	a->wipe = F.wipe;
	a->state_dir = F.state_dir;
	a->lat_log = F.lat_log;
	snprintf(a->fs.type, sizeof(a->fs.type), "%s", F.filesystem ? F.filesystem : "");
	snprintf(a->fs.mkfs_options, sizeof(a->fs.mkfs_options), "%s",
		 F.mkfs_options ? F.mkfs_options : "");
	snprintf(a->fs.mount_options, sizeof(a->fs.mount_options), "%s",
		 F.mount_options ? F.mount_options : "");
	return 0;
}

/* --output FILE: stdout from here on; a regular file only (never a device). 0, or -1 said */
static int output_to(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rb_err("--output %s: %s", path,
		       fd < 0 ? strerror(errno) : "not a regular file (results go to a file)");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fflush(stdout);
	if (ftruncate(fd, 0) || dup2(fd, STDOUT_FILENO) < 0) {
		rb_err("--output %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int rb_agent_run_cmd(int argc, char **argv)
{
	struct rb_localrun A = { 0 };
	struct rb_fio_xlate *fx = NULL;
	size_t nfx = 0;
	int rc = RB_EXIT_USAGE, r;

	memset(&F, 0, sizeof(F));
	rb_workload_defaults(&A.wl);
	r = rb_parseopt(&rb_agent_run_spec, argc, argv, &F);
	if (r) {
		rc = rb_parseopt_exit(r);
		goto out;
	}
	A.targets = calloc(F.targets.n + RB_FIO_MAX_FILES + 1, sizeof(*A.targets));
	A.allow = calloc(F.allow.n + 1, sizeof(*A.allow));
	if (!A.targets || !A.allow) {
		rc = RB_EXIT_FAILED;
		goto out;
	}
	if (make_run(&A, &fx, &nfx) == 0 && (!F.output || output_to(F.output) == 0))
		rc = rb_localrun(&A, fx && nfx == 1 ? fx[0].name : NULL);
out:
	free(A.targets);
	free(A.allow);
	rb_fio_xlate_free(fx, nfx);
	rb_popt_list_release(&F.targets);
	rb_popt_list_release(&F.allow);
	free(F.settings);
	rb_popt_list_release(&F.fio_line);
	return rc;
}
