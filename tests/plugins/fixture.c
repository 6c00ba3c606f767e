/*
 * fixture.c - test plugins for the loader and the conformance checker, one
 * source built with -D variants (the Makefile builds
 * $(B)/tests/plugins/<variant>.so with -DFIXTURE_<variant>
 * -DFIXTURE_NAME='"<variant>"'):
 *
 *   good            a correct ABI 1.0 plugin
 *   good_old_minor  built against the frozen 1.0 header in tests/abi/v1.0:
 *                   must keep loading after any later minor change
 *   bad_magic       descriptor magic is wrong
 *   newer_major     exports refd_plugin_v2 only
 *   newer_minor     claims minor REFD_ABI_MINOR + 1 with a larger descriptor
 *   size_too_big    claims 1.0 but a size larger than 1.0's descriptor
 *   size_lies       a size field larger than the exported object
 *   rollback        like good, with REFD_PF_ROLLBACK: refd snapshots the
 *                   state around apply (see the dirty_reject fault)
 *   entry_function  exports refd_plugin_v1 as a function
 *   wild_ops        the descriptor's ops pointer points nowhere
 *   no_entry        exports no descriptor at all
 *   init_fails      init rejects with a message
 *   name_mismatch   descriptor name differs from the file name
 *   unknown_cap     requires a host capability refd does not know
 *   faulty          loads, then misbehaves as its setup's "fault" asks
 *   crashes         like good, but apply dies on the command {"type": "segv"}
 *                   (a store through a null pointer) or {"type": "abort"}
 *                   (abort()), view dies for seat 3 (of a four-seat match) and
 *                   create dies for the setup {"crash": "create"}; the command
 *                   {"type": "scribble"} writes a bogus frame to descriptor 3
 *                   (where refd's worker talks to refd) and then plays on
 *   loops           like good, but apply never returns from the command
 *                   {"type": "spin"}, and emits events until the host
 *                   refuses one for {"type": "flood"}
 *   sealed          like good, with REFD_PF_SEALED_SETUP: setup
 *                   {"sealed": true} starts with sealed bids (below)
 *
 * The game: "race": seats take turns adding 1, 2 or 3 to a shared total;
 * whoever brings it to "target" (default 10) or beyond wins.  Each seat
 * holds a secret number (0..99) dealt at create with host draws, shown only
 * to its owner, so the game has hidden information and a redeal op.
 * Every add also rolls a d6 "omen" that is reported but decides nothing.
 * Setup {"need_seats": N} refuses any other seat count (ESETUP).
 * Setup {"sealed": true} opens with sealed bids: every seat owes a
 * {"type": "bid", "n": 1..3} at once; the public stream says only who has
 * chosen, and when all are in the bids are revealed and added to the
 * total.
 *
 * Faults (setup {"fault": NAME}) for checker and hostile-input tests:
 *   badevent        apply emits bytes that are not a msgpack map
 *   dirty_reject    a rejected command still changes the state
 *   emit_on_reject  a rejected command emits an event first
 *   accept_garbage  apply accepts any command from anybody
 *   illegal_legal   legal lists a command apply rejects
 *   nondet          events depend on a global counter
 *   roundtrip       serialize drops the turn
 *   leak            a seat's view shows the other seats' secrets
 *   leak_event      the public "added" event gives the next seat's secret
 *   leak_sealed     the public "chosen" event gives the sealed bid
 *   endless         the total never grows, the game never ends
 *   nopending       pending names nobody while the game goes on
 *   output_in_apply apply calls host->output
 *   draw_in_view    view draws from the host
 *   nondet_create   create's events depend on a global counter
 *   bad_output      legal outputs a truncated msgpack array
 *   deep_view       view outputs arrays nested 40 deep
 *   nostate         create succeeds without giving a state
 *   bad_restore     restore always fails
 *   undescribed     legal lists a command type describe does not name
 *   badutf8         apply emits an event, and view outputs a map, with a
 *                   string that is not UTF-8
 *   badreject       apply rejects every command with a message that is not
 *                   UTF-8
 * and one mode that is no fault:
 *   templates       legal lists one template {"type": "add", "n":
 *                   {"min": 1, "max": 3}} instead of three commands
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <refd/mp.h>
#include <refd/plugin.h>

#ifndef FIXTURE_NAME
#define FIXTURE_NAME "good"
#endif

#define MAXSEATS 4

enum fault {
	F_NONE, F_BADEVENT, F_DIRTY_REJECT, F_EMIT_ON_REJECT, F_ACCEPT_GARBAGE,
	F_ILLEGAL_LEGAL, F_NONDET, F_ROUNDTRIP, F_LEAK, F_ENDLESS, F_NOPENDING,
	F_OUTPUT_IN_APPLY, F_DRAW_IN_VIEW, F_NONDET_CREATE, F_BAD_OUTPUT,
	F_DEEP_VIEW, F_NOSTATE, F_BAD_RESTORE, F_UNDESCRIBED, F_LEAK_EVENT,
	F_TEMPLATES, F_BADUTF8, F_BADREJECT, F_LEAK_SEALED
};

static const char *const fault_names[] = {
	"none", "badevent", "dirty_reject", "emit_on_reject", "accept_garbage",
	"illegal_legal", "nondet", "roundtrip", "leak", "endless", "nopending",
	"output_in_apply", "draw_in_view", "nondet_create", "bad_output",
	"deep_view", "nostate", "bad_restore", "undescribed", "leak_event",
	"templates", "badutf8", "badreject", "leak_sealed", NULL
};

struct race {
	int64_t nseats;
	int64_t total;
	int64_t target;
	int64_t turn;
	int64_t winner;		/* -1 while the game goes on */
	int64_t fault;
	int64_t rejected;	/* dirty_reject's damage */
	int64_t secret[MAXSEATS];
	int64_t sealed;		/* 1: bidding, 2: bids revealed, 0: none */
	int64_t bid[MAXSEATS];	/* 0: not yet */
};

static const struct refd_host *H;
static int64_t nondet_counter;	/* only the nondet fault touches it */

static int
r_init(refd_ctx *ctx, const struct refd_host *host, void **pdata)
{
	H = host;
	*pdata = NULL;
#ifdef FIXTURE_init_fails
	return host->reject(ctx, REFD_EINIT, NULL,
	    "the fixture refuses to start");
#else
	(void)ctx;
	return REFD_OK;
#endif
}

static int
put(refd_ctx *ctx, refd_mpw *w, int emit_seat, int emit)
{
	int rc;

	if (w == NULL || refd_mpw_error(w)) {
		refd_mpw_destroy(w);
		return REFD_ENOMEM;
	}
	if (emit)
		rc = H->emit(ctx, emit_seat, refd_mpw_data(w), refd_mpw_len(w));
	else
		rc = H->output(ctx, refd_mpw_data(w), refd_mpw_len(w));
	refd_mpw_destroy(w);
	return rc;
}

static int
r_describe(refd_ctx *ctx, void *pdata)
{
	refd_mpw *w = refd_mpw_create();

	(void)pdata;
	refd_mpw_map(w);
	refd_mpw_kstr(w, "summary", "race to a target total");
	refd_mpw_karray(w, "seats");
	refd_mpw_int(w, 1);
	refd_mpw_int(w, MAXSEATS);
	refd_mpw_end(w);
	refd_mpw_kmap(w, "options");
	refd_mpw_kmap(w, "target");
	refd_mpw_kstr(w, "type", "int");
	refd_mpw_kint(w, "default", 10);
	refd_mpw_kstr(w, "doc", "total that wins");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "sealed");
	refd_mpw_kstr(w, "type", "bool");
	refd_mpw_kstr(w, "doc", "open with sealed bids");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "need_seats");
	refd_mpw_kstr(w, "type", "int");
	refd_mpw_kstr(w, "doc", "refuse any other seat count");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "crash");
	refd_mpw_kstr(w, "type", "str");
	refd_mpw_kstr(w, "doc", "crash in that op (tests)");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "fault");
	refd_mpw_kstr(w, "type", "str");
	refd_mpw_kstr(w, "doc", "misbehave that way (tests)");
	refd_mpw_end(w);
	refd_mpw_end(w);
	refd_mpw_kmap(w, "commands");
	refd_mpw_kmap(w, "add");
	refd_mpw_kmap(w, "args");
	refd_mpw_kstr(w, "n", "int 1..3");
	refd_mpw_end(w);
	refd_mpw_kstr(w, "doc", "add n to the total");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "bid");
	refd_mpw_kmap(w, "args");
	refd_mpw_kstr(w, "n", "int 1..3");
	refd_mpw_end(w);
	refd_mpw_kstr(w, "doc", "sealed bid, added when all are in");
	refd_mpw_end(w);
	refd_mpw_end(w);
	refd_mpw_end(w);
	return put(ctx, w, 0, 0);
}

static int
r_content_load(refd_ctx *ctx, void *pdata, const uint8_t *bytes, size_t len,
    void **out)
{
	static int token;

	(void)pdata;
	if (refd_mp_check(bytes, len, 0) != 0)
		return H->reject(ctx, REFD_ECONTENT, NULL,
		    "content is not msgpack");
	*out = &token;
	return REFD_OK;
}

static void
r_content_free(void *pdata, void *content)
{
	(void)pdata;
	(void)content;
}

static int
r_create(refd_ctx *ctx, void *pdata, const void *content, const uint8_t *setup,
    size_t len, uint32_t nseats, void **out)
{
	refd_mpdoc *d = refd_mp_parse(setup, len);
	refd_mpv root = refd_mp_root(d);
	const char *fault;
	struct race *s;
	uint32_t x;
	int i, rc;
	refd_mpw *w;

	(void)pdata;
	(void)content;
	if (d == NULL || refd_mpv_type(root) != REFD_MP_MAP) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ESETUP, NULL, "setup must be a map");
	}
	if (nseats < 1 || nseats > MAXSEATS) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ESETUP, NULL, "1 to 4 seats");
	}
	s = H->alloc(ctx, sizeof(*s));
	if (s == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(s, 0, sizeof(*s));
	s->nseats = nseats;
	s->winner = -1;
	s->target = refd_mpv_get_int(root, "target", 10);
	s->sealed = refd_mpv_get_bool(root, "sealed", 0) ? 1 : 0;
	if (refd_mpv_get_int(root, "need_seats", nseats) != nseats) {
		H->free(ctx, s);
		refd_mp_free(d);
		return H->reject(ctx, REFD_ESETUP, NULL,
		    "this setup needs another number of seats");
	}
#ifdef FIXTURE_crashes
	if (refd_mpv_streq(refd_mpv_get(root, "crash"), "create"))
		abort();
#endif
	fault = refd_mpv_get_str(root, "fault", "none");
	for (i = 0; fault_names[i] != NULL; i++)
		if (strcmp(fault_names[i], fault) == 0)
			s->fault = i;
	refd_mp_free(d);
	if (s->target < 1 || s->target > 1000) {
		H->free(ctx, s);
		return H->reject(ctx, REFD_ESETUP, NULL, "target must be 1..1000");
	}
	for (i = 0; i < (int)nseats; i++) {
		if ((rc = H->uniform(ctx, 100, "secret", &x)) != REFD_OK) {
			H->free(ctx, s);
			return rc;
		}
		s->secret[i] = x;
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "secret");
		refd_mpw_kint(w, "value", x);
		if (s->fault == F_NONDET_CREATE)
			refd_mpw_kint(w, "count", ++nondet_counter);
		refd_mpw_end(w);
		if ((rc = put(ctx, w, i, 1)) != REFD_OK) {
			H->free(ctx, s);
			return rc;
		}
	}
	if (s->fault == F_NOSTATE) {
		H->free(ctx, s);
		return REFD_OK;
	}
	*out = s;
	return REFD_OK;
}

#if defined(FIXTURE_crashes) || defined(FIXTURE_loops)
/* The crashes and loops fixtures: die or hang on their own commands. */
static void
hazard(refd_mpv root)
{
	refd_mpv t = refd_mpv_get(root, "type");
#ifdef FIXTURE_crashes
	static int *volatile nowhere;

	if (refd_mpv_streq(t, "segv"))
		*nowhere = 1;
	if (refd_mpv_streq(t, "abort"))
		abort();
	if (refd_mpv_streq(t, "scribble")) {
		static const char junk[] = "\x08\0\0\0junkjunk";

		if (write(3, junk, sizeof(junk) - 1) < 0) {
			/* nobody listens */
		}
	}
#else
	volatile unsigned long spins = 0;

	if (refd_mpv_streq(t, "spin"))
		for (;;)
			spins++;
#endif
}

#ifdef FIXTURE_loops
/* Emit until the host says no. */
static int
flood(refd_ctx *ctx)
{
	static const uint8_t ev[] = "\x81\xa4type\xa5" "flood";
	int rc;

	while ((rc = H->emit(ctx, REFD_SEAT_PUBLIC, ev, sizeof(ev) - 1)) ==
	    REFD_OK)
		;
	return rc;
}
#endif
#endif
/* A sealed bid: "chosen" for everybody, the bids once all are in. */
static int
sealed_bid(refd_ctx *ctx, struct race *s, uint32_t seat, int ok, int64_t n)
{
	refd_mpw *w;
	int64_t i, left = 0;
	int rc;

	if ((int64_t)seat >= s->nseats || s->bid[seat] != 0)
		return H->reject(ctx, REFD_ENOTYOURTURN, "RACE-4",
		    "you have bid already");
	if (!ok || n < 1 || n > 3)
		return H->reject(ctx, ok ? REFD_ERANGE : REFD_EBADCMD, "RACE-5",
		    "send {\"type\": \"bid\", \"n\": 1, 2 or 3}");
	s->bid[seat] = n;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "chosen");
	refd_mpw_kint(w, "seat", seat);
	if (s->fault == F_LEAK_SEALED)
		refd_mpw_kint(w, "n", n);
	refd_mpw_end(w);
	if ((rc = put(ctx, w, REFD_SEAT_PUBLIC, 1)) != REFD_OK)
		return rc;
	for (i = 0; i < s->nseats; i++)
		left += s->bid[i] == 0;
	if (left > 0)
		return REFD_OK;
	s->sealed = 2;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "bids");
	refd_mpw_karray(w, "bids");
	for (i = 0; i < s->nseats; i++) {
		refd_mpw_int(w, s->bid[i]);
		s->total += s->bid[i];
	}
	refd_mpw_end(w);
	refd_mpw_end(w);
	if (s->total >= s->target)
		s->winner = 0;
	return put(ctx, w, REFD_SEAT_PUBLIC, 1);
}

static int
r_apply(refd_ctx *ctx, void *state, uint32_t seat, const uint8_t *cmd,
    size_t len)
{
	struct race *s = state;
	refd_mpdoc *d = refd_mp_parse(cmd, len);
	refd_mpv root = refd_mp_root(d);
	int64_t n = 0;
	uint32_t omen;
	int ok, rc;
	refd_mpw *w;

#if defined(FIXTURE_crashes) || defined(FIXTURE_loops)
	hazard(root);
#endif
#ifdef FIXTURE_loops
	if (refd_mpv_streq(refd_mpv_get(root, "type"), "flood")) {
		refd_mp_free(d);
		return flood(ctx);
	}
#endif
	if (s->sealed == 1) {
		ok = d != NULL && refd_mpv_streq(refd_mpv_get(root, "type"),
		    "bid") && refd_mpv_int(refd_mpv_get(root, "n"), &n) == 0 &&
		    refd_mpv_len(root) == 2;
		refd_mp_free(d);
		return sealed_bid(ctx, s, seat, ok, n);
	}
	ok = d != NULL && refd_mpv_streq(refd_mpv_get(root, "type"), "add") &&
	    refd_mpv_int(refd_mpv_get(root, "n"), &n) == 0 &&
	    refd_mpv_len(root) == 2;
	refd_mp_free(d);
	if (s->fault == F_ACCEPT_GARBAGE) {
		ok = 1;
		n = 1;
	} else {
		if (s->winner >= 0)
			return H->reject(ctx, REFD_EFINISHED, "RACE-1",
			    "the race is over");
		if ((int64_t)seat != s->turn)
			return H->reject(ctx, REFD_ENOTYOURTURN, "RACE-2",
			    "not your turn");
	}
	if (s->fault == F_BADREJECT)
		return H->reject(ctx, REFD_EILLEGAL, "RACE-\xff",
		    "no adding today \xff\xfe");
	if (!ok || n < 1 || n > 3) {
		if (s->fault == F_DIRTY_REJECT)
			s->rejected++;
		if (s->fault == F_EMIT_ON_REJECT) {
			w = refd_mpw_create();
			refd_mpw_map(w);
			refd_mpw_kstr(w, "type", "oops");
			refd_mpw_end(w);
			put(ctx, w, REFD_SEAT_PUBLIC, 1);
		}
		return H->reject(ctx, ok ? REFD_ERANGE : REFD_EBADCMD, "RACE-3",
		    "send {\"type\": \"add\", \"n\": 1, 2 or 3}");
	}
	if (s->fault == F_OUTPUT_IN_APPLY)
		H->output(ctx, (const uint8_t *)"\xc0", 1);
	if ((rc = H->roll(ctx, 6, "omen", &omen)) != REFD_OK)
		return rc;
	if (s->fault != F_ENDLESS)
		s->total += n;
	if (s->total >= s->target)
		s->winner = seat;
	s->turn = (s->turn + 1) % s->nseats;
	if (s->fault == F_BADEVENT)
		return H->emit(ctx, REFD_SEAT_PUBLIC, (const uint8_t *)"\x93\x01",
		    2);
	if (s->fault == F_BADUTF8)
		return H->emit(ctx, REFD_SEAT_PUBLIC,
		    (const uint8_t *)"\x81\xa4type\xa2\xc0\xaf", 9);
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "added");
	refd_mpw_kint(w, "seat", seat);
	refd_mpw_kint(w, "n", n);
	refd_mpw_kint(w, "total", s->total);
	refd_mpw_kint(w, "omen", omen);
	if (s->fault == F_NONDET)
		refd_mpw_kint(w, "count", ++nondet_counter);
	if (s->fault == F_LEAK_EVENT)
		refd_mpw_kint(w, "hint", s->secret[s->turn]);
	refd_mpw_end(w);
	return put(ctx, w, REFD_SEAT_PUBLIC, 1);
}

static int
r_legal(refd_ctx *ctx, const void *state, uint32_t seat)
{
	const struct race *s = state;
	refd_mpw *w = refd_mpw_create();
	char label[32];
	int n;

	if (s->fault == F_BAD_OUTPUT) {
		refd_mpw_destroy(w);
		return H->output(ctx, (const uint8_t *)"\x93\x01", 2);
	}
	refd_mpw_array(w);
	if (s->sealed == 1 && (int64_t)seat < s->nseats &&
	    s->bid[seat] == 0) {
		for (n = 1; n <= 3; n++) {
			refd_mpw_map(w);
			refd_mpw_kmap(w, "cmd");
			refd_mpw_kstr(w, "type", "bid");
			refd_mpw_kint(w, "n", n);
			refd_mpw_end(w);
			snprintf(label, sizeof(label), "Bid %d", n);
			refd_mpw_kstr(w, "label", label);
			refd_mpw_end(w);
		}
	} else if (s->sealed == 1) {
		/* nothing while the others bid */
	} else if (s->winner < 0 && (int64_t)seat == s->turn &&
	    s->fault == F_TEMPLATES) {
		refd_mpw_map(w);
		refd_mpw_kmap(w, "template");
		refd_mpw_kstr(w, "type", "add");
		refd_mpw_kmap(w, "n");
		refd_mpw_kint(w, "min", 1);
		refd_mpw_kint(w, "max", 3);
		refd_mpw_end(w);
		refd_mpw_end(w);
		refd_mpw_kstr(w, "label", "Add 1 to 3");
		refd_mpw_end(w);
	} else if (s->winner < 0 && (int64_t)seat == s->turn) {
		for (n = 1; n <= (s->fault == F_ILLEGAL_LEGAL ? 4 : 3); n++) {
			refd_mpw_map(w);
			refd_mpw_kmap(w, "cmd");
			refd_mpw_kstr(w, "type", s->fault == F_UNDESCRIBED &&
			    n == 3 ? "jump" : "add");
			refd_mpw_kint(w, "n", n);
			refd_mpw_end(w);
			snprintf(label, sizeof(label), "Add %d", n);
			refd_mpw_kstr(w, "label", label);
			refd_mpw_end(w);
		}
	}
	refd_mpw_end(w);
	return put(ctx, w, 0, 0);
}

static int
r_pending(refd_ctx *ctx, const void *state, uint64_t *seats)
{
	const struct race *s = state;

	int i;

	(void)ctx;
	*seats = s->winner >= 0 || s->fault == F_NOPENDING ? 0 :
	    (uint64_t)1 << s->turn;
	if (s->sealed == 1 && s->winner < 0)
		for (i = 0, *seats = 0; i < s->nseats; i++)
			if (s->bid[i] == 0)
				*seats |= (uint64_t)1 << i;
	return REFD_OK;
}

static int
r_view(refd_ctx *ctx, const void *state, int32_t seat)
{
	const struct race *s = state;
	refd_mpw *w = refd_mpw_create();
	uint32_t x;
	int i;

#ifdef FIXTURE_crashes
	if (seat == 3)
		abort();
#endif
	if (s->fault == F_DRAW_IN_VIEW)
		H->uniform(ctx, 2, "peek", &x);
	if (s->fault == F_DEEP_VIEW) {
		refd_mpw_map(w);
		refd_mpw_kint(w, "total", s->total);
		refd_mpw_str(w, "deep");
		for (i = 0; i < 40; i++)
			refd_mpw_array(w);
		for (i = 0; i < 40; i++)
			refd_mpw_end(w);
		refd_mpw_end(w);
		return put(ctx, w, 0, 0);
	}
	refd_mpw_map(w);
	refd_mpw_kint(w, "total", s->total);
	refd_mpw_kint(w, "target", s->target);
	refd_mpw_kint(w, "turn", s->turn);
	refd_mpw_kint(w, "winner", s->winner);
	if (s->fault == F_BADUTF8)
		refd_mpw_kstr(w, "note", "\xc0\xaf");
	refd_mpw_karray(w, "secrets");
	for (i = 0; i < s->nseats; i++) {
		if (i == seat || s->fault == F_LEAK)
			refd_mpw_int(w, s->secret[i]);
		else
			refd_mpw_nil(w);
	}
	refd_mpw_end(w);
	if (s->sealed) {
		/* Own bid, everybody's once revealed; who has bid. */
		refd_mpw_karray(w, "bids");
		for (i = 0; i < s->nseats; i++) {
			if (i == seat || s->sealed == 2)
				refd_mpw_int(w, s->bid[i]);
			else
				refd_mpw_bool(w, s->bid[i] != 0);
		}
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	return put(ctx, w, 0, 0);
}

static int
r_result(refd_ctx *ctx, const void *state)
{
	const struct race *s = state;
	refd_mpw *w;
	int rc;

	if (s->winner < 0)
		return 0;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_karray(w, "winners");
	refd_mpw_int(w, s->winner);
	refd_mpw_end(w);
	refd_mpw_kstr(w, "reason", "reached the target");
	refd_mpw_end(w);
	rc = put(ctx, w, 0, 0);
	return rc == REFD_OK ? 1 : rc;
}

static int
r_serialize(refd_ctx *ctx, const void *state)
{
	const struct race *s = state;
	refd_mpw *w = refd_mpw_create();
	int i;

	refd_mpw_array(w);
	refd_mpw_int(w, s->nseats);
	refd_mpw_int(w, s->total);
	refd_mpw_int(w, s->target);
	refd_mpw_int(w, s->fault == F_ROUNDTRIP ? 0 : s->turn);
	refd_mpw_int(w, s->winner);
	refd_mpw_int(w, s->fault);
	refd_mpw_int(w, s->rejected);
	for (i = 0; i < s->nseats; i++)
		refd_mpw_int(w, s->secret[i]);
	refd_mpw_int(w, s->sealed);
	for (i = 0; i < s->nseats; i++)
		refd_mpw_int(w, s->bid[i]);
	refd_mpw_end(w);
	return put(ctx, w, 0, 0);
}

static int
r_restore(refd_ctx *ctx, void *pdata, const void *content, const uint8_t *b,
    size_t len, void **out)
{
	refd_mpdoc *d = refd_mp_parse(b, len);
	refd_mpv a = refd_mp_root(d);
	struct race *s;
	int bad = 0, i;
	size_t p = 0;

	(void)pdata;
	(void)content;
	if (d == NULL)
		return H->reject(ctx, REFD_EARG, NULL, "state is not msgpack");
	s = H->alloc(ctx, sizeof(*s));
	if (s == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(s, 0, sizeof(*s));
#define NEXT(dst) bad |= refd_mpv_int(refd_mpv_at(a, p++), &(dst))
	NEXT(s->nseats);
	NEXT(s->total);
	NEXT(s->target);
	NEXT(s->turn);
	NEXT(s->winner);
	NEXT(s->fault);
	NEXT(s->rejected);
	if (s->nseats < 1 || s->nseats > MAXSEATS || s->fault == F_BAD_RESTORE)
		bad = 1;
	for (i = 0; !bad && i < s->nseats; i++)
		NEXT(s->secret[i]);
	if (!bad && p < refd_mpv_len(a)) {
		NEXT(s->sealed);
		for (i = 0; !bad && i < s->nseats; i++)
			NEXT(s->bid[i]);
	}
#undef NEXT
	refd_mp_free(d);
	if (bad) {
		H->free(ctx, s);
		return H->reject(ctx, REFD_EARG, NULL, "state is damaged");
	}
	*out = s;
	return REFD_OK;
}

static void
r_destroy(refd_ctx *ctx, void *state)
{
	H->free(ctx, state);
}

static int
r_redeal(refd_ctx *ctx, void *state, uint32_t seat)
{
	struct race *s = state;
	uint32_t x;
	int rc;

	if ((int64_t)seat >= s->nseats)
		return REFD_ESEAT;
	if ((rc = H->uniform(ctx, 100, "secret", &x)) != REFD_OK)
		return rc;
	s->secret[seat] = x;
	return REFD_OK;
}

static const struct refd_plugin_ops ops = {
	sizeof(struct refd_plugin_ops),
	r_init,
	NULL,
	r_describe,
	r_content_load,
	r_content_free,
	r_create,
	r_apply,
	r_legal,
	r_pending,
	r_view,
	r_result,
	r_serialize,
	r_restore,
	r_destroy,
	r_redeal,
};

/* The descriptors, one per variant. */
#define DESC(magic_, minor_, size_, caps_, name_)                              \
	{ (magic_), REFD_ABI_MAJOR, (minor_), (uint32_t)(size_), REFD_PF_HIDDEN, \
	  (uint64_t)(caps_), (name_), "1.0.0", "a loader test fixture", 1,   \
	  MAXSEATS, &ops }
#define CAPS (REFD_CAP_DRAWS | REFD_CAP_EVENTS)

#if defined(FIXTURE_good) || defined(FIXTURE_good_old_minor) || \
    defined(FIXTURE_init_fails) || defined(FIXTURE_faulty) || \
    defined(FIXTURE_crashes) || defined(FIXTURE_loops)
REFD_PLUGIN_DEFINE(FIXTURE_NAME, "1.0.0", "a loader test fixture", 1,
    MAXSEATS, REFD_PF_HIDDEN, &ops);
#elif defined(FIXTURE_sealed)
REFD_PLUGIN_DEFINE(FIXTURE_NAME, "1.0.0", "a loader test fixture", 1,
    MAXSEATS, REFD_PF_HIDDEN | REFD_PF_SEALED_SETUP, &ops);
#elif defined(FIXTURE_rollback)
REFD_PLUGIN_DEFINE(FIXTURE_NAME, "1.0.0", "a loader test fixture", 1,
    MAXSEATS, REFD_PF_HIDDEN | REFD_PF_ROLLBACK, &ops);
#elif defined(FIXTURE_bad_magic)
REFD_EXPORT_ const struct refd_plugin REFD_PLUGIN_ENTRY =
    DESC(0x46455253u, REFD_ABI_MINOR, sizeof(struct refd_plugin), CAPS,
    FIXTURE_NAME);
#elif defined(FIXTURE_newer_major)
/* What a plugin built for ABI 2 would export: another symbol. */
REFD_EXPORT_ const struct refd_plugin refd_plugin_v2 = {
	REFD_PLUGIN_MAGIC, 2, 0, (uint32_t)sizeof(struct refd_plugin),
	REFD_PF_HIDDEN, CAPS, FIXTURE_NAME, "2.0.0", "a loader test fixture",
	1, MAXSEATS, &ops
};
#elif defined(FIXTURE_newer_minor)
/* A later minor appends members: the object is larger. */
struct desc_next {
	struct refd_plugin d;
	uint64_t appended[2];
};
REFD_EXPORT_ const struct desc_next REFD_PLUGIN_ENTRY = {
	DESC(REFD_PLUGIN_MAGIC, REFD_ABI_MINOR + 1, sizeof(struct desc_next),
	    CAPS, FIXTURE_NAME), { 0, 0 }
};
#elif defined(FIXTURE_size_too_big)
/* Claims this minor, but a size larger than this minor's descriptor. */
struct desc_big {
	struct refd_plugin d;
	uint64_t pad[8];
};
REFD_EXPORT_ const struct desc_big REFD_PLUGIN_ENTRY = {
	DESC(REFD_PLUGIN_MAGIC, REFD_ABI_MINOR, sizeof(struct desc_big), CAPS,
	    FIXTURE_NAME), { 0 }
};
#elif defined(FIXTURE_size_lies)
/* Claims more bytes than the symbol has: reading them would overrun. */
REFD_EXPORT_ const struct refd_plugin REFD_PLUGIN_ENTRY =
    DESC(REFD_PLUGIN_MAGIC, REFD_ABI_MINOR + 1, sizeof(struct refd_plugin) +
    4096, CAPS, FIXTURE_NAME);
#elif defined(FIXTURE_wild_ops)
/* A damaged descriptor: refd must not follow this pointer. */
REFD_EXPORT_ const struct refd_plugin REFD_PLUGIN_ENTRY = {
	REFD_PLUGIN_MAGIC, REFD_ABI_MAJOR, REFD_ABI_MINOR,
	(uint32_t)sizeof(struct refd_plugin), 0, CAPS, FIXTURE_NAME, "1.0.0",
	"a loader test fixture", 1, MAXSEATS,
	(const struct refd_plugin_ops *)(uintptr_t)0x1000
};
static const struct refd_plugin_ops *const unused_ops
    __attribute__((used)) = &ops;
#elif defined(FIXTURE_entry_function)
/* The Postgres lesson: the entry must be data, never code. */
REFD_EXPORT_ int refd_plugin_v1(void);
REFD_EXPORT_ int
refd_plugin_v1(void)
{
	return (int)sizeof(ops);
}
#elif defined(FIXTURE_no_entry)
/* The descriptor exists but is not exported. */
const struct refd_plugin fixture_hidden_descriptor =
    DESC(REFD_PLUGIN_MAGIC, REFD_ABI_MINOR, sizeof(struct refd_plugin), CAPS,
    FIXTURE_NAME);
#elif defined(FIXTURE_name_mismatch)
REFD_PLUGIN_DEFINE("someone_else", "1.0.0", "a loader test fixture", 1,
    MAXSEATS, REFD_PF_HIDDEN, &ops);
#elif defined(FIXTURE_unknown_cap)
REFD_PLUGIN_DEFINE_CAPS(FIXTURE_NAME, "1.0.0", "a loader test fixture", 1,
    MAXSEATS, REFD_PF_HIDDEN, CAPS | (1ull << 40), &ops);
#else
#error "unknown fixture variant"
#endif
