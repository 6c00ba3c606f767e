/*
 * mockhost.c - the SDK mock host (sdk/lib/mockhost.c), used the way a
 * plugin author would: the example duel plugin's ops called directly with
 * scripted dice, checking captured events, rejections, draws, commitments,
 * output and memory.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "refd/mockhost.h"
#include "refd/mp.h"
#include "tap.h"

/* The plugin under test, compiled into this program. */
#include "../../sdk/examples/duel/duel.c"

static refd_mpdoc *
ev(refd_mock *m, size_t i, int32_t *seat)
{
	size_t n = 0;
	const uint8_t *b = refd_mock_event(m, i, &n, seat);

	return b != NULL ? refd_mp_parse(b, n) : NULL;
}

static void
fighter(refd_mpw *w, const char *name, int hp, int ac, int atk, int dmg)
{
	refd_mpw_kmap(w, name);
	refd_mpw_kint(w, "hp", hp);
	refd_mpw_kint(w, "ac", ac);
	refd_mpw_kint(w, "attack", atk);
	refd_mpw_kint(w, "damage", dmg);
	refd_mpw_end(w);
}

int
main(void)
{
	const struct refd_plugin *p = &refd_plugin_v1;
	const struct refd_plugin_ops *o = p->ops;
	refd_mock *m = refd_mock_create();
	refd_ctx *ctx = refd_mock_ctx(m);
	refd_mpw *content = refd_mpw_create(), *setup = refd_mpw_create();
	refd_mpw *cmd = refd_mpw_create();
	void *pdata = NULL, *cont = NULL, *state = NULL, *state2 = NULL;
	int64_t deal[9], bad[] = { 25 }, hit[] = { 15, 5 };
	refd_mpdoc *d;
	int32_t seat = 99;
	const uint8_t *out, *cdata;
	uint8_t *ser;
	size_t n, sern;
	uint32_t v1, v2;
	int i, kind;
	uint32_t bound, value;
	const char *why;

	ok(m != NULL, "mock created");
	is_int(refd_mock_host(m)->size, sizeof(struct refd_host),
	    "host table is size-stamped");
	is_int(o->init(ctx, refd_mock_host(m), &pdata), REFD_OK, "init");
	is_int(o->describe(ctx, pdata), REFD_OK, "describe");
	out = refd_mock_output(m, &n);
	d = refd_mp_parse(out, n);
	is_int(refd_mpv_type(refd_mpv_get(refd_mp_root(d), "commands")),
	    REFD_MP_MAP, "describe output captured: has commands");
	refd_mp_free(d);

	refd_mpw_map(content);
	refd_mpw_kmap(content, "fighters");
	fighter(content, "knight", 30, 16, 5, 8);
	fighter(content, "rogue", 24, 14, 7, 6);
	refd_mpw_end(content);
	refd_mpw_end(content);
	refd_mock_clear(m);
	is_int(o->content_load(ctx, pdata, refd_mpw_data(content),
	    refd_mpw_len(content), &cont), REFD_OK, "content_load");
	ok(refd_mock_live_bytes(m) > 0, "content memory is accounted");

	/* Shuffle of 10 cards draws uniform(10) .. uniform(2); i-1 keeps the
	 * order, so the hands are dealt from the top: 10 9 and 8 7. */
	for (i = 0; i < 9; i++)
		deal[i] = 9 - i;
	is_int(refd_mock_script(m, deal, 9), REFD_OK, "script the deal");
	refd_mpw_map(setup);
	refd_mpw_karray(setup, "fighters");
	refd_mpw_str(setup, "knight");
	refd_mpw_str(setup, "rogue");
	refd_mpw_end(setup);
	refd_mpw_end(setup);
	is_int(o->create(ctx, pdata, cont, refd_mpw_data(setup),
	    refd_mpw_len(setup), 2, &state), REFD_OK, "create");
	is_int(refd_mock_draws_left(m), 0, "the deal used the whole script");
	is_int(refd_mock_ndraws(m), 9, "9 draws recorded");
	ok(refd_mock_draw(m, 0, &kind, &bound, &value, &why) == REFD_OK &&
	    kind == 2 && bound == 10 && value == 9 && strcmp(why, "deck") == 0,
	    "first draw: uniform(10) = 9 for the deck");
	is_int(refd_mock_nevents(m), 3, "create emitted 3 events");
	d = ev(m, 0, &seat);
	is_int(seat, 0, "event 0 is private to seat 0");
	is_str(refd_mpv_get_str(refd_mp_root(d), "type", ""), "dealt",
	    "event 0 is the deal");
	is_int(refd_mpv_get_int(refd_mpv_get(refd_mp_root(d), "cards"), "x",
	    -1), -1, "cards is an array");
	{
		int64_t c0 = 0, c1 = 0;
		refd_mpv cs = refd_mpv_get(refd_mp_root(d), "cards");

		refd_mpv_int(refd_mpv_at(cs, 0), &c0);
		refd_mpv_int(refd_mpv_at(cs, 1), &c1);
		ok(c0 == 10 && c1 == 9, "seat 0 was dealt 10 and 9");
	}
	refd_mp_free(d);
	d = ev(m, 2, &seat);
	is_int(seat, REFD_SEAT_PUBLIC, "event 2 is public");
	is_str(refd_mpv_get_str(refd_mp_root(d), "type", ""), "start",
	    "event 2 starts the duel");
	refd_mp_free(d);
	is_int(refd_mock_ncommits(m), 3, "deck and both hands committed");
	is_str(refd_mock_commit(m, 1, &seat, &cdata, &n), "hand.0",
	    "second commitment is seat 0's hand");
	ok(seat == 0 && n == 2 && cdata[0] == 10 && cdata[1] == 9,
	    "its data is the hand");

	/* Out of turn: rejected with the rule, nothing emitted. */
	refd_mock_clear(m);
	refd_mpw_map(cmd);
	refd_mpw_kstr(cmd, "type", "attack");
	refd_mpw_end(cmd);
	is_int(o->apply(ctx, state, 1, refd_mpw_data(cmd), refd_mpw_len(cmd)),
	    REFD_ENOTYOURTURN, "seat 1 may not act first");
	is_int(refd_mock_reject_code(m), REFD_ENOTYOURTURN, "rejection code");
	is_str(refd_mock_reject_rule(m), "DUEL-2", "rejection rule");
	ok(strstr(refd_mock_reject_message(m), "turn") != NULL,
	    "rejection sentence");
	is_int(refd_mock_nevents(m), 0, "a rejection emits nothing");

	/* A scripted die out of range: REFD_ESCRIPT, as in refd. */
	refd_mock_script(m, bad, 1);
	is_int(o->apply(ctx, state, 0, refd_mpw_data(cmd), refd_mpw_len(cmd)),
	    REFD_ESCRIPT, "a d20 of 25 is refused");

	/* A boosted hit: d20 15 + 5 >= 14, damage 5 + card 10. */
	refd_mock_clear(m);
	refd_mock_script(m, hit, 2);
	refd_mpw_reset(cmd);
	refd_mpw_map(cmd);
	refd_mpw_kstr(cmd, "type", "attack");
	refd_mpw_kint(cmd, "card", 10);
	refd_mpw_end(cmd);
	is_int(o->apply(ctx, state, 0, refd_mpw_data(cmd), refd_mpw_len(cmd)),
	    REFD_OK, "seat 0 attacks with card 10");
	is_int(refd_mock_draws_left(m), 0, "attack and damage dice used");
	d = ev(m, 0, &seat);
	is_int(refd_mpv_get_int(refd_mp_root(d), "damage", -1), 15,
	    "damage 5 + 10");
	is_int(refd_mpv_get_int(refd_mp_root(d), "hp", -1), 9,
	    "rogue at 9 HP");
	refd_mp_free(d);
	d = ev(m, 1, &seat);
	ok(seat == 0 && refd_mpv_get_int(refd_mp_root(d), "card", -1) == 6,
	    "seat 0 privately drew card 6");
	refd_mp_free(d);

	/* Views and the round trip. */
	refd_mock_clear(m);
	is_int(o->view(ctx, state, REFD_SEAT_PUBLIC), REFD_OK, "public view");
	out = refd_mock_output(m, &n);
	d = refd_mp_parse(out, n);
	ok(!refd_mpv_ok(refd_mpv_get(refd_mpv_at(refd_mpv_get(refd_mp_root(d),
	    "fighters"), 1), "hand")), "spectators see no hand");
	refd_mp_free(d);
	refd_mock_clear(m);
	o->view(ctx, state, 1);
	out = refd_mock_output(m, &n);
	d = refd_mp_parse(out, n);
	{
		refd_mpv h = refd_mpv_get(refd_mpv_at(refd_mpv_get(
		    refd_mp_root(d), "fighters"), 1), "hand");
		int64_t a = 0, b = 0;

		refd_mpv_int(refd_mpv_at(h, 0), &a);
		refd_mpv_int(refd_mpv_at(h, 1), &b);
		ok(refd_mpv_len(h) == 2 && a == 8 && b == 7,
		    "seat 1 sees its hand 8 7");
	}
	refd_mp_free(d);
	refd_mock_clear(m);
	is_int(o->serialize(ctx, state), REFD_OK, "serialize");
	out = refd_mock_output(m, &sern);
	ser = malloc(sern);
	memcpy(ser, out, sern);
	is_int(o->restore(ctx, pdata, cont, ser, sern, &state2), REFD_OK,
	    "restore");
	refd_mock_clear(m);
	o->serialize(ctx, state2);
	out = refd_mock_output(m, &n);
	ok(n == sern && memcmp(out, ser, n) == 0, "round trip is exact");
	free(ser);

	/* Misuse is caught. */
	refd_mock_clear(m);
	is_int(refd_mock_host(m)->emit(ctx, REFD_SEAT_PUBLIC,
	    (const uint8_t *)"\x01", 1), REFD_EPLUGINFAULT,
	    "an event that is not a map is refused");
	is_str(refd_mock_fault(m), "event is not one msgpack map",
	    "and named");
	refd_mock_host(m)->log(ctx, REFD_LOG_WARN, "careful");
	is_str(refd_mock_logs(m), "warning: careful\n", "log captured");

	/* Told which op runs, the mock refuses what refd refuses. */
	refd_mock_clear(m);
	refd_mock_op(m, REFD_MOCK_QUERY);
	is_int(refd_mock_host(m)->roll(ctx, 6, "peek", &v1),
	    REFD_EPLUGINFAULT, "op query: a draw is refused");
	is_str(refd_mock_fault(m), "draw outside create, apply or redeal",
	    "op query: named as refd names it");
	refd_mock_clear(m);
	is_int(o->view(ctx, state, 0), REFD_OK, "op query: view is fine");
	refd_mock_op(m, REFD_MOCK_APPLY);
	is_int(refd_mock_host(m)->output(ctx, (const uint8_t *)"\xc0", 1),
	    REFD_EPLUGINFAULT, "op apply: output is refused");
	refd_mock_op(m, REFD_MOCK_REDEAL);
	refd_mock_clear(m);
	refd_mock_script(m, NULL, 0);
	is_int(o->redeal(ctx, state, 1), REFD_OK,
	    "op redeal: duel's redeal draws without a fault");
	is_str(refd_mock_fault(m), "", "op redeal: no fault");
	refd_mock_op(m, REFD_MOCK_ANY);

	/* Unscripted draws: seeded and repeatable. */
	refd_mock_script(m, NULL, 0);
	refd_mock_seed(m, 77);
	refd_mock_host(m)->roll(ctx, 6, "a", &v1);
	refd_mock_seed(m, 77);
	refd_mock_host(m)->roll(ctx, 6, "b", &v2);
	ok(v1 == v2 && v1 >= 1 && v1 <= 6, "same seed, same roll (%u)", v1);

	/* Memory: failing allocations, and nothing left after destroy. */
	refd_mock_fail_alloc(m, 1);
	refd_mock_script(m, deal, 9);
	state = (o->destroy(ctx, state), NULL);
	is_int(o->create(ctx, pdata, cont, refd_mpw_data(setup),
	    refd_mpw_len(setup), 2, &state), REFD_ENOMEM,
	    "create fails cleanly without memory");
	refd_mock_fail_alloc(m, 0);
	o->destroy(ctx, state2);
	o->content_free(pdata, cont);
	is_int(refd_mock_live_bytes(m), 0, "every allocation was freed");

	refd_mpw_destroy(content);
	refd_mpw_destroy(setup);
	refd_mpw_destroy(cmd);
	refd_mock_destroy(m);
	refd_mock_destroy(NULL);
	return done_testing();
}
