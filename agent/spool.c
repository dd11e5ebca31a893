// SPDX-License-Identifier: MIT
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

long rb_spool_walk_at(const char *path, off_t start, uint64_t after,
		      int (*fn)(void *arg, uint64_t seq, const uint8_t *buf, size_t len), void *arg,
		      off_t *ret_end)
{
	FILE *f = fopen(path, "rbe");
	uint8_t hdr[16];
	long n = 0;
	off_t at = start;

	if (!f)
		return -errno;
	if (start && fseeko(f, start, SEEK_SET)) {
		fclose(f);
		return -EINVAL;
	}
	while (fread(hdr, 1, 16, f) == 16) {
		uint32_t l, c;
		uint64_t seq;
		uint8_t *b;

		memcpy(&l, hdr, 4);
		memcpy(&c, hdr + 4, 4);
		memcpy(&seq, hdr + 8, 8);
		if (l > (64u << 20))
			break;
		if (seq <= after && fn) {
			/* before what is asked for: passed over, unread */
			if (fseeko(f, l, SEEK_CUR))
				break;
			n++;
			at += 16 + (off_t)l;
			continue;
		}
		if (!(b = malloc(l ? l : 1)))
			break;
		if (fread(b, 1, l, f) != l || rb_crc32c(0, b, l) != c) {
			free(b); /* torn or damaged tail: what came before stands */
			break;
		}
		n++;
		if (fn && fn(arg, seq, b, l)) {
			free(b);
			break; /* this record again next time */
		}
		at += 16 + (off_t)l;
		free(b);
	}
	fclose(f);
	if (ret_end)
		*ret_end = at;
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
	Rb__Envelope *e = NULL;
	char err[256];

	(void)arg;
	if (rb_wire_unpack(buf, len, &e, err, sizeof(err))) {
		printf("{\"seq\": %" PRIu64 ", \"error\": ", seq);
		rb_json_str(stdout, err);
		printf("}\n");
		return 0;
	}
	printf("{");
	rb_wire_json_fields(stdout, e);
	printf("}\n");
	rb_wire_free(e);
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
	long n = rb_spool_walk(argv[1], 0, dump_one, NULL);

	if (n < 0) {
		rb_err("cannot read '%s': %s", argv[1], strerror((int)-n));
		return RB_EXIT_USAGE;
	}
	return RB_EXIT_OK;
}
