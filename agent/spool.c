// SPDX-License-Identifier: MIT
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "crc32c.h"
#include "exitcode.h"
#include "jsonout.h"
#include "log.h"
#include "wire.h"

int rb_spool_open(struct rb_spool *s, const char *state_dir, const char *run, uint64_t epoch)
{
	char dir[4096];

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	snprintf(dir, sizeof(dir), "%s/spool", state_dir);
	mkdir(state_dir, 0700);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	snprintf(s->path, sizeof(s->path), "%s/%s-%" PRIu64 ".spool", dir, run, epoch);
	s->fd = open(s->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (s->fd < 0)
		return -errno;
	s->epoch = epoch;
	return 0;
}

void rb_spool_close(struct rb_spool *s)
{
	if (s->fd >= 0) {
		fsync(s->fd);
		close(s->fd);
	}
	s->fd = -1;
}

void rb_spool_retire(struct rb_spool *s)
{
	if (s->fd >= 0 && s->acked >= s->last)
		unlink(s->path);
	rb_spool_close(s);
}

int rb_spool_append(struct rb_spool *s, uint64_t seq, const uint8_t *buf, size_t len)
{
	uint8_t hdr[16];
	uint32_t l = (uint32_t)len, c = rb_crc32c(0, buf, len);
	struct iovec iov[2] = { { hdr, sizeof(hdr) }, { (void *)buf, len } };
	ssize_t w;

	if (s->fd < 0)
		return -EBADF;
	memcpy(hdr, &l, 4);
	memcpy(hdr + 4, &c, 4);
	memcpy(hdr + 8, &seq, 8);
	/* one write of header and body: a crash leaves at worst a torn last record */
	w = writev(s->fd, iov, 2);
	if (w != (ssize_t)(sizeof(hdr) + len)) {
		int err = w < 0 ? errno : ENOSPC;

		/* a short write (a full folder) leaves no torn record before the next one */
		if (w > 0 && ftruncate(s->fd, (off_t)s->bytes))
			err = errno;
		return -err;
	}
	s->last = seq;
	s->dirty = true;
	s->bytes += (uint64_t)w;
	return 0;
}

int rb_spool_sync(struct rb_spool *s)
{
	if (s->fd < 0 || !s->dirty)
		return 0;
	s->dirty = false;
	return fdatasync(s->fd) ? -errno : 0;
}

void rb_spool_acked(struct rb_spool *s, uint64_t seq, uint64_t min_bytes)
{
	if (seq > s->acked)
		s->acked = seq;
	/* everything held by the coordinator: the file starts over (O_APPEND: at 0) */
	if (s->fd >= 0 && s->acked >= s->last && s->last && s->bytes >= min_bytes)
		if (ftruncate(s->fd, 0) == 0) {
			s->dirty = false;
			s->bytes = 0;
			s->emptied++;
		}
}

#define SPOOL_RECORD_MAX (64u << 20)

/* Whether a whole record starts at p (n bytes left) with a seq after prev. */
static bool record_at(const uint8_t *p, size_t n, uint64_t prev, uint32_t *ret_len,
		      uint64_t *ret_seq)
{
	uint32_t l, c;
	uint64_t seq;

	if (n < 16)
		return false;
	memcpy(&l, p, 4);
	memcpy(&c, p + 4, 4);
	memcpy(&seq, p + 8, 8);
	/* an envelope is never empty and seqs start at 1, growing: zeros are no record */
	if (l == 0 || l > SPOOL_RECORD_MAX || l > n - 16 || seq == 0 || seq <= prev ||
	    rb_crc32c(0, p + 16, l) != c)
		return false;
	*ret_len = l;
	*ret_seq = seq;
	return true;
}

long rb_spool_walk_ex(const char *path, off_t start, uint64_t after,
		      int (*fn)(void *arg, uint64_t seq, const uint8_t *buf, size_t len), void *arg,
		      struct rb_spool_walk_info *info)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct rb_spool_walk_info z;
	struct stat st;
	const uint8_t *map = NULL;
	size_t size;
	uint64_t prev = 0;
	long n = 0;
	off_t at = start > 0 ? start : 0;
	int rc;

	if (!info)
		info = &z;
	memset(info, 0, sizeof(*info));
	info->end = at;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rc = S_ISREG(st.st_mode) ? -errno : -EINVAL; /* a device or a pipe: no spool */
		close(fd);
		return rc;
	}
	size = (size_t)st.st_size;
	if ((size_t)at > size) {
		close(fd);
		return -EINVAL;
	}
	if (size) {
		map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			rc = -errno;
			close(fd);
			return rc;
		}
	}
	close(fd);
	while ((size_t)at < size) {
		uint32_t l;
		uint64_t seq;

		if (!record_at(map + at, size - (size_t)at, prev, &l, &seq)) {
			/*
			 * Torn by a crash when nothing whole follows; otherwise damage: skipped
			 * to the next whole record, never taken for the end of the file.
			 */
			off_t next = at + 1;

			while ((size_t)next < size &&
			       !record_at(map + next, size - (size_t)next, prev, &l, &seq))
				next++;
			if ((size_t)next >= size)
				break;
			if (!info->damaged_bytes)
				info->first_damaged = at;
			info->damaged_bytes += next - at;
			info->damaged++;
			at = next;
			if (!fn)
				info->end = at;
			continue;
		}
		n++;
		prev = seq;
		info->last_seq = seq;
		/* before what is asked for: passed over */
		if (!(seq <= after && fn) && fn && fn(arg, seq, map + at + 16, l))
			break; /* this record again next time */
		at += 16 + (off_t)l;
		info->end = at;
	}
	if (map)
		munmap((void *)map, size);
	return n;
}

long rb_spool_walk_at(const char *path, off_t start, uint64_t after,
		      int (*fn)(void *arg, uint64_t seq, const uint8_t *buf, size_t len), void *arg,
		      off_t *ret_end)
{
	struct rb_spool_walk_info info;
	long n = rb_spool_walk_ex(path, start, after, fn, arg, &info);

	if (ret_end)
		*ret_end = info.end;
	return n;
}

long rb_spool_walk(const char *path, uint64_t after,
		   int (*fn)(void *arg, uint64_t seq, const uint8_t *buf, size_t len), void *arg)
{
	return rb_spool_walk_at(path, 0, after, fn, arg, NULL);
}

static int last_cb(void *arg, uint64_t seq, const uint8_t *buf, size_t len)
{
	(void)buf;
	(void)len;
	*(uint64_t *)arg = seq;
	return 0;
}

uint64_t rb_spool_last_seq(const char *path)
{
	uint64_t last = 0;

	rb_spool_walk(path, 0, last_cb, &last);
	return last;
}

static int dump_one(void *arg, uint64_t seq, const uint8_t *buf, size_t len)
{
	struct rb_msg *e = NULL;
	char err[256];

	(void)arg;
	if (rb_msg_unpack(buf, len, &e, err, sizeof(err))) {
		printf("{\"seq\": %" PRIu64 ", \"error\": ", seq);
		rb_json_str(stdout, err);
		printf("}\n");
		return 0;
	}
	printf("{");
	rb_msg_json_fields(stdout, e);
	printf("}\n");
	rb_msg_free(e);
	return 0;
}

int rb_spool_dump_cmd(int argc, char **argv)
{
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(argc == 2 && !strcmp(argv[1], "--help") ? stdout : stderr,
			"usage: rackbench-agent spool FILE\n\nPrints each whole record of a spool "
			"file (STATE_DIR/spool/RUN-EPOCH.spool) as a JSON line:\nseq, epoch, the "
			"message, and for samples each sample's key.\n");
		return argc == 2 && !strcmp(argv[1], "--help") ? RB_EXIT_OK : RB_EXIT_USAGE;
	}
	struct rb_spool_walk_info info;
	struct stat st;
	long n = rb_spool_walk_ex(argv[1], 0, 0, dump_one, NULL, &info);

	if (n == -EINVAL) {
		rb_err("'%s' is not a spool file (not a regular file)", argv[1]);
		return RB_EXIT_USAGE;
	}
	if (n < 0) {
		rb_err("cannot read '%s': %s", argv[1], strerror((int)-n));
		return RB_EXIT_USAGE;
	}
	if (n == 0 && !stat(argv[1], &st) && st.st_size > 0) {
		rb_err("'%s' is not a spool file: no whole record in its %lld byte(s)", argv[1],
		       (long long)st.st_size);
		return RB_EXIT_USAGE;
	}
	if (info.damaged)
		rb_warn("'%s' is damaged: %u stretch(es) of %lld byte(s) in all (the first at byte "
			"%lld) skipped; the records after them are shown",
			argv[1], info.damaged, (long long)info.damaged_bytes,
			(long long)info.first_damaged);
	return RB_EXIT_OK;
}
