// SPDX-License-Identifier: MIT
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool mix_reads(const struct rb_workload *wl)
{
	if (wl->rw == RB_RW_RW || wl->rw == RB_RW_RANDRW)
		return wl->rwmixread > 0;
	return rb_rw_reads(wl->rw);
}

struct rb_prepared *rb_prepared_free(struct rb_prepared *p)
{
	if (!p)
		return NULL;
	for (size_t i = 0; i < p->n; i++)
		if (p->fds && p->fds[i] >= 0)
			close(p->fds[i]);
	free(p->fds);
	free(p->spans);
	free(p->info);
	free(p);
	return NULL;
}

static int prepare_one(const struct rb_workload *wl, const char *path,
		       const struct rb_guard_policy *gp, bool writes, int claimed, int *ret_fd,
		       uint64_t *ret_span, struct rb_target_info *ti, struct rb_diags *d)
{
	uint64_t total, span;
	int flags = O_CLOEXEC | (writes ? O_RDWR : O_RDONLY);
	int r, fd;

	if (wl->engine == RB_ENGINE_NULL) {
		/* no target needed: the range is the workload's size */
		memset(ti, 0, sizeof(*ti));
		snprintf(ti->path, sizeof(ti->path), "%s", path);
		ti->kind = RB_TARGET_OTHER;
		if (!wl->size) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
				     "the null engine needs 'size' to set its range");
			return -EINVAL;
		}
		*ret_fd = -1;
		*ret_span = wl->size - wl->size % wl->bs;
		return 0;
	}
	r = rb_target_probe(path, ti);
	if (r) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path, "cannot inspect target: %s",
			     strerror(-r));
		return r;
	}
	if ((ti->kind == RB_TARGET_MISSING || ti->kind == RB_TARGET_FILE) &&
	    rb_path_under(path, gp->state_dir)) {
		/* our own file: lay it out in full, so reads never measure holes */
		uint64_t need = wl->offset + wl->size;

		if (ti->kind == RB_TARGET_MISSING && !wl->size) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
				     "file does not exist yet: give 'size' to create it");
			return -EINVAL;
		}
		if (need > ti->size_bytes) {
			r = rb_target_layout_file(path, need);
			if (r) {
				rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
					     "cannot lay out file: %s", strerror(-r));
				return r;
			}
			rb_target_probe(path, ti);
		}
	} else if (ti->kind == RB_TARGET_MISSING) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path, "target does not exist");
		return -ENOENT;
	} else if (ti->kind == RB_TARGET_OTHER) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "target is neither a block device nor a regular file");
		return -EINVAL;
	}
	total = ti->size_bytes;
	if (wl->offset >= total) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "offset %llu is past the end of the target (%llu bytes)",
			     (unsigned long long)wl->offset, (unsigned long long)total);
		return -EINVAL;
	}
	span = wl->size ? wl->size : total - wl->offset;
	if (wl->size_pct)
		span = (total - wl->offset) / 100 * wl->size_pct;
	if (wl->offset + span > total) {
		if (writes || !mix_reads(wl) || wl->size) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
				     "offset + size (%llu bytes) is past the end of the target "
				     "(%llu bytes)",
				     (unsigned long long)(wl->offset + span),
				     (unsigned long long)total);
			return -EINVAL;
		}
	}
	span -= span % wl->bs;
	if (span < wl->bs * wl->numjobs) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "target range holds fewer than numjobs blocks of bs");
		return -EINVAL;
	}
	if (wl->direct)
		flags |= O_DIRECT;
	/* a block device we write is claimed exclusively: nobody mounts it meanwhile */
	if (writes && ti->kind == RB_TARGET_BLOCK)
		flags |= O_EXCL;
	fd = claimed >= 0 ? claimed : open(ti->real, flags);
	if (fd < 0) {
		r = -errno;
		if (r == -EBUSY)
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
				     "device is busy (mounted, or held by another user)");
		else if (r == -EINVAL && wl->direct)
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
				     "cannot open with O_DIRECT (the filesystem does not support "
				     "it; set direct: false)");
		else
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path, "cannot open: %s",
				     strerror(-r));
		return r;
	}
	*ret_fd = fd;
	*ret_span = span;
	return 0;
}

int rb_runner_prepare(const struct rb_workload *wl, char *const *paths, size_t n,
		      const struct rb_guard_policy *gp, struct rb_prepared **ret,
		      struct rb_diags *diags)
{
	bool writes = rb_workload_writes(wl);
	struct rb_prepared *p;
	int refused = 0, r = 0;

	int *claims = malloc((n + 1) * sizeof(*claims));

	if (!claims)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		claims[i] = -1;
	/*
	 * The guard sees every target before anything is written or laid out. A block
	 * device to write is claimed first (O_EXCL: nobody mounts or assembles it from
	 * now on) and judged on that descriptor, which the run then keeps.
	 */
	if (writes) {
		for (size_t i = 0; i < n; i++) {
			struct rb_target_info ti;

			if (rb_target_probe(paths[i], &ti) == 0 && ti.kind == RB_TARGET_BLOCK) {
				claims[i] = open(ti.real, O_RDWR | O_EXCL | O_CLOEXEC |
								 (wl->direct ? O_DIRECT : 0));
				if (claims[i] < 0)
					rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, paths[i],
						     "cannot claim the device exclusively: %s",
						     errno == EBUSY ? "it is in use (mounted, "
								      "assembled, or open O_EXCL)"
								    : strerror(errno));
			}
			if (rb_guard_check_write_fd(gp, paths[i], claims[i], diags) ||
			    (ti.kind == RB_TARGET_BLOCK && claims[i] < 0))
				refused = -EPERM;
		}
		if (refused) {
			for (size_t i = 0; i < n; i++)
				if (claims[i] >= 0)
					close(claims[i]);
			free(claims);
			return refused;
		}
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		free(claims);
		return -ENOMEM;
	}
	p->fds = malloc(n * sizeof(*p->fds));
	p->spans = calloc(n, sizeof(*p->spans));
	p->info = calloc(n, sizeof(*p->info));
	if (!p->fds || !p->spans || !p->info) {
		rb_prepared_free(p);
		free(claims);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		p->fds[i] = -1;
	p->n = n;
	for (size_t i = 0; i < n; i++) {
		int e = prepare_one(wl, paths[i], gp, writes, claims[i], &p->fds[i], &p->spans[i],
				    &p->info[i], diags);

		if (e && claims[i] >= 0 && p->fds[i] != claims[i])
			close(claims[i]);
		if (e && !r)
			r = e;
	}
	free(claims);
	if (r) {
		rb_prepared_free(p);
		return r;
	}
	*ret = p;
	return 0;
}
