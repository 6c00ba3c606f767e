/*
 * apply.c - fuzz target: a plugin's apply with fuzzed command bytes in a
 * live match.  Input:
 *
 *   u8 seats      seat count: min_seats + this % (max - min + 1)
 *   u16 n, n bytes  setup (msgpack map; n = 0: the first scenario, or {})
 *   then steps, each
 *     u8 seat, u16 n, n bytes   a command from seat (seat % seats): what
 *                               refd hands the plugin (a msgpack map,
 *                               re-encoded), else skipped
 *     u8 seat, u16 0, u8 k      the k-th listed command ("cmd" items) of
 *                               that seat's legal list, so that mutations
 *                               can play deep into a game
 *
 * (u16 big-endian.)  After every step: pending, legal for the seats that
 * owe a decision, views for every seat and the spectators, and the result.  A rejected command must leave
 * the state unchanged (its hash), or the target aborts.
 */
#include "fuzz.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	(void)fuzz_plugin();
	return 0;
}

static size_t
u16(const uint8_t *p)
{
	return (size_t)p[0] << 8 | p[1];
}

/* The k-th "cmd" of seat's legal list, re-encoded into w; 0 or -1. */
static int
listed(struct game *g, uint32_t seat, unsigned k, refd_mpw *w)
{
	struct call c;
	refd_mpdoc *d;
	refd_mpv arr, cmd;
	size_t n, i;
	int rc = -1;

	call_init(&c);
	if (game_legal(g, seat, &c) == REFD_OK && (d = refd_mp_parse(
	    c.out.data, c.out.len)) != NULL) {
		arr = refd_mp_root(d);
		n = refd_mpv_len(arr);
		for (i = 0; i < n && rc != 0; i++) {
			cmd = refd_mpv_get(refd_mpv_at(arr, (k + i) % n), "cmd");
			if (refd_mpv_type(cmd) == REFD_MP_MAP) {
				refd_mpw_value(w, cmd);
				rc = 0;
			}
		}
		refd_mp_free(d);
	}
	call_release(&c);
	return rc;
}

static void
look(struct game *g)
{
	struct call c;
	uint64_t pend;
	uint32_t s;

	call_init(&c);
	if (game_pending(g, &pend, &c) != REFD_OK)
		pend = 0;
	for (s = 0; s < g->nseats; s++) {
		/* Legal lists can be long: only for the seats that owe. */
		if (s < 64 && (pend >> s) & 1)
			(void)game_legal(g, s, &c);
		(void)game_view(g, (int32_t)s, &c);
	}
	(void)game_view(g, REFD_SEAT_PUBLIC, &c);
	(void)game_result(g, &c);
	call_release(&c);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t empty_map = 0x80;
	struct plugin *pl = fuzz_plugin();
	const struct refd_plugin *dsc = pl->desc;
	const uint8_t *setup;
	size_t setup_len, off, n;
	struct game *g = NULL;
	struct call c;
	struct rng r;
	refd_mpw *w;
	uint32_t nseats, span;
	uint8_t before[ENG_HASH_LEN], after[ENG_HASH_LEN];

	if (size < 3)
		return 0;
	span = dsc->max_seats >= dsc->min_seats ? dsc->max_seats -
	    dsc->min_seats + 1 : 1;
	nseats = dsc->min_seats + data[0] % span;
	n = u16(data + 1);
	off = 3;
	if (n > size - off)
		return 0;
	if (n == 0) {
		setup = pl->nscenarios ? pl->scenarios[0].setup : &empty_map;
		setup_len = pl->nscenarios ? pl->scenarios[0].setup_len : 1;
	} else {
		if (!fuzz_is_map(data + off, n))
			return 0;
		setup = data + off;
		setup_len = n;
	}
	off += n;
	call_init(&c);
	fuzz_rng(&r, data[0]);
	w = refd_mpw_create();
	if (game_create(pl, setup, setup_len, nseats, &r, 64 << 20, &g,
	    &c) != REFD_OK)
		goto out;
	look(g);
	while (off + 3 <= size) {
		uint32_t seat = data[off] % nseats;
		int rc;

		n = u16(data + off + 1);
		off += 3;
		refd_mpw_reset(w);
		if (n == 0) {
			if (off >= size)
				break;
			rc = listed(g, seat, data[off++], w);
		} else {
			refd_mpdoc *d;

			if (n > size - off)
				break;
			rc = -1;
			if (fuzz_is_map(data + off, n) &&
			    (d = refd_mp_parse(data + off, n)) != NULL) {
				refd_mpw_value(w, refd_mp_root(d));
				refd_mp_free(d);
				rc = 0;
			}
			off += n;
		}
		if (rc != 0 || refd_mpw_error(w))
			continue;
		if (game_state_hash(g, before) != REFD_OK)
			break;
		rc = game_apply(g, seat, refd_mpw_data(w), refd_mpw_len(w), &c);
		if (rc == REFD_EPLUGINFAULT)
			break;
		if (rc != REFD_OK) {
			if (game_state_hash(g, after) == REFD_OK &&
			    memcmp(before, after, sizeof(before)) != 0) {
				fprintf(stderr, "fuzz: plugin '%s': a rejected "
				    "command (%s) changed the state\n",
				    pl->name, refd_errname(rc));
				abort();
			}
			continue;
		}
		look(g);
	}
	game_destroy(g);
out:
	refd_mpw_destroy(w);
	rng_release(&r);
	call_release(&c);
	return 0;
}
