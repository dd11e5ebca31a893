// SPDX-License-Identifier: MIT
#include "purge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "history.h"
#include "statedir.h"
#include "target.h"

#define MAX_NS 256

static const char *const names[] = { "format",	   "sanitize", "sanitize-crypto",
				     "deallocate", "discard",  "zero" };

int rb_purge_method_parse(const char *s, enum rb_purge_method *ret)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*ret = (enum rb_purge_method)i;
			return 0;
		}
	return -EINVAL;
}

const char *rb_purge_method_name(enum rb_purge_method m)
{
	return (unsigned)m < sizeof(names) / sizeof(names[0]) ? names[m] : "?";
}

static bool is_nvme_method(enum rb_purge_method m)
{
	return m <= RB_PURGE_DEALLOCATE;
}

struct ns {
	char name[64];
	dev_t dev;
};

static int read_dev(const char *dir, dev_t *ret)
{
	char path[PATH_MAX + 8], buf[64] = "";
	unsigned ma, mi;
	FILE *f;

	snprintf(path, sizeof(path), "%s/dev", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	if (sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return -EINVAL;
	*ret = makedev(ma, mi);
	return 0;
}

/* The namespace's sysfs folder, from its name (works in recorded trees). */
static int ns_dir(const struct rb_guard_policy *gp, const char *name, char *ret, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sys/class/block/%s", gp->root ? gp->root : "", name);
	if (!realpath(path, real))
		return -errno;
	snprintf(ret, len, "%s", real);
	return 0;
}

/* Every namespace of the controller a namespace hangs off (its siblings in sysfs). */
static size_t siblings(const char *dir, struct ns *out, size_t max)
{
	char ctrl[PATH_MAX];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(ctrl, sizeof(ctrl), "%s", dir);
	dirname(ctrl);
	d = opendir(ctrl);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		char sub[PATH_MAX + 300];

		if (strncmp(de->d_name, "nvme", 4) || !strchr(de->d_name + 4, 'n'))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", ctrl, de->d_name);
		if (read_dev(sub, &out[n].dev) == 0) {
			snprintf(out[n].name, sizeof(out[n].name), "%s", de->d_name);
			n++;
		}
	}
	closedir(d);
	return n;
}

static void history(const struct rb_guard_policy *gp, const char *path, const char *serial,
		    enum rb_purge_method m, int result)
{
	rb_history_add_purge(gp->state_dir, path, serial, rb_purge_method_name(m), result);
}

static int purge_nvme(const struct rb_purge_req *req, const struct rb_nvme_ops *ops,
		      const struct rb_nvme_id *id, struct rb_diags *d, FILE *log)
{
	uint16_t st = 0;
	void *h;
	uint32_t nsid;
	int r = ops->open(req->path, &h, &nsid);

	if (r)
		goto out;
	switch (req->method) {
	case RB_PURGE_FORMAT:
		r = ops->format ? ops->format(h, nsid, id->lbaf_in_use, req->ses, &st) : -ENOTSUP;
		break;
	case RB_PURGE_DEALLOCATE:
		r = ops->deallocate ? ops->deallocate(h, nsid, id->size_blocks, &st) : -ENOTSUP;
		break;
	default: {
		unsigned sanact = req->method == RB_PURGE_SANITIZE_CRYPTO ? 4 : 2;
		uint16_t sprog = 0, sstat = 0;

		r = ops->sanitize ? ops->sanitize(h, sanact, &st) : -ENOTSUP;
		/* the controller works on in the background: follow its log */
		while (!r && ops->sanitize_status) {
			struct timespec ts = { 1, 0 };

			r = ops->sanitize_status(h, &sprog, &sstat, &st);
			if (r)
				break;
			if ((sstat & 7) == 2) {
				fprintf(log, "sanitize: %.1f%%\n", 100.0 * sprog / 65536.0);
				nanosleep(&ts, NULL);
				continue;
			}
			if ((sstat & 7) == 3)
				r = -EIO;
			break;
		}
		break;
	}
	}
	ops->close(h);
out:
	if (r)
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, req->path, "%s failed: %s%s",
			     rb_purge_method_name(req->method),
			     st ? "the drive refused it, NVMe status " : strerror(-r),
			     st ? "" : "");
	if (r && st)
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, req->path, "NVMe status 0x%04x", st);
	return r;
}

/* Discard or zero of a target the guard opened: the descriptor it judged is used. */
static int purge_plain(const struct rb_purge_req *req, const struct rb_guard_target *t,
		       struct rb_diags *d, FILE *log)
{
	uint64_t range[2] = { 0, t->info.size_bytes };
	int r = 0;

	if (t->info.kind == RB_TARGET_BLOCK) {
		unsigned long op = req->method == RB_PURGE_ZERO ? BLKZEROOUT : BLKDISCARD;

		if (ioctl(t->fd, op, range) < 0)
			r = -errno;
	} else if (fallocate(t->fd,
			     req->method == RB_PURGE_ZERO
				     ? FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE
				     : FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			     0, (off_t)t->info.size_bytes) < 0) {
		r = -errno;
	}
	if (!r)
		fsync(t->fd);
	if (r)
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, req->path, "%s failed: %s",
			     rb_purge_method_name(req->method), strerror(-r));
	else
		fprintf(log, "%s: %s of %" PRIu64 " bytes done\n", req->path,
			rb_purge_method_name(req->method), t->info.size_bytes);
	return r;
}

/*
 * The device node the kernel names for what req->path opens now (an alias may point at
 * another namespace than its name says), claimed once to see a mount in another mount
 * namespace. 0 with ret, or -EINVAL said; a claim that fails is said (not returned).
 */
static int resolve_nvme(const struct rb_purge_req *req, char *ret, size_t len,
			struct rb_diags *diags)
{
	char sys[96], kname[PATH_MAX];
	struct stat sb;
	int fd;

	if (!realpath(req->path, ret) || stat(ret, &sb) || !S_ISBLK(sb.st_mode)) {
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, req->path,
			     "%s needs an NVMe namespace (a block device)",
			     rb_purge_method_name(req->method));
		return -EINVAL;
	}
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(sb.st_rdev), minor(sb.st_rdev));
	if (realpath(sys, kname) && strrchr(kname, '/'))
		snprintf(ret, len, "/dev/%s", strrchr(kname, '/') + 1);
	fd = open(ret, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0 && errno == EBUSY)
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, req->path,
			     "cannot claim the device exclusively: it is in use (mounted, here or "
			     "in another mount namespace, or held)");
	if (fd >= 0)
		close(fd);
	return 0;
}

int rb_purge(const struct rb_purge_req *req, const struct rb_guard_policy *gp,
	     const struct rb_nvme_ops *ops, struct rb_diags *diags, FILE *log)
{
	struct rb_guard_policy wide = *gp;
	struct rb_nvme_id id;
	struct ns affected[MAX_NS];
	size_t n = 0, before = rb_diags_errors(diags);
	const char *base = strrchr(req->path, '/');
	char dir[PATH_MAX];
	uint16_t st = 0;
	int r;

	/* a purge erases signatures by design; every other check holds */
	wide.wipe_signatures = true;
	if (!is_nvme_method(req->method)) {
		struct rb_guard_target t;

		if (rb_guard_claim(&wide, req->path, RB_GUARD_WRITE, &t, diags) ||
		    rb_diags_errors(diags) > before) {
			if (t.fd >= 0)
				close(t.fd);
			return -EPERM;
		}
		if (t.fd < 0) {
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, req->path,
				     "target does not exist");
			return -ENOENT;
		}
		if (req->dry_run) {
			close(t.fd);
			fprintf(log, "would %s %s\n", rb_purge_method_name(req->method), req->path);
			return 0;
		}
		r = purge_plain(req, &t, diags, log);
		close(t.fd);
		history(gp, req->path, "", req->method, r);
		return r;
	}
	if (!gp->destructive)
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, req->path,
			     "a purge needs the run's key: %s is not given",
			     gp->destructive_key ? gp->destructive_key : "--destructive");
	/*
	 * NVMe: the device the path names now, by the kernel's own name for its number
	 * (an alias such as /dev/bench/nvme1n1 may point at another namespace than its
	 * name says), claimed once to see a mount in another namespace; the commands go
	 * to that device node, the one judged.
	 */
	struct rb_purge_req resolved = *req;
	char real[PATH_MAX];

	if (!*(gp->root ? gp->root : "")) {
		if ((r = resolve_nvme(req, real, sizeof(real), diags)))
			return r;
		resolved.path = real;
		req = &resolved;
		base = strrchr(req->path, '/');
	}
	base = base ? base + 1 : req->path;
	if (strncmp(base, "nvme", 4) || ns_dir(gp, base, dir, sizeof(dir))) {
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, req->path,
			     "%s needs an NVMe namespace (/dev/nvmeXnY); use discard or zero",
			     rb_purge_method_name(req->method));
		return -EINVAL;
	}
	r = rb_nvme_read(ops, req->path, &id, NULL, &st);
	if (r) {
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, req->path,
			     "cannot identify the drive: %s",
			     st ? "NVMe command failed" : strerror(-r));
		return r;
	}
	bool all = req->method == RB_PURGE_SANITIZE_BLOCK ||
		   req->method == RB_PURGE_SANITIZE_CRYPTO ||
		   (req->method == RB_PURGE_FORMAT &&
		    (id.format_all_ns || (req->ses && id.erase_all_ns)));

	if (all) {
		n = siblings(dir, affected, MAX_NS);
		fprintf(log, "%s %s touches every namespace of the controller (%s): ",
			rb_purge_method_name(req->method), req->path,
			req->method == RB_PURGE_FORMAT ? "its Format applies to all namespaces"
						       : "a Sanitize covers the whole subsystem");
		for (size_t i = 0; i < n; i++)
			fprintf(log, "%s%s", i ? ", " : "", affected[i].name);
		fprintf(log, "\n");
	} else if (read_dev(dir, &affected[0].dev) == 0) {
		snprintf(affected[0].name, sizeof(affected[0].name), "%s", base);
		n = 1;
	}
	for (size_t i = 0; i < n; i++) {
		char path[96], subject[160];

		snprintf(path, sizeof(path), "/dev/%s", affected[i].name);
		snprintf(subject, sizeof(subject), "%s (touched by the %s of %s)", path,
			 rb_purge_method_name(req->method), req->path);
		if (!rb_guard_allowed(gp, path))
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0,
				     strcmp(path, req->path) ? subject : path,
				     "not on the agent's --allow list");
		rb_guard_check_blockdev(&wide, strcmp(path, req->path) ? subject : path,
					affected[i].dev, NULL, diags);
	}
	if (rb_diags_errors(diags) > before)
		return -EPERM;
	if (req->dry_run) {
		fprintf(log, "would %s %s (serial %s)\n", rb_purge_method_name(req->method),
			req->path, id.serial);
		return 0;
	}
	r = purge_nvme(req, ops, &id, diags, log);
	history(gp, req->path, id.serial, req->method, r);
	if (!r)
		fprintf(log, "%s: %s done\n", req->path, rb_purge_method_name(req->method));
	return r;
}
