// SPDX-License-Identifier: MIT
/*
 * A drive's evidence for its vendor, kept beside the results file: the pieces an agent
 * sends ahead of the drive's result (EvidenceData, 1.9) are written into
 * RESULTS.evidence/AGENT/CAPTURE/FILE.part; the last one completes the file, which is
 * checked against the agent's sha256 and kept gzip-compressed as FILE.gz. The result's
 * evidence rows then name it (ing_evidence_stored), so what the vendor asks for in an RMA
 * outlives the agent's host. Pieces come in order (delivery) and land at their offset, so a
 * journal replayed after a crash writes the same bytes again.
 */
#include "coord_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "log.h"
#include "sha256.h"

/* A name the folder may hold: letters, digits, '.', '_', '-', not starting with '.'. */
static bool plain_name(const char *s, size_t n)
{
	if (!n || n > 200 || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
			    s[i]) ||
		    !s[i])
			return false;
	return true;
}

/*
 * The folder (dir) and the file's name (base, ".gz" to add) where the agent's file path is
 * kept: RESULTS.evidence/AGENT/CAPTURE, from the path's last two names. -EINVAL for a
 * path or an agent whose names are not plain (nothing from the wire names a path here).
 */
static int kept_where(const struct coord *k, const struct ragent *a, const char *path, char *dir,
		      size_t dlen, char *base, size_t blen)
{
	const char *file = strrchr(path, '/'), *cap;

	if (!file || file == path || !k->evidence_dir[0])
		return -EINVAL;
	for (cap = file - 1; cap > path && cap[-1] != '/'; cap--)
		;
	if (!plain_name(cap, (size_t)(file - cap)) || !plain_name(file + 1, strlen(file + 1)) ||
	    !plain_name(a->name, strlen(a->name)))
		return -EINVAL;
	if (snprintf(dir, dlen, "%s/%s/%.*s", k->evidence_dir, a->name, (int)(file - cap), cap) >=
		    (int)dlen ||
	    snprintf(base, blen, "%s", file + 1) >= (int)blen)
		return -ENAMETOOLONG;
	return 0;
}

/* The part file whole: its digest checked, then kept compressed as gz. 0 or -errno. */
static int complete(const char *part, const char *gz, uint64_t bytes, const char *sha256)
{
	struct libdeflate_compressor *c = NULL;
	uint8_t *in = malloc(bytes ? bytes : 1), *out = NULL;
	char hex[65], tmp[4700];
	struct rb_sha256 s;
	size_t outlen = 0;
	int fd, r = 0;

	fd = open(part, O_RDONLY | O_CLOEXEC);
	if (!in || fd < 0) {
		r = in ? -errno : -ENOMEM;
		goto out;
	}
	if (pread(fd, in, bytes, 0) != (ssize_t)bytes) {
		r = -EIO;
		goto out;
	}
	rb_sha256_init(&s);
	rb_sha256_update(&s, in, bytes);
	rb_sha256_hex(&s, hex);
	if (strcmp(hex, sha256)) {
		r = -EBADMSG;
		goto out;
	}
	/* level 1: a 64 MiB telemetry log is compressed in a fraction of a second on the
	 * coordinator's loop, and such logs are mostly zeros and repeats */
	c = libdeflate_alloc_compressor(1);
	out = c ? malloc(libdeflate_gzip_compress_bound(c, bytes)) : NULL;
	if (!out) {
		r = -ENOMEM;
		goto out;
	}
	outlen = libdeflate_gzip_compress(c, in, bytes, out,
					  libdeflate_gzip_compress_bound(c, bytes));
	snprintf(tmp, sizeof(tmp), "%s.tmp", gz);
	close(fd);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || !outlen) {
		r = fd < 0 ? -errno : -EIO;
		unlink(tmp);
		goto out;
	}
	if (write(fd, out, outlen) != (ssize_t)outlen || fsync(fd))
		r = -EIO;
	if (!r && rename(tmp, gz))
		r = -errno;
	if (r)
		unlink(tmp);
	else
		unlink(part);
out:
	if (fd >= 0)
		close(fd);
	if (c)
		libdeflate_free_compressor(c);
	free(in);
	free(out);
	return r;
}

/* Makes dir's last three levels (AGENT/CAPTURE under RESULTS.evidence). */
static int make_dirs(char *dir)
{
	for (int up = 2; up >= 0; up--) {
		char *cut = dir + strlen(dir);

		for (int i = 0; i < up; i++)
			while (cut > dir && *--cut != '/')
				;
		char c = *cut;

		*cut = 0;
		int r = mkdir(dir, 0755) && errno != EEXIST ? -errno : 0;

		*cut = c;
		if (r)
			return r;
	}
	return 0;
}

void ing_evidence_data(struct coord *k, struct ragent *a, const struct rb_msg_evidence_data *m)
{
	char dir[4300], base[256], part[4600], gz[4600];
	struct stat st;
	int fd, r;

	r = kept_where(k, a, m->path, dir, sizeof(dir), base, sizeof(base));
	if (r || m->bytes > RB_EVIDENCE_FILE_MAX || m->len > RB_EVIDENCE_CHUNK ||
	    m->offset > m->bytes || m->len > m->bytes - m->offset || !m->sha256 ||
	    strlen(m->sha256) != 64) {
		rb_err("agent '%s' drive '%s': evidence '%s' (%" PRIu64 " bytes at %" PRIu64
		       " of %" PRIu64 "): not a file of evidence this coordinator keeps; left on "
		       "the agent's host",
		       a->name, m->drive, m->path, (uint64_t)m->len, m->offset, m->bytes);
		return;
	}
	snprintf(part, sizeof(part), "%s/%s.part", dir, base);
	snprintf(gz, sizeof(gz), "%s/%s.gz", dir, base);
	if (!stat(gz, &st))
		return; /* kept already: a journal replayed */
	r = make_dirs(dir);
	fd = r ? -1 : open(part, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 && !r)
		r = -errno;
	if (!r && m->len && pwrite(fd, m->data, m->len, (off_t)m->offset) != (ssize_t)m->len)
		r = errno ? -errno : -EIO;
	if (fd >= 0 && close(fd) && !r)
		r = -EIO;
	if (!r && m->offset + m->len == m->bytes) {
		r = complete(part, gz, m->bytes, m->sha256);
		if (!r)
			rb_info("drive '%s' point %u: its %s from agent '%s' kept in %s", m->drive,
				m->point, base, a->name, gz);
	}
	if (r == -EBADMSG)
		rb_err("drive '%s': evidence %s from agent '%s' does not have the sha256 the "
		       "agent gave: left as %s (the agent's copy stays on its host)",
		       m->drive, base, a->name, part);
	else if (r)
		rb_err("drive '%s': cannot keep evidence %s from agent '%s' in %s: %s (the "
		       "run's journal holds it; the agent's copy stays on its host)",
		       m->drive, base, a->name, dir, strerror(-r));
}

int ing_evidence_stored(const struct coord *k, const struct ragent *a, const char *path, char *rel,
			size_t len)
{
	char dir[4300], base[256], gz[4600];
	const char *name = strrchr(k->evidence_dir, '/');
	struct stat st;

	rel[0] = 0;
	if (kept_where(k, a, path, dir, sizeof(dir), base, sizeof(base)))
		return -EINVAL;
	snprintf(gz, sizeof(gz), "%s/%s.gz", dir, base);
	if (stat(gz, &st))
		return -errno;
	/* relative to the results file's folder: the two move together */
	name = name ? name + 1 : k->evidence_dir;
	return snprintf(rel, len, "%s%s", name, gz + strlen(k->evidence_dir)) < (int)len
		       ? 0
		       : -ENAMETOOLONG;
}

void ing_captured(struct coord *k, struct ragent *a, const struct rb_msg_captured *m)
{
	int di = reg_agent_drive(k, a, m->drive);

	if (m->error && m->error[0])
		rb_warn("agent '%s' drive '%s': no evidence captured: %s", a->name, m->drive,
			m->error);
	for (size_t i = 0; di >= 0 && i < m->nevidence; i++) {
		struct rb_row_evidence *ev;

		if (RB_GROW(k->cap.rows, k->cap.cap, k->cap.n, 8)) {
			rb_err("out of memory keeping the evidence rows of drive '%s'", m->drive);
			break;
		}
		ev = memset(&k->cap.rows[k->cap.n++], 0, sizeof(*ev));
		*ev = (struct rb_row_evidence){ .drive = (uint32_t)di,
						.point = m->point,
						.attempt = m->attempt,
						.bytes = m->evidence[i].bytes };
		rb_wire_strcpy(ev->kind, sizeof(ev->kind), m->evidence[i].kind);
		rb_wire_strcpy(ev->path, sizeof(ev->path), m->evidence[i].path);
		rb_wire_strcpy(ev->sha256, sizeof(ev->sha256), m->evidence[i].sha256);
		ing_evidence_stored(k, a, ev->path, ev->stored, sizeof(ev->stored));
	}
	if (k->cap.waiting)
		k->cap.waiting--;
}

/*
 * Where drive d's FAIL tripped first (its rules' rows), else the run's last point; -1 when
 * IO errors or mismatches failed it: its agent tried to capture when the point ended.
 */
static int64_t fail_point(const struct coord *k, const struct rb_row_verdict *v, size_t nv,
			  uint32_t d)
{
	int64_t first = -1;

	for (size_t i = 0; i < nv; i++) {
		if (v[i].drive != d || strcmp(v[i].verdict, "FAIL"))
			continue;
		if (!strcmp(v[i].rule, "mismatch") || !strcmp(v[i].rule, "io_errors"))
			return -1;
		if (v[i].point >= 0 && (first < 0 || v[i].point < first))
			first = v[i].point;
	}
	return first >= 0 ? first : (int64_t)(k->c->npoints ? k->c->npoints - 1 : 0);
}

/*
 * Orders a capture for each drive of the file that its verdict FAILed and that has no
 * evidence yet (IO errors capture at once): one Capture per drive, to agents of 1.9 on
 * still connected. Returns how many were ordered.
 */
static size_t order_captures(struct coord *k, const char *path)
{
	struct rb_row_drive *dr = NULL;
	struct rb_row_verdict *v = NULL;
	struct rb_row_evidence *ev = NULL;
	struct rb_row_result *rs = NULL;
	size_t nd = 0, nv = 0, ne = 0, nr = 0, n = 0;
	char err[256];
	struct rb_results_in *in = rb_results_open(path, err, sizeof(err));

	if (!in || rb_results_read_drives(in, &dr, &nd) || rb_results_read_verdicts(in, &v, &nv) ||
	    rb_results_read_evidence(in, &ev, &ne) || rb_results_read_results(in, &rs, &nr))
		nd = nv = 0;
	for (size_t i = 0; i < nv; i++) {
		uint32_t d = v[i].drive, attempt = 0;
		const struct rb_row_drive *x = NULL;
		struct ragent *a;
		bool kept = false;
		struct rb_msg m;

		if (strcmp(v[i].rule, "drive") || strcmp(v[i].verdict, "FAIL"))
			continue;
		for (size_t e = 0; e < nd && !x; e++)
			x = dr[e].drive == d ? &dr[e] : NULL;
		for (size_t e = 0; e < ne; e++)
			kept |= ev[e].drive == d;
		int64_t at = fail_point(k, v, nv, d);

		a = !x || kept || at < 0 ? NULL : reg_agent(k, x->agent);
		if (!a || x->members)
			continue;
		/* the attempt of that point the file kept: the one the verdict read */
		for (size_t e = 0; e < nr; e++)
			if (rs[e].drive == d && rs[e].point == (uint32_t)at &&
			    rs[e].attempt > attempt)
				attempt = rs[e].attempt;
		if (a->minor < 9 || !agent_seen(a) || a->state == AGENT_LOST ||
		    a->state == AGENT_DROPPED) {
			rb_warn("drive '%s' of agent '%s' FAILed: its evidence is not captured (the "
				"agent is %s)",
				x->id.path, a->name,
				a->minor < 9 && agent_seen(a) ? "older than protocol 1.9"
							      : "not connected");
			continue;
		}
		rb_msg_init(&m, RB_MSG_CAPTURE);
		m.capture = (struct rb_msg_capture){ .point = (uint32_t)at,
						     .attempt = attempt,
						     .drive = x->id.path,
						     .reason = "its verdict is FAIL" };
		dlv_send(k, a, &m);
		n++;
	}
	if (in)
		rb_results_in_close(in);
	free(dr);
	free(v);
	free(ev);
	free(rs);
	return n;
}

void ing_capture_failed(struct coord *k, const char *path)
{
	k->cap.waiting = order_captures(k, path);
	if (!k->cap.waiting)
		return;
	rb_info("capturing the evidence of %zu failed drive(s) for their vendors", k->cap.waiting);
	loop_await_captures(k, coord_now(k) + CAPTURE_WAIT_NS);
	if (k->cap.waiting)
		rb_warn("%zu drive(s) did not answer their evidence capture within %d s",
			k->cap.waiting, (int)(CAPTURE_WAIT_NS / 1000000000LL));
	if (k->cap.n && rb_results_add_evidence(path, k->cap.rows, k->cap.n))
		rb_err("cannot add the captured evidence to '%s' (the files are in %s)", path,
		       k->evidence_dir);
	if (k->cap.n)
		printf("\nevidence captured for the vendor after the verdicts:\n");
	for (size_t i = 0; i < k->cap.n; i++) {
		const struct rb_row_evidence *e = &k->cap.rows[i];
		const struct rb_drive_ref *d = &k->c->drives[e->drive];

		printf("  %s:%s  point %u  %s, %llu bytes, sha256 %.16s..., %s%s\n", d->agent,
		       d->path, e->point, e->kind, (unsigned long long)e->bytes, e->sha256,
		       e->stored[0] ? "beside the results: " : "on the agent's host: ",
		       e->stored[0] ? e->stored : e->path);
	}
}
