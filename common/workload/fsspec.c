// SPDX-License-Identifier: MIT
#include "fsspec.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

static const struct {
	const char *name;
	unsigned long flag;
} mount_flags[] = {
	{ "ro", MS_RDONLY },
	{ "noatime", MS_NOATIME },
	{ "nodiratime", MS_NODIRATIME },
	{ "relatime", MS_RELATIME },
	{ "strictatime", MS_STRICTATIME },
	{ "lazytime", MS_LAZYTIME },
	{ "sync", MS_SYNCHRONOUS },
	{ "dirsync", MS_DIRSYNC },
	{ "nosuid", MS_NOSUID },
	{ "noexec", MS_NOEXEC },
	{ "nodev", MS_NODEV },
};

static unsigned long flag_of(const char *word, size_t n)
{
	for (size_t i = 0; i < sizeof(mount_flags) / sizeof(mount_flags[0]); i++)
		if (strlen(mount_flags[i].name) == n && !strncmp(mount_flags[i].name, word, n))
			return mount_flags[i].flag;
	return 0;
}

/* Whether the word names a device or a file somewhere else: never given on. */
static const char *names_elsewhere(const char *w, size_t n)
{
	static const char *const bad[] = { "dev",	"journal_path", "LABEL=", "UUID=",
					   "PARTUUID=", "PARTLABEL=",	NULL };
	char x[256];

	snprintf(x, sizeof(x), "%.*s", (int)(n < sizeof(x) ? n : sizeof(x) - 1), w);
	if (memchr(w, '/', n))
		return "a path";
	for (size_t i = 0; bad[i]; i++)
		if (strstr(x, bad[i]))
			return "a device";
	return NULL;
}

/* Each word of list (split at any of seps) plain and naming nothing elsewhere. */
static int check_words(const char *what, const char *list, const char *seps, bool mount, char *err,
		       size_t len)
{
	for (const char *w = list; *w;) {
		size_t n = strcspn(w, seps);
		const char *why;

		/* nodev is a mount flag (no device named); anything else naming one is not */
		if (n && !(mount && flag_of(w, n)) && (why = names_elsewhere(w, n))) {
			snprintf(err, len,
				 "%s: '%.*s' names %s: a filesystem made by rackbench lives on its "
				 "drive alone (no external journal or log)",
				 what, (int)n, w, why);
			return -EINVAL;
		}
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)w[i];

			if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
			    !(c >= '0' && c <= '9') && !strchr("-_=.,:^+", c)) {
				snprintf(err, len,
					 "%s: '%.*s' holds '%c' (options are plain words: letters, "
					 "digits and -_=.,:^+)",
					 what, (int)n, w, c);
				return -EINVAL;
			}
		}
		w += n;
		w += strspn(w, seps);
	}
	return 0;
}

/*
 * A mkfs's short options as its getopt reads them (e2fsprogs 1.47's mke2fs, xfsprogs 6's
 * mkfs.xfs): those that take an argument, those that do not, and those that read or write
 * a file of the host (never given on). An option not listed is refused by name.
 */
static const struct mkfs_getopt {
	const char *type, *with_arg, *plain, *files;
} mkfs_getopts[] = {
	/* b:cd:e:g:i:jl:m:no:qr:s:t:vC:DE:FG:I:J:KL:M:N:O:R:ST:U:Vz: */
	{ "ext4", "bdegilmorstCEGIJLMNORTUz", "cjnqvDFKSV", "dlz" },
	/* b:c:d:i:l:L:m:n:KNp:qr:s:CfV (-c: a configuration file, -p: a prototype file) */
	{ "xfs", "bcdilLmnprs", "KNqCfV", "cp" },
};

/* An option's argument: no section in a file or on another device (xfs's -d/-l/-r name=,
 * file), and ext4's -E offset= a plain number (kept for the drive's size: *ret_offset). */
static int check_arg(const struct rb_fs_spec *s, char opt, const char *arg, uint64_t *ret_offset,
		     char *err, size_t len)
{
	char sub[sizeof(s->mkfs_options)], *ss = NULL;

	snprintf(sub, sizeof(sub), "%s", arg);
	for (char *o = strtok_r(sub, ",", &ss); o; o = strtok_r(NULL, ",", &ss)) {
		if (!strncmp(o, "name=", 5) || !strcmp(o, "file")) {
			snprintf(err, len,
				 "mkfs_options: '-%c %s' puts a section of the filesystem in a "
				 "file or on another device",
				 opt, arg);
			return -EINVAL;
		}
		if (opt == 'E' && !strncmp(o, "offset=", 7)) {
			char *end;

			errno = 0;
			*ret_offset = strtoull(o + 7, &end, 10);
			if (o[7] < '0' || o[7] > '9' || *end || errno) {
				snprintf(err, len,
					 "mkfs_options: '%s' is not a number of bytes (0 to "
					 "18446744073709551615)",
					 o);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/*
 * mkfs's words read as its getopt reads them: short options clustered ("-Fq") or with
 * their argument joined ("-zNAME") or in the next word; a bare word only as an option's
 * argument (anything else would be taken for the device or a size); never an option that
 * reads or writes a file of the host (mke2fs -d, -z, -l; mkfs.xfs -c, -p), nor a
 * sub-option that names one (xfs's -l/-r/-d name=, file).
 */
static int check_mkfs(const struct rb_fs_spec *s, uint64_t *ret_offset, char *err, size_t len)
{
	const struct mkfs_getopt *g = &mkfs_getopts[strcmp(s->type, "xfs") ? 0 : 1];
	char words[sizeof(s->mkfs_options)], *save = NULL, need = 0;

	*ret_offset = 0;
	snprintf(words, sizeof(words), "%s", s->mkfs_options);
	for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (need) {
			if (check_arg(s, need, w, ret_offset, err, len))
				return -EINVAL;
			need = 0;
			continue;
		}
		if (w[0] != '-' || !w[1] || w[1] == '-') {
			snprintf(
				err, len,
				"mkfs_options: '%s' is not an option's argument (a bare word would "
				"be taken for a device or a size)",
				w);
			return -EINVAL;
		}
		for (const char *c = w + 1; *c; c++) {
			if (strchr(g->files, *c)) {
				snprintf(err, len,
					 "mkfs_options: mkfs.%s's -%c (in '%s') reads or writes a "
					 "file of the host: not for a drive under test",
					 s->type, *c, w);
				return -EINVAL;
			}
			if (strchr(g->with_arg, *c)) {
				if (c[1] && check_arg(s, *c, c + 1, ret_offset, err, len))
					return -EINVAL;
				need = c[1] ? 0 : *c;
				break;
			}
			if (!strchr(g->plain, *c)) {
				snprintf(err, len,
					 "mkfs_options: mkfs.%s has no option -%c (in '%s')",
					 s->type, *c, w);
				return -EINVAL;
			}
		}
	}
	if (need) {
		snprintf(err, len, "mkfs_options: -%c needs an argument", need);
		return -EINVAL;
	}
	return 0;
}

/* Mount options that act on the host, not the drive: never given on. */
static int check_mount(const struct rb_fs_spec *s, char *err, size_t len)
{
	static const char *const host[] = { "errors=panic", NULL };

	for (const char *w = s->mount_options; *w;) {
		size_t n = strcspn(w, ",");

		for (size_t i = 0; host[i]; i++)
			if (n == strlen(host[i]) && !strncmp(w, host[i], n)) {
				snprintf(err, len,
					 "mount_options: '%s' would stop the host on an error of "
					 "the drive under test (use errors=remount-ro)",
					 host[i]);
				return -EINVAL;
			}
		w += n;
		w += strspn(w, ",");
	}
	return 0;
}

int rb_fs_spec_check(const struct rb_fs_spec *s, char *err, size_t len)
{
	const char *first = s->mkfs_options + strspn(s->mkfs_options, " ");
	uint64_t offset;

	if (strcmp(s->type, "ext4") && strcmp(s->type, "xfs")) {
		snprintf(err, len, "filesystem '%s': ext4 or xfs", s->type);
		return -EINVAL;
	}
	/* a word before any option would be taken for the device */
	if (*first && *first != '-') {
		snprintf(err, len, "mkfs_options: '%s' does not start with an option ('-...')",
			 first);
		return -EINVAL;
	}
	if (check_words("mkfs_options", s->mkfs_options, " ", false, err, len) ||
	    check_mkfs(s, &offset, err, len) ||
	    check_words("mount_options", s->mount_options, ",", true, err, len) ||
	    check_mount(s, err, len))
		return -EINVAL;
	return 0;
}

uint64_t rb_fs_spec_offset(const struct rb_fs_spec *s)
{
	uint64_t offset = 0;
	char err[256];

	return check_mkfs(s, &offset, err, sizeof(err)) ? 0 : offset;
}

void rb_fs_mount_args(const struct rb_fs_spec *s, unsigned long *ret_flags, char *data, size_t len)
{
	size_t l = 0;

	*ret_flags = 0;
	if (len)
		data[0] = '\0';
	for (const char *w = s->mount_options; *w;) {
		size_t n = strcspn(w, ",");
		unsigned long f = flag_of(w, n);

		if (f)
			*ret_flags |= f;
		else if (n && l < len)
			l += (size_t)snprintf(data + l, len - l, "%s%.*s", l ? "," : "", (int)n, w);
		w += n;
		w += strspn(w, ",");
	}
}

const char *rb_fs_spec_text(const struct rb_fs_spec *s, char *buf, size_t len)
{
	if (!rb_fs_spec_set(s))
		snprintf(buf, len, "%s", "");
	else if (s->mkfs_options[0] || s->mount_options[0])
		snprintf(buf, len, "%s (mkfs: %s; mount: %s)", s->type,
			 s->mkfs_options[0] ? s->mkfs_options : "defaults",
			 s->mount_options[0] ? s->mount_options : "defaults");
	else
		snprintf(buf, len, "%s", s->type);
	return buf;
}
