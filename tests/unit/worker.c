/*
 * worker.c - plugin games in worker processes (refd/worker.c), through
 * the engine's game_* calls:
 *  - a duel played in a worker gives exactly what it gives in-process:
 *    return values, events, draws, commitments, outputs and state hashes,
 *    with seeded and with scripted draws;
 *  - events must be maps with string keys and UTF-8 strings;
 *  - a crash (segfault, abort) or an overrun costs the op it happened in:
 *    EPLUGINFAULT with fault_reason "crash" or "timeout"; the other games
 *    of the plugin go on from their saved states in a new worker, and so
 *    does the game that crashed.
 */
#include <time.h>

#include "tap.h"
#include "matchlib.h"
#include "worker.h"

static uint8_t key[32] = { 7, 1, 2, 3 };

static struct plugin *
open_fixture(const char *name)
{
	struct plugin *pl = NULL;
	char path[4096], err[1024];
	struct call c;

	snprintf(path, sizeof(path), "%s/tests/plugins/%s.so", build_dir,
	    name);
	if (plugin_open(path, &pl, err, sizeof(err)) != REFD_OK) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	call_init(&c);
	free(pl->content);
	pl->content = (uint8_t *)strdup("\x80");
	pl->content_len = 1;
	if (plugin_set_content(pl, &c) != REFD_OK) {
		printf("Bail out! content for %s\n", name);
		exit(1);
	}
	call_release(&c);
	return pl;
}

/* Whether two calls carry the same results. */
static int
same_call(const struct call *a, const struct call *b, const char *what)
{
	size_t i;

	if (a->out.len != b->out.len || (a->out.len > 0 &&
	    memcmp(a->out.data, b->out.data, a->out.len) != 0)) {
		diag("%s: outputs differ", what);
		return 0;
	}
	if (a->nev != b->nev || a->ndr != b->ndr || a->ncm != b->ncm ||
	    a->reject_code != b->reject_code ||
	    strcmp(a->reject_msg, b->reject_msg) != 0 ||
	    strcmp(a->fault, b->fault) != 0) {
		diag("%s: %zu/%zu events, %zu/%zu draws, %zu/%zu commitments, "
		    "rejection %d/%d", what, a->nev, b->nev, a->ndr, b->ndr,
		    a->ncm, b->ncm, a->reject_code, b->reject_code);
		return 0;
	}
	for (i = 0; i < a->nev; i++)
		if (a->ev[i].seat != b->ev[i].seat || a->ev[i].len !=
		    b->ev[i].len || memcmp(a->ev[i].bytes, b->ev[i].bytes,
		    a->ev[i].len) != 0) {
			diag("%s: event %zu differs", what, i);
			return 0;
		}
	for (i = 0; i < a->ndr; i++)
		if (a->dr[i].index != b->dr[i].index || a->dr[i].kind !=
		    b->dr[i].kind || a->dr[i].bound != b->dr[i].bound ||
		    a->dr[i].value != b->dr[i].value ||
		    strcmp(a->dr[i].why, b->dr[i].why) != 0) {
			diag("%s: draw %zu differs", what, i);
			return 0;
		}
	for (i = 0; i < a->ncm; i++)
		if (strcmp(a->cm[i].zone, b->cm[i].zone) != 0 ||
		    a->cm[i].seat != b->cm[i].seat ||
		    memcmp(a->cm[i].hash, b->cm[i].hash, ENG_HASH_LEN) != 0 ||
		    a->cm[i].len != b->cm[i].len) {
			diag("%s: commitment %zu differs", what, i);
			return 0;
		}
	return 1;
}

/* The first command legal lists for the first pending seat, or NULL. */
static uint8_t *
first_legal(struct game *g, uint32_t *seat, size_t *len)
{
	struct call c;
	uint64_t seats = 0;
	refd_mpdoc *d;
	refd_mpv cmd;
	refd_mpw *w;
	uint8_t *out = NULL;

	call_init(&c);
	if (game_pending(g, &seats, &c) != REFD_OK || seats == 0) {
		call_release(&c);
		return NULL;
	}
	for (*seat = 0; !(seats & ((uint64_t)1 << *seat)); (*seat)++)
		;
	if (game_legal(g, *seat, &c) == REFD_OK) {
		d = refd_mp_parse(c.out.data, c.out.len);
		cmd = refd_mpv_get(refd_mpv_at(refd_mp_root(d), 0), "cmd");
		if (refd_mpv_type(cmd) == REFD_MP_MAP) {
			w = refd_mpw_create();
			refd_mpw_value(w, cmd);
			*len = refd_mpw_len(w);
			out = malloc(*len);
			memcpy(out, refd_mpw_data(w), *len);
			refd_mpw_destroy(w);
		}
		refd_mp_free(d);
	}
	call_release(&c);
	return out;
}

/* Play the same game in both plugins; returns the steps played. */
static int
play_both(struct plugin *in, struct plugin *out, const struct rng *r,
    const uint8_t *setup, size_t setup_len, uint32_t nseats)
{
	struct game *ga = NULL, *gb = NULL;
	struct call ca, cb;
	uint8_t ha[ENG_HASH_LEN], hb[ENG_HASH_LEN];
	int step, same = 1, rc;

	call_init(&ca);
	call_init(&cb);
	rc = game_create(in, setup, setup_len, nseats, r, 0, &ga, &ca);
	is_int(game_create(out, setup, setup_len, nseats, r, 0, &gb, &cb), rc,
	    "create: the same return value");
	ok(same_call(&ca, &cb, "create"), "create: the same events and draws");
	if (ga == NULL || gb == NULL)
		return 0;
	for (step = 0; step < 400 && same; step++) {
		uint32_t seat = 0;
		size_t len = 0;
		uint8_t *cmd = first_legal(ga, &seat, &len);
		int r1, r2;

		if (cmd == NULL)
			break;
		r1 = game_apply(ga, seat, cmd, len, &ca);
		r2 = game_apply(gb, seat, cmd, len, &cb);
		same = r1 == r2 && same_call(&ca, &cb, "apply") &&
		    game_state_hash(ga, ha) == REFD_OK &&
		    game_state_hash(gb, hb) == REFD_OK &&
		    memcmp(ha, hb, sizeof(ha)) == 0;
		/* A rejected command, too. */
		r1 = game_apply(ga, seat, (const uint8_t *)"\x81\xa4type\xa3zzz",
		    10, &ca);
		r2 = game_apply(gb, seat, (const uint8_t *)"\x81\xa4type\xa3zzz",
		    10, &cb);
		same = same && r1 == r2 && same_call(&ca, &cb, "reject");
		same = same && game_view(ga, REFD_SEAT_PUBLIC, &ca) ==
		    game_view(gb, REFD_SEAT_PUBLIC, &cb) &&
		    same_call(&ca, &cb, "view");
		same = same && game_view(ga, 0, &ca) == game_view(gb, 0, &cb) &&
		    same_call(&ca, &cb, "seat view");
		same = same && game_result(ga, &ca) == game_result(gb, &cb) &&
		    same_call(&ca, &cb, "result");
		free(cmd);
	}
	ok(same, "%d steps: the same results, events, draws, views and "
	    "state hashes", step);
	game_destroy(ga);
	game_destroy(gb);
	call_release(&ca);
	call_release(&cb);
	return step;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
add(struct game *g, uint32_t seat, int n, struct call *c)
{
	uint8_t cmd[16] = "\x82\xa4type\xa3" "add\xa1n";

	cmd[12] = (uint8_t)n;
	return game_apply(g, seat, cmd, 13, c);
}

static int
apply_type(struct game *g, uint32_t seat, const char *type, struct call *c)
{
	uint8_t cmd[32];
	size_t n = strlen(type);

	cmd[0] = 0x81;
	memcpy(cmd + 1, "\xa4type", 5);
	cmd[6] = (uint8_t)(0xa0 | n);
	memcpy(cmd + 7, type, n);
	return game_apply(g, seat, cmd, 7 + n, c);
}

static int
total(struct game *g)
{
	struct call c;
	refd_mpdoc *d;
	int64_t t = -1;

	call_init(&c);
	if (game_view(g, REFD_SEAT_PUBLIC, &c) == REFD_OK) {
		d = refd_mp_parse(c.out.data, c.out.len);
		t = refd_mpv_get_int(refd_mp_root(d), "total", -1);
		refd_mp_free(d);
	}
	call_release(&c);
	return (int)t;
}

int
main(int argc, char **argv)
{
	struct plugin *din, *dout, *cr, *lp, *lp2;
	const struct scenario *sc;
	struct game *g1 = NULL, *g2 = NULL, *g3 = NULL;
	struct rng r;
	struct call c;
	uint64_t started, crashed, timeouts;
	int64_t dice[64];
	double t0;
	int i;

	worker_main(argc, argv);

	/* What an event may be. */
	ok(event_fault((const uint8_t *)"\x81\xa1k\xa2\xc3\xa9", 6) == NULL,
	    "event: a map with UTF-8 strings");
	ok(event_fault((const uint8_t *)"\x81\xa1k\xa4\xf0\x9f\x98\x80", 8) ==
	    NULL, "event: a four-byte character");
	ok(event_fault((const uint8_t *)"\x92\x01\x02", 3) != NULL,
	    "event: an array is refused");
	ok(event_fault((const uint8_t *)"\x81\x01\x02", 3) != NULL,
	    "event: an integer key is refused");
	ok(event_fault((const uint8_t *)"\x81\xa1k\xa2\xc0\xaf", 6) != NULL,
	    "event: an overlong encoding is refused");
	ok(event_fault((const uint8_t *)"\x81\xa1k\xa3\xed\xa0\x80", 7) !=
	    NULL, "event: a surrogate is refused");
	ok(event_fault((const uint8_t *)"\x81\xa1k\xa4\xf4\x90\x80\x80", 8) !=
	    NULL, "event: a code point past U+10FFFF is refused");
	ok(event_fault((const uint8_t *)"\x81\xa1k\xa1\xc3", 5) != NULL,
	    "event: a cut character is refused");
	ok(event_fault((const uint8_t *)"\x81\xa1k\x91\xa1\xff", 6) != NULL,
	    "event: a bad string deep inside is refused");

	din = open_duel("plugins/duel.so");
	dout = open_duel("plugins/duel.so");
	ok(plugin_isolate(dout, 5000) == REFD_OK, "a duel in a worker");
	sc = plugin_scenario(din, "first-duel");
	if (sc == NULL) {
		printf("Bail out! no scenario first-duel\n");
		return 1;
	}
	rng_init_seed(&r, key);
	ok(play_both(din, dout, &r, sc->setup, sc->setup_len, 2) > 3,
	    "seeded: a duel plays the same in both");
	rng_release(&r);
	for (i = 0; i < 64; i++)
		dice[i] = 1 + i % 2;
	rng_init_script(&r, dice, 64);
	ok(play_both(din, dout, &r, sc->setup, sc->setup_len, 2) > 3,
	    "scripted: a duel plays the same in both");
	rng_release(&r);
	worker_counts(&started, &crashed, &timeouts);
	is_int(started, 1, "one worker served it all");

	/* Crashes. */
	cr = open_fixture("crashes");
	plugin_isolate(cr, 3000);
	call_init(&c);
	rng_init_seed(&r, key);
	ok(game_create(cr, (const uint8_t *)"\x81\xa6target\x32", 9, 2, &r, 0,
	    &g1, &c) == REFD_OK, "create a race");
	game_create(cr, (const uint8_t *)"\x81\xa6target\x32", 9, 2, &r, 0,
	    &g2, &c);
	game_create(cr, (const uint8_t *)"\x81\xa6target\x32", 9, 2, &r, 0,
	    &g3, &c);
	rng_release(&r);
	ok(g1 && g2 && g3, "three races in one worker");
	if (!g1 || !g2 || !g3)
		return done_testing();
	is_int(add(g2, 0, 3, &c), REFD_OK, "race 2 plays");
	is_int(add(g3, 0, 2, &c), REFD_OK, "race 3 plays");
	is_int(apply_type(g1, 0, "segv", &c), REFD_EPLUGINFAULT,
	    "a segfault in apply: EPLUGINFAULT");
	is_str(c.fault_reason ? c.fault_reason : "(none)", "crash",
	    "... reason crash");
	ok(strstr(c.fault, "plugin crashed in apply: its worker") != NULL,
	    "... fault: %s", c.fault);
	is_int(c.nev, 0, "... no events");
	is_int(add(g2, 1, 1, &c), REFD_OK, "race 2 goes on in a new worker");
	is_int(total(g2), 4, "... from its saved state");
	is_int(add(g1, 0, 1, &c), REFD_OK, "the crashed race goes on too");
	is_int(total(g1), 1, "... from its state before the crash");
	is_int(apply_type(g1, 1, "abort", &c), REFD_EPLUGINFAULT,
	    "an abort in apply: EPLUGINFAULT");
	game_destroy(g2);
	ok(1, "destroying a game whose worker died is harmless");
	is_int(apply_type(g1, 1, "scribble", &c), REFD_EPLUGINFAULT,
	    "a plugin that scribbles on the worker's channel: EPLUGINFAULT");
	ok(strstr(c.fault, "malformed reply") != NULL, "... fault: %s",
	    c.fault);
	is_int(total(g3), 2, "race 3 comes back after three crashes");
	worker_counts(&started, &crashed, &timeouts);
	is_int(crashed, 3, "three crashes counted");
	is_int(started, 5, "and three restarts");
	game_destroy(g1);
	game_destroy(g3);

	/* An endless loop. */
	lp = open_fixture("loops");
	plugin_isolate(lp, 300);
	rng_init_seed(&r, key);
	game_create(lp, (const uint8_t *)"\x80", 1, 2, &r, 0, &g1, &c);
	rng_release(&r);
	ok(g1 != NULL, "a race of the looping plugin");
	if (g1 == NULL)
		return done_testing();
	is_int(add(g1, 0, 2, &c), REFD_OK, "it plays");
	t0 = now();
	is_int(apply_type(g1, 1, "spin", &c), REFD_EPLUGINFAULT,
	    "an endless apply: EPLUGINFAULT");
	ok(now() - t0 >= 0.29 && now() - t0 < 5, "... after %.3f s (timeout "
	    "0.3 s)", now() - t0);
	is_str(c.fault_reason ? c.fault_reason : "(none)", "timeout",
	    "... reason timeout");
	ok(strstr(c.fault, "plugin timed out: apply ran longer than "
	    "plugin-timeout (300 ms)") != NULL, "... fault: %s", c.fault);
	is_int(add(g1, 1, 3, &c), REFD_OK, "the race goes on");
	is_int(total(g1), 5, "... from where it was");
	worker_counts(&started, &crashed, &timeouts);
	is_int(timeouts, 1, "one timeout counted");
	game_destroy(g1);

	/* A plugin stuck emitting is stopped by the host's per-op budget,
	 * in-process too. */
	lp2 = open_fixture("loops");
	rng_init_seed(&r, key);
	game_create(lp2, (const uint8_t *)"\x80", 1, 2, &r, 0, &g1, &c);
	rng_release(&r);
	ok(g1 != NULL, "an in-process race of the looping plugin");
	if (g1 == NULL)
		return done_testing();
	is_int(apply_type(g1, 0, "flood", &c), REFD_EPLUGINFAULT,
	    "endless emits: EPLUGINFAULT");
	ok(strstr(c.fault, "more than 100000 events") != NULL, "... fault: %s",
	    c.fault);
	is_int(c.nev, 0, "... and no events kept");
	is_int(add(g1, 0, 1, &c), REFD_OK, "the race goes on");
	game_destroy(g1);
	call_release(&c);

	plugin_close(din);
	plugin_close(dout);
	plugin_close(cr);
	plugin_close(lp);
	plugin_close(lp2);
	return done_testing();
}
