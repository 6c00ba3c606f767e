/*
 * paths.c - the default plugin and content directories, relative to the
 * running program (see paths.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"

#ifndef REFD_PLUGINDIR
#define REFD_PLUGINDIR "/usr/local/lib/refd/plugins"
#endif
#ifndef REFD_DATADIR
#define REFD_DATADIR "/usr/local/share/refd"
#endif

static int
isdir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Both dir/a and dir/b are directories: their real paths into the
 * buffers. */
static int
pair(const char *dir, const char *a, const char *b, char *pa, size_t na,
    char *pb, size_t nb)
{
	char x[PATH_MAX + 64], y[PATH_MAX + 64], *rx, *ry;
	int ok = 0;

	snprintf(x, sizeof(x), "%s/%s", dir, a);
	snprintf(y, sizeof(y), "%s/%s", dir, b);
	if (!isdir(x) || !isdir(y))
		return 0;
	rx = realpath(x, NULL);
	ry = realpath(y, NULL);
	if (rx != NULL && ry != NULL && strlen(rx) < na && strlen(ry) < nb) {
		snprintf(pa, na, "%s", rx);
		snprintf(pb, nb, "%s", ry);
		ok = 1;
	}
	free(rx);
	free(ry);
	return ok;
}

void
paths_default(char *plugins, size_t pn, char *rulesets, size_t rn)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL) {
			*slash = '\0';
			if (pair(exe, "../plugins", "../rulesets", plugins, pn,
			    rulesets, rn) ||
			    pair(exe, "../lib/refd/plugins",
			    "../share/refd/rulesets", plugins, pn, rulesets,
			    rn))
				return;
		}
	}
	snprintf(plugins, pn, "%s", REFD_PLUGINDIR);
	snprintf(rulesets, rn, "%s/rulesets", REFD_DATADIR);
}

void
paths_web(char *out, size_t n)
{
	char exe[PATH_MAX], p[PATH_MAX + 32], *slash, *r;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	static const char *const rel[] = { "../web", "../share/refd/web" };
	size_t i;

	if (len > 0) {
		exe[len] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL) {
			*slash = '\0';
			for (i = 0; i < 2; i++) {
				snprintf(p, sizeof(p), "%s/%s", exe, rel[i]);
				if (isdir(p) && (r = realpath(p, NULL)) != NULL) {
					snprintf(out, n, "%s", r);
					free(r);
					return;
				}
			}
		}
	}
	snprintf(out, n, "%s/web", REFD_DATADIR);
}
