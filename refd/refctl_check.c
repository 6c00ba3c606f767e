/*
 * refctl_check.c - refctl check-plugin: the conformance checker.
 *
 *	refctl check-plugin FILE.so [--content DIR] [--setup FILE.json |
 *	    --scenario NAME] [--seats N] [--games N] [--seed S]
 *	    [--max-steps N] [--max-legal N] [-v]
 *
 * Plays N seeded random games through the plugin API (engine.h), choosing
 * uniformly among the legal commands the plugin itself lists for every
 * seat that owes a decision, and checks at every step:
 *
 *  - pending names a seat while the game is not over, and nobody after;
 *  - a seat that owes nothing lists no legal command; one that owes a
 *    decision lists at least one;
 *  - every listed command is accepted (applied to a copy of the game);
 *    when a step lists more than --max-legal (default 16; 0: no limit),
 *    a random sample of that many is applied;
 *  - sampled illegal commands (legal ones with a mutated integer or an
 *    unknown type, garbage bytes, non-map values, a pending seat's command
 *    sent by a seat that owes nothing) are rejected with a known code and
 *    a message, and leave the serialized state unchanged;
 *  - serialize/restore round-trips: the restored state serializes to the
 *    same bytes and the next command gives the same outcome, events and
 *    draws in both;
 *  - for REFD_PF_HIDDEN plugins with a redeal op: re-dealing one seat's
 *    hidden data leaves every other seat's view and the spectators' view
 *    unchanged, and the chosen command then gives every other seat and
 *    the spectators the same events (public and private), unless their
 *    view after it differs too (the command revealed the data);
 *  - for REFD_PF_SEALED_SETUP plugins: while two or more seats owe a
 *    decision, a seat's choice (the chosen command or another it lists)
 *    changes no other observer's view or events as long as another seat
 *    still owes a decision;
 *  - views, legal lists and results are well-formed msgpack, every listed
 *    command has a "type" that describe's "commands" names (when describe
 *    names any), and describe's "seats" match the descriptor;
 *  - every game ends within --max-steps;
 *
 * and, after each game, plays it again from the same seed with the same
 * choices and checks that every step gives the same events and draws.
 * The summary ends with a digest of every outcome: two runs with the same
 * options must print the same one, which catches state that differs
 * between processes (addresses, uninitialised memory) as well.
 *
 * Without --setup or --scenario the games cycle through the content's
 * scenarios, or use an empty setup map when there are none.  Without
 * --seats a game takes the setup's "seats" member, or else cycles through
 * the plugin's seat range, trying the other counts when create refuses
 * the setup with ESETUP.  The fair draws
 * of game i are keyed by BLAKE2b(seed, i); the checker's own choices come
 * from a separate generator seeded the same way.
 *
 * Prints one line per failure (the first 20 of each game set) and a
 * summary; exits 0 when nothing failed, 1 on any failure, 2 on bad usage
 * or a plugin that does not load.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sodium.h>

#include "engine.h"
#include "jsonmp.h"
#include "refctl.h"

#define MAX_FAIL_LINES 20
#define ILLEGAL_PER_STEP 4

struct opts {
	const char *plugin;
	const char *content;
	const char *setup_file;
	const char *scenario;
	uint32_t seats;		/* 0: cycle through the plugin's range */
	long games;
	uint64_t seed;
	long max_steps;
	long max_legal;		/* listed commands applied per step, at most */
	int verbose;
	FILE *events;		/* --events: every event, one JSON line each */
};

struct stats {
	long games, finished, steps, legal_ok, illegal_ok, roundtrips;
	long redeals, event_checks, sealed_checks, templates, replays, fails;
	/* Every create's and chosen command's outcome, in order: equal for
	 * two runs with the same options, whatever the process. */
	crypto_generichash_state digest;
};

/* One candidate command. */
struct cand {
	uint32_t seat;
	uint8_t *b;
	size_t n;
	int tmpl;		/* 1: a template, not a concrete command */
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

/* The state of one checked game. */
struct chk {
	const struct opts *o;
	struct stats *st;
	struct plugin *pl;
	long game, step;
	uint64_t prng;		/* the checker's choices */
	int failed;		/* this game failed: stop it */
	refd_mpv commands;	/* describe's "commands" map, or missing */
};

/* The chosen commands of a game, for the replay. */
struct trace {
	uint32_t *seat;
	uint8_t **cmd;
	size_t *len;
	uint8_t (*digest)[ENG_HASH_LEN];
	size_t n, cap;
	uint8_t create_digest[ENG_HASH_LEN];
};

static uint64_t
next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static size_t
pick(struct chk *k, size_t n)
{
	return n == 0 ? 0 : (size_t)(next_u64(&k->prng) % n);
}

static void
fail(struct chk *k, const char *fmt, ...)
{
	va_list ap;

	k->st->fails++;
	k->failed = 1;
	if (k->st->fails > MAX_FAIL_LINES) {
		if (k->st->fails == MAX_FAIL_LINES + 1)
			fprintf(stderr, "check-plugin: %s: more failures not "
			    "shown\n", k->pl->name);
		return;
	}
	fprintf(stderr, "check-plugin: %s: game %ld step %ld: ", k->pl->name,
	    k->game, k->step);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* What the plugin said, for a failure line. */
static const char *
why(const struct call *c, int rc)
{
	static char s[900];

	if (c->fault[0] != '\0')
		snprintf(s, sizeof(s), "%s (%s)", refd_errname(rc), c->fault);
	else if (c->reject_msg[0] != '\0')
		snprintf(s, sizeof(s), "%s%s%s: %s", refd_errname(rc),
		    c->reject_rule[0] ? " " : "", c->reject_rule,
		    c->reject_msg);
	else
		snprintf(s, sizeof(s), "%s", refd_errname(rc));
	return s;
}

/* The command as JSON text for a failure line (truncated). */
static const char *
show(const uint8_t *b, size_t n)
{
	static char s[200];
	char *t = mp_bytes_to_json_text(b, n, JSON_COMPACT);

	if (t == NULL) {
		size_t i, o = 0;

		o += (size_t)snprintf(s, sizeof(s), "<%zu bytes:", n);
		for (i = 0; i < n && i < 16 && o + 4 < sizeof(s); i++)
			o += (size_t)snprintf(s + o, sizeof(s) - o, " %02x",
			    b[i]);
		snprintf(s + o, sizeof(s) - o, "%s>", n > 16 ? " ..." : "");
		return s;
	}
	snprintf(s, sizeof(s), "%s", t);
	if (strlen(t) >= sizeof(s))
		memcpy(s + sizeof(s) - 4, "...", 4);
	free(t);
	return s;
}

/* Outcome of one call: events (with seats) and draws. */
static void
digest_call(const struct call *c, int rc, uint8_t out[ENG_HASH_LEN])
{
	crypto_generichash_state h;
	uint8_t b[32];
	size_t i;

	crypto_generichash_init(&h, NULL, 0, ENG_HASH_LEN);
	memcpy(b, &rc, sizeof(rc));
	crypto_generichash_update(&h, b, sizeof(rc));
	for (i = 0; i < c->nev; i++) {
		memcpy(b, &c->ev[i].seat, 4);
		memcpy(b + 4, &c->ev[i].len, sizeof(size_t));
		crypto_generichash_update(&h, b, 4 + sizeof(size_t));
		crypto_generichash_update(&h, c->ev[i].bytes, c->ev[i].len);
	}
	for (i = 0; i < c->ndr; i++) {
		memcpy(b, &c->dr[i].index, 8);
		memcpy(b + 8, &c->dr[i].kind, 4);
		memcpy(b + 12, &c->dr[i].bound, 4);
		memcpy(b + 16, &c->dr[i].value, 4);
		crypto_generichash_update(&h, b, 20);
	}
	for (i = 0; i < c->ncm; i++) {
		crypto_generichash_update(&h, (const uint8_t *)c->cm[i].zone,
		    strlen(c->cm[i].zone));
		crypto_generichash_update(&h, c->cm[i].hash, ENG_HASH_LEN);
	}
	crypto_generichash_final(&h, out, ENG_HASH_LEN);
}

static void
cands_clear(struct cands *cs)
{
	size_t i;

	for (i = 0; i < cs->n; i++)
		free(cs->v[i].b);
	cs->n = 0;
}

static void
cands_free(struct cands *cs)
{
	cands_clear(cs);
	free(cs->v);
	cs->v = NULL;
	cs->cap = 0;
}

static int
cands_add(struct cands *cs, uint32_t seat, refd_mpv v, int tmpl)
{
	refd_mpw *w;
	struct cand *c;

	if (cs->n == cs->cap) {
		size_t nc = cs->cap ? cs->cap * 2 : 16;
		struct cand *p = realloc(cs->v, nc * sizeof(*p));

		if (p == NULL)
			return -1;
		cs->v = p;
		cs->cap = nc;
	}
	w = refd_mpw_create();
	if (w == NULL)
		return -1;
	refd_mpw_value(w, v);
	c = &cs->v[cs->n];
	c->seat = seat;
	c->tmpl = tmpl;
	c->n = refd_mpw_len(w);
	c->b = malloc(c->n ? c->n : 1);
	if (c->b == NULL || refd_mpw_error(w)) {
		free(c->b);
		refd_mpw_destroy(w);
		return -1;
	}
	memcpy(c->b, refd_mpw_data(w), c->n);
	refd_mpw_destroy(w);
	cs->n++;
	return 0;
}

/* Serialized state of g into *b (owned by the caller), or NULL. */
static uint8_t *
serialize(struct chk *k, struct game *g, size_t *n, const char *what)
{
	struct call c;
	uint8_t *b = NULL;
	int rc;

	call_init(&c);
	rc = game_serialize(g, &c);
	if (rc != REFD_OK)
		fail(k, "serialize %s: %s", what, why(&c, rc));
	else if (refd_mp_check(c.out.data, c.out.len, 0) != 0)
		fail(k, "serialize %s: output is not one msgpack value", what);
	else
		b = buf_detach(&c.out, n);
	call_release(&c);
	return b;
}

/* A copy of g through serialize and restore. */
static struct game *
copy_game(struct chk *k, struct game *g, const char *what)
{
	struct game *g2 = NULL;
	struct call c;
	uint8_t *b;
	size_t n = 0;
	int rc;

	b = serialize(k, g, &n, what);
	if (b == NULL)
		return NULL;
	call_init(&c);
	rc = game_restore(g->pl, b, n, g->nseats, &g->rng, 0, &g2, &c);
	if (rc != REFD_OK)
		fail(k, "restore %s: %s", what, why(&c, rc));
	call_release(&c);
	free(b);
	return g2;
}

static int
same_state(struct chk *k, struct game *a, struct game *b, const char *what)
{
	uint8_t *sa, *sb;
	size_t na = 0, nb = 0;
	int same;

	sa = serialize(k, a, &na, what);
	sb = serialize(k, b, &nb, what);
	same = sa != NULL && sb != NULL && na == nb && memcmp(sa, sb, na) == 0;
	free(sa);
	free(sb);
	return same;
}

/*
 * The legal list of seat into cs: concrete commands and templates.
 * Returns the number of items, or -1 after a failure.
 */
static long
legal_of(struct chk *k, struct game *g, uint32_t seat, struct cands *cs)
{
	struct call c;
	refd_mpdoc *d;
	refd_mpv a;
	size_t i, n;
	int rc;

	call_init(&c);
	rc = game_legal(g, seat, &c);
	if (rc != REFD_OK) {
		fail(k, "legal for seat %u: %s", seat, why(&c, rc));
		call_release(&c);
		return -1;
	}
	d = refd_mp_parse(c.out.data, c.out.len);
	a = refd_mp_root(d);
	if (d == NULL || refd_mpv_type(a) != REFD_MP_ARRAY) {
		int crc = refd_mp_check(c.out.data, c.out.len, 0);

		fail(k, "legal for seat %u: output is not one msgpack array "
		    "(%s)", seat, crc != 0 ? refd_mp_check_str(crc) :
		    "another value");
		refd_mp_free(d);
		call_release(&c);
		return -1;
	}
	if (!output_text_ok(c.out.data, c.out.len)) {
		fail(k, "legal for seat %u: a string is not UTF-8 (refd refuses "
		    "such a list)", seat);
		refd_mp_free(d);
		call_release(&c);
		return -1;
	}
	n = refd_mpv_len(a);
	for (i = 0; i < n; i++) {
		refd_mpv it = refd_mpv_at(a, i);
		refd_mpv cmd = refd_mpv_get(it, "cmd");
		refd_mpv tp = refd_mpv_get(it, "template");

		if (refd_mpv_type(refd_mpv_get(it, "label")) != REFD_MP_STR) {
			fail(k, "legal for seat %u: item %zu has no \"label\" "
			    "string", seat, i);
			break;
		}
		if (refd_mpv_type(cmd) == REFD_MP_MAP) {
			refd_mpv type = refd_mpv_get(cmd, "type");

			if (refd_mpv_type(type) != REFD_MP_STR) {
				fail(k, "legal for seat %u: item %zu's command "
				    "has no \"type\" string", seat, i);
				break;
			}
			if (refd_mpv_len(k->commands) > 0 &&
			    !refd_mpv_ok(refd_mpv_get(k->commands,
			    refd_mpv_cstr(type, "")))) {
				fail(k, "legal for seat %u: command type '%s' "
				    "is not among describe's commands", seat,
				    refd_mpv_cstr(type, "?"));
				break;
			}
			if (cands_add(cs, seat, cmd, 0) != 0)
				break;
		} else if (refd_mpv_type(tp) == REFD_MP_MAP) {
			if (cands_add(cs, seat, tp, 1) != 0)
				break;
		} else {
			fail(k, "legal for seat %u: item %zu has neither a "
			    "\"cmd\" nor a \"template\" map", seat, i);
			break;
		}
	}
	refd_mp_free(d);
	call_release(&c);
	return k->failed ? -1 : (long)n;
}

/*
 * A concrete command from a template: a value {"min": a, "max": b} (two
 * integers) stands for any integer in a..b, {"one_of": [...]} for one of
 * the items; everything else is copied.
 */
static void
instantiate(struct chk *k, refd_mpw *w, refd_mpv v, int depth)
{
	size_t i, n;
	int64_t lo, hi;

	if (refd_mpv_type(v) == REFD_MP_MAP && depth < 8) {
		refd_mpv oneof = refd_mpv_get(v, "one_of");

		if (refd_mpv_len(v) == 2 &&
		    refd_mpv_int(refd_mpv_get(v, "min"), &lo) == 0 &&
		    refd_mpv_int(refd_mpv_get(v, "max"), &hi) == 0 && lo <= hi) {
			uint64_t span = (uint64_t)(hi - lo) + 1;

			uint64_t r = span == 0 ? next_u64(&k->prng) :
			    next_u64(&k->prng) % span;

			refd_mpw_int(w, (int64_t)((uint64_t)lo + r));
			return;
		}
		if (refd_mpv_len(v) == 1 &&
		    refd_mpv_type(oneof) == REFD_MP_ARRAY &&
		    refd_mpv_len(oneof) > 0) {
			refd_mpw_value(w, refd_mpv_at(oneof,
			    pick(k, refd_mpv_len(oneof))));
			return;
		}
		refd_mpw_map(w);
		n = refd_mpv_len(v);
		for (i = 0; i < n; i++) {
			refd_mpw_value(w, refd_mpv_key_at(v, i));
			instantiate(k, w, refd_mpv_val_at(v, i), depth + 1);
		}
		refd_mpw_end(w);
		return;
	}
	if (refd_mpv_type(v) == REFD_MP_ARRAY && depth < 8) {
		refd_mpw_array(w);
		n = refd_mpv_len(v);
		for (i = 0; i < n; i++)
			instantiate(k, w, refd_mpv_at(v, i), depth + 1);
		refd_mpw_end(w);
		return;
	}
	refd_mpw_value(w, v);
}

static refd_mpw *
from_template(struct chk *k, const struct cand *t)
{
	refd_mpdoc *d = refd_mp_parse(t->b, t->n);
	refd_mpw *w = refd_mpw_create();

	if (d != NULL && w != NULL)
		instantiate(k, w, refd_mp_root(d), 0);
	refd_mp_free(d);
	return w;
}

/* Every listed concrete command (up to --max-legal) is accepted. */
static void
check_listed(struct chk *k, struct game *g, const struct cands *cs)
{
	size_t i, start, count, conc = 0;
	struct call c;

	for (i = 0; i < cs->n; i++)
		conc += !cs->v[i].tmpl;
	if (conc == 0)
		return;
	count = conc;
	if (k->o->max_legal > 0 && count > (size_t)k->o->max_legal)
		count = (size_t)k->o->max_legal;
	start = pick(k, cs->n);
	call_init(&c);
	for (i = 0; i < cs->n && count > 0 && !k->failed; i++) {
		const struct cand *cd = &cs->v[(start + i) % cs->n];
		struct game *g2;
		int rc;

		if (cd->tmpl)
			continue;
		count--;
		g2 = copy_game(k, g, "for a listed command");
		if (g2 == NULL)
			break;
		rc = game_apply(g2, cd->seat, cd->b, cd->n, &c);
		if (rc != REFD_OK)
			fail(k, "seat %u: listed command %s was rejected (on a "
			    "restored copy): %s", cd->seat, show(cd->b, cd->n),
			    why(&c, rc));
		else
			k->st->legal_ok++;
		game_destroy(g2);
	}
	call_release(&c);
}

static int
is_listed(const struct cands *cs, uint32_t seat, const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < cs->n; i++)
		if (cs->v[i].tmpl && cs->v[i].seat == seat)
			return 1;	/* a template may cover anything */
	for (i = 0; i < cs->n; i++)
		if (cs->v[i].seat == seat && cs->v[i].n == n &&
		    memcmp(cs->v[i].b, b, n) == 0)
			return 1;
	return 0;
}

/* Legal command b with one integer (or the "type") changed. */
static refd_mpw *
mutate(struct chk *k, const uint8_t *b, size_t n)
{
	refd_mpdoc *d = refd_mp_parse(b, n);
	refd_mpv m = refd_mp_root(d);
	refd_mpw *w;
	size_t i, len, ints = 0, target;
	int64_t x;
	static const int64_t wild[] = { -1000003, 1000003, INT32_MAX,
		INT64_MIN };

	if (d == NULL || refd_mpv_type(m) != REFD_MP_MAP) {
		refd_mp_free(d);
		return NULL;
	}
	len = refd_mpv_len(m);
	for (i = 0; i < len; i++)
		ints += refd_mpv_int(refd_mpv_val_at(m, i), &x) == 0;
	/* Either one integer member goes wild, or the type is unknown. */
	target = ints > 0 && pick(k, 3) != 0 ? pick(k, ints) : SIZE_MAX;
	w = refd_mpw_create();
	refd_mpw_map(w);
	for (i = 0, ints = 0; i < len; i++) {
		refd_mpv key = refd_mpv_key_at(m, i), val = refd_mpv_val_at(m, i);

		refd_mpw_value(w, key);
		if (refd_mpv_int(val, &x) == 0 && ints++ == target)
			refd_mpw_int(w, wild[pick(k, 4)]);
		else if (target == SIZE_MAX && refd_mpv_streq(key, "type"))
			refd_mpw_str(w, "refd-check-no-such-command");
		else
			refd_mpw_value(w, val);
	}
	refd_mpw_end(w);
	refd_mp_free(d);
	return w;
}

/* An illegal command must be rejected with a code and change nothing. */
static void
expect_rejected(struct chk *k, struct game *g, uint32_t seat,
    const uint8_t *b, size_t n, const char *kind)
{
	uint8_t *before, *after;
	size_t nb = 0, na = 0;
	struct call c;
	int rc;

	before = serialize(k, g, &nb, "before an illegal command");
	if (before == NULL)
		return;
	call_init(&c);
	rc = game_apply(g, seat, b, n, &c);
	if (rc == REFD_OK) {
		fail(k, "seat %u: %s %s was accepted", seat, kind, show(b, n));
	} else if (rc == REFD_EPLUGINFAULT) {
		fail(k, "seat %u: %s %s made the plugin misbehave: %s", seat,
		    kind, show(b, n), why(&c, rc));
	} else if (strcmp(refd_errname(rc), "EUNKNOWN") == 0 ||
	    c.reject_code != rc) {
		fail(k, "seat %u: %s was rejected with %d, which is not a "
		    "code from errors.h given to host->reject", seat, kind, rc);
	} else if (c.reject_msg[0] == '\0') {
		fail(k, "seat %u: %s was rejected without a message", seat,
		    kind);
	} else {
		after = serialize(k, g, &na, "after an illegal command");
		if (after != NULL && (na != nb || memcmp(before, after, na)))
			fail(k, "seat %u: rejected %s %s changed the state "
			    "(%s)", seat, kind, show(b, n), why(&c, rc));
		else if (after != NULL)
			k->st->illegal_ok++;
		free(after);
	}
	call_release(&c);
	free(before);
}

static void
check_illegal(struct chk *k, struct game *g, const struct cands *cs,
    uint64_t pending)
{
	static const uint8_t *const junk[] = {
		(const uint8_t *)"\xc0", (const uint8_t *)"\x93\x01\x02\x03",
		(const uint8_t *)"\x2a", (const uint8_t *)"\x80",
		(const uint8_t *)"\x81\xa4type\xc0",
		(const uint8_t *)"\xa6" "attack",
	};
	static const size_t junklen[] = { 1, 4, 1, 1, 7, 7 };
	uint8_t rnd[24];
	size_t i, n;
	uint32_t seat;
	int t;

	for (t = 0; t < ILLEGAL_PER_STEP && !k->failed; t++) {
		switch (pick(k, 4)) {
		case 0:	/* a listed command, mutated */
			if (cs->n == 0)
				break;
			i = pick(k, cs->n);
			if (!cs->v[i].tmpl) {
				refd_mpw *w = mutate(k, cs->v[i].b, cs->v[i].n);

				if (w != NULL && !refd_mpw_error(w) &&
				    !is_listed(cs, cs->v[i].seat,
				    refd_mpw_data(w), refd_mpw_len(w)))
					expect_rejected(k, g, cs->v[i].seat,
					    refd_mpw_data(w), refd_mpw_len(w),
					    "mutated command");
				refd_mpw_destroy(w);
			}
			break;
		case 1:	/* garbage bytes */
			n = 1 + pick(k, sizeof(rnd));
			for (i = 0; i < n; i++)
				rnd[i] = (uint8_t)next_u64(&k->prng);
			seat = (uint32_t)pick(k, g->nseats);
			expect_rejected(k, g, seat, rnd, n, "garbage");
			break;
		case 2:	/* well-formed values that are no command */
			i = pick(k, sizeof(junk) / sizeof(junk[0]));
			seat = (uint32_t)pick(k, g->nseats);
			if (!is_listed(cs, seat, junk[i], junklen[i]))
				expect_rejected(k, g, seat, junk[i],
				    junklen[i], "non-command");
			break;
		default: /* a pending seat's command from a seat that owes
			  * nothing */
			if (cs->n == 0)
				break;
			i = pick(k, cs->n);
			seat = (uint32_t)pick(k, g->nseats);
			if (cs->v[i].tmpl || (pending >> seat) & 1)
				break;
			expect_rejected(k, g, seat, cs->v[i].b, cs->v[i].n,
			    "command from a seat that owes nothing");
			break;
		}
	}
}

/* Views of every seat but skip (and of spectators), concatenated. */
static uint8_t *
views_but(struct chk *k, struct game *g, int32_t skip, size_t *len)
{
	struct buf all;
	struct call c;
	int32_t s;
	int rc;

	buf_init(&all);
	call_init(&c);
	for (s = REFD_SEAT_PUBLIC; s < (int32_t)g->nseats; s++) {
		if (s == skip)
			continue;
		rc = game_view(g, s, &c);
		if (rc != REFD_OK) {
			fail(k, "view for seat %d: %s", s, why(&c, rc));
			break;
		}
		rc = refd_mp_check(c.out.data, c.out.len, 0);
		if (rc != 0 || ((c.out.data[0] & 0xf0) != 0x80 &&
		    c.out.data[0] != 0xde && c.out.data[0] != 0xdf)) {
			fail(k, "view for seat %d: output is not one msgpack "
			    "map (%s)", s, rc != 0 ? refd_mp_check_str(rc) :
			    "another value");
			break;
		}
		if (!output_text_ok(c.out.data, c.out.len)) {
			fail(k, "view for seat %d: a string is not UTF-8 (refd "
			    "refuses such a view)", s);
			break;
		}
		buf_add(&all, &s, sizeof(s));
		buf_add(&all, &c.out.len, sizeof(c.out.len));
		buf_add(&all, c.out.data, c.out.len);
	}
	call_release(&c);
	return buf_detach(&all, len);
}

/*
 * Re-deal one seat's hidden data on a copy: nobody else's view moves.
 * Returns the re-dealt copy (owned by the caller) and its seat, for
 * check_hidden_events, or NULL.
 */
static struct game *
check_hidden(struct chk *k, struct game *g, uint32_t *seat_out)
{
	struct game *g2;
	uint8_t *a, *b;
	size_t na = 0, nb = 0;
	uint32_t seat = (uint32_t)pick(k, g->nseats);
	struct call c;
	int rc;

	*seat_out = seat;
	g2 = copy_game(k, g, "for a redeal");
	if (g2 == NULL)
		return NULL;
	/* Let the copy draw from elsewhere in the stream. */
	g2->rng.counter += 1 + (next_u64(&k->prng) & 0xffff);
	a = views_but(k, g2, (int32_t)seat, &na);
	call_init(&c);
	rc = game_redeal(g2, seat, &c);
	if (rc != REFD_OK) {
		fail(k, "redeal of seat %u: %s", seat, why(&c, rc));
	} else if (!k->failed) {
		b = views_but(k, g2, (int32_t)seat, &nb);
		if (!k->failed && (na != nb || memcmp(a, b, na) != 0)) {
			/* Name the first view that moved (g still holds
			 * the state before the redeal). */
			int32_t s, moved = REFD_SEAT_PUBLIC - 1;

			for (s = REFD_SEAT_PUBLIC; s < (int32_t)g->nseats &&
			    moved < REFD_SEAT_PUBLIC; s++) {
				uint8_t *x, *y;
				size_t nx = 0, ny = 0;

				if ((uint32_t)s == seat)
					continue;
				game_view(g, s, &c);
				x = buf_detach(&c.out, &nx);
				game_view(g2, s, &c);
				y = buf_detach(&c.out, &ny);
				if (nx != ny || memcmp(x, y, nx) != 0)
					moved = s;
				free(x);
				free(y);
			}
			if (moved == REFD_SEAT_PUBLIC)
				fail(k, "redeal of seat %u's hidden data "
				    "changed the spectators' view", seat);
			else
				fail(k, "redeal of seat %u's hidden data "
				    "changed seat %d's view", seat, moved);
		} else if (!k->failed) {
			k->st->redeals++;
		}
		free(b);
	}
	call_release(&c);
	free(a);
	if (k->failed) {
		game_destroy(g2);
		return NULL;
	}
	return g2;
}

/* The events of c that observer o (a seat, or REFD_SEAT_PUBLIC) receives:
 * the public ones and o's private ones, framed, in order. */
static uint8_t *
events_for(const struct call *c, int32_t o, size_t *len)
{
	struct buf b;
	size_t i;

	buf_init(&b);
	for (i = 0; i < c->nev; i++) {
		if (c->ev[i].seat != REFD_SEAT_PUBLIC && c->ev[i].seat != o)
			continue;
		buf_add(&b, &c->ev[i].seat, sizeof(c->ev[i].seat));
		buf_add(&b, &c->ev[i].len, sizeof(c->ev[i].len));
		buf_add(&b, c->ev[i].bytes, c->ev[i].len);
	}
	return buf_detach(&b, len);
}

static int
same_view(struct game *a, struct game *b, int32_t o)
{
	struct call c;
	uint8_t *x;
	size_t nx = 0;
	int same;

	call_init(&c);
	if (game_view(a, o, &c) != REFD_OK) {
		call_release(&c);
		return 0;
	}
	x = buf_detach(&c.out, &nx);
	same = game_view(b, o, &c) == REFD_OK && c.out.len == nx &&
	    memcmp(c.out.data, x, nx) == 0;
	free(x);
	call_release(&c);
	return same;
}

/*
 * Events must not carry hidden data either.  gr is g with seat x's hidden
 * data re-dealt (check_hidden); both take the chosen command with the
 * same draws from here on.  An observer other than x (a seat, or the
 * spectators) who receives different events in the two games must also
 * see the difference in its view after the command: then the command
 * revealed it (a card played face up); otherwise an event leaked it.
 */
static void
check_hidden_events(struct chk *k, struct game *g, struct game *gr,
    uint32_t x, uint32_t seat, const uint8_t *cb, size_t cn)
{
	struct game *g1 = copy_game(k, g, "for the event check");
	struct call c1, c2;
	int32_t o;

	if (g1 == NULL)
		return;
	gr->rng.counter = g->rng.counter;
	gr->rng.salt_counter = g->rng.salt_counter;
	call_init(&c1);
	call_init(&c2);
	/* A command the re-deal made illegal (x's own, usually) tells
	 * nothing here. */
	if (game_apply(g1, seat, cb, cn, &c1) == REFD_OK &&
	    game_apply(gr, seat, cb, cn, &c2) == REFD_OK) {
		for (o = REFD_SEAT_PUBLIC; o < (int32_t)g->nseats &&
		    !k->failed; o++) {
			uint8_t *e1, *e2;
			size_t n1 = 0, n2 = 0;

			if (o == (int32_t)x)
				continue;
			e1 = events_for(&c1, o, &n1);
			e2 = events_for(&c2, o, &n2);
			if ((n1 != n2 || memcmp(e1, e2, n1) != 0) &&
			    same_view(g1, gr, o)) {
				char who[32];

				if (o == REFD_SEAT_PUBLIC)
					snprintf(who, sizeof(who),
					    "the spectators");
				else
					snprintf(who, sizeof(who), "seat %d",
					    (int)o);
				fail(k, "seat %u: %s: the events %s receive "
				    "depend on seat %u's hidden data (a redeal "
				    "changes them) while %s view does not "
				    "show it: an event leaks hidden "
				    "information", seat, show(cb, cn), who, x,
				    o == REFD_SEAT_PUBLIC ? "their" : "its");
			}
			free(e1);
			free(e2);
		}
		if (!k->failed)
			k->st->event_checks++;
	}
	call_release(&c1);
	call_release(&c2);
	game_destroy(g1);
}

/*
 * Sealed choices (REFD_PF_SEALED_SETUP): while two or more seats owe a
 * decision, the choice of one must not show in anybody else's view or
 * events until no other seat owes one any more.  The chosen command and
 * another listed command of the same seat are applied to two copies; when
 * another seat still owes a decision after it, every other observer must
 * see the same in both.
 */
static void
check_sealed(struct chk *k, struct game *g, const struct cands *cs,
    const struct cand *ch, const uint8_t *cb, size_t cn, uint64_t pending)
{
	const struct cand *alt = NULL;
	struct game *ga, *gb;
	struct call ca, cbc, cp;
	uint64_t after = 0;
	size_t i;
	int32_t o;

	if ((pending & (pending - 1)) == 0)
		return;		/* one seat owes a decision: nothing sealed */
	for (i = 0; i < cs->n && alt == NULL; i++)
		if (!cs->v[i].tmpl && cs->v[i].seat == ch->seat &&
		    (cs->v[i].n != cn || memcmp(cs->v[i].b, cb, cn) != 0))
			alt = &cs->v[i];
	if (alt == NULL)
		return;
	ga = copy_game(k, g, "for the sealed-choice check");
	gb = copy_game(k, g, "for the sealed-choice check");
	call_init(&ca);
	call_init(&cbc);
	call_init(&cp);
	if (ga != NULL && gb != NULL &&
	    game_apply(ga, ch->seat, cb, cn, &ca) == REFD_OK &&
	    game_apply(gb, alt->seat, alt->b, alt->n, &cbc) == REFD_OK &&
	    game_pending(ga, &after, &cp) == REFD_OK &&
	    (after & ~((uint64_t)1 << ch->seat)) != 0) {
		for (o = REFD_SEAT_PUBLIC; o < (int32_t)g->nseats &&
		    !k->failed; o++) {
			uint8_t *e1, *e2;
			size_t n1 = 0, n2 = 0;
			int same_ev;

			if (o == (int32_t)ch->seat)
				continue;
			e1 = events_for(&ca, o, &n1);
			e2 = events_for(&cbc, o, &n2);
			same_ev = n1 == n2 && memcmp(e1, e2, n1) == 0;
			free(e1);
			free(e2);
			if (!same_ev || !same_view(ga, gb, o)) {
				char other[200], who[32];

				snprintf(other, sizeof(other), "%s",
				    show(alt->b, alt->n));
				if (o == REFD_SEAT_PUBLIC)
					snprintf(who, sizeof(who),
					    "the spectators'");
				else
					snprintf(who, sizeof(who), "seat %d's",
					    (int)o);
				fail(k, "seat %u: sealed choice %s: %s %s "
				    "differ from those after %s while another "
				    "seat still owes a decision: the choice "
				    "shows before every seat has chosen",
				    ch->seat, show(cb, cn), who,
				    same_ev ? "view" : "events", other);
			}
		}
		if (!k->failed)
			k->st->sealed_checks++;
	}
	call_release(&ca);
	call_release(&cbc);
	call_release(&cp);
	game_destroy(ga);
	game_destroy(gb);
}

static int
result_of(struct chk *k, struct game *g)
{
	struct call c;
	int rc;

	call_init(&c);
	rc = game_result(g, &c);
	if (rc < 0) {
		fail(k, "result: %s", why(&c, rc));
	} else if (rc == 1) {
		refd_mpdoc *d = refd_mp_parse(c.out.data, c.out.len);

		if (d == NULL || refd_mpv_type(refd_mpv_get(refd_mp_root(d),
		    "winners")) != REFD_MP_ARRAY)
			fail(k, "result: the game is over but the output is "
			    "not a map with a \"winners\" array");
		refd_mp_free(d);
	} else if (rc != 0) {
		fail(k, "result: returned %d, expected 0 or 1", rc);
	}
	call_release(&c);
	return rc;
}

static int
trace_add(struct trace *t, uint32_t seat, const uint8_t *b, size_t n,
    const uint8_t dg[ENG_HASH_LEN])
{
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 64;
		void *p1 = realloc(t->seat, nc * sizeof(*t->seat));
		void *p2, *p3, *p4;

		if (p1 != NULL)
			t->seat = p1;
		p2 = realloc(t->cmd, nc * sizeof(*t->cmd));
		if (p2 != NULL)
			t->cmd = p2;
		p3 = realloc(t->len, nc * sizeof(*t->len));
		if (p3 != NULL)
			t->len = p3;
		p4 = realloc(t->digest, nc * sizeof(*t->digest));
		if (p4 != NULL)
			t->digest = p4;
		if (p1 == NULL || p2 == NULL || p3 == NULL || p4 == NULL)
			return -1;
		t->cap = nc;
	}
	t->cmd[t->n] = malloc(n ? n : 1);
	if (t->cmd[t->n] == NULL)
		return -1;
	memcpy(t->cmd[t->n], b, n);
	t->seat[t->n] = seat;
	t->len[t->n] = n;
	memcpy(t->digest[t->n], dg, ENG_HASH_LEN);
	t->n++;
	return 0;
}

static void
trace_free(struct trace *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->cmd[i]);
	free(t->seat);
	free(t->cmd);
	free(t->len);
	free(t->digest);
	memset(t, 0, sizeof(*t));
}

static void
game_key(uint64_t seed, long game, uint8_t key[32])
{
	uint8_t in[16];
	int i;

	for (i = 0; i < 8; i++) {
		in[i] = (uint8_t)(seed >> (8 * i));
		in[8 + i] = (uint8_t)((uint64_t)game >> (8 * i));
	}
	crypto_generichash(key, 32, in, sizeof(in),
	    (const uint8_t *)"refd check-plugin seed key 0001", 32);
}

/* Same seed, same commands: same events and draws at every step. */
static void
replay(struct chk *k, const uint8_t *setup, size_t setup_len,
    uint32_t nseats, const struct trace *t)
{
	struct game *g = NULL;
	struct call c;
	struct rng r;
	uint8_t key[32], dg[ENG_HASH_LEN];
	size_t i;
	int rc;

	game_key(k->o->seed, k->game, key);
	rng_init_seed(&r, key);
	call_init(&c);
	k->step = 0;
	rc = game_create(k->pl, setup, setup_len, nseats, &r, 0, &g, &c);
	digest_call(&c, rc, dg);
	if (rc != REFD_OK || memcmp(dg, t->create_digest, ENG_HASH_LEN) != 0) {
		fail(k, "replay with the same seed: create gave different "
		    "events or draws");
		goto out;
	}
	for (i = 0; i < t->n; i++) {
		k->step = (long)i + 1;
		rc = game_apply(g, t->seat[i], t->cmd[i], t->len[i], &c);
		digest_call(&c, rc, dg);
		if (memcmp(dg, t->digest[i], ENG_HASH_LEN) != 0) {
			fail(k, "replay with the same seed and commands: seat "
			    "%u's %s gave different events or draws", t->seat[i],
			    show(t->cmd[i], t->len[i]));
			goto out;
		}
	}
	k->st->replays++;
out:
	game_destroy(g);
	call_release(&c);
	rng_release(&r);
}

/* --events: {"seat": s, "event": {...}} per event (seat -1: public). */
static void
dump_events(FILE *f, const struct call *c)
{
	size_t i;

	for (i = 0; i < c->nev; i++) {
		char *j = mp_bytes_to_json_text(c->ev[i].bytes, c->ev[i].len,
		    JSON_COMPACT);

		fprintf(f, "{\"seat\":%d,\"event\":%s}\n",
		    (int)c->ev[i].seat, j != NULL ? j : "null");
		free(j);
	}
}

/*
 * Play one game.  With probe set, a create refused with ESETUP is tried
 * again with every other seat count in the plugin's range, and *nseatsp
 * becomes the count that worked.
 */
static void
play(struct chk *k, const uint8_t *setup, size_t setup_len, uint32_t *nseatsp,
    int probe)
{
	uint32_t nseats = *nseatsp;
	struct game *g = NULL, *g2, *gr = NULL;
	struct cands cs = { NULL, 0, 0 };
	struct trace t;
	uint32_t redealt = 0;
	struct call c, c2;
	struct rng r;
	uint8_t key[32], dg[ENG_HASH_LEN], dg2[ENG_HASH_LEN];
	uint64_t pending;
	int rc, rc2, over = 0;

	memset(&t, 0, sizeof(t));
	game_key(k->o->seed, k->game, key);
	k->prng = k->o->seed ^ ((uint64_t)k->game * 0x2545f4914f6cdd1dull);
	rng_init_seed(&r, key);
	call_init(&c);
	call_init(&c2);
	k->step = 0;
	rc = game_create(k->pl, setup, setup_len, nseats, &r, 0, &g, &c);
	if (rc == REFD_ESETUP && probe) {
		char first[900];
		uint32_t n, tried = nseats;

		snprintf(first, sizeof(first), "%s", why(&c, rc));
		for (n = k->pl->desc->min_seats; rc == REFD_ESETUP &&
		    n <= k->pl->desc->max_seats; n++) {
			if (n == tried)
				continue;
			rc = game_create(k->pl, setup, setup_len, n, &r, 0, &g,
			    &c);
			nseats = n;
		}
		if (rc == REFD_ESETUP) {
			fail(k, "create with setup %s: refused for every seat "
			    "count %u..%u, with %u seats: %s",
			    show(setup, setup_len), k->pl->desc->min_seats,
			    k->pl->desc->max_seats, tried, first);
			goto out;
		}
		*nseatsp = nseats;
	}
	if (rc == REFD_OK && k->o->events != NULL)
		dump_events(k->o->events, &c);
	digest_call(&c, rc, t.create_digest);
	crypto_generichash_update(&k->st->digest, t.create_digest,
	    ENG_HASH_LEN);
	if (rc != REFD_OK) {
		fail(k, "create with %u seats and setup %s: %s", nseats,
		    show(setup, setup_len), why(&c, rc));
		goto out;
	}
	for (;;) {
		size_t i, nconc;
		uint32_t s;
		const struct cand *ch;
		refd_mpw *w = NULL;
		const uint8_t *cb;
		size_t cn;

		if ((over = result_of(k, g)) != 0 || k->failed)
			break;
		if (k->step >= k->o->max_steps) {
			fail(k, "the game did not end within %ld steps (raise "
			    "--max-steps if that is expected)", k->o->max_steps);
			break;
		}
		k->step++;
		rc = game_pending(g, &pending, &c);
		if (rc != REFD_OK) {
			fail(k, "pending: %s", why(&c, rc));
			break;
		}
		if (pending == 0) {
			fail(k, "pending is empty while the game is not over");
			break;
		}
		if (nseats < 64 && (pending >> nseats) != 0) {
			fail(k, "pending names seat(s) 0x%" PRIx64 " beyond the "
			    "%u seats", pending, nseats);
			break;
		}
		cands_clear(&cs);
		for (s = 0; s < nseats && !k->failed; s++) {
			size_t before = cs.n;
			long n = legal_of(k, g, s, &cs);

			if (n < 0)
				break;
			if ((pending >> s) & 1 && n == 0)
				fail(k, "seat %u owes a decision but lists no "
				    "legal command", s);
			else if (!((pending >> s) & 1) && n > 0)
				fail(k, "seat %u owes nothing but lists %ld "
				    "legal command(s), e.g. %s", s, n,
				    show(cs.v[before].b, cs.v[before].n));
		}
		if (k->failed)
			break;
		for (i = 0, nconc = 0; i < cs.n; i++) {
			nconc += !cs.v[i].tmpl;
			k->st->templates += cs.v[i].tmpl;
		}
		/* Round trip: the restored copy serializes and looks the same
		 * (and below, takes the chosen command the same way). */
		g2 = copy_game(k, g, "for the round trip");
		if (g2 == NULL)
			break;
		if (!same_state(k, g, g2, "for the round trip")) {
			fail(k, "restore(serialize(state)) serializes "
			    "differently");
		} else {
			uint8_t *va, *vb;
			size_t na = 0, nb = 0;

			va = views_but(k, g, REFD_SEAT_PUBLIC - 1, &na);
			vb = views_but(k, g2, REFD_SEAT_PUBLIC - 1, &nb);
			if (!k->failed && (na != nb || memcmp(va, vb, na) != 0))
				fail(k, "restore(serialize(state)) shows a "
				    "different view: serialize leaves "
				    "something out");
			free(va);
			free(vb);
		}
		if (!k->failed)
			check_listed(k, g, &cs);
		if (!k->failed)
			check_illegal(k, g, &cs, pending);
		if (!k->failed && (k->pl->desc->flags & REFD_PF_HIDDEN) &&
		    k->pl->ops.redeal != NULL)
			gr = check_hidden(k, g, &redealt);
		if (k->failed) {
			game_destroy(gr);
			game_destroy(g2);
			break;
		}

		/* Choose: uniformly among the concrete commands, else a
		 * template instance. */
		if (nconc > 0) {
			size_t j = pick(k, nconc);

			for (i = 0; i < cs.n; i++)
				if (!cs.v[i].tmpl && j-- == 0)
					break;
			ch = &cs.v[i];
			cb = ch->b;
			cn = ch->n;
		} else {
			ch = &cs.v[pick(k, cs.n)];
			w = from_template(k, ch);
			if (w == NULL || refd_mpw_error(w)) {
				refd_mpw_destroy(w);
				fail(k, "cannot instantiate template %s",
				    show(ch->b, ch->n));
				game_destroy(gr);
				game_destroy(g2);
				break;
			}
			cb = refd_mpw_data(w);
			cn = refd_mpw_len(w);
		}
		if (gr != NULL) {
			check_hidden_events(k, g, gr, redealt, ch->seat, cb,
			    cn);
			game_destroy(gr);
			gr = NULL;
		}
		if (!k->failed && (k->pl->desc->flags & REFD_PF_SEALED_SETUP))
			check_sealed(k, g, &cs, ch, cb, cn, pending);

		rc = game_apply(g, ch->seat, cb, cn, &c);
		rc2 = game_apply(g2, ch->seat, cb, cn, &c2);
		if (rc == REFD_OK && k->o->events != NULL)
			dump_events(k->o->events, &c);
		digest_call(&c, rc, dg);
		digest_call(&c2, rc2, dg2);
		if (rc != REFD_OK && !ch->tmpl) {
			fail(k, "seat %u: chosen legal command %s was "
			    "rejected: %s", ch->seat, show(cb, cn),
			    why(&c, rc));
		} else if (rc != rc2 || memcmp(dg, dg2, sizeof(dg)) != 0) {
			fail(k, "seat %u: %s gave different events or draws "
			    "on the restored copy (%s vs %s)", ch->seat,
			    show(cb, cn), refd_errname(rc), refd_errname(rc2));
		} else if (!same_state(k, g, g2, "after the round trip")) {
			fail(k, "seat %u: after %s the restored copy's state "
			    "differs", ch->seat, show(cb, cn));
		} else {
			k->st->roundtrips++;
		}
		if (!k->failed && rc == REFD_OK &&
		    trace_add(&t, ch->seat, cb, cn, dg) != 0)
			fail(k, "out of memory");
		crypto_generichash_update(&k->st->digest, dg, sizeof(dg));
		game_destroy(g2);
		refd_mpw_destroy(w);
		if (k->failed)
			break;
		k->st->steps++;
	}
	if (over == 1 && !k->failed) {
		uint32_t s;

		k->st->finished++;
		rc = game_pending(g, &pending, &c);
		if (rc == REFD_OK && pending != 0)
			fail(k, "the game is over but pending is 0x%" PRIx64,
			    pending);
		for (s = 0; s < nseats && !k->failed; s++) {
			cands_clear(&cs);
			if (legal_of(k, g, s, &cs) > 0)
				fail(k, "the game is over but seat %u lists "
				    "legal commands", s);
		}
	}
	if (!k->failed)
		replay(k, setup, setup_len, nseats, &t);
out:
	cands_free(&cs);
	trace_free(&t);
	game_destroy(g);
	call_release(&c);
	call_release(&c2);
	rng_release(&r);
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: refctl check-plugin FILE.so [--content DIR] "
	    "[--setup FILE.json | --scenario NAME]\n"
	    "           [--seats N] [--games N] [--seed S] [--max-steps N] "
	    "[--max-legal N] [--events FILE] [-v]\n");
}

static int
num(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s != NULL ? s : "", &end, 0);
	if (s == NULL || *s == '\0' || *end != '\0' || errno != 0 ||
	    s[0] == '-' || v < lo || v > hi) {
		fprintf(stderr, "refctl check-plugin: option '%s': expected "
		    "a number %" PRIu64 "..%" PRIu64 ", found '%s'\n", opt, lo,
		    hi, s != NULL ? s : "");
		return -1;
	}
	*out = v;
	return 0;
}

static uint8_t *
read_setup(const char *path, size_t *len)
{
	json_error_t je;
	json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	refd_mpw *w;
	uint8_t *b = NULL;

	if (j == NULL) {
		fprintf(stderr, "refctl check-plugin: setup '%s': line %d "
		    "column %d: %s\n", path, je.line, je.column, je.text);
		return NULL;
	}
	w = refd_mpw_create();
	if (w != NULL && json_to_mp(j, w) == 0 && !refd_mpw_error(w)) {
		*len = refd_mpw_len(w);
		b = malloc(*len);
		if (b != NULL)
			memcpy(b, refd_mpw_data(w), *len);
	}
	refd_mpw_destroy(w);
	json_decref(j);
	return b;
}

int
cmd_check_plugin(int argc, char **argv)
{
	struct opts o;
	struct stats st;
	struct chk k;
	refd_mpdoc *desc = NULL;
	struct plugin *pl = NULL;
	struct call c;
	uint8_t *setup = NULL;
	size_t setup_len = 0;
	char err[1024];
	uint64_t v;
	long g;
	int i, rc;

	memset(&o, 0, sizeof(o));
	memset(&st, 0, sizeof(st));
	memset(&k, 0, sizeof(k));
	o.games = 20;
	o.seed = 1;
	o.max_steps = 10000;
	o.max_legal = 16;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *arg = i + 1 < argc ? argv[i + 1] :
		    NULL;

		if (strcmp(a, "-v") == 0) {
			o.verbose = 1;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage();
			return 0;
		}
		if (a[0] != '-') {
			if (o.plugin != NULL) {
				fprintf(stderr, "refctl check-plugin: one "
				    "plugin at a time, found '%s' and '%s'\n",
				    o.plugin, a);
				return 2;
			}
			o.plugin = a;
			continue;
		}
		if (arg == NULL) {
			fprintf(stderr, "refctl check-plugin: option '%s' "
			    "needs a value\n", a);
			usage();
			return 2;
		}
		i++;
		if (strcmp(a, "--content") == 0) {
			o.content = arg;
		} else if (strcmp(a, "--setup") == 0) {
			o.setup_file = arg;
		} else if (strcmp(a, "--scenario") == 0) {
			o.scenario = arg;
		} else if (strcmp(a, "--seats") == 0) {
			if (num(a, arg, 1, REFD_MAX_SEATS, &v) != 0)
				return 2;
			o.seats = (uint32_t)v;
		} else if (strcmp(a, "--games") == 0) {
			if (num(a, arg, 1, 100000000, &v) != 0)
				return 2;
			o.games = (long)v;
		} else if (strcmp(a, "--seed") == 0) {
			if (num(a, arg, 0, UINT64_MAX, &v) != 0)
				return 2;
			o.seed = v;
		} else if (strcmp(a, "--max-steps") == 0) {
			if (num(a, arg, 1, 100000000, &v) != 0)
				return 2;
			o.max_steps = (long)v;
		} else if (strcmp(a, "--events") == 0) {
			o.events = fopen(arg, "w");
			if (o.events == NULL) {
				fprintf(stderr, "refctl check-plugin: --events "
				    "'%s': %s\n", arg, strerror(errno));
				return 2;
			}
		} else if (strcmp(a, "--max-legal") == 0) {
			if (num(a, arg, 0, 100000000, &v) != 0)
				return 2;
			o.max_legal = (long)v;
		} else {
			fprintf(stderr, "refctl check-plugin: unknown option "
			    "'%s'\n", a);
			usage();
			return 2;
		}
	}
	if (o.plugin == NULL) {
		usage();
		return 2;
	}
	if (o.setup_file != NULL && o.scenario != NULL) {
		fprintf(stderr, "refctl check-plugin: give --setup or "
		    "--scenario, not both\n");
		return 2;
	}
	if (sodium_init() < 0) {
		fprintf(stderr, "refctl check-plugin: libsodium failed to "
		    "start\n");
		return 2;
	}
	rc = plugin_open(o.plugin, &pl, err, sizeof(err));
	if (rc != REFD_OK) {
		fprintf(stderr, "refctl check-plugin: %s\n", err);
		return 2;
	}
	if (o.content != NULL) {
		rc = plugin_load_content(pl, o.content, err, sizeof(err));
		if (rc != REFD_OK) {
			fprintf(stderr, "refctl check-plugin: %s\n", err);
			plugin_close(pl);
			return 2;
		}
	} else {
		/* No content: an empty map. */
		call_init(&c);
		pl->content = malloc(1);
		if (pl->content != NULL) {
			pl->content[0] = 0x80;
			pl->content_len = 1;
		}
		rc = pl->content != NULL ? plugin_set_content(pl, &c) :
		    REFD_ENOMEM;
		if (rc != REFD_OK) {
			fprintf(stderr, "refctl check-plugin: plugin '%s': "
			    "content: the empty content was refused (%s); "
			    "give --content DIR\n", o.plugin, why(&c, rc));
			call_release(&c);
			plugin_close(pl);
			return 2;
		}
		call_release(&c);
	}
	if (o.setup_file != NULL) {
		setup = read_setup(o.setup_file, &setup_len);
		if (setup == NULL) {
			plugin_close(pl);
			return 2;
		}
	} else if (o.scenario != NULL) {
		const struct scenario *sc = plugin_scenario(pl, o.scenario);

		if (sc == NULL) {
			fprintf(stderr, "refctl check-plugin: scenario '%s': "
			    "not found in the content; see --content\n",
			    o.scenario);
			plugin_close(pl);
			return 2;
		}
		setup_len = sc->setup_len;
		setup = malloc(setup_len);
		if (setup != NULL)
			memcpy(setup, sc->setup, setup_len);
	}
	if (o.seats != 0 && (o.seats < pl->desc->min_seats ||
	    o.seats > pl->desc->max_seats)) {
		fprintf(stderr, "refctl check-plugin: --seats %u: plugin '%s' "
		    "takes %u..%u seats\n", o.seats, pl->name,
		    pl->desc->min_seats, pl->desc->max_seats);
		free(setup);
		plugin_close(pl);
		return 2;
	}
	/* describe: what list rulesets shows must agree with the plugin. */
	desc = refd_mp_parse(pl->describe, pl->describe_len);
	{
		refd_mpv r = refd_mp_root(desc), seats = refd_mpv_get(r, "seats");
		int64_t lo = 0, hi = 0;

		if (refd_mpv_type(r) != REFD_MP_MAP) {
			fprintf(stderr, "check-plugin: %s: describe: output is "
			    "not a map\n", pl->name);
			st.fails++;
		}
		if (refd_mpv_ok(seats) && (refd_mpv_len(seats) != 2 ||
		    refd_mpv_int(refd_mpv_at(seats, 0), &lo) != 0 ||
		    refd_mpv_int(refd_mpv_at(seats, 1), &hi) != 0 ||
		    lo != pl->desc->min_seats || hi != pl->desc->max_seats)) {
			fprintf(stderr, "check-plugin: %s: describe: \"seats\" "
			    "is not [%u, %u] as in the descriptor\n", pl->name,
			    pl->desc->min_seats, pl->desc->max_seats);
			st.fails++;
		}
		k.commands = refd_mpv_get(r, "commands");
		if (refd_mpv_ok(k.commands) &&
		    refd_mpv_type(k.commands) != REFD_MP_MAP) {
			fprintf(stderr, "check-plugin: %s: describe: "
			    "\"commands\" is not a map\n", pl->name);
			st.fails++;
		}
	}
	if ((pl->desc->flags & REFD_PF_HIDDEN) && pl->ops.redeal == NULL)
		fprintf(stderr, "check-plugin: %s: warning: hidden information "
		    "but no redeal op; views are not checked for leaks\n",
		    pl->name);

	crypto_generichash_init(&st.digest, NULL, 0, ENG_HASH_LEN);
	k.o = &o;
	k.st = &st;
	k.pl = pl;
	for (g = 0; g < o.games; g++) {
		const uint8_t *su = setup;
		size_t sl = setup_len;
		uint32_t nseats = o.seats;
		const char *sname = o.setup_file != NULL ? o.setup_file :
		    o.scenario != NULL ? o.scenario : "{}";
		long before = st.fails;

		if (setup == NULL && pl->nscenarios > 0) {
			const struct scenario *sc =
			    &pl->scenarios[g % (long)pl->nscenarios];

			su = sc->setup;
			sl = sc->setup_len;
			sname = sc->name;
		} else if (setup == NULL) {
			su = (const uint8_t *)"\x80";
			sl = 1;
		}
		if (nseats == 0) {
			/* The setup's own "seats", else cycle the range;
			 * play() probes the other counts if refused. */
			refd_mpdoc *d = refd_mp_parse(su, sl);
			int64_t want = refd_mpv_get_int(refd_mp_root(d),
			    "seats", 0);

			refd_mp_free(d);
			if (want >= pl->desc->min_seats &&
			    want <= pl->desc->max_seats)
				nseats = (uint32_t)want;
			else
				nseats = pl->desc->min_seats + (uint32_t)(g %
				    (long)(pl->desc->max_seats -
				    pl->desc->min_seats + 1));
		}
		k.game = g;
		k.failed = 0;
		st.games++;
		play(&k, su, sl, &nseats, o.seats == 0);
		if (o.verbose)
			fprintf(stderr, "check-plugin: %s: game %ld (%s, %u "
			    "seats): %s\n", pl->name, g, sname, nseats,
			    st.fails > before ? "FAILED" : "ok");
	}
	{
		uint8_t h[ENG_HASH_LEN];
		char hex[2 * ENG_HASH_LEN + 1];

		crypto_generichash_final(&st.digest, h, sizeof(h));
		hex_encode(h, 16, hex);
		printf("check-plugin: %s: events digest %s\n", pl->name, hex);
	}
	printf("check-plugin: %s %s: %ld games (%ld finished), %ld steps, "
	    "%ld listed commands accepted, %ld illegal commands rejected, "
	    "%ld round trips, %ld redeals (%ld with the next command's "
	    "events), %ld sealed choices, %ld replays, %ld templates seen; "
	    "%ld failure%s\n", pl->name, pl->desc->version, st.games,
	    st.finished, st.steps, st.legal_ok, st.illegal_ok, st.roundtrips,
	    st.redeals, st.event_checks, st.sealed_checks, st.replays,
	    st.templates, st.fails,
	    st.fails == 1 ? "" : "s");
	refd_mp_free(desc);
	free(setup);
	plugin_close(pl);
	return st.fails == 0 ? 0 : 1;
}
