/*
 * log.h - the daemon's diagnostics: one line per event of interest, to
 * stderr, or to syslog once the daemon has detached.
 */
#ifndef REFD_LOG_H
#define REFD_LOG_H

#include <syslog.h>

/* Call once from main; use_syslog opens syslog as "refd", facility daemon. */
void log_init(int use_syslog, int verbose);
void log_release(void);
void log_msg(int prio, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
