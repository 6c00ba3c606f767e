/*
 * mp.c - the SDK msgpack helpers (sdk/lib/mp.c): structural checks of
 * untrusted bytes (truncated, garbage, deep, lying counts), parsing and
 * walking, the writer, and determinism of its output.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "refd/mp.h"
#include "tap.h"

#define B(s) (const uint8_t *)(s), sizeof(s) - 1

static uint8_t *
nested(int depth, size_t *len)
{
	uint8_t *b = malloc((size_t)depth + 1);
	int i;

	for (i = 0; i < depth; i++)
		b[i] = 0x91;	/* fixarray of one */
	b[depth] = 0x01;
	*len = (size_t)depth + 1;
	return b;
}

static void
test_check(void)
{
	uint8_t *b;
	size_t n, i;
	refd_mpw *w;
	int bad;

	is_int(refd_mp_check(B("\x01"), 0), 0, "check: a fixint");
	is_int(refd_mp_check_text(B("\x82\xa1" "a\xa2\xc3\xa9\xa1" "b\xd9\x03"
	    "\xe2\x82\xac"), 0), 0, "check_text: UTF-8 in fixstr and str8");
	is_int(refd_mp_check_text(B("\x91\xa2\xc0\xaf"), 0),
	    REFD_MPCHECK_UTF8, "check_text: an overlong form in a fixstr");
	is_int(refd_mp_check_text(B("\x81\xd9\x01\xff\x01"), 0),
	    REFD_MPCHECK_UTF8, "check_text: a bad str8 map key");
	is_int(refd_mp_check_text(B("\xda\x00\x03\xed\xa0\x80"), 0),
	    REFD_MPCHECK_UTF8, "check_text: a surrogate in a str16");
	is_int(refd_mp_check(B("\x91\xa2\xc0\xaf"), 0), 0,
	    "check: strings are not looked at");
	is_int(refd_mp_check_text(B("\xc4\x02\xff\xfe"), 0), 0,
	    "check_text: bin bytes are not strings");
	is_int(refd_mp_check(B("\x82\xa1" "a\x01\xa1" "b\x92\xc0\xc3"), 0), 0,
	    "check: a map with an array");
	is_int(refd_mp_check((const uint8_t *)"", 0, 0), REFD_MPCHECK_TRUNCATED,
	    "check: empty input is truncated");
	is_int(refd_mp_check(NULL, 4, 0), REFD_MPCHECK_TRUNCATED,
	    "check: NULL input is truncated");
	is_int(refd_mp_check(B("\xc1"), 0), REFD_MPCHECK_BADBYTE,
	    "check: 0xc1 is never valid");
	is_int(refd_mp_check(B("\x92\x01\xc1"), 0), REFD_MPCHECK_BADBYTE,
	    "check: 0xc1 inside an array");
	is_int(refd_mp_check(B("\x01\x02"), 0), REFD_MPCHECK_TRAILING,
	    "check: two values are trailing bytes");
	is_int(refd_mp_check(B("\x93\x01\x02"), 0), REFD_MPCHECK_TRUNCATED,
	    "check: array short of an item");
	is_int(refd_mp_check(B("\x81\x01"), 0), REFD_MPCHECK_TRUNCATED,
	    "check: map short of a value");
	is_int(refd_mp_check(B("\xa5" "abc"), 0), REFD_MPCHECK_TRUNCATED,
	    "check: fixstr longer than the input");
	is_int(refd_mp_check(B("\xdb\xff\xff\xff\xff" "ab"), 0),
	    REFD_MPCHECK_TRUNCATED, "check: str32 claiming 4 GiB");
	is_int(refd_mp_check(B("\xdd\xff\xff\xff\xff\x01\x01"), 0),
	    REFD_MPCHECK_TRUNCATED, "check: array32 claiming 4 billion items");
	is_int(refd_mp_check(B("\xdf\x80\x00\x00\x00\x01\x01"), 0),
	    REFD_MPCHECK_TRUNCATED, "check: map32 claiming 2 billion pairs");
	is_int(refd_mp_check(B("\xc6\x00\x00\x00\x02" "a"), 0),
	    REFD_MPCHECK_TRUNCATED, "check: bin32 short");
	is_int(refd_mp_check(B("\xcf\x01\x02"), 0), REFD_MPCHECK_TRUNCATED,
	    "check: uint64 short");
	is_int(refd_mp_check(B("\xd4\x01\x02"), 0), 0, "check: fixext1");
	is_int(refd_mp_check(B("\xc7\x02\x05" "ab"), 0), 0, "check: ext8");
	is_int(refd_mp_check(B("\xc7\x03\x05" "ab"), 0), REFD_MPCHECK_TRUNCATED,
	    "check: ext8 short");
	is_int(refd_mp_check(B("\xcb\x3f\xf0\x00\x00\x00\x00\x00\x00"), 0), 0,
	    "check: float64");
	is_int(refd_mp_check(B("\x90"), 0), 0, "check: empty array");

	/* Every proper prefix of a valid document is truncated. */
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "move");
	refd_mpw_karray(w, "path");
	refd_mpw_int(w, -70000);
	refd_mpw_int(w, 5000000000LL);
	refd_mpw_bin(w, (const uint8_t *)"\0\1\2", 3);
	refd_mpw_end(w);
	refd_mpw_kbool(w, "run", 1);
	refd_mpw_end(w);
	bad = 0;
	for (i = 0; i < refd_mpw_len(w); i++)
		bad += refd_mp_check(refd_mpw_data(w), i, 0) !=
		    REFD_MPCHECK_TRUNCATED;
	is_int(bad, 0, "check: each of %zu prefixes is truncated",
	    refd_mpw_len(w));
	is_int(refd_mp_check(refd_mpw_data(w), refd_mpw_len(w), 0), 0,
	    "check: the whole document is fine");
	refd_mpw_destroy(w);

	/* Depth. */
	b = nested(REFD_MP_MAX_DEPTH, &n);
	is_int(refd_mp_check(b, n, 0), 0, "check: %d levels are allowed",
	    REFD_MP_MAX_DEPTH);
	is_int(refd_mp_check(b, n, 4), REFD_MPCHECK_DEPTH,
	    "check: 32 levels exceed max_depth 4");
	{
		refd_mpdoc *d = refd_mp_parse(b, n);
		refd_mpv v = refd_mp_root(d);
		int k;

		ok(d != NULL, "parse: %d levels parse", REFD_MP_MAX_DEPTH);
		for (k = 0; k < REFD_MP_MAX_DEPTH; k++)
			v = refd_mpv_at(v, 0);
		is_int(refd_mpv_get_int(refd_mpv_at(refd_mp_root(d), 0), "x",
		    -1), -1, "parse: get on an array gives the default");
		{
			int64_t x = 0;

			ok(refd_mpv_int(v, &x) == 0 && x == 1,
			    "parse: the innermost value is reachable");
		}
		refd_mp_free(d);
	}
	free(b);
	b = nested(REFD_MP_MAX_DEPTH + 1, &n);
	is_int(refd_mp_check(b, n, 0), REFD_MPCHECK_DEPTH,
	    "check: %d levels are too deep", REFD_MP_MAX_DEPTH + 1);
	ok(refd_mp_parse(b, n) == NULL, "parse: refuses too deep");
	free(b);
	b = nested(100000, &n);
	is_int(refd_mp_check(b, n, 0), REFD_MPCHECK_DEPTH,
	    "check: 100000 levels fail fast, no recursion");
	free(b);
	b = malloc(100000);
	memset(b, 0xdc, 100000);	/* array16 headers all the way */
	ok(refd_mp_check(b, 100000, 0) < 0, "check: a wall of array16 bytes");
	free(b);

	/* Random garbage never crashes and never passes as more than it is. */
	{
		uint64_t s = 42;
		uint8_t g[64];
		int k, j, crashes = 0;

		for (k = 0; k < 20000; k++) {
			size_t len = 1 + (size_t)(s % 64);
			int rc;
			refd_mpdoc *d;

			for (j = 0; j < 64; j++) {
				s = s * 6364136223846793005ull +
				    1442695040888963407ull;
				g[j] = (uint8_t)(s >> 56);
			}
			rc = refd_mp_check(g, len, 0);
			d = refd_mp_parse(g, len);
			if ((rc == 0) != (d != NULL))
				crashes++;
			refd_mp_free(d);
		}
		is_int(crashes, 0, "check and parse agree on 20000 garbage "
		    "inputs");
	}
	is_str(refd_mp_check_str(REFD_MPCHECK_DEPTH),
	    "msgpack nested too deeply", "check_str names depth");
	is_str(refd_mp_check_str(0), "well-formed", "check_str names success");
}

static void
test_read(void)
{
	/* {"type":"attack","n":-3,"big":2^63,"ok":true,"s":"a\0b",
	 *  "arr":[1,2],"f":1.5,"bin":h'0102'} */
	static const uint8_t doc[] =
	    "\x88\xa4type\xa6" "attack\xa1n\xfd\xa3" "big\xcf\x80\x00\x00\x00"
	    "\x00\x00\x00\x00\xa2ok\xc3\xa1s\xa3" "a\0b\xa3" "arr\x92\x01\x02"
	    "\xa1" "f\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00\xa3" "bin\xc4\x02"
	    "\x01\x02";
	refd_mpdoc *d = refd_mp_parse(doc, sizeof(doc) - 1);
	refd_mpv r = refd_mp_root(d), miss;
	int64_t x = 99;
	const char *s;
	size_t n;
	const uint8_t *bin;
	int bv;

	ok(d != NULL, "read: parses");
	is_int(refd_mpv_type(r), REFD_MP_MAP, "read: root is a map");
	is_int(refd_mpv_len(r), 8, "read: 8 pairs");
	is_str(refd_mpv_get_str(r, "type", "?"), "attack", "read: get_str");
	ok(refd_mpv_streq(refd_mpv_get(r, "type"), "attack"), "read: streq");
	ok(!refd_mpv_streq(refd_mpv_get(r, "type"), "attac"),
	    "read: streq needs the whole string");
	is_int(refd_mpv_get_int(r, "n", 0), -3, "read: negative fixint");
	ok(refd_mpv_int(refd_mpv_get(r, "big"), &x) == -1 && x == 99,
	    "read: 2^63 does not fit int64 and leaves *out alone");
	is_int(refd_mpv_get_int(r, "f", 7), 7, "read: a float is no integer");
	is_int(refd_mpv_type(refd_mpv_get(r, "f")), REFD_MP_FLOAT,
	    "read: float type");
	is_int(refd_mpv_get_bool(r, "ok", 0), 1, "read: bool");
	is_int(refd_mpv_get_bool(r, "n", 5), 5, "read: an int is no bool");
	ok(refd_mpv_bool(refd_mpv_get(r, "ok"), &bv) == 0 && bv == 1,
	    "read: refd_mpv_bool");
	is_str(refd_mpv_get_str(r, "s", "dflt"), "dflt",
	    "read: a string with NUL gives the default C string");
	ok(refd_mpv_str(refd_mpv_get(r, "s"), &s, &n) == 0 && n == 3,
	    "read: but its bytes are there");
	ok(refd_mpv_bin(refd_mpv_get(r, "bin"), &bin, &n) == 0 && n == 2 &&
	    bin[1] == 2, "read: bin");
	is_int(refd_mpv_len(refd_mpv_get(r, "arr")), 2, "read: array len");
	is_int(refd_mpv_get_int(refd_mpv_at(refd_mpv_get(r, "arr"), 1), "x",
	    -1), -1, "read: get on a non-map");
	ok(refd_mpv_int(refd_mpv_at(refd_mpv_get(r, "arr"), 1), &x) == 0 &&
	    x == 2, "read: array item");
	miss = refd_mpv_at(refd_mpv_get(refd_mpv_get(r, "no"), "such"), 3);
	ok(!refd_mpv_ok(miss), "read: chains through missing values");
	is_int(refd_mpv_type(miss), REFD_MP_MISSING, "read: missing type");
	is_int(refd_mpv_len(miss), 0, "read: missing len");
	ok(!refd_mpv_ok(refd_mpv_at(refd_mpv_get(r, "arr"), 2)),
	    "read: index past the end is missing");
	ok(refd_mpv_streq(refd_mpv_key_at(r, 1), "n"), "read: key_at");
	ok(!refd_mpv_ok(refd_mpv_val_at(r, 8)), "read: val_at past the end");
	ok(!refd_mpv_ok(refd_mpv_get(r, NULL)), "read: NULL key is missing");
	refd_mp_free(d);
	refd_mp_free(NULL);
	ok(!refd_mpv_ok(refd_mp_root(NULL)), "read: root of NULL is missing");
	ok(refd_mp_parse(B("\x92\x01")) == NULL, "parse: truncated is NULL");
	ok(refd_mp_parse(B("\x01\x01")) == NULL, "parse: trailing is NULL");
	ok(refd_mp_parse(NULL, 0) == NULL, "parse: NULL is NULL");
	d = refd_mp_parse(B("\xc0"));
	r = refd_mp_root(d);
	ok(refd_mpv_ok(r) && refd_mpv_type(r) == REFD_MP_NIL,
	    "read: nil is present");
	refd_mp_free(d);
}

static void
test_write(void)
{
	refd_mpw *w = refd_mpw_create(), *w2;
	refd_mpdoc *d;
	refd_mpv r;

	refd_mpw_map(w);
	refd_mpw_kint(w, "a", INT64_MIN);
	refd_mpw_kint(w, "b", INT64_MAX);
	refd_mpw_kint(w, "c", 0);
	refd_mpw_knil(w, "d");
	refd_mpw_kmap(w, "e");
	refd_mpw_end(w);
	refd_mpw_karray(w, "f");
	refd_mpw_str(w, "x");
	refd_mpw_raw(w, (const uint8_t *)"\x92\x01\x02", 3);
	refd_mpw_end(w);
	refd_mpw_end(w);
	ok(!refd_mpw_error(w), "write: balanced document");
	is_int(refd_mp_check(refd_mpw_data(w), refd_mpw_len(w), 0), 0,
	    "write: output is well-formed");
	d = refd_mp_parse(refd_mpw_data(w), refd_mpw_len(w));
	r = refd_mp_root(d);
	is_int(refd_mpv_len(r), 6, "write: the map counted its pairs");
	is_int(refd_mpv_get_int(r, "a", 0), INT64_MIN, "write: INT64_MIN");
	is_int(refd_mpv_get_int(r, "b", 0), INT64_MAX, "write: INT64_MAX");
	is_int(refd_mpv_len(refd_mpv_get(r, "f")), 2,
	    "write: raw counts as one item");
	is_int(refd_mpv_type(refd_mpv_get(r, "d")), REFD_MP_NIL, "write: nil");

	/* Copying a value gives equal bytes for equal documents. */
	w2 = refd_mpw_create();
	refd_mpw_value(w2, refd_mpv_get(r, "f"));
	ok(refd_mpw_len(w2) > 0 && !refd_mpw_error(w2), "write: value copy");
	refd_mpw_reset(w2);
	refd_mpw_value(w2, refd_mpv_get(r, "nothing"));
	ok(refd_mpw_len(w2) == 1 && refd_mpw_data(w2)[0] == 0xc0,
	    "write: a missing value is written as nil");
	refd_mp_free(d);

	/* Same calls, same bytes. */
	refd_mpw_reset(w2);
	refd_mpw_map(w2);
	refd_mpw_kint(w2, "a", INT64_MIN);
	refd_mpw_kint(w2, "b", INT64_MAX);
	refd_mpw_kint(w2, "c", 0);
	refd_mpw_knil(w2, "d");
	refd_mpw_kmap(w2, "e");
	refd_mpw_end(w2);
	refd_mpw_karray(w2, "f");
	refd_mpw_str(w2, "x");
	refd_mpw_raw(w2, (const uint8_t *)"\x92\x01\x02", 3);
	refd_mpw_end(w2);
	refd_mpw_end(w2);
	ok(refd_mpw_len(w) == refd_mpw_len(w2) &&
	    memcmp(refd_mpw_data(w), refd_mpw_data(w2), refd_mpw_len(w)) == 0,
	    "write: deterministic bytes");

	/* Misuse is reported, never a crash. */
	refd_mpw_reset(w);
	refd_mpw_end(w);
	ok(refd_mpw_error(w), "write: end without open is an error");
	refd_mpw_reset(w);
	refd_mpw_map(w);
	ok(refd_mpw_error(w), "write: an open container is an error");
	refd_mpw_str(w, "odd");
	refd_mpw_end(w);
	ok(refd_mpw_error(w), "write: a map with a key and no value");
	refd_mpw_reset(w);
	ok(!refd_mpw_error(w) && refd_mpw_len(w) == 0, "write: reset clears");
	refd_mpw_raw(w, (const uint8_t *)"\x92\x01", 2);
	ok(refd_mpw_error(w), "write: raw refuses a malformed value");
	refd_mpw_reset(w);
	refd_mpw_str(w, NULL);
	ok(!refd_mpw_error(w) && refd_mpw_len(w) == 1 &&
	    refd_mpw_data(w)[0] == 0xc0, "write: a NULL string is nil");
	refd_mpw_destroy(w);
	refd_mpw_destroy(w2);
	refd_mpw_destroy(NULL);
	ok(1, "write: destroy(NULL) is a no-op");
}

int
main(void)
{
	test_check();
	test_read();
	test_write();
	return done_testing();
}
