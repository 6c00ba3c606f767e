/*
 * describe.c - the SDK's describe-from-tables and flat state helpers
 * (refd/describe.h), through the mock host.
 */
#include <string.h>

#include <refd/describe.h>
#include <refd/mockhost.h>

#include "tap.h"

struct flat {
	int32_t turn, hp[2];
	char name[8];
};

static const char *
check_turn(const void *state)
{
	const struct flat *f = state;

	return f->turn == 0 || f->turn == 1 ? NULL : "turn: not 0 or 1";
}

int
main(void)
{
	refd_mock *m = refd_mock_create();
	const struct refd_host *h = refd_mock_host(m);
	refd_ctx *ctx = refd_mock_ctx(m);
	static const struct refd_option_doc opts[] = {
		{ "max_rounds", "int", "20", "rounds" },
		{ "cards", "bool", "true", "deal cards" },
		{ "map", "str", "hall", "the map" },
		{ "fighters", "[str, str]", NULL, "two fighters" },
		{ NULL, NULL, NULL, NULL } };
	static const struct refd_arg_doc a_attack[] = {
		{ "card", "int, optional: a card" }, { NULL, NULL } };
	static const struct refd_command_doc cmds[] = {
		{ "attack", a_attack, "hit" }, { "defend", NULL, "wait" },
		{ NULL, NULL, NULL } };
	const uint8_t *out, *b;
	size_t len, n;
	refd_mpdoc *d;
	refd_mpv r, o;
	struct flat f, *g = NULL;
	void *st = NULL;
	int rc;

	rc = refd_describe(h, ctx, "a test", 2, 4, opts, cmds);
	out = refd_mock_output(m, &len);
	ok(rc == REFD_OK && out != NULL, "describe outputs");
	d = refd_mp_parse(out, len);
	r = refd_mp_root(d);
	is_str(refd_mpv_get_str(r, "summary", ""), "a test", "summary");
	{
		int64_t lo = 0, hi = 0;

		refd_mpv_int(refd_mpv_at(refd_mpv_get(r, "seats"), 0), &lo);
		refd_mpv_int(refd_mpv_at(refd_mpv_get(r, "seats"), 1), &hi);
		ok(lo == 2 && hi == 4, "seats: [min, max]");
	}
	o = refd_mpv_get(r, "options");
	is_int(refd_mpv_get_int(refd_mpv_get(o, "max_rounds"), "default", 0),
	    20, "an int default is an integer");
	is_int(refd_mpv_type(refd_mpv_get(refd_mpv_get(o, "cards"), "default")),
	    REFD_MP_BOOL, "a bool default is a boolean");
	is_str(refd_mpv_get_str(refd_mpv_get(o, "map"), "default", ""), "hall",
	    "a str default is text");
	ok(!refd_mpv_ok(refd_mpv_get(refd_mpv_get(o, "fighters"), "default")),
	    "no default: none written");
	is_str(refd_mpv_get_str(refd_mpv_get(refd_mpv_get(refd_mpv_get(r,
	    "commands"), "attack"), "args"), "card", ""),
	    "int, optional: a card", "command arguments");
	is_int(refd_mpv_type(refd_mpv_get(refd_mpv_get(refd_mpv_get(r,
	    "commands"), "defend"), "args")), REFD_MP_MAP,
	    "a command without arguments has an empty args map");
	refd_mp_free(d);

	memset(&f, 0, sizeof(f));
	f.turn = 1;
	f.hp[0] = 7;
	f.hp[1] = 9;
	strcpy(f.name, "knight");
	refd_mock_clear(m);
	rc = refd_flat_serialize(h, ctx, &f, sizeof(f), 0x44554c31u);
	out = refd_mock_output(m, &len);
	d = refd_mp_parse(out, len);
	ok(rc == REFD_OK && refd_mpv_bin(refd_mp_root(d), &b, &n) == 0 &&
	    n == sizeof(f) + 4 && b[0] == 0x44 && b[3] == 0x31,
	    "flat serialize: one bin, the magic first");
	refd_mp_free(d);
	{
		uint8_t copy[256];

		memcpy(copy, out, len);
		rc = refd_flat_restore(h, ctx, copy, len, sizeof(f),
		    0x44554c31u, check_turn, &st);
		g = st;
		ok(rc == REFD_OK && g != NULL && g->turn == 1 &&
		    g->hp[1] == 9 && strcmp(g->name, "knight") == 0,
		    "flat restore: the same state");
		h->free(ctx, st);
		rc = refd_flat_restore(h, ctx, copy, len, sizeof(f),
		    0x44554c32u, check_turn, &st);
		ok(rc != REFD_OK, "another magic is refused");
		rc = refd_flat_restore(h, ctx, copy, len, sizeof(f) - 4,
		    0x44554c31u, check_turn, &st);
		ok(rc != REFD_OK, "another size is refused");
		f.turn = 5;
		refd_mock_clear(m);
		refd_flat_serialize(h, ctx, &f, sizeof(f), 0x44554c31u);
		out = refd_mock_output(m, &len);
		memcpy(copy, out, len);
		rc = refd_flat_restore(h, ctx, copy, len, sizeof(f),
		    0x44554c31u, check_turn, &st);
		ok(rc != REFD_OK && strstr(refd_mock_reject_message(m),
		    "turn") != NULL, "a damaged state is refused with why");
	}
	refd_mock_destroy(m);
	return done_testing();
}
