// SPDX-License-Identifier: MIT
#include "history.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "jsonout.h"
#include "log.h"
#include "options.h"

/* The string value of "key" in one line we wrote (no escapes inside), into buf. */
static const char *field_str(const char *line, const char *key, char *buf, size_t len)
{
	char pat[64];
	const char *p, *e;

	snprintf(pat, sizeof(pat), "\"%s\": \"", key);
	p = strstr(line, pat);
	buf[0] = '\0';
	if (!p)
		return buf;
	p += strlen(pat);
	e = strchr(p, '"');
	if (!e)
		return buf;
	snprintf(buf, len, "%.*s", (int)(e - p), p);
	return buf;
}

static int64_t field_i64(const char *line, const char *key, int64_t dflt)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(line, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : dflt;
}

void rb_history_read(const char *state_dir, const char *device, const char *serial,
		     struct rb_drive_history *out)
{
	char file[PATH_MAX], line[4096], dev[PATH_MAX], ser[128], ev[32];
	FILE *f;

	memset(out, 0, sizeof(*out));
	if (!state_dir || !*state_dir)
		return;
	snprintf(file, sizeof(file), "%s/history.jsonl", state_dir);
	f = fopen(file, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		field_str(line, "serial", ser, sizeof(ser));
		field_str(line, "device", dev, sizeof(dev));
		/* the serial names a drive wherever it sits; without one, the path does */
		if (serial && *serial ? strcmp(ser, serial) : (*ser || strcmp(dev, device)))
			continue;
		int64_t t = field_i64(line, "time_ns", 0);

		if (!out->first_ns)
			out->first_ns = t;
		field_str(line, "event", ev, sizeof(ev));
		if (!strcmp(ev, "purge") && field_i64(line, "result", -1) == 0) {
			out->purge_ns = t;
			field_str(line, "method", out->purge_method, sizeof(out->purge_method));
			out->written_bytes = 0;
			out->fill_passes = 0;
		} else if (!strcmp(ev, "write")) {
			out->written_bytes += (uint64_t)field_i64(line, "bytes", 0);
			out->fill_passes += (uint64_t)field_i64(line, "fill_passes", 0);
		}
	}
	fclose(f);
}

/* Opens STATE_DIR/history.jsonl to append a record begun with its time, device and serial. */
static FILE *record(const char *state_dir, const char *device, const char *serial)
{
	char file[PATH_MAX];
	FILE *f;

	struct stat st;
	int fd;

	mkdir(state_dir, 0700);
	snprintf(file, sizeof(file), "%s/history.jsonl", state_dir);
	/* never through a link someone put there: the history is rackbench's own file */
	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1 || !(f = fdopen(fd, "a"))) {
		close(fd);
		errno = EPERM;
		return NULL;
	}
	fprintf(f, "{\"time_ns\": %" PRId64 ", \"device\": ", rb_wall_ns());
	rb_json_str(f, device);
	fputs(", \"serial\": ", f);
	rb_json_str(f, serial ? serial : "");
	return f;
}

int rb_history_add_purge(const char *state_dir, const char *device, const char *serial,
			 const char *method, int result)
{
	FILE *f;

	if (!state_dir || !*state_dir)
		return 0;
	f = record(state_dir, device, serial);
	if (!f)
		return -errno;
	fputs(", \"event\": \"purge\", \"method\": ", f);
	rb_json_str(f, method);
	fprintf(f, ", \"result\": %d}\n", result);
	return fclose(f) ? -EIO : 0;
}

int rb_history_add_write(const char *state_dir, const char *device, const char *serial,
			 uint64_t bytes, uint64_t fill_passes, const char *what)
{
	FILE *f;

	if (!state_dir || !*state_dir)
		return 0;
	f = record(state_dir, device, serial);
	if (!f)
		return -errno;
	fprintf(f,
		", \"event\": \"write\", \"bytes\": %" PRIu64 ", \"fill_passes\": %" PRIu64
		", \"what\": ",
		bytes, fill_passes);
	rb_json_str(f, what);
	fputs("}\n", f);
	return fclose(f) ? -EIO : 0;
}

void rb_history_note_run(const char *state_dir, const char *device, const char *serial,
			 const struct rb_workload *wl, uint64_t written, uint64_t span,
			 const char *what)
{
	uint64_t passes = wl->rw == RB_RW_WRITE && span ? written / span : 0;
	int r;

	if (!written)
		return;
	r = rb_history_add_write(state_dir, device, serial, written, passes, what);
	if (r)
		rb_warn("cannot record the drive history in '%s/history.jsonl': %s", state_dir,
			strerror(-r));
}
