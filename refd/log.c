/*
 * log.c - diagnostics to stderr or syslog.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "log.h"

static int use_syslog_;
static int verbose_;

void
log_init(int use_syslog, int verbose)
{
	use_syslog_ = use_syslog;
	verbose_ = verbose;
	if (use_syslog)
		openlog("refd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void
log_release(void)
{
	if (use_syslog_)
		closelog();
	use_syslog_ = 0;
}

/* One line: "refd: message" on stderr (with a UTC time stamp), or the
 * message alone to syslog.  Debug lines only when verbose. */
void
log_msg(int prio, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	if (prio == LOG_DEBUG && !verbose_)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (use_syslog_) {
		syslog(prio, "%s", line);
	} else {
		char ts[32];
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
		fprintf(stderr, "%s refd: %s%s\n", ts,
		    prio <= LOG_ERR ? "error: " :
		    (prio == LOG_WARNING ? "warning: " : ""), line);
		fflush(stderr);
	}
}
