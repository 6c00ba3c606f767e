/*
 * fuzz.h - shared by the fuzz targets in tests/fuzz/ (see README.md there).
 *
 * Each target defines LLVMFuzzerTestOneInput (and may define
 * LLVMFuzzerInitialize).  `make fuzz` links them with libFuzzer (clang,
 * -fsanitize=fuzzer); `make all` links them with tests/fuzz/replay.c, a
 * main that feeds the files named on its command line, so that `make check`
 * replays the regression inputs with the ordinary compiler.
 *
 * Plugin targets choose their ruleset from the environment:
 *   FUZZ_PLUGIN   path of the plugin .so (default $REFD_BUILD/plugins/duel.so,
 *                 REFD_BUILD defaulting to "build")
 *   FUZZ_CONTENT  its content directory (default $REFD_BUILD/rulesets/NAME)
 */
#ifndef REFD_FUZZ_H
#define REFD_FUZZ_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "engine.h"
#include "refd/mp.h"

#define FUZZ_UNUSED __attribute__((unused))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

FUZZ_UNUSED static void
fuzz_die(const char *fmt, const char *a)
{
	fprintf(stderr, "fuzz: ");
	fprintf(stderr, fmt, a);
	fprintf(stderr, "\n");
	exit(2);
}

FUZZ_UNUSED static const char *
fuzz_build(void)
{
	const char *b = getenv("REFD_BUILD");

	return b != NULL && b[0] != '\0' ? b : "build";
}

/* The plugin under test, with its content loaded; never closed. */
FUZZ_UNUSED static struct plugin *
fuzz_plugin(void)
{
	static struct plugin *pl;
	char path[4096], cdir[4096], err[1024];
	const char *p = getenv("FUZZ_PLUGIN"), *c = getenv("FUZZ_CONTENT");

	if (pl != NULL)
		return pl;
	if (sodium_init() < 0)
		fuzz_die("%s", "libsodium: cannot initialise");
	if (p == NULL || p[0] == '\0') {
		snprintf(path, sizeof(path), "%s/plugins/duel.so", fuzz_build());
		p = path;
	}
	if (plugin_open(p, &pl, err, sizeof(err)) != REFD_OK)
		fuzz_die("%s", err);
	if (c == NULL || c[0] == '\0') {
		snprintf(cdir, sizeof(cdir), "%s/rulesets/%s", fuzz_build(),
		    pl->name);
		c = cdir;
	}
	if (access(c, F_OK) == 0 && plugin_load_content(pl, c, err,
	    sizeof(err)) != REFD_OK)
		fuzz_die("%s", err);
	return pl;
}

/* A fixed fair-dice key, so that a crash replays. */
FUZZ_UNUSED static void
fuzz_rng(struct rng *r, uint8_t salt)
{
	uint8_t key[32];

	memset(key, 0x5a, sizeof(key));
	key[0] = salt;
	rng_init_seed(r, key);
}

/* A private directory, removed at exit. */
static char fuzz_dir_path[4096];

static void
fuzz_dir_remove(void)
{
	char cmd[4200];

	if (fuzz_dir_path[0] != '\0' && getenv("FUZZ_KEEP") == NULL) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fuzz_dir_path);
		if (system(cmd) != 0)
			fprintf(stderr, "fuzz: cannot remove %s\n",
			    fuzz_dir_path);
	}
}

FUZZ_UNUSED static const char *
fuzz_dir(void)
{
	const char *t = getenv("TMPDIR");

	if (fuzz_dir_path[0] != '\0')
		return fuzz_dir_path;
	snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "%s/refd-fuzz-XXXXXX",
	    t != NULL && t[0] != '\0' ? t : "/tmp");
	if (mkdtemp(fuzz_dir_path) == NULL)
		fuzz_die("mkdtemp: %s", strerror(errno));
	atexit(fuzz_dir_remove);
	return fuzz_dir_path;
}

/*
 * What refd hands a plugin as a command or a setup: one well-formed msgpack
 * map, nested at most max-depth (16) deep, re-encoded by the host.
 */
FUZZ_UNUSED static int
fuzz_is_map(const uint8_t *data, size_t size)
{
	return size > 0 && refd_mp_check(data, size, 16) == 0 &&
	    ((data[0] & 0xf0) == 0x80 || data[0] == 0xde || data[0] == 0xdf);
}

#endif
