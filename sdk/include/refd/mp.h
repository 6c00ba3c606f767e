/*
 * refd/mp.h - msgpack reading and writing for plugin authors.
 *
 * Part of the SDK helper library (librefdsdk.a, linked statically into
 * plugins).  The types are opaque or plain C, so this header includes no
 * msgpack-c header; the library uses msgpack-c inside.
 *
 * Reading: parse bytes once into a document, then walk values:
 *
 *	refd_mpdoc *d = refd_mp_parse(cmd, len);
 *	refd_mpv root = refd_mp_root(d);
 *	const char *type = refd_mpv_get_str(root, "type", "");
 *	int64_t x = refd_mpv_get_int(root, "x", -1);
 *	refd_mp_free(d);
 *
 * A refd_mpv borrows from its document and is valid until refd_mp_free.
 * Looking up a missing key or index gives a nil value, so chains of gets
 * never crash; refd_mpv_ok tells a present value from a missing one.
 *
 * Writing: containers count their own items.
 *
 *	refd_mpw *w = refd_mpw_create();
 *	refd_mpw_map(w);
 *	refd_mpw_kstr(w, "type", "attack");
 *	refd_mpw_kint(w, "damage", 10);
 *	refd_mpw_end(w);
 *	host->emit(ctx, REFD_SEAT_PUBLIC, refd_mpw_data(w), refd_mpw_len(w));
 *	refd_mpw_destroy(w);
 *
 * Output is deterministic: the same calls give the same bytes.  Integers
 * use the smallest msgpack encoding; containers use the 32-bit header.
 * Thread-safe per object; no global state.
 */
#ifndef REFD_MP_H
#define REFD_MP_H

#include <stddef.h>
#include <stdint.h>

#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

enum refd_mp_type {
	REFD_MP_MISSING = 0,	/* not present (missing key or index) */
	REFD_MP_NIL = 1,
	REFD_MP_BOOL = 2,
	REFD_MP_INT = 3,	/* positive or negative integer */
	REFD_MP_FLOAT = 4,	/* accepted on input, never used by rules */
	REFD_MP_STR = 5,
	REFD_MP_BIN = 6,
	REFD_MP_ARRAY = 7,
	REFD_MP_MAP = 8,
	REFD_MP_EXT = 9
};

#define REFD_MP_MAX_DEPTH 32

typedef struct refd_mpdoc refd_mpdoc;
typedef struct refd_mpv {
	const void *p;		/* opaque; NULL for a missing value */
	refd_mpdoc *doc;	/* the document it belongs to */
} refd_mpv;

/*
 * Structural check of untrusted bytes, allocating nothing: one well-formed
 * value filling all of bytes[0..len), container counts that fit in the
 * bytes, nesting at most max_depth (<= REFD_MP_MAX_DEPTH).  Returns 0 or a
 * REFD_MPCHECK_* code; refd_mp_check_str names it.
 */
enum refd_mpcheck {
	REFD_MPCHECK_TRUNCATED = -1,
	REFD_MPCHECK_BADBYTE = -2,
	REFD_MPCHECK_DEPTH = -3,
	REFD_MPCHECK_TRAILING = -4,
	REFD_MPCHECK_UTF8 = -5
};
int refd_mp_check(const uint8_t *bytes, size_t len, int max_depth);
/* refd_mp_check, and every string (map keys included) is UTF-8:
 * REFD_MPCHECK_UTF8 otherwise.  Clients in any language can read it. */
int refd_mp_check_text(const uint8_t *bytes, size_t len, int max_depth);
/* Whether s[0..n) is well-formed UTF-8 (no overlong forms, no
 * surrogates, nothing above U+10FFFF). */
int refd_utf8_ok(const uint8_t *s, size_t n);
const char *refd_mp_check_str(int rc);

/* Parse exactly one msgpack value filling all of bytes[0..len).  Returns
 * NULL on malformed input, trailing bytes, or nesting deeper than REFD_MP_MAX_DEPTH.
 * Owned by the caller; release with refd_mp_free. */
refd_mpdoc *refd_mp_parse(const uint8_t *bytes, size_t len);
void refd_mp_free(refd_mpdoc *doc);
refd_mpv refd_mp_root(const refd_mpdoc *doc);

int refd_mpv_type(refd_mpv v);
int refd_mpv_ok(refd_mpv v);		/* present (even if nil) */
/* Number of items of an array or pairs of a map, else 0. */
size_t refd_mpv_len(refd_mpv v);
refd_mpv refd_mpv_at(refd_mpv arr, size_t i);
refd_mpv refd_mpv_get(refd_mpv map, const char *key);
refd_mpv refd_mpv_key_at(refd_mpv map, size_t i);
refd_mpv refd_mpv_val_at(refd_mpv map, size_t i);

/* Scalar accessors: return 0 and fill *out when v has that type, else
 * return -1 and leave *out alone. */
int refd_mpv_int(refd_mpv v, int64_t *out);
int refd_mpv_bool(refd_mpv v, int *out);
int refd_mpv_str(refd_mpv v, const char **s, size_t *len);
int refd_mpv_bin(refd_mpv v, const uint8_t **b, size_t *len);

/* Conveniences with defaults for a missing or mistyped member. */
int64_t refd_mpv_get_int(refd_mpv map, const char *key, int64_t dflt);
int refd_mpv_get_bool(refd_mpv map, const char *key, int dflt);
/* Returns a NUL-terminated copy kept in the document, or dflt. */
const char *refd_mpv_get_str(refd_mpv map, const char *key,
    const char *dflt);
const char *refd_mpv_cstr(refd_mpv v, const char *dflt);
int refd_mpv_streq(refd_mpv v, const char *s);

/* Writer. */
typedef struct refd_mpw refd_mpw;

refd_mpw *refd_mpw_create(void);
void refd_mpw_destroy(refd_mpw *w);
void refd_mpw_reset(refd_mpw *w);
const uint8_t *refd_mpw_data(const refd_mpw *w);
size_t refd_mpw_len(const refd_mpw *w);
/* Nonzero once any call failed (out of memory, unbalanced end). */
int refd_mpw_error(const refd_mpw *w);
/* Hands the writer's bytes to host->output (the answer of describe, legal,
 * view, result, serialize) and destroys the writer, whatever happens.
 * Returns REFD_ENOMEM when w is NULL or failed, else what output returned. */
int refd_mpw_output(const struct refd_host *host, refd_ctx *ctx,
    refd_mpw *w);

void refd_mpw_map(refd_mpw *w);		/* open a map; items are k, v, k, v */
void refd_mpw_array(refd_mpw *w);	/* open an array */
void refd_mpw_end(refd_mpw *w);		/* close the innermost container */
void refd_mpw_nil(refd_mpw *w);
void refd_mpw_bool(refd_mpw *w, int b);
void refd_mpw_int(refd_mpw *w, int64_t i);
void refd_mpw_str(refd_mpw *w, const char *s);	/* NULL: nil */
void refd_mpw_strn(refd_mpw *w, const char *s, size_t n);
void refd_mpw_bin(refd_mpw *w, const uint8_t *b, size_t n);
/* Append one already-encoded msgpack value (counts as one item); bytes
 * that are not exactly one well-formed value set the error flag. */
void refd_mpw_raw(refd_mpw *w, const uint8_t *b, size_t n);
/* Copy value v (from any document) as one item. */
void refd_mpw_value(refd_mpw *w, refd_mpv v);

/* Map members: key then value. */
void refd_mpw_kint(refd_mpw *w, const char *k, int64_t i);
void refd_mpw_kstr(refd_mpw *w, const char *k, const char *s);
void refd_mpw_kbool(refd_mpw *w, const char *k, int b);
void refd_mpw_knil(refd_mpw *w, const char *k);
void refd_mpw_kmap(refd_mpw *w, const char *k);		/* opens a map */
void refd_mpw_karray(refd_mpw *w, const char *k);	/* opens an array */

#ifdef __cplusplus
}
#endif

#endif /* REFD_MP_H */
