/*
 * loader.c - every fixture plugin through the loader: each bad one is
 * refused with its own code and its own one-line diagnostic (file, field,
 * found vs expected, what to do); the good ones load after the refusals
 * and run a game; plugin_info describes a plugin without initialising it.
 *
 * Needs REFD_BUILD (the fixtures are in $REFD_BUILD/tests/plugins).
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "tap.h"

static char dir[4096];

static const char *
fx(const char *name)
{
	static char path[4200];

	snprintf(path, sizeof(path), "%s/%s.so", dir, name);
	return path;
}

/* Refused with code and exactly the message fmt, where %1 is the path. */
static void
refused(const char *name, int code, const char *want_fmt)
{
	struct plugin *pl = (struct plugin *)1;
	char err[1024], want[2048];
	const char *path = fx(name);
	const char *p;
	size_t o = 0;
	int rc;

	/* Expand each '@' in want_fmt to the path. */
	for (p = want_fmt; *p != '\0' && o + strlen(path) + 2 < sizeof(want);
	    p++) {
		if (*p == '@') {
			memcpy(want + o, path, strlen(path));
			o += strlen(path);
		} else {
			want[o++] = *p;
		}
	}
	want[o] = '\0';
	err[0] = '\0';
	rc = plugin_open(path, &pl, err, sizeof(err));
	is_int(rc, code, "%s: refused with %s", name, refd_errname(code));
	ok(pl == NULL, "%s: no plugin handed out", name);
	is_str(err, want, "%s: diagnostic", name);
	ok(strchr(err, '\n') == NULL, "%s: diagnostic is one line", name);
}

static void
loads_and_plays(const char *name)
{
	struct plugin *pl = NULL;
	struct game *g = NULL;
	struct call c;
	struct rng r;
	uint8_t key[32];
	uint64_t pend = 0;
	char err[1024] = "";
	int rc;

	rc = plugin_open(fx(name), &pl, err, sizeof(err));
	is_int(rc, REFD_OK, "%s: loads", name);
	if (rc != REFD_OK) {
		diag("%s", err);
		return;
	}
	is_str(pl->name, name, "%s: name from the descriptor", name);
	ok(pl->describe != NULL && pl->describe_len > 0,
	    "%s: describe output kept", name);
	call_init(&c);
	memset(key, 7, sizeof(key));
	rng_init_seed(&r, key);
	pl->content = malloc(1);
	pl->content[0] = 0x80;
	pl->content_len = 1;
	is_int(plugin_set_content(pl, &c), REFD_OK, "%s: content accepted",
	    name);
	rc = game_create(pl, (const uint8_t *)"\x80", 1, 2, &r, 0, &g, &c);
	is_int(rc, REFD_OK, "%s: creates a game", name);
	is_int(c.nev, 2, "%s: create emitted one secret per seat", name);
	if (g != NULL) {
		is_int(game_apply(g, 0, (const uint8_t *)"\x82\xa4type\xa3"
		    "add\xa1n\x02", 13, &c), REFD_OK, "%s: applies a command",
		    name);
		is_int(game_apply(g, 0, (const uint8_t *)"\x82\xa4type\xa3"
		    "add\xa1n\x02", 13, &c), REFD_ENOTYOURTURN,
		    "%s: rejects a command out of turn", name);
		game_pending(g, &pend, &c);
		is_int(pend, 2, "%s: seat 1 owes the next decision", name);
	}
	game_destroy(g);
	call_release(&c);
	rng_release(&r);
	plugin_close(pl);
}

/*
 * REFD_PF_ROLLBACK: a rejected command that dirtied the state is undone by
 * the host; when the plugin cannot restore its own snapshot, the apply is
 * a plugin fault, never a silent rejection over a damaged state.
 */
static void
rollback(void)
{
	struct plugin *pl = NULL;
	struct game *g = NULL;
	struct call c;
	struct rng r;
	uint8_t key[32];
	char err[1024] = "";
	size_t n0 = 0, n1 = 0;
	uint8_t *s0 = NULL, *s1 = NULL;
	static const uint8_t bad[] = "\x82\xa4type\xa3" "add\xa1n\x09";
	static const char *const setups[] = {
		"\x81\xa5" "fault\xac" "dirty_reject",
		"\x81\xa5" "fault\xab" "bad_restore",
	};

	if (plugin_open(fx("rollback"), &pl, err, sizeof(err)) != REFD_OK) {
		ok(0, "rollback: loads");
		diag("%s", err);
		return;
	}
	call_init(&c);
	memset(key, 3, sizeof(key));
	rng_init_seed(&r, key);
	pl->content = malloc(1);
	pl->content[0] = 0x80;
	pl->content_len = 1;
	plugin_set_content(pl, &c);

	is_int(game_create(pl, (const uint8_t *)setups[0],
	    strlen(setups[0]), 2, &r, 0, &g, &c), REFD_OK,
	    "rollback: create with a plugin that dirties rejected states");
	game_serialize(g, &c);
	s0 = buf_detach(&c.out, &n0);
	is_int(game_apply(g, 0, bad, sizeof(bad) - 1, &c), REFD_ERANGE,
	    "rollback: out-of-range add rejected");
	game_serialize(g, &c);
	s1 = buf_detach(&c.out, &n1);
	ok(n0 == n1 && memcmp(s0, s1, n0) == 0,
	    "rollback: the host put the dirtied state back");
	free(s0);
	free(s1);
	game_destroy(g);
	g = NULL;

	is_int(game_create(pl, (const uint8_t *)setups[1],
	    strlen(setups[1]), 2, &r, 0, &g, &c), REFD_OK,
	    "rollback: create with a plugin whose restore fails");
	is_int(game_apply(g, 0, bad, sizeof(bad) - 1, &c), REFD_EPLUGINFAULT,
	    "rollback: a rejection that cannot be undone is a plugin fault");
	ok(strstr(c.fault, "restore of the snapshot") != NULL,
	    "rollback: and the fault says why");
	game_destroy(g);
	call_release(&c);
	rng_release(&r);
	plugin_close(pl);
}

static void
info(const char *name, const char *want_line)
{
	struct buf b;
	char err[1024] = "";
	int rc;

	buf_init(&b);
	rc = plugin_info(fx(name), &b, err, sizeof(err));
	buf_add(&b, "", 1);
	is_int(rc, REFD_OK, "%s: plugin_info reads it", name);
	ok(strstr((char *)b.data, want_line) != NULL, "%s: info shows '%s'",
	    name, want_line);
	if (strstr((char *)b.data, want_line) == NULL)
		diag("%s", (char *)b.data);
	buf_release(&b);
}

int
main(void)
{
	const char *bd = getenv("REFD_BUILD");
	char tmp[] = "/tmp/refd-loader-XXXXXX", cmd[8400], path[4200];
	char err[1024];
	struct plugin *pl;
	char want[100];

	if (bd == NULL) {
		printf("1..0 # SKIP REFD_BUILD is not set\n");
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/tests/plugins", bd);

	refused("bad_magic", REFD_EMAGIC,
	    "plugin '@': magic: found 0x46455253, expected 0x52454644; not a "
	    "refd plugin or a damaged file, rebuild it");
	refused("newer_major", REFD_EABIMAJOR,
	    "plugin '@': abi major: found 2 (symbol 'refd_plugin_v2'), "
	    "expected 1; upgrade refd, or rebuild the plugin against this "
	    "refd's SDK");
	snprintf(want, sizeof(want), "%u", REFD_ABI_MINOR + 1);
	{
		char fmt[512];

		snprintf(fmt, sizeof(fmt),
		    "plugin '@': abi minor: found %u, expected at most %u; "
		    "upgrade refd to ABI 1.%u, or rebuild the plugin against "
		    "this refd's SDK", REFD_ABI_MINOR + 1, REFD_ABI_MINOR,
		    REFD_ABI_MINOR + 1);
		refused("newer_minor", REFD_EABIMINOR, fmt);
		snprintf(fmt, sizeof(fmt),
		    "plugin '@': size: found %u, expected %u for ABI 1.%u; the "
		    "descriptor does not match its version, rebuild the plugin "
		    "against an unmodified SDK",
		    (unsigned)sizeof(struct refd_plugin) + 64,
		    (unsigned)sizeof(struct refd_plugin), REFD_ABI_MINOR);
		refused("size_too_big", REFD_EABISIZE, fmt);
	}
	refused("size_lies", REFD_EABISIZE, "plugin '@': size: found 4160, "
	    "but the descriptor object is 64 bytes; the descriptor is "
	    "damaged, rebuild the plugin");
	refused("entry_function", REFD_ENOENTRY, "plugin '@': entry: "
	    "'refd_plugin_v1' is a function, expected a const data object; "
	    "define the plugin with REFD_PLUGIN_DEFINE");
	refused("wild_ops", REFD_EOPS, "plugin '@': ops: found a pointer "
	    "outside the plugin, expected the plugin's own ops table; the "
	    "descriptor is damaged, rebuild the plugin");
	refused("no_entry", REFD_ENOENTRY,
	    "plugin '@': entry: symbol 'refd_plugin_v1' not found; define the "
	    "plugin with REFD_PLUGIN_DEFINE from <refd/plugin.h>");
	refused("init_fails", REFD_EINIT,
	    "plugin '@': init: returned EINIT (-309), expected OK: the "
	    "fixture refuses to start; fix what the plugin reports");
	refused("name_mismatch", REFD_ENAME,
	    "plugin '@': name: found 'someone_else', expected 'name_mismatch' "
	    "(the file name); rename the file to 'someone_else.so' or fix the "
	    "descriptor");
	refused("unknown_cap", REFD_ECAPS,
	    "plugin '@': required caps: found 0x10000000003, this refd knows "
	    "0x7 (unknown 0x10000000000); upgrade refd");
	refused("does_not_exist", REFD_EDLOPEN,
	    "plugin '@': file: cannot open: No such file or directory; check "
	    "the path");

	/* A group-writable copy is refused before it is opened. */
	if (mkdtemp(tmp) != NULL) {
		snprintf(path, sizeof(path), "%s/good.so", tmp);
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod 664 '%s'",
		    fx("good"), path, path);
		if (system(cmd) == 0) {
			char wantp[9000];

			pl = NULL;
			is_int(plugin_open(path, &pl, err, sizeof(err)),
			    REFD_EPERM, "group-writable plugin refused");
			snprintf(wantp, sizeof(wantp),
			    "plugin '%s': file mode: found 664, expected no "
			    "group or world write; run 'chmod go-w %s'", path,
			    path);
			is_str(err, wantp, "group-writable: diagnostic");
			/* Renamed copies are refused by name. */
			snprintf(cmd, sizeof(cmd), "chmod 644 '%s' && mv '%s' "
			    "'%s/other.so'", path, path, tmp);
			if (system(cmd) == 0) {
				snprintf(path, sizeof(path), "%s/other.so", tmp);
				is_int(plugin_open(path, &pl, err, sizeof(err)),
				    REFD_ENAME, "renamed plugin refused by name");
			}
		}
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			diag("could not remove %s", tmp);
	}

	/* After all the refusals, the good ones still load and play. */
	loads_and_plays("good");
	loads_and_plays("good_old_minor");
	loads_and_plays("faulty");
	loads_and_plays("good");

	rollback();

	info("good", "loadable: yes");
	info("good", "op redeal: yes");
	info("good_old_minor", "abi: 1.0");
	info("init_fails", "loadable: yes");
	info("bad_magic", "magic: 0x46455253 (wrong)");
	info("name_mismatch", "loadable: plugin '");
	return done_testing();
}
