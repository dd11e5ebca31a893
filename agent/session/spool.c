// SPDX-License-Identifier: MIT
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "jsonout.h"
#include "reclog.h"
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
	struct iovec part = { (void *)buf, len };
	int r;

	if (s->fd < 0)
		return -EBADF;
	r = rb_reclog_append(s->fd, (off_t)s->bytes, &seq, sizeof(seq), &part, 1);
	if (r)
		return r;
	s->last = seq;
	s->dirty = true;
	s->bytes += 16 + len;
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

/* seqs start at 1 and grow: a record at or below the last one taken is no record */
static bool spool_valid(void *state, const uint8_t *extra, const uint8_t *payload, uint32_t len)
{
	uint64_t seq;

	(void)payload;
	(void)len;
	memcpy(&seq, extra, 8);
	return seq != 0 && seq > *(uint64_t *)state;
}

static void spool_taken(void *state, const uint8_t *extra)
{
	memcpy(state, extra, 8);
}

static const struct rb_reclog_fmt spool_fmt = {
	.extra = 8,
	.max = SPOOL_RECORD_MAX,
	.valid = spool_valid,
	.taken = spool_taken,
};

struct spool_walk {
	uint64_t after, last_seq;
	int (*fn)(void *arg, uint64_t seq, const uint8_t *buf, size_t len);
	void *arg;
};

static int spool_record(void *arg, const uint8_t *extra, const uint8_t *payload, uint32_t len,
			off_t at)
{
	struct spool_walk *w = arg;
	uint64_t seq;

	(void)at;
	memcpy(&seq, extra, 8);
	w->last_seq = seq;
	/* before what is asked for: passed over */
	return seq > w->after && w->fn ? w->fn(w->arg, seq, payload, len) : 0;
}

long rb_spool_walk_ex(const char *path, off_t start, uint64_t after,
		      int (*fn)(void *arg, uint64_t seq, const uint8_t *buf, size_t len), void *arg,
		      struct rb_spool_walk_info *info)
{
	struct spool_walk w = { .after = after, .fn = fn, .arg = arg };
	struct rb_reclog_info ri;
	uint64_t prev = 0;
	long n = rb_reclog_walk(path, start, &spool_fmt, &prev, spool_record, &w, &ri);

	if (info) {
		memset(info, 0, sizeof(*info));
		info->end = n < 0 ? (start > 0 ? start : 0) : ri.end;
		info->last_seq = w.last_seq;
		info->damaged = ri.damaged;
		info->damaged_bytes = ri.damaged_bytes;
		info->first_damaged = ri.first_damaged;
	}
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
	FILE *out = arg;
	struct rb_msg *e = NULL;
	char err[256];

	if (rb_msg_unpack(buf, len, &e, err, sizeof(err))) {
		fprintf(out, "{\"seq\": %" PRIu64 ", \"error\": ", seq);
		rb_json_str(out, err);
		fprintf(out, "}\n");
		return 0;
	}
	fprintf(out, "{");
	rb_msg_json_fields(out, e);
	fprintf(out, "}\n");
	rb_msg_free(e);
	return 0;
}

long rb_spool_dump(const char *path, FILE *out, struct rb_spool_walk_info *info)
{
	return rb_spool_walk_ex(path, 0, 0, dump_one, out, info);
}
