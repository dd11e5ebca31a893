// SPDX-License-Identifier: MIT
/* `rackbench import-fio`: fio job files as a campaign (common/fio/fiojob.h does the reading). */
#include "import_fio.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "fiojob.h"
#include "log.h"

static void yaml_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

/* The workload's keys that differ from rackbench's defaults, as a flow mapping. */
static void workload(FILE *out, const struct rb_workload *wl)
{
	struct rb_workload def;
	char a[RB_OPT_VALUE_MAX], b[RB_OPT_VALUE_MAX];
	bool first = true;

	rb_workload_defaults(&def);
	fputc('{', out);
	for (size_t i = 0; i < rb_workload_nopts; i++) {
		const struct rb_opt *o = &rb_workload_opts[i];

		rb_opt_format(wl, o, a, sizeof(a));
		rb_opt_format(&def, o, b, sizeof(b));
		/* pattern, size and a timed one's runtime always, for a reader (a size-based
		 * one's is not its limit: max_runtime is), and how several jobs share a drive;
		 * the rest where not the default */
		bool sized = wl->passes || wl->io_size;

		if (!strcmp(o->key, "runtime") && sized && !strcmp(a, b))
			continue;
		if (!strcmp(a, b) && strcmp(o->key, "rw") && strcmp(o->key, "bs") &&
		    strcmp(o->key, "runtime") &&
		    !(!strcmp(o->key, "job_region") && wl->numjobs > 1))
			continue;
		fprintf(out, "%s%s: ", first ? "" : ", ", o->key);
		/* YAML would read null, ~, yes and the like as something else: quoted */
		if (o->type == RB_OPT_TEXT || !strcmp(a, "null") || !strcmp(a, "~"))
			yaml_str(out, a);
		else
			fputs(a, out);
		first = false;
	}
	fputc('}', out);
}

static bool listed(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* A [global] option's note comes once, not once per job. */
static bool noted(const struct rb_diags *d, const struct rb_diag *x)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].line == x->line && !strcmp(d->v[i].message, x->message) &&
		    !strcmp(d->v[i].file ? d->v[i].file : "", x->file ? x->file : ""))
			return true;
	return false;
}

/* A phase of job x's drives (those of its filename=, or the target) running wl. */
static void phase(const char *name, const struct rb_fio_xlate *x, const struct rb_workload *wl,
		  size_t ndrives, const char *target)
{
	printf("  - name: ");
	yaml_str(stdout, name);
	printf("\n");
	if (x->nfilenames != ndrives || !x->nfilenames) {
		printf("    drives: [");
		if (!x->nfilenames)
			yaml_str(stdout, target);
		for (size_t i = 0; i < x->nfilenames; i++) {
			printf("%s", i ? ", " : "");
			yaml_str(stdout, x->filenames[i]);
		}
		printf("]\n");
	}
	printf("    workload: ");
	workload(stdout, wl);
	printf("\n");
}

/* The campaign, on stdout: the notes as comments first, then a phase per job. */
static void emit(char **files, size_t nfiles, struct rb_fio_xlate **xs, const size_t *nxs,
		 char **drives, size_t ndrives, const char *agent, const char *target, bool writes,
		 const struct rb_diags *d)
{
	char name[64];
	const char *base = strrchr(files[0], '/') ? strrchr(files[0], '/') + 1 : files[0];
	size_t n = 0;

	for (; *base && *base != '.' && n + 1 < sizeof(name); base++)
		name[n++] = isalnum((unsigned char)*base) || *base == '-' ? *base : '_';
	name[n] = '\0';
	printf("# converted by 'rackbench import-fio' from:");
	for (size_t f = 0; f < nfiles; f++)
		printf(" %s", files[f]);
	printf("\n");
	for (size_t i = 0; i < d->n; i++)
		printf("# %s:%u: '%s': %s\n", d->v[i].file ? d->v[i].file : "", d->v[i].line,
		       d->v[i].subject ? d->v[i].subject : "", d->v[i].message);
	printf("name: ");
	yaml_str(stdout, n ? name : "fio");
	printf("\n");
	if (writes)
		printf("# the jobs write: the run's key; each agent's --allow is the other\n"
		       "destructive: true\n");
	printf("targets:\n  - agent: ");
	yaml_str(stdout, agent);
	printf("\n    drives: [");
	for (size_t i = 0; i < ndrives; i++) {
		printf("%s", i ? ", " : "");
		yaml_str(stdout, drives[i]);
	}
	printf("]\nphases:\n");
	for (size_t f = 0, k = 0; f < nfiles; f++)
		for (size_t j = 0; j < nxs[f]; j++, k++) {
			const struct rb_fio_xlate *x = &xs[f][j];
			char pname[160];

			if (k && !x->stonewall)
				printf("  # fio runs this job at the same time as the one before (no "
				       "stonewall); here it runs after it\n");
			snprintf(pname, sizeof(pname), "%zu-%s", k + 1, x->name);
			phase(pname, x, &x->wl, ndrives, target);
			if (x->verify_after) {
				struct rb_workload check;

				/* fio's verify phase: what the job wrote read back and checked */
				rb_fio_verify_pass(&x->wl, &check);
				printf("  # fio reads back and checks what '%s' wrote (verify, "
				       "do_verify=1)\n",
				       x->name);
				snprintf(pname, sizeof(pname), "%zu-%s-verify", k + 1, x->name);
				phase(pname, x, &check, ndrives, target);
			}
		}
}

int rb_import_fio(const char *const *paths, size_t nfiles, const char *agent, const char *target,
		  bool strict)
{
	char **files = calloc(nfiles + 1, sizeof(*files)), **drives = NULL;
	struct rb_fio_xlate **xs = calloc(nfiles + 1, sizeof(*xs));
	size_t *nxs = calloc(nfiles + 1, sizeof(*nxs)), ndrives = 0;
	bool writes = false;
	struct rb_diags d;
	int rc = RB_EXIT_USAGE;

	rb_diags_init(&d);
	if (!files || !xs || !nxs)
		goto out;
	for (size_t f = 0; f < nfiles; f++)
		files[f] = (char *)paths[f];
	if (!agent)
		agent = "localhost";
	rc = RB_EXIT_USAGE;
	for (size_t f = 0; f < nfiles; f++) {
		struct rb_fio_file jf;

		if (rb_fio_parse(files[f], &jf, &d))
			continue;
		rb_fio_translate(&jf, &xs[f], &nxs[f], &d);
		rb_fio_release(&jf);
	}
	for (size_t f = 0; f < nfiles; f++)
		for (size_t j = 0; j < nxs[f]; j++) {
			struct rb_fio_xlate *x = &xs[f][j];

			writes |= rb_workload_writes(&x->wl);
			/* the null engine touches no target: a name stands for one */
			if (!x->nfilenames && !rb_engine_needs_target(x->wl.engine)) {
				x->filenames = malloc(sizeof(*x->filenames));
				if (!x->filenames || !(x->filenames[0] = strdup("null0")))
					goto out;
				x->nfilenames = 1;
			}
			if (!x->nfilenames && !target)
				rb_diags_add(&d, RB_SEV_ERROR, files[f], 0, 0, x->name,
					     "job '%s' names no filename: give --target PATH",
					     x->name);
			for (size_t k = 0; k < x->nfilenames; k++)
				if (!listed(drives, ndrives, x->filenames[k])) {
					char **v = realloc(drives, (ndrives + 1) * sizeof(*v));

					if (!v)
						goto out;
					drives = v;
					drives[ndrives++] = x->filenames[k];
				}
			for (size_t n = 0; n < x->notes.n; n++)
				if (!noted(&d, &x->notes.v[n]))
					rb_diags_add(&d, strict ? RB_SEV_ERROR : RB_SEV_WARNING,
						     x->notes.v[n].file, x->notes.v[n].line, 1,
						     x->notes.v[n].subject, "%s",
						     x->notes.v[n].message);
		}
	if (target && !listed(drives, ndrives, target)) {
		char **v = realloc(drives, (ndrives + 1) * sizeof(*v));

		if (!v)
			goto out;
		drives = v;
		drives[ndrives++] = (char *)target;
	}
	rb_diags_sort(&d);
	rb_diags_print(&d, stderr);
	if (rb_diags_errors(&d))
		goto out;
	emit(files, nfiles, xs, nxs, drives, ndrives, agent, target, writes, &d);
	rc = RB_EXIT_OK;
out:
	for (size_t f = 0; xs && f < nfiles; f++)
		rb_fio_xlate_free(xs[f], nxs[f]);
	free(xs);
	free(nxs);
	free(files);
	free(drives);
	rb_diags_release(&d);
	return rc;
}
