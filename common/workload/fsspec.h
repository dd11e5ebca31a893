/* SPDX-License-Identifier: MIT */
/*
 * A filesystem made on a drive under test: its type and the options mkfs and mount are
 * given. The coordinator reads it from a campaign, the agent from the wire or a flag;
 * both judge it here, once. Options are words for mkfs's argv and mount(2), never a
 * command line, and never name a device or a path: an external journal or log
 * (mkfs.ext4 -J device=, mkfs.xfs -l logdev=, mount's journal_path=) would write to a
 * drive the guard never judged.
 */
#ifndef RB_FSSPEC_H
#define RB_FSSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_fs_spec {
	char type[16];		 /* ext4 or xfs; "" none */
	char mkfs_options[256];	 /* words given to mkfs, split at spaces */
	char mount_options[256]; /* comma-separated, as mount -o takes them */
};

/* Whether s names a filesystem to make. */
static inline bool rb_fs_spec_set(const struct rb_fs_spec *s)
{
	return s->type[0] != '\0';
}

/*
 * Judges s: a known type, options of plain words naming no device or path. Returns 0, or
 * -EINVAL with the reason in err ("mkfs_options: '-J' ...").
 */
int rb_fs_spec_check(const struct rb_fs_spec *s, char *err, size_t len);

/* Where mkfs would start the filesystem on the drive (mke2fs -E offset=N), in bytes; 0. */
uint64_t rb_fs_spec_offset(const struct rb_fs_spec *s);

/*
 * s's mount options as mount(2) takes them: the flags it knows (ro, noatime, nodiratime,
 * relatime, strictatime, lazytime, sync, dirsync, nosuid, noexec, nodev) in *ret_flags,
 * the rest, comma-separated, in data (the filesystem's own options).
 */
void rb_fs_mount_args(const struct rb_fs_spec *s, unsigned long *ret_flags, char *data, size_t len);

/* "ext4 (mkfs: -E nodiscard; mount: noatime)" or "ext4" into buf; "" when none. */
const char *rb_fs_spec_text(const struct rb_fs_spec *s, char *buf, size_t len);

#endif
