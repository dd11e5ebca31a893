// SPDX-License-Identifier: MIT
#include "reclog.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32c.h"
#include "yamlcfg.h" /* rb_open_input */

int rb_reclog_append(int fd, off_t size, const void *extra, size_t nextra,
		     const struct iovec *parts, int nparts)
{
	uint8_t hdr[8 + RB_RECLOG_EXTRA_MAX];
	struct iovec iov[8];
	uint32_t len = 0, crc = 0;
	size_t total;
	ssize_t w;
	int err;

	if (nparts < 0 || nparts > 7 || nextra > RB_RECLOG_EXTRA_MAX)
		return -EINVAL;
	for (int i = 0; i < nparts; i++) {
		crc = rb_crc32c(crc, parts[i].iov_base, parts[i].iov_len);
		len += (uint32_t)parts[i].iov_len;
		iov[i + 1] = parts[i];
	}
	memcpy(hdr, &len, 4);
	memcpy(hdr + 4, &crc, 4);
	if (nextra)
		memcpy(hdr + 8, extra, nextra);
	iov[0] = (struct iovec){ hdr, 8 + nextra };
	total = 8 + nextra + len;
	/* one write of header and body: a crash leaves at worst a torn last record */
	w = writev(fd, iov, nparts + 1);
	if (w == (ssize_t)total)
		return 0;
	err = w < 0 ? errno : ENOSPC;
	/* a short write (a full folder) leaves no torn record before the next one */
	if (w > 0 && size >= 0 && ftruncate(fd, size))
		err = errno;
	return -err;
}

/* Whether a whole record of fmt starts at p (n bytes left); its payload's length. */
static bool record_at(const struct rb_reclog_fmt *fmt, void *state, const uint8_t *p, size_t n,
		      uint32_t *ret_len)
{
	size_t hdr = 8 + fmt->extra;
	uint32_t l, c;

	if (n < hdr)
		return false;
	memcpy(&l, p, 4);
	memcpy(&c, p + 4, 4);
	/* a payload is never empty: zeros are no record */
	if (l == 0 || l > fmt->max || l > n - hdr || rb_crc32c(0, p + hdr, l) != c)
		return false;
	if (fmt->valid && !fmt->valid(state, p + 8, p + hdr, l))
		return false;
	*ret_len = l;
	return true;
}

/* The file mapped, read-only; *ret_size 0 maps nothing. 0 or -errno. */
static int map_file(const char *path, const uint8_t **ret_map, size_t *ret_size)
{
	/* a device or a pipe is no log (a FIFO would block the open) */
	int fd = rb_open_input(path), rc = 0;
	struct stat st;

	*ret_map = NULL;
	*ret_size = 0;
	if (fd == -ENOTSUP)
		return -EINVAL;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		rc = -errno;
	} else if (st.st_size) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m == MAP_FAILED) {
			rc = -errno;
		} else {
			*ret_map = m;
			*ret_size = (size_t)st.st_size;
		}
	}
	close(fd);
	return rc;
}

long rb_reclog_walk(const char *path, off_t from, const struct rb_reclog_fmt *fmt, void *state,
		    rb_reclog_fn fn, void *arg, struct rb_reclog_info *info)
{
	struct rb_reclog_info z;
	const uint8_t *map;
	size_t size, hdr = 8 + fmt->extra;
	off_t at = from > 0 ? from : 0;
	long n = 0;
	int rc;

	if (!info)
		info = &z;
	memset(info, 0, sizeof(*info));
	info->end = at;
	rc = map_file(path, &map, &size);
	if (rc)
		return rc;
	if ((size_t)at > size) {
		if (map)
			munmap((void *)map, size);
		return -ERANGE;
	}
	while ((size_t)at < size) {
		uint32_t l;

		if (!record_at(fmt, state, map + at, size - (size_t)at, &l)) {
			/*
			 * Torn by a crash when nothing whole follows; otherwise damage: skipped
			 * to the next whole record, never taken for the end of the file.
			 */
			off_t next = at + 1;

			if (at == 0 && fmt->whole_start)
				break;
			while ((size_t)next < size &&
			       !record_at(fmt, state, map + next, size - (size_t)next, &l))
				next++;
			if ((size_t)next >= size)
				break;
			if (!info->damaged_bytes)
				info->first_damaged = at;
			info->damaged_bytes += next - at;
			info->damaged++;
			at = next;
			continue;
		}
		n++;
		if (fn && (info->stopped = fn(arg, map + at + 8, map + at + hdr, l, at)))
			break; /* this record again next time */
		if (fmt->taken)
			fmt->taken(state, map + at + 8);
		at += (off_t)(hdr + l);
		info->end = at;
	}
	if (map)
		munmap((void *)map, size);
	return n;
}
