/* SPDX-License-Identifier: MIT */
/* Messages for users on stderr, prefixed by the program name. */
#ifndef RB_LOG_H
#define RB_LOG_H

enum rb_log_level { RB_LOG_ERROR, RB_LOG_WARN, RB_LOG_INFO, RB_LOG_DEBUG };

/* Sets the prefix ("rackbench-agent") and the most verbose level printed. */
void rb_log_init(const char *prog, enum rb_log_level max);
void rb_log(enum rb_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same message on fd instead of stderr (a service's own log while its stderr is a run's). */
void rb_log_fd(int fd, enum rb_log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Called before every message is printed (a live view erases itself); NULL: none. */
void rb_log_set_hook(void (*before)(void *arg), void *arg);

#define rb_err(...) rb_log(RB_LOG_ERROR, __VA_ARGS__)
#define rb_warn(...) rb_log(RB_LOG_WARN, __VA_ARGS__)
#define rb_info(...) rb_log(RB_LOG_INFO, __VA_ARGS__)
#define rb_debug(...) rb_log(RB_LOG_DEBUG, __VA_ARGS__)

#endif
