/*
 * matchlib.h - helpers for the compiled tests of the match layer, the
 * event log and the verifier: the duel plugin from $REFD_BUILD, temporary
 * state directories, playing a match, editing log files frame by frame.
 */
#ifndef REFD_TEST_MATCHLIB_H
#define REFD_TEST_MATCHLIB_H

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evlog.h"
#include "match.h"

#define MATCHLIB_UNUSED __attribute__((unused))

static const char *build_dir;
static char reports[16384];

MATCHLIB_UNUSED static void
collect_report(void *arg, const char *line)
{
	size_t l = strlen(reports);

	(void)arg;
	snprintf(reports + l, sizeof(reports) - l, "%s\n", line);
}

/* The reports on one line, for test names. */
MATCHLIB_UNUSED static const char *
flat_reports(void)
{
	static char f[sizeof(reports)];
	size_t i;

	for (i = 0; reports[i] != '\0'; i++)
		f[i] = reports[i] == '\n' ? '|' : reports[i];
	f[i] = '\0';
	return f;
}

MATCHLIB_UNUSED static struct plugin *
open_duel(const char *so)
{
	struct plugin *pl = NULL;
	char path[4096], err[1024];

	build_dir = getenv("REFD_BUILD");
	if (build_dir == NULL)
		build_dir = "build";
	snprintf(path, sizeof(path), "%s/%s", build_dir, so);
	if (plugin_open(path, &pl, err, sizeof(err)) != REFD_OK) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/rulesets/duel", build_dir);
	if (plugin_load_content(pl, path, err, sizeof(err)) != REFD_OK) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	return pl;
}

MATCHLIB_UNUSED static char *
temp_dir(void)
{
	const char *t = getenv("TMPDIR");
	char *p = malloc(4096);

	snprintf(p, 4096, "%s/refd-test-XXXXXX", t ? t : "/tmp");
	if (mkdtemp(p) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
	return p;
}

MATCHLIB_UNUSED static void
remove_dir(char *p)
{
	char cmd[4200];

	if (getenv("REFD_KEEP") == NULL) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", p);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", p);
	} else {
		printf("# kept %s\n", p);
	}
	free(p);
}

MATCHLIB_UNUSED static void
default_config(struct match_config *c, const char *dir)
{
	memset(c, 0, sizeof(*c));
	c->state_dir = dir;
	c->fsync = FSYNC_ALWAYS;
	c->checkpoint_every = 4;
	c->max_matches = 100;
	c->max_match_memory = 16 << 20;
	c->max_log_bytes = 16 << 20;
	c->allow_scripted = 1;
}

MATCHLIB_UNUSED static const uint8_t ATTACK[] = { 0x81, 0xa4, 't', 'y', 'p', 'e', 0xa6, 'a',
	't', 't', 'a', 'c', 'k' };
MATCHLIB_UNUSED static const uint8_t DEFEND[] = { 0x81, 0xa4, 't', 'y', 'p', 'e', 0xa6, 'd',
	'e', 'f', 'e', 'n', 'd' };

/* Whose turn: the lowest pending seat. */
MATCHLIB_UNUSED static int
turn_of(struct match *m)
{
	struct match_err e;
	uint64_t seats = 0;

	if (match_pending(m, &seats, &e) != 0 || seats == 0)
		return -1;
	return (seats & 1) ? 0 : 1;
}

/* Play attacks until the end (or n commands); ids "<prefix><k>". */
MATCHLIB_UNUSED static int
play(struct matchset *ms, struct match *m, char tok[][MATCH_TOKEN_LEN + 1],
    const char *prefix, int n)
{
	struct act_result ar;
	struct match_err e;
	int k, s, done = 0;

	for (k = 0; k < n && !match_finished(m); k++) {
		char id[64];

		s = turn_of(m);
		if (s < 0)
			break;
		snprintf(id, sizeof(id), "%s%d", prefix, k);
		if (match_act(m, (uint32_t)s, tok[s], id, -1, ATTACK,
		    sizeof(ATTACK), &ar, &e) != 0) {
			printf("# act: %s\n", e.message);
			return -1;
		}
		if (matchset_sync(ms) != 0)
			return -1;
		done++;
	}
	return done;
}

MATCHLIB_UNUSED static int
new_duel(struct matchset *ms, const int64_t *dice, size_t ndice,
    struct match **m, char tok[][MATCH_TOKEN_LEN + 1])
{
	struct match_create_args a;
	struct match_err e;

	memset(&a, 0, sizeof(a));
	a.ruleset = "duel";
	a.scenario = "first-duel";
	a.dice = dice;
	a.ndice = ndice;
	a.scripted = dice != NULL;
	if (match_create(ms, &a, m, &e) != 0 ||
	    match_join(*m, 0, (const uint8_t *)"seat zero", 9, tok[0],
	    &e) != 0 ||
	    match_join(*m, 1, (const uint8_t *)"seat one", 8, tok[1],
	    &e) != 0) {
		printf("# new_duel: %s\n", e.message);
		return -1;
	}
	return matchset_sync(ms);
}

/* Files. */

MATCHLIB_UNUSED static uint8_t *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc(n > 0 ? (size_t)n : 1);
	if (fread(b, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(b);
		return NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

MATCHLIB_UNUSED static int
write_file(const char *path, const uint8_t *b, size_t len)
{
	FILE *f = fopen(path, "wb");
	int rc;

	if (f == NULL)
		return -1;
	rc = fwrite(b, 1, len, f) == len ? 0 : -1;
	fclose(f);
	return rc;
}

MATCHLIB_UNUSED static void
log_path(struct match *m, const char *dir, char *out, size_t n)
{
	snprintf(out, n, "%s/matches/%s.log", dir, match_id(m));
}

/* Offsets of the frames of a log held in memory. */
MATCHLIB_UNUSED static size_t
frames(const uint8_t *b, size_t len, size_t *off, size_t max)
{
	size_t o = EVLOG_MAGIC_LEN, n = 0;

	while (o + EVLOG_FRAME_HEAD <= len && n < max) {
		size_t l = (size_t)b[o] << 24 | (size_t)b[o + 1] << 16 |
		    (size_t)b[o + 2] << 8 | b[o + 3];

		off[n++] = o;
		o += l + EVLOG_FRAME_OVERHEAD;
	}
	return n;
}

MATCHLIB_UNUSED static size_t
frame_len(const uint8_t *b, size_t off)
{
	return ((size_t)b[off] << 24 | (size_t)b[off + 1] << 16 |
	    (size_t)b[off + 2] << 8 | b[off + 3]) + EVLOG_FRAME_OVERHEAD;
}

MATCHLIB_UNUSED static uint8_t *
find_bytes(uint8_t *hay, size_t n, const uint8_t *needle, size_t m)
{
	size_t i;

	for (i = 0; i + m <= n; i++)
		if (memcmp(hay + i, needle, m) == 0)
			return hay + i;
	return NULL;
}

/* Recompute prev fields and frame hashes from frame k on, as a forger
 * who knows the format (but not the key) would. */
MATCHLIB_UNUSED static void
rechain(uint8_t *b, size_t len, size_t k)
{
	static const uint8_t prevkey[] = { 0xa4, 'p', 'r', 'e', 'v', 0xc4,
		0x20 };
	size_t off[4096], n = frames(b, len, off, 4096), i;

	for (i = k; i < n; i++) {
		size_t pl = frame_len(b, off[i]) - EVLOG_FRAME_OVERHEAD;
		uint8_t *p = b + off[i] + EVLOG_FRAME_HEAD;

		if (i > 0) {
			uint8_t *q = find_bytes(p, pl, prevkey,
			    sizeof(prevkey));
			size_t po = off[i - 1];
			size_t ppl = frame_len(b, po) - EVLOG_FRAME_OVERHEAD;

			if (q != NULL)
				memcpy(q + sizeof(prevkey),
				    b + po + EVLOG_FRAME_HEAD + ppl, 32);
		}
		evlog_hash(p, pl, p + pl);
	}
}

/* Run a command; its stdout+stderr in out; returns the exit status. */
MATCHLIB_UNUSED static int __attribute__((format(printf, 3, 4)))
run(char *out, size_t outlen, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	FILE *p;
	size_t n = 0;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	strncat(cmd, " 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	p = popen(cmd, "r");
	if (p == NULL)
		return -1;
	while (n + 1 < outlen) {
		size_t r = fread(out + n, 1, outlen - n - 1, p);

		if (r == 0)
			break;
		n += r;
	}
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
