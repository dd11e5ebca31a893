// SPDX-License-Identifier: MIT
#include "fsspec.h"

#include <errno.h>
#include <stdio.h>
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
 * mkfs's words: options, each bare word only as the argument right after one; never an
 * option that reads or writes a file or another device (mke2fs -d, -z, -l; mkfs.xfs -p),
 * nor a sub-option that names one (xfs's -l/-r/-d name=, file).
 */
static int check_mkfs(const struct rb_fs_spec *s, char *err, size_t len)
{
	static const char *const ext4_bad[] = { "-d", "-z", "-l", NULL };
	static const char *const xfs_bad[] = { "-p", NULL };
	const char *const *bad = strcmp(s->type, "xfs") ? ext4_bad : xfs_bad;
	char words[sizeof(s->mkfs_options)], *save = NULL;
	bool after_option = false;

	snprintf(words, sizeof(words), "%s", s->mkfs_options);
	for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (*w != '-' && !after_option) {
			snprintf(
				err, len,
				"mkfs_options: '%s' is not an option's argument (a bare word would "
				"be taken for a device or a size)",
				w);
			return -EINVAL;
		}
		for (size_t i = 0; bad[i]; i++)
			if (!strcmp(w, bad[i])) {
				snprintf(err, len,
					 "mkfs_options: mkfs.%s's %s reads or writes a file of the "
					 "host: not for a drive under test",
					 s->type, w);
				return -EINVAL;
			}
		/* xfs's sub-options: name=, file (a log, realtime or data section elsewhere),
		 * given apart ("-l name=x") or joined to their option ("-lname=x") */
		char sub[sizeof(words)], *ss = NULL;

		snprintf(sub, sizeof(sub), "%s", *w == '-' ? (w[1] ? w + 2 : "") : w);
		for (char *o = strtok_r(sub, ",", &ss); o; o = strtok_r(NULL, ",", &ss))
			if (!strncmp(o, "name=", 5) || !strcmp(o, "file")) {
				snprintf(err, len,
					 "mkfs_options: '%s' puts a section of the filesystem in a "
					 "file or on another device",
					 w);
				return -EINVAL;
			}
		after_option = *w == '-';
	}
	return 0;
}

int rb_fs_spec_check(const struct rb_fs_spec *s, char *err, size_t len)
{
	const char *first = s->mkfs_options + strspn(s->mkfs_options, " ");

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
	    check_mkfs(s, err, len) ||
	    check_words("mount_options", s->mount_options, ",", true, err, len))
		return -EINVAL;
	return 0;
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
