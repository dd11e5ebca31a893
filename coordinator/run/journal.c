// SPDX-License-Identifier: MIT
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "exitcode.h"
#include "jsonout.h"
#include "log.h"
#include "reclog.h"
#include "wire.h"

#define MAGIC "rackbench-journal 1\n"
/* a record: a name and the largest envelope the wire accepts */
#define RECORD_MAX (RB_WIRE_MAX_BYTES + 4096u)

int rb_journal_append(int fd, const char *agent, const uint8_t *buf, size_t len)
{
	struct iovec parts[2] = { { (void *)agent, strlen(agent) + 1 }, { (void *)buf, len } };

	return rb_reclog_append(fd, lseek(fd, 0, SEEK_END), NULL, 0, parts, 2);
}

void rb_journal_forget(int fd, off_t *from)
{
	off_t end = lseek(fd, 0, SEEK_END);
	long page = sysconf(_SC_PAGESIZE);

	/* whole pages only: the last one, partly written, takes the next append */
	end -= end % (page > 0 ? page : 4096);
	if (end > *from && !posix_fadvise(fd, *from, end - *from, POSIX_FADV_DONTNEED))
		*from = end;
}

int rb_journal_write_meta(int fd, const struct rb_journal_meta *m)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int r;

	if (!f)
		return -ENOMEM;
	fprintf(f,
		MAGIC "run %s\nfile %s\nlisten %s\nkey %s\nagent_keys %s\ninsecure %d\n"
		      "start_ns %" PRId64 "\n",
		m->run, m->file, m->listen, m->key, m->agent_keys, m->insecure ? 1 : 0,
		m->start_ns);
	if (m->shard)
		fprintf(f, "shard %s\n", m->shard);
	fprintf(f, "campaign\n%s", m->campaign ? m->campaign : "");
	if (fclose(f))
		return -ENOMEM;
	r = rb_journal_append(fd, "", (const uint8_t *)text, len);
	free(text);
	return r;
}

void rb_journal_meta_free(struct rb_journal_meta *m)
{
	if (m) {
		free(m->campaign);
		free(m->shard);
		m->campaign = m->shard = NULL;
	}
}

static int parse_meta(const char *t, size_t len, struct rb_journal_meta *m)
{
	const char *p = t, *end = t + len;

	if (len < strlen(MAGIC) || memcmp(t, MAGIC, strlen(MAGIC)))
		return -EBADMSG;
	p += strlen(MAGIC);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *sp;
		char *dst = NULL;
		size_t cap = 0, vl;

		if (!nl)
			return -EBADMSG;
		if (nl - p == 8 && !memcmp(p, "campaign", 8)) {
			m->campaign = strndup(nl + 1, (size_t)(end - nl - 1));
			return m->campaign ? 0 : -ENOMEM;
		}
		sp = memchr(p, ' ', (size_t)(nl - p));
		if (!sp)
			return -EBADMSG;
		vl = (size_t)(nl - sp - 1);
#define KEY(k) ((size_t)(sp - p) == strlen(k) && !memcmp(p, k, strlen(k)))
		if (KEY("run"))
			dst = m->run, cap = sizeof(m->run);
		else if (KEY("file"))
			dst = m->file, cap = sizeof(m->file);
		else if (KEY("listen"))
			dst = m->listen, cap = sizeof(m->listen);
		else if (KEY("key"))
			dst = m->key, cap = sizeof(m->key);
		else if (KEY("agent_keys"))
			dst = m->agent_keys, cap = sizeof(m->agent_keys);
		else if (KEY("insecure"))
			m->insecure = vl == 1 && sp[1] == '1';
		else if (KEY("start_ns"))
			m->start_ns = strtoll(sp + 1, NULL, 10);
		else if (KEY("shard") && !m->shard && !(m->shard = strndup(sp + 1, vl)))
			return -ENOMEM;
#undef KEY
		if (dst) {
			if (vl >= cap)
				return -EBADMSG;
			memcpy(dst, sp + 1, vl);
			dst[vl] = '\0';
		}
		p = nl + 1;
	}
	return -EBADMSG; /* no campaign */
}

/* a record names its agent: a NUL-terminated name before the envelope */
static bool journal_valid(void *state, const uint8_t *extra, const uint8_t *payload, uint32_t len)
{
	(void)state;
	(void)extra;
	return memchr(payload, '\0', len) != NULL;
}

/* the first record describes the run: damage there is no journal */
static const struct rb_reclog_fmt journal_fmt = {
	.max = RECORD_MAX,
	.whole_start = true,
	.valid = journal_valid,
};

struct journal_walk {
	const char *path;
	struct rb_journal_meta *meta;
	rb_journal_fn fn;
	void *arg;
	long n;
	char *err;
	size_t errlen;
};

static int journal_record(void *arg, const uint8_t *extra, const uint8_t *buf, uint32_t l, off_t at)
{
	struct journal_walk *w = arg;
	size_t nl = strnlen((const char *)buf, l);
	int rc;

	(void)extra;
	if (at == 0) {
		/* the first record describes the run */
		if (nl != 0 || (w->meta && parse_meta((const char *)buf + 1, l - 1, w->meta))) {
			snprintf(w->err, w->errlen,
				 "'%s' is not a rackbench journal (or an older "
				 "one without the run's description)",
				 w->path);
			return -EBADMSG;
		}
		return 0;
	}
	if (!w->fn || nl == 0)
		return 0;
	rc = w->fn(w->arg, (const char *)buf, buf + nl + 1, l - nl - 1, at);
	if (!rc)
		w->n++;
	return rc;
}

long rb_journal_walk_ex(const char *path, off_t from, struct rb_journal_meta *meta,
			rb_journal_fn fn, void *arg, struct rb_journal_walk_info *info, char *err,
			size_t errlen)
{
	struct journal_walk w = {
		.path = path, .meta = meta, .fn = fn, .arg = arg, .err = err, .errlen = errlen
	};
	struct rb_reclog_info ri;
	long r;

	if (meta)
		memset(meta, 0, sizeof(*meta));
	r = rb_reclog_walk(path, from, &journal_fmt, NULL, journal_record, &w, &ri);
	if (info) {
		memset(info, 0, sizeof(*info));
		info->end = r < 0 ? (from > 0 ? from : 0) : ri.end;
		info->damaged = ri.damaged;
		info->damaged_bytes = ri.damaged_bytes;
		info->first_damaged = ri.first_damaged;
	}
	if (r < 0) {
		if (r == -EINVAL)
			snprintf(err, errlen, "the journal '%s' is not a regular file", path);
		else
			snprintf(err, errlen, "cannot read the journal '%s': %s", path,
				 strerror((int)-r));
		return r;
	}
	if (ri.stopped)
		return ri.stopped;
	if (ri.end == 0) {
		snprintf(err, errlen, "the journal '%s' is empty or damaged at its start", path);
		return -EBADMSG;
	}
	return w.n;
}

long rb_journal_walk(const char *path, off_t from, struct rb_journal_meta *meta, rb_journal_fn fn,
		     void *arg, off_t *ret_end, char *err, size_t errlen)
{
	struct rb_journal_walk_info info;
	long n = rb_journal_walk_ex(path, from, meta, fn, arg, &info, err, errlen);

	if (ret_end)
		*ret_end = info.end;
	return n;
}

int rb_journal_open(const char *path, bool resume, int *ret_fd)
{
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (resume ? 0 : O_EXCL), 0644);
	if (fd < 0)
		return -errno;
	/* held for the whole run: a second coordinator (resume) of it is refused */
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;

		close(fd);
		return err;
	}
	if (resume) {
		char err[256];
		struct rb_journal_walk_info info;
		long n = rb_journal_walk_ex(path, 0, NULL, NULL, NULL, &info, err, sizeof(err));

		if (n < 0) {
			close(fd);
			return (int)n;
		}
		/*
		 * A record torn by the crash: cut off, the next one goes after the last whole
		 * one. Only a tail with no whole record after it: damage in the middle stays.
		 */
		if (ftruncate(fd, info.end)) {
			int e = -errno;

			close(fd);
			return e;
		}
	}
	*ret_fd = fd;
	return 0;
}

pid_t rb_journal_holder(const char *path)
{
	struct stat st;
	FILE *f;
	char line[512];
	pid_t pid = 0;

	if (stat(path, &st) || !(f = fopen("/proc/locks", "re")))
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" */
	while (!pid && fgets(line, sizeof(line), f)) {
		char type[16];
		int p;
		unsigned maj, min;
		unsigned long long ino;

		if (sscanf(line, "%*s %15s %*s %*s %d %x:%x:%llu", type, &p, &maj, &min, &ino) ==
			    5 &&
		    !strcmp(type, "FLOCK") && ino == (unsigned long long)st.st_ino &&
		    maj == major(st.st_dev) && min == minor(st.st_dev))
			pid = p;
	}
	fclose(f);
	return pid;
}

static int dump_one(void *arg, const char *agent, const uint8_t *buf, size_t len, off_t at)
{
	FILE *out = arg;
	struct rb_msg *e = NULL;
	char err[256];

	fprintf(out, "{\"at\": %lld, \"agent\": ", (long long)at);
	rb_json_str(out, agent);
	if (rb_msg_unpack(buf, len, &e, err, sizeof(err))) {
		fprintf(out, ", \"error\": ");
		rb_json_str(out, err);
	} else {
		fprintf(out, ", ");
		rb_msg_json_fields(out, e);
		rb_msg_free(e);
	}
	fprintf(out, "}\n");
	return 0;
}

long rb_journal_dump(const char *path, FILE *out, struct rb_journal_meta *meta, off_t *end,
		     char *err, size_t errlen)
{
	return rb_journal_walk(path, 0, meta, dump_one, out, end, err, errlen);
}
