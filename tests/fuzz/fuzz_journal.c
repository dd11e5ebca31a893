// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the files rackbench reads back after a crash -- the coordinator's
 * journal (`rackbench resume`, `rackbench journal`) and an agent's spool -- from
 * arbitrary bytes, each record decoded as the readers do.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "journal.h"
#include "spool.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int decode(const uint8_t *buf, size_t len)
{
	struct rb_msg *e = NULL;
	char err[256];

	if (rb_msg_unpack(buf, len, &e, err, sizeof(err)) == 0)
		rb_msg_free(e);
	return 0;
}

static int on_record(void *arg, const char *agent, const uint8_t *buf, size_t len, off_t at)
{
	(void)arg;
	(void)agent;
	(void)at;
	return decode(buf, len);
}

static int on_spooled(void *arg, uint64_t seq, const uint8_t *buf, size_t len)
{
	(void)arg;
	(void)seq;
	return decode(buf, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct rb_journal_meta m;
	char err[600];
	off_t end;

	if (fd < 0) {
		fd = memfd_create("fuzz", 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	if (rb_journal_walk(path, 0, &m, on_record, NULL, &end, err, sizeof(err)) >= 0)
		rb_journal_meta_free(&m);
	rb_spool_walk(path, 0, on_spooled, NULL);
	/* records before seq 2 passed over unread, then from where that walk ended */
	off_t at = 0;

	if (rb_spool_walk_at(path, 0, 2, on_spooled, NULL, &at) >= 0)
		rb_spool_walk_at(path, at, 0, on_spooled, NULL, NULL);
	return 0;
}
