/*
 * run.c - the one scenario runner: replays every rules scenario under
 * tests/scenarios/RULESET/NAME.json through the real plugin with scripted
 * dice and checks events, errors, views, legal lists and results.
 *
 * Usage: run [FILE.json ...]   (default: every scenario of every built
 * ruleset).  Environment: REFD_BUILD (build dir), REFD_SRC (source dir).
 * The file format is documented in tests/scenarios/README.md.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "engine.h"
#include "jsonmp.h"
#include "tap.h"

static const char *build_dir = "build";
static const char *src_dir = ".";

/* Does `got` contain everything `want` says?  Objects: every key of want,
 * recursively; arrays: same length, item by item; scalars: equal (an
 * integer equals a real of the same value). */
static int
subset(const json_t *want, const json_t *got)
{
	const char *k;
	json_t *v;
	size_t i;

	if (got == NULL)
		return 0;
	if (json_is_string(want) && strcmp(json_string_value(want), "$any") == 0)
		return 1;
	if (json_is_object(want)) {
		if (!json_is_object(got))
			return 0;
		json_object_foreach((json_t *)want, k, v) {
			if (json_is_string(v) &&
			    strcmp(json_string_value(v), "$absent") == 0) {
				if (json_object_get(got, k) != NULL)
					return 0;
			} else if (!subset(v, json_object_get(got, k))) {
				return 0;
			}
		}
		return 1;
	}
	if (json_is_array(want)) {
		if (!json_is_array(got) || json_array_size(got) !=
		    json_array_size(want))
			return 0;
		json_array_foreach(want, i, v)
			if (!subset(v, json_array_get(got, i)))
				return 0;
		return 1;
	}
	if (json_is_number(want) && json_is_number(got))
		return json_number_value(want) == json_number_value(got);
	return json_equal((json_t *)want, (json_t *)got);
}

static json_t *
bytes_json(const uint8_t *b, size_t n)
{
	refd_mpdoc *d = refd_mp_parse(b, n);
	json_t *j;

	if (d == NULL)
		return NULL;
	j = mp_to_json(refd_mp_root(d));
	refd_mp_free(d);
	return j;
}

static json_t *
events_json(const struct call *c)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < c->nev; i++) {
		json_t *e = bytes_json(c->ev[i].bytes, c->ev[i].len);

		if (e == NULL)
			e = json_object();
		if (c->ev[i].seat != REFD_SEAT_PUBLIC)
			json_object_set_new(e, "_to", json_integer(c->ev[i].seat));
		json_array_append_new(a, e);
	}
	return a;
}

static void
diag_json(const char *what, const json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

	diag("%s: %s", what, s ? s : "(none)");
	free(s);
}

/* Expected events must appear in order among the emitted ones. */
static int
events_match(const json_t *want, const json_t *got, int exact)
{
	size_t wi = 0, gi = 0;

	if (exact && json_array_size(want) != json_array_size(got))
		return 0;
	while (wi < json_array_size(want) && gi < json_array_size(got)) {
		if (subset(json_array_get(want, wi), json_array_get(got, gi)))
			wi++;
		else if (exact)
			return 0;
		gi++;
	}
	return wi == json_array_size(want);
}

static int
json_bytes(const json_t *j, uint8_t **out, size_t *len)
{
	refd_mpw *w = refd_mpw_create();

	if (w == NULL)
		return -1;
	json_to_mp(j, w);
	if (refd_mpw_error(w)) {
		refd_mpw_destroy(w);
		return -1;
	}
	*len = refd_mpw_len(w);
	*out = malloc(*len);
	memcpy(*out, refd_mpw_data(w), *len);
	refd_mpw_destroy(w);
	return 0;
}

/* An empty expectation, shared (and reachable, so never a leak). */
static json_t *
empty(void)
{
	static json_t *e;

	if (e == NULL)
		e = json_object();
	return e;
}

static int
check_error(const char *label, int rc, const struct call *c, const json_t *exp)
{
	const json_t *want_err = json_object_get(exp, "error");
	const json_t *want_rule = json_object_get(exp, "rule");
	const json_t *want_msg = json_object_get(exp, "message_contains");

	if (want_err == NULL) {
		if (!ok(rc == REFD_OK, "%s accepted", label)) {
			diag("rejected: %s (%s) %s: %s", refd_errname(rc),
			    c->reject_rule, c->fault, c->reject_msg);
			return 0;
		}
		return 1;
	}
	if (!ok(rc != REFD_OK && strcmp(refd_errname(rc),
	    json_string_value(want_err)) == 0, "%s rejected with %s", label,
	    json_string_value(want_err))) {
		diag("got: %s rule '%s': %s", refd_errname(rc), c->reject_rule,
		    c->reject_msg);
		return 0;
	}
	if (want_rule != NULL)
		is_str(c->reject_rule, json_string_value(want_rule),
		    "%s cites rule %s", label, json_string_value(want_rule));
	if (want_msg != NULL)
		ok(strstr(c->reject_msg, json_string_value(want_msg)) != NULL,
		    "%s message mentions '%s' (got: %s)", label,
		    json_string_value(want_msg), c->reject_msg);
	return 1;
}

static struct plugin *
get_plugin(const char *name, char *err, size_t errlen)
{
	static struct plugin *cache[16];
	static int ncache;
	char path[4096], cdir[4096];
	struct plugin *pl;
	int i;

	for (i = 0; i < ncache; i++)
		if (strcmp(cache[i]->name, name) == 0)
			return cache[i];
	snprintf(path, sizeof(path), "%s/plugins/%s.so", build_dir, name);
	if (access(path, R_OK) != 0) {
		snprintf(err, errlen, "plugin %s is not built", path);
		return NULL;
	}
	if (plugin_open(path, &pl, err, errlen) != REFD_OK)
		return NULL;
	snprintf(cdir, sizeof(cdir), "%s/rulesets/%s", build_dir, name);
	if (plugin_load_content(pl, cdir, err, errlen) != REFD_OK) {
		plugin_close(pl);
		return NULL;
	}
	if (ncache < 16)
		cache[ncache++] = pl;
	return pl;
}

static void
view_check(struct game *g, const json_t *step, const char *label,
    struct call *c)
{
	json_t *seatj = json_object_get(step, "view");
	int32_t seat = (int32_t)json_integer_value(seatj);
	json_t *got;
	int rc = game_view(g, seat, c);

	got = rc == REFD_OK ? bytes_json(c->out.data, c->out.len) : NULL;
	if (!ok(got != NULL && subset(json_object_get(step, "expect"), got),
	    "%s view of seat %d", label, (int)seat)) {
		diag_json("expected", json_object_get(step, "expect"));
		diag_json("got", got);
	}
	json_decref(got);
}

static void
legal_check(struct game *g, const json_t *step, const char *label,
    struct call *c)
{
	uint32_t seat = (uint32_t)json_integer_value(json_object_get(step,
	    "legal"));
	const json_t *has = json_object_get(step, "contains");
	const json_t *hasnt = json_object_get(step, "excludes");
	const json_t *count = json_object_get(step, "count");
	json_t *got, *v, *item;
	size_t i, j;
	int rc = game_legal(g, seat, c);

	got = rc == REFD_OK ? bytes_json(c->out.data, c->out.len) : NULL;
	if (!ok(got != NULL && json_is_array(got), "%s legal list of seat %u",
	    label, seat)) {
		json_decref(got);
		return;
	}
	json_array_foreach(has, i, v) {
		int found = 0;

		json_array_foreach(got, j, item)
			if (subset(v, json_object_get(item, "cmd")))
				found = 1;
		if (!ok(found, "%s legal list has item %zu", label, i)) {
			diag_json("wanted", v);
			diag_json("list", got);
		}
	}
	json_array_foreach(hasnt, i, v) {
		int found = 0;

		json_array_foreach(got, j, item)
			if (subset(v, json_object_get(item, "cmd")))
				found = 1;
		if (!ok(!found, "%s legal list lacks item %zu", label, i))
			diag_json("unwanted", v);
	}
	if (count != NULL)
		is_int(json_array_size(got), json_integer_value(count),
		    "%s legal list size", label);
	json_decref(got);
}

static void
run_file(const char *path, const char *ruleset)
{
	json_error_t je;
	json_t *sc = json_load_file(path, 0, &je), *dice, *steps, *step, *v;
	struct plugin *pl;
	struct game *g = NULL;
	struct rng rng;
	struct call c;
	char err[1024], label[512];
	int64_t *dv = NULL;
	size_t nd, i;
	uint8_t *setup = NULL;
	size_t setup_len = 0;
	const char *name;
	int rc;

	if (sc == NULL) {
		ok(0, "%s parses: line %d: %s", path, je.line, je.text);
		return;
	}
	name = json_string_value(json_object_get(sc, "name"));
	if (name == NULL)
		name = path;
	pl = get_plugin(ruleset, err, sizeof(err));
	if (pl == NULL) {
		/* A scenario whose plugin or content cannot be loaded fails:
		 * skipping it would hide a broken build or content file. */
		ok(0, "%s: %s", name, err);
		json_decref(sc);
		return;
	}
	dice = json_object_get(sc, "dice");
	nd = json_array_size(dice);
	dv = calloc(nd + 1, sizeof(*dv));
	json_array_foreach(dice, i, v)
		dv[i] = json_integer_value(v);
	rng_init_script(&rng, dv, nd);
	free(dv);
	call_init(&c);
	if (json_object_get(sc, "scenario") != NULL) {
		const struct scenario *s = plugin_scenario(pl,
		    json_string_value(json_object_get(sc, "scenario")));

		if (!ok(s != NULL, "%s: scenario exists", name))
			goto out;
		setup = malloc(s->setup_len);
		memcpy(setup, s->setup, s->setup_len);
		setup_len = s->setup_len;
	} else if (json_bytes(json_object_get(sc, "setup") ?
	    json_object_get(sc, "setup") : empty(), &setup,
	    &setup_len) != 0) {
		ok(0, "%s: setup encodes", name);
		goto out;
	}
	rc = game_create(pl, setup, setup_len,
	    json_object_get(sc, "seats") ? (uint32_t)json_integer_value(
	    json_object_get(sc, "seats")) : pl->desc->min_seats, &rng, 0, &g,
	    &c);
	snprintf(label, sizeof(label), "%s: create", name);
	if (json_object_get(sc, "create") != NULL) {
		check_error(label, rc, &c, json_object_get(sc, "create"));
		if (rc != REFD_OK)
			goto out;
	} else if (!check_error(label, rc, &c, empty())) {
		goto out;
	}
	if (json_object_get(sc, "create_events") != NULL) {
		json_t *got = events_json(&c);

		if (!ok(events_match(json_object_get(sc, "create_events"), got,
		    0), "%s events", label))
			diag_json("events", got);
		json_decref(got);
	}
	steps = json_object_get(sc, "steps");
	json_array_foreach(steps, i, step) {
		const char *note = json_string_value(json_object_get(step,
		    "note"));

		snprintf(label, sizeof(label), "%s: step %zu%s%s", name, i + 1,
		    note ? " " : "", note ? note : "");
		if (json_object_get(step, "view") != NULL) {
			view_check(g, step, label, &c);
			continue;
		}
		if (json_object_get(step, "legal") != NULL) {
			legal_check(g, step, label, &c);
			continue;
		}
		if (json_object_get(step, "pending") != NULL) {
			uint64_t seats = 0;
			json_t *want = json_object_get(step, "pending"), *p;
			uint64_t wm = 0;
			size_t k;

			json_array_foreach(want, k, p)
				wm |= (uint64_t)1 << json_integer_value(p);
			game_pending(g, &seats, &c);
			is_int((long long)seats, (long long)wm,
			    "%s pending seats", label);
			continue;
		}
		{
			uint8_t *cmd;
			size_t cl;
			json_t *got;
			const json_t *exp = json_object_get(step, "expect");

			if (json_bytes(json_object_get(step, "cmd"), &cmd,
			    &cl) != 0) {
				ok(0, "%s command encodes", label);
				continue;
			}
			rc = game_apply(g, (uint32_t)json_integer_value(
			    json_object_get(step, "seat")), cmd, cl, &c);
			free(cmd);
			if (!check_error(label, rc, &c, exp ? exp :
			    empty()))
				continue;
			got = events_json(&c);
			if (json_object_get(step, "events") != NULL &&
			    !ok(events_match(json_object_get(step, "events"),
			    got, json_is_true(json_object_get(step,
			    "events_exact"))), "%s events", label)) {
				diag_json("expected", json_object_get(step,
				    "events"));
				diag_json("got", got);
			}
			json_decref(got);
		}
	}
	if (json_object_get(sc, "dice_left") != NULL)
		is_int((long long)(g->rng.nscript - g->rng.pos),
		    json_integer_value(json_object_get(sc, "dice_left")),
		    "%s: scripted dice left", name);
	if (json_object_get(sc, "expect_state") != NULL) {
		json_t *got;

		rc = game_view(g, REFD_SEAT_PUBLIC, &c);
		got = rc == REFD_OK ? bytes_json(c.out.data, c.out.len) : NULL;
		if (!ok(subset(json_object_get(sc, "expect_state"), got),
		    "%s: final state", name)) {
			diag_json("expected", json_object_get(sc,
			    "expect_state"));
			diag_json("got", got);
		}
		json_decref(got);
	}
	if (json_object_get(sc, "expect_result") != NULL) {
		json_t *got = NULL;

		rc = game_result(g, &c);
		if (rc == 1)
			got = bytes_json(c.out.data, c.out.len);
		if (!ok(subset(json_object_get(sc, "expect_result"), got),
		    "%s: result", name))
			diag_json("got", got);
		json_decref(got);
	}
out:
	free(setup);
	game_destroy(g);
	call_release(&c);
	rng_release(&rng);
	json_decref(sc);
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
run_dir(const char *dir, const char *ruleset)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) {
			names = realloc(names, (n + 1) * sizeof(*names));
			names[n++] = strdup(e->d_name);
		}
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmpstr);
	for (i = 0; i < n; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		run_file(path, ruleset);
		free(names[i]);
	}
	free(names);
}

int
main(int argc, char **argv)
{
	char root[4096];
	DIR *d;
	struct dirent *e;
	char **rs = NULL;
	size_t n = 0, i;
	int a;

	if (getenv("REFD_BUILD"))
		build_dir = getenv("REFD_BUILD");
	if (getenv("REFD_SRC"))
		src_dir = getenv("REFD_SRC");
	if (argc > 1) {
		for (a = 1; a < argc; a++) {
			/* tests/scenarios/<ruleset>/<file>.json */
			char *p = strdup(argv[a]), *slash, *rsn;

			slash = strrchr(p, '/');
			if (slash == NULL) {
				ok(0, "%s: path must be <ruleset>/<file>", p);
				free(p);
				continue;
			}
			*slash = '\0';
			rsn = strrchr(p, '/');
			run_file(argv[a], rsn ? rsn + 1 : p);
			free(p);
		}
		return done_testing();
	}
	snprintf(root, sizeof(root), "%s/tests/scenarios", src_dir);
	d = opendir(root);
	if (d == NULL) {
		ok(0, "open %s", root);
		return done_testing();
	}
	while ((e = readdir(d)) != NULL) {
		char p[4200];
		DIR *sub;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", root, e->d_name);
		sub = opendir(p);
		if (sub == NULL)
			continue;
		closedir(sub);
		rs = realloc(rs, (n + 1) * sizeof(*rs));
		rs[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(rs, n, sizeof(*rs), cmpstr);
	for (i = 0; i < n; i++) {
		char p[4200];

		snprintf(p, sizeof(p), "%s/%s", root, rs[i]);
		run_dir(p, rs[i]);
		free(rs[i]);
	}
	free(rs);
	return done_testing();
}
