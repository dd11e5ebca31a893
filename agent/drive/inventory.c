// SPDX-License-Identifier: MIT
/*
 * The inventory (`rackbench-agent inventory`): the block devices this host has and the agent's targets,
 * with identity from sysfs and, for each, whether a write would be allowed and every
 * reason if not. It never opens a device for writing: this is how the host's own root
 * disk is ever looked at.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "agent.h"
#include "exitcode.h"
#include "jsonout.h"
#include "guard.h"
#include "log.h"
#include "nvme.h"
#include "pcie.h"
#include "statedir.h"
#include "target.h"

struct dev_row {
	char name[64], path[96], model[96], serial[96], firmware[48], scheduler[32], wwid[160];
	char byid[512];
	char backing[4096];	  /* a loop device's backing file, as the kernel shows it */
	struct rb_pcie_link link; /* the PCI function behind it (address ""), its link */
	bool has_link;
	unsigned ma, mi;
	uint64_t size_bytes;
	unsigned lbs, pbs;
	int rotational, numa_node;
	unsigned nparts;
	bool allowed;
	struct rb_diags why;
	bool nvme; /* identity and health read from the drive */
	int nvme_err;
	uint16_t nvme_status;
	struct rb_nvme_id id;
	struct rb_nvme_smart smart;
};

static uint64_t sysnum(const char *dir, const char *file, uint64_t def)
{
	char buf[64];

	rb_sysfs_read(dir, file, buf, sizeof(buf));
	return buf[0] ? strtoull(buf, NULL, 10) : def;
}

/* "mq-deadline [none]" -> "none" */
static void active_scheduler(char *s)
{
	char *a = strchr(s, '['), *b = a ? strchr(a, ']') : NULL;

	if (a && b) {
		memmove(s, a + 1, (size_t)(b - a - 1));
		s[b - a - 1] = '\0';
	}
}

static void by_id(const char *root, const char *name, char *out, size_t len)
{
	char dir[PATH_MAX], link[PATH_MAX + 300], target[PATH_MAX];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	out[0] = '\0';
	snprintf(dir, sizeof(dir), "%s/dev/disk/by-id", root);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		ssize_t l;

		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		l = readlink(link, target, sizeof(target) - 1);
		if (l <= 0)
			continue;
		target[l] = '\0';
		const char *base = strrchr(target, '/');

		if (!strcmp(base ? base + 1 : target, name) && n < len)
			n += (size_t)snprintf(out + n, len - n, "%s/dev/disk/by-id/%s",
					      n ? " " : "", de->d_name);
	}
	closedir(d);
}

static bool listed(const char *name)
{
	/* RAM disks are not drives (idle loop devices are left out by the caller) */
	return strncmp(name, "ram", 3) && strncmp(name, "zram", 4);
}

static void print_nvme(const struct dev_row *r)
{
	const struct rb_nvme_id *id = &r->id;
	const struct rb_nvme_smart *s = &r->smart;
	char warn[256];

	if (r->nvme_err) {
		printf(", \"nvme\": {\"error\": ");
		rb_json_str(stdout, r->nvme_status ? "the drive refused the command"
						   : strerror(-r->nvme_err));
		printf(", \"status\": %u}", r->nvme_status);
		return;
	}
	printf(", \"nvme\": {\"nsid\": %u, \"vid\": %u, \"namespaces\": %u, "
	       "\"size_blocks\": %" PRIu64 ", \"lba_format\": %u, \"lba_formats\": [",
	       id->nsid, id->vid, id->nn, id->size_blocks, id->lbaf_in_use);
	for (unsigned i = 0; i < id->nlbaf; i++)
		printf("%s{\"data_bytes\": %u, \"meta_bytes\": %u, \"rel_perf\": %u}",
		       i ? ", " : "", id->lbaf[i].data_bytes, id->lbaf[i].meta_bytes,
		       id->lbaf[i].rel_perf);
	printf("], \"eui64\": \"");
	for (int i = 0; i < 8; i++)
		printf("%02x", id->eui64[i]);
	printf("\", \"nguid\": \"");
	for (int i = 0; i < 16; i++)
		printf("%02x", id->nguid[i]);
	printf("\", \"format_all_namespaces\": %s}", id->format_all_ns ? "true" : "false");
	rb_nvme_warning_text(s->critical_warning, warn, sizeof(warn));
	printf(", \"health\": {\"critical_warning\": %u, \"alerts\": ", s->critical_warning);
	rb_json_str(stdout, warn);
	printf(", \"temperature_c\": %d, \"available_spare_pct\": %u, \"spare_threshold_pct\": %u, "
	       "\"percentage_used\": %u, \"data_units_read\": %.0f, \"data_units_written\": %.0f, "
	       "\"host_reads\": %.0f, \"host_writes\": %.0f, \"power_on_hours\": %.0f, "
	       "\"power_cycles\": %.0f, \"unsafe_shutdowns\": %.0f, \"media_errors\": %.0f, "
	       "\"error_log_entries\": %.0f, \"warning_temp_minutes\": %u, "
	       "\"critical_temp_minutes\": %u, \"thermal_transitions\": [%u, %u], "
	       "\"sensors_c\": [",
	       (int)s->composite_temp_k - 273, s->avail_spare_pct, s->spare_thresh_pct,
	       s->percent_used, s->data_units_read, s->data_units_written, s->host_reads,
	       s->host_writes, s->power_on_hours, s->power_cycles, s->unsafe_shutdowns,
	       s->media_errors, s->error_log_entries, s->warn_temp_minutes, s->crit_temp_minutes,
	       s->thm_temp1_transitions, s->thm_temp2_transitions);
	for (int i = 0, first = 1; i < 8; i++)
		if (s->sensor_temp_k[i]) {
			printf("%s%d", first ? "" : ", ", (int)s->sensor_temp_k[i] - 273);
			first = 0;
		}
	printf("]}");
}

/* What inventory was asked, with --config's file read. */
struct inv_args {
	const char *root;
	bool json;
	const struct rb_nvme_ops *nvme_ops;
	struct rb_agent_cfg cfg;
	char **allow, **targets;
	size_t nallow, ntargets;
};

/*
 * Whether NAME under DIR (/sys/class/block) is a drive: not a partition, not an idle loop
 * device. Its sysfs folder goes to SYS.
 */
static bool is_drive(const char *dir, const char *name, char *sys)
{
	char link[PATH_MAX + 300];

	if (name[0] == '.' || !listed(name))
		return false;
	snprintf(link, sizeof(link), "%s/%s", dir, name);
	if (!realpath(link, sys) || access(strcat(strcpy(link, sys), "/partition"), F_OK) == 0)
		return false;
	/* a loop device with no file behind it is not a drive */
	if (!strncmp(name, "loop", 4) &&
	    access(strcat(strcpy(link, sys), "/loop/backing_file"), F_OK) != 0)
		return false;
	return true;
}

/* A drive's identity as sysfs (and /dev/disk/by-id under ROOT) tells it. */
static void read_sysfs(const char *root, const char *sys, struct dev_row *r)
{
	char buf[64];

	rb_sysfs_read(sys, "dev", buf, sizeof(buf));
	sscanf(buf, "%u:%u", &r->ma, &r->mi);
	r->size_bytes = sysnum(sys, "size", 0) * 512;
	r->lbs = (unsigned)sysnum(sys, "queue/logical_block_size", 512);
	r->pbs = (unsigned)sysnum(sys, "queue/physical_block_size", 512);
	r->rotational = (int)sysnum(sys, "queue/rotational", 0);
	r->numa_node = -1;
	rb_sysfs_read(sys, "device/numa_node", buf, sizeof(buf));
	if (buf[0])
		r->numa_node = atoi(buf);
	rb_sysfs_read(sys, "queue/scheduler", r->scheduler, sizeof(r->scheduler));
	active_scheduler(r->scheduler);
	rb_sysfs_read(sys, "device/model", r->model, sizeof(r->model));
	rb_sysfs_read(sys, "device/serial", r->serial, sizeof(r->serial));
	rb_sysfs_read(sys, "device/firmware_rev", r->firmware, sizeof(r->firmware));
	rb_sysfs_read(sys, "wwid", r->wwid, sizeof(r->wwid));
	if (!r->wwid[0])
		rb_sysfs_read(sys, "device/wwid", r->wwid, sizeof(r->wwid));
	/* a loop device is model "loop", as every other command says; its file apart */
	if (!strncmp(r->name, "loop", 4))
		rb_sysfs_read(sys, "loop/backing_file", r->backing, sizeof(r->backing));
	if (!r->model[0] && r->backing[0])
		snprintf(r->model, sizeof(r->model), "loop");
	by_id(root, r->name, r->byid, sizeof(r->byid));
	r->has_link = rb_pcie_read(root, r->ma, r->mi, &r->link) == 0;
}

/* An NVMe drive's identity and health from the drive itself. */
static void read_nvme(const struct rb_nvme_ops *ops, struct dev_row *r)
{
	r->nvme = true;
	r->nvme_err = rb_nvme_read(ops, r->path, &r->id, &r->smart, &r->nvme_status);
	if (!r->nvme_err) {
		snprintf(r->model, sizeof(r->model), "%s", r->id.model);
		snprintf(r->serial, sizeof(r->serial), "%s", r->id.serial);
		snprintf(r->firmware, sizeof(r->firmware), "%s", r->id.firmware);
	}
}

static unsigned count_partitions(const char *sys)
{
	unsigned n = 0;
	struct dirent *pe;
	DIR *pd;

	pd = opendir(sys);
	while (pd && (pe = readdir(pd))) {
		char sub[PATH_MAX + 300];

		snprintf(sub, sizeof(sub), "%s/%s/partition", sys, pe->d_name);
		n += pe->d_name[0] != '.' && access(sub, F_OK) == 0;
	}
	if (pd)
		closedir(pd);
	return n;
}

/* The verdict: the agent's key and every device check, never writing the device. */
static void judge(const struct rb_guard_policy *gp, const char *root, struct dev_row *r)
{
	struct stat st;

	if (!rb_guard_allowed(gp, r->path))
		rb_diags_add(&r->why, RB_SEV_ERROR, NULL, 0, 0, r->path,
			     "not on the agent's --allow list");
	/* a mount in another mount namespace shows only as a claim that fails */
	if (!*root) {
		int fd = open(r->path, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);

		if (fd >= 0)
			close(fd);
		else if (errno == EBUSY)
			rb_diags_add(&r->why, RB_SEV_ERROR, NULL, 0, 0, r->path,
				     "cannot claim the device exclusively: it is in use "
				     "(mounted, here or in another mount namespace, or held)");
	}
	rb_guard_check_blockdev(gp, r->path, makedev(r->ma, r->mi),
				!*root && stat(r->path, &st) == 0 ? r->path : NULL, &r->why);
	r->allowed = rb_diags_errors(&r->why) == 0;
}

/*
 * The host's drives, a row each with its verdict, in *rows (whatever was read when memory
 * ran out). Returns 0, or -errno when the block devices cannot be listed, said.
 */
static int walk_devices(const struct inv_args *ia, const struct rb_guard_policy *gp,
			struct dev_row **rows, size_t *nrows)
{
	char dir[PATH_MAX], sys[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/class/block", ia->root);
	d = opendir(dir);
	if (!d) {
		int e = -errno;

		rb_err("cannot read '%s': %s", dir, strerror(-e));
		return e;
	}
	while ((de = readdir(d))) {
		struct dev_row *r, *nr;

		if (!is_drive(dir, de->d_name, sys))
			continue;
		nr = realloc(*rows, (*nrows + 1) * sizeof(**rows));
		if (!nr)
			break;
		*rows = nr;
		r = &nr[(*nrows)++];
		memset(r, 0, sizeof(*r));
		rb_diags_init(&r->why);
		snprintf(r->name, sizeof(r->name), "%s", de->d_name);
		snprintf(r->path, sizeof(r->path), "/dev/%s", de->d_name);
		read_sysfs(ia->root, sys, r);
		if (!strncmp(r->name, "nvme", 4))
			read_nvme(ia->nvme_ops, r);
		r->nparts = count_partitions(sys);
		judge(gp, ia->root, r);
	}
	closedir(d);
	return 0;
}

static void print_reasons_json(const struct rb_diags *why)
{
	for (size_t k = 0; k < why->n; k++) {
		printf("%s", k ? ", " : "");
		rb_json_str(stdout, why->v[k].message);
	}
}

/*
 * A target's slot as every table shows one: agent.yaml's `slots:` for its path, else its
 * PCI slot's name (pci may be NULL), else NULL: none (JSON null, no text line).
 */
static const char *slot_of_target(const struct rb_agent_cfg *cfg, const char *path, const char *pci)
{
	const char *s = rb_agent_cfg_slot(cfg, path);

	return s && *s ? s : pci && *pci ? pci : NULL;
}

static void print_slot_json(const char *slot)
{
	printf(", \"slot\": ");
	if (slot)
		rb_json_str(stdout, slot);
	else
		printf("null");
}

static void print_device_json(const struct rb_agent_cfg *cfg, const struct dev_row *r, bool first)
{
	printf("%s{\"name\": ", first ? "" : ", ");
	rb_json_str(stdout, r->name);
	printf(", \"path\": ");
	rb_json_str(stdout, r->path);
	print_slot_json(slot_of_target(cfg, r->path, r->link.slot));
	printf(", \"dev\": \"%u:%u\", \"size_bytes\": %" PRIu64
	       ", \"logical_block_size\": %u, \"physical_block_size\": %u, "
	       "\"rotational\": %s, \"numa_node\": %d, \"partitions\": %u, \"model\": ",
	       r->ma, r->mi, r->size_bytes, r->lbs, r->pbs, r->rotational ? "true" : "false",
	       r->numa_node, r->nparts);
	rb_json_str(stdout, r->model);
	printf(", \"serial\": ");
	rb_json_str(stdout, r->serial);
	printf(", \"firmware\": ");
	rb_json_str(stdout, r->firmware);
	printf(", \"wwid\": ");
	rb_json_str(stdout, r->wwid);
	if (r->backing[0]) {
		printf(", \"backing_file\": ");
		rb_json_str(stdout, r->backing);
	}
	printf(", \"scheduler\": ");
	rb_json_str(stdout, r->scheduler);
	printf(", \"by_id\": ");
	rb_json_str(stdout, r->byid);
	if (r->link.address[0]) {
		char why[96] = "";
		bool short_link = r->has_link && rb_pcie_downtrained(&r->link, why, sizeof(why));
		double ms;
		unsigned mw;

		rb_pcie_most(&r->link, &ms, &mw);
		printf(", \"pci\": {\"address\": ");
		rb_json_str(stdout, r->link.address);
		printf(", \"slot\": ");
		rb_json_str(stdout, r->link.slot);
		if (r->has_link)
			printf(", \"link_speed_gts\": %g, \"link_width\": %u, \"link_max_speed_gts\": "
			       "%g, \"link_max_width\": %u, \"downtrained\": %s",
			       r->link.speed, r->link.width, ms, mw, short_link ? "true" : "false");
		if (short_link) {
			printf(", \"downtrained_by\": ");
			rb_json_str(stdout, why);
		}
		if (r->link.aer_correctable >= 0)
			printf(", \"aer_correctable\": %.0f, \"aer_nonfatal\": %.0f, \"aer_fatal\": "
			       "%.0f",
			       r->link.aer_correctable, r->link.aer_nonfatal, r->link.aer_fatal);
		printf("}");
	} else {
		printf(", \"pci\": null");
	}
	if (r->nvme)
		print_nvme(r);
	printf(", \"write_allowed\": %s, \"reasons\": [", r->allowed ? "true" : "false");
	print_reasons_json(&r->why);
	printf("]}");
}

/* The reasons after the first, each on a line of its own under the REASONS column. */
static void print_more_reasons_text(const struct rb_diags *why)
{
	for (size_t k = 1; k < why->n; k++)
		printf("%-12s %10s %-24s %-20s %-6s %s\n", "", "", "", "", "", why->v[k].message);
}

static void print_device_text(const struct rb_agent_cfg *cfg, const struct dev_row *r)
{
	const char *slot = slot_of_target(cfg, r->path, r->link.slot);

	printf("%-12s %9.1fG %-24.24s %-20.20s %-6s %s\n", r->path,
	       (double)r->size_bytes / (1 << 30), r->model[0] ? r->model : "-",
	       r->serial[0] ? r->serial : "-", r->allowed ? "yes" : "no",
	       r->why.n ? r->why.v[0].message : "");
	print_more_reasons_text(&r->why);
	if (r->backing[0])
		printf("%-12s over %s\n", "", r->backing);
	if (slot)
		printf("%-12s in slot %s\n", "", slot);
	if (r->nvme && !r->nvme_err && r->smart.critical_warning) {
		char warn[256];

		rb_nvme_warning_text(r->smart.critical_warning, warn, sizeof(warn));
		printf("%-12s HEALTH ALERT: %s\n", "", warn);
	}
}

/* A target of the agent's (a file, most often): its kind, size and verdict. */
static void print_target(const struct rb_agent_cfg *cfg, const struct rb_guard_policy *gp,
			 const char *path, bool json, bool first)
{
	const char *slot = slot_of_target(cfg, path, NULL);
	struct rb_target_info ti;
	struct rb_diags why;

	rb_diags_init(&why);
	rb_target_probe(path, &ti);
	rb_guard_check_write(gp, path, &why);
	if (json) {
		printf("%s{\"path\": ", first ? "" : ", ");
		rb_json_str(stdout, path);
		print_slot_json(slot);
		printf(", \"kind\": \"%s\", \"size_bytes\": %" PRIu64 ", \"write_allowed\": %s, "
		       "\"reasons\": [",
		       rb_target_kind_name(ti.kind), ti.size_bytes,
		       rb_diags_errors(&why) ? "false" : "true");
		print_reasons_json(&why);
		printf("]}");
	} else {
		printf("%-12s %9.1fG %-24s %-20s %-6s %s\n", path,
		       (double)ti.size_bytes / (1 << 30), rb_target_kind_name(ti.kind), "-",
		       rb_diags_errors(&why) ? "no" : "yes", why.n ? why.v[0].message : "");
		print_more_reasons_text(&why);
		if (slot)
			printf("%-12s in slot %s\n", "", slot);
	}
	rb_diags_release(&why);
}

/* The table (or the JSON document): the drives, then the targets. */
static void print_inventory(const struct inv_args *ia, const struct rb_guard_policy *gp,
			    const struct dev_row *rows, size_t nrows)
{
	if (ia->json) {
		printf("{\"devices\": [");
		for (size_t i = 0; i < nrows; i++)
			print_device_json(&ia->cfg, &rows[i], i == 0);
		printf("], \"targets\": [");
	} else {
		printf("%-12s %10s %-24s %-20s %-6s %s\n", "DEVICE", "SIZE", "MODEL", "SERIAL",
		       "WRITE", "REASONS");
		for (size_t i = 0; i < nrows; i++)
			print_device_text(&ia->cfg, &rows[i]);
	}
	for (size_t i = 0; i < ia->ntargets; i++)
		print_target(&ia->cfg, gp, ia->targets[i], ia->json, i == 0);
	if (ia->json)
		printf("], \"note\": \"writes also need the run's key (destructive: true or "
		       "--destructive)\"}\n");
}

/* Room in *v (NULL-terminated) for n entries; 0 or -ENOMEM. */
static int grow(char ***v, size_t n)
{
	char **nv = realloc(*v, (n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	return 0;
}

int rb_inventory(const struct rb_inventory_req *q)
{
	struct inv_args A = { .root = q->root ? q->root : "",
			      .json = q->json,
			      .nvme_ops = q->nvme_ops ? q->nvme_ops : &rb_nvme_libnvme };
	size_t nrows = 0;
	struct dev_row *rows = NULL;
	int rc = RB_EXIT_USAGE;

	A.allow = calloc(q->nallow + 1, sizeof(char *));
	A.targets = calloc(q->ntargets + 1, sizeof(char *));
	if (!A.allow || !A.targets)
		goto out;
	for (size_t i = 0; i < q->nallow; i++)
		A.allow[A.nallow++] = (char *)q->allow[i];
	for (size_t i = 0; i < q->ntargets; i++)
		A.targets[A.ntargets++] = (char *)q->targets[i];
	if (q->config && rb_agent_cfg_load(q->config, &A.cfg))
		goto out;
	/* the config file's lists after the flags': room for both */
	if (grow(&A.allow, A.nallow + A.cfg.nallow) ||
	    grow(&A.targets, A.ntargets + A.cfg.ntargets))
		goto out;
	for (size_t i = 0; i < A.cfg.nallow; i++)
		A.allow[A.nallow++] = A.cfg.allow[i];
	struct rb_guard_policy gp = { .destructive = true,
				      .allow = A.allow,
				      .nallow = A.nallow,
				      .state_dir = A.cfg.state_dir ? A.cfg.state_dir
								   : rb_default_state_dir(),
				      .root = A.root };

	if (walk_devices(&A, &gp, &rows, &nrows)) {
		rc = RB_EXIT_FAILED;
		goto out;
	}
	for (size_t i = 0; i < A.cfg.ntargets; i++)
		A.targets[A.ntargets++] = A.cfg.targets[i];
	print_inventory(&A, &gp, rows, nrows);
	rc = RB_EXIT_OK;
out:
	for (size_t i = 0; i < nrows; i++)
		rb_diags_release(&rows[i].why);
	free(rows);
	free(A.allow);
	free(A.targets);
	rb_agent_cfg_release(&A.cfg);
	return rc;
}
