/*
 * create.c - fuzz target: a plugin's create with fuzzed setup bytes (what
 * refd hands it: one msgpack map re-encoded by the host), for any seat
 * count in the plugin's range; a game it accepts is listed, viewed,
 * serialized and restored.
 *
 * The first input byte picks the seat count; the rest is the setup.
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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plugin *pl = fuzz_plugin();
	const struct refd_plugin *dsc = pl->desc;
	struct game *g = NULL, *g2 = NULL;
	refd_mpdoc *d;
	refd_mpw *w;
	struct call c;
	struct rng r;
	uint32_t nseats, span, s;
	uint64_t pend;

	if (size < 2 || !fuzz_is_map(data + 1, size - 1) ||
	    (d = refd_mp_parse(data + 1, size - 1)) == NULL)
		return 0;
	w = refd_mpw_create();
	refd_mpw_value(w, refd_mp_root(d));
	refd_mp_free(d);
	span = dsc->max_seats >= dsc->min_seats ? dsc->max_seats -
	    dsc->min_seats + 1 : 1;
	nseats = dsc->min_seats + data[0] % span;
	call_init(&c);
	fuzz_rng(&r, data[0]);
	if (!refd_mpw_error(w) && game_create(pl, refd_mpw_data(w),
	    refd_mpw_len(w), nseats, &r, 64 << 20, &g, &c) == REFD_OK) {
		(void)game_pending(g, &pend, &c);
		for (s = 0; s < nseats; s++) {
			(void)game_legal(g, s, &c);
			(void)game_view(g, (int32_t)s, &c);
		}
		(void)game_view(g, REFD_SEAT_PUBLIC, &c);
		(void)game_result(g, &c);
		if (game_serialize(g, &c) == REFD_OK) {
			struct buf sb = c.out;

			buf_init(&c.out);
			if (game_restore(pl, sb.data, sb.len, nseats, &r,
			    64 << 20, &g2, &c) == REFD_OK)
				game_destroy(g2);
			buf_release(&sb);
		}
		game_destroy(g);
	}
	call_release(&c);
	rng_release(&r);
	refd_mpw_destroy(w);
	return 0;
}
