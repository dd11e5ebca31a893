// SPDX-License-Identifier: MIT
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const char *prog_name = "rackbench";
static enum rb_log_level max_level = RB_LOG_INFO;
static void (*hook)(void *);
static void *hook_arg;

void rb_log_set_hook(void (*before)(void *arg), void *arg)
{
	hook = before;
	hook_arg = arg;
}

void rb_log_init(const char *prog, enum rb_log_level max)
{
	const char *env = getenv("RB_DEBUG");

	prog_name = prog;
	max_level = (env && *env) ? RB_LOG_DEBUG : max;
}

static const char *const tag[] = { "error: ", "warning: ", "", "debug: " };

void rb_log(enum rb_log_level lvl, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	if (lvl > max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (hook)
		hook(hook_arg);
	/* one write per line, so lines of several processes do not interleave */
	fprintf(stderr, "%s: %s%s\n", prog_name, tag[lvl], buf);
}

void rb_log_fd(int fd, enum rb_log_level lvl, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	if (lvl > max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dprintf(fd, "%s: %s%s\n", prog_name, tag[lvl], buf);
}
