/*
 * mp.c - msgpack helpers for plugins and for refd itself, on msgpack-c.
 */
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "refd/mp.h"

struct refd_mpdoc {
	msgpack_unpacked up;
	size_t len;
	uint8_t *buf;
};

static const msgpack_object *
obj(refd_mpv v)
{
	return (const msgpack_object *)v.p;
}

static refd_mpv
mkv(const msgpack_object *o, refd_mpdoc *d)
{
	refd_mpv v;

	v.p = o;
	v.doc = o != NULL ? d : NULL;
	return v;
}

/*
 * Structural check of untrusted bytes before msgpack-c allocates anything:
 * every container count must fit in the bytes that remain (each item takes
 * at least one byte) and nesting must stay within max_depth.  Returns the
 * number of bytes one value takes, or a negative REFD_MPCHECK_* code.
 */
static uint64_t be_read(const uint8_t *p, int k);

static long
check_value(const uint8_t *p, size_t len, int text, int max_depth)
{
	size_t off = 0;
	uint64_t pending = 1;	/* items still to read at this level */
	/* iterative walk with an explicit stack of remaining counts */
	uint64_t stack[REFD_MP_MAX_DEPTH + 2];
	int sp = 0;

	stack[0] = 1;
	while (sp >= 0) {
		uint8_t c;
		uint64_t n = 0, skip = 0;
		int container = 0, str = 0;

		if (stack[sp] == 0) {
			sp--;
			continue;
		}
		stack[sp]--;
		if (off >= len)
			return REFD_MPCHECK_TRUNCATED;
		c = p[off++];
#define NEED(k)                                                                \
	do {                                                                   \
		if (len - off < (size_t)(k))                                   \
			return REFD_MPCHECK_TRUNCATED;                         \
	} while (0)
#define BE(k) be_read(p + off, (k))
		if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 ||
		    c == 0xc3) {
			skip = 0;
		} else if (c >= 0x80 && c <= 0x8f) {
			n = (uint64_t)(c & 0x0f) * 2;
			container = 1;
		} else if (c >= 0x90 && c <= 0x9f) {
			n = c & 0x0f;
			container = 1;
		} else if (c >= 0xa0 && c <= 0xbf) {
			skip = c & 0x1f;
			str = 1;
		} else {
			switch (c) {
			case 0xc4: NEED(1); skip = 1 + BE(1); break;
			case 0xc5: NEED(2); skip = 2 + BE(2); break;
			case 0xc6: NEED(4); skip = 4 + BE(4); break;
			case 0xc7: NEED(1); skip = 2 + BE(1); break;
			case 0xc8: NEED(2); skip = 3 + BE(2); break;
			case 0xc9: NEED(4); skip = 5 + BE(4); break;
			case 0xca: skip = 4; break;
			case 0xcb: skip = 8; break;
			case 0xcc: skip = 1; break;
			case 0xcd: skip = 2; break;
			case 0xce: skip = 4; break;
			case 0xcf: skip = 8; break;
			case 0xd0: skip = 1; break;
			case 0xd1: skip = 2; break;
			case 0xd2: skip = 4; break;
			case 0xd3: skip = 8; break;
			case 0xd4: skip = 2; break;
			case 0xd5: skip = 3; break;
			case 0xd6: skip = 5; break;
			case 0xd7: skip = 9; break;
			case 0xd8: skip = 17; break;
			case 0xd9: NEED(1); skip = 1 + BE(1); str = 1; break;
			case 0xda: NEED(2); skip = 2 + BE(2); str = 1; break;
			case 0xdb: NEED(4); skip = 4 + BE(4); str = 1; break;
			case 0xdc: NEED(2); n = BE(2); off += 2; container = 1;
				break;
			case 0xdd: NEED(4); n = BE(4); off += 4; container = 1;
				break;
			case 0xde: NEED(2); n = BE(2) * 2; off += 2;
				container = 1; break;
			case 0xdf: NEED(4); n = BE(4) * 2; off += 4;
				container = 1; break;
			default:
				return REFD_MPCHECK_BADBYTE;	/* 0xc1 */
			}
		}
#undef NEED
#undef BE
		if (container) {
			if (n > len - off)
				return REFD_MPCHECK_TRUNCATED;
			if (n > 0) {
				if (sp + 1 > max_depth)
					return REFD_MPCHECK_DEPTH;
				stack[++sp] = n;
			} else if (sp + 1 > max_depth) {
				return REFD_MPCHECK_DEPTH;
			}
		} else {
			if (skip > len - off)
				return REFD_MPCHECK_TRUNCATED;
			/* A string's bytes follow its length field. */
			if (str && text && !refd_utf8_ok(p + off + (c >= 0xd9 ?
			    1 << (c - 0xd9) : 0), skip - (c >= 0xd9 ?
			    1 << (c - 0xd9) : 0)))
				return REFD_MPCHECK_UTF8;
			off += skip;
		}
	}
	(void)pending;
	return (long)off;
}

static uint64_t
be_read(const uint8_t *p, int k)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < k; i++)
		v = (v << 8) | p[i];
	return v;
}

static int
check(const uint8_t *bytes, size_t len, int text, int max_depth)
{
	long n;

	if (max_depth > REFD_MP_MAX_DEPTH || max_depth <= 0)
		max_depth = REFD_MP_MAX_DEPTH;
	if (bytes == NULL || len == 0)
		return REFD_MPCHECK_TRUNCATED;
	n = check_value(bytes, len, text, max_depth);
	if (n < 0)
		return (int)n;
	if ((size_t)n != len)
		return REFD_MPCHECK_TRAILING;
	return 0;
}

int
refd_mp_check(const uint8_t *bytes, size_t len, int max_depth)
{
	return check(bytes, len, 0, max_depth);
}

int
refd_mp_check_text(const uint8_t *bytes, size_t len, int max_depth)
{
	return check(bytes, len, 1, max_depth);
}

int
refd_utf8_ok(const uint8_t *s, size_t n)
{
	size_t i = 0, k, j;
	uint32_t cp;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if (s[i] >= 0xc2 && s[i] <= 0xdf) {
			k = 1;
			cp = s[i] & 0x1f;
		} else if (s[i] >= 0xe0 && s[i] <= 0xef) {
			k = 2;
			cp = s[i] & 0x0f;
		} else if (s[i] >= 0xf0 && s[i] <= 0xf4) {
			k = 3;
			cp = s[i] & 0x07;
		} else {
			return 0;
		}
		if (n - i <= k)
			return 0;
		for (j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if ((k == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (k == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return 0;
		i += k + 1;
	}
	return 1;
}

const char *
refd_mp_check_str(int rc)
{
	switch (rc) {
	case 0: return "well-formed";
	case REFD_MPCHECK_TRUNCATED: return "truncated msgpack";
	case REFD_MPCHECK_BADBYTE: return "invalid msgpack type byte";
	case REFD_MPCHECK_DEPTH: return "msgpack nested too deeply";
	case REFD_MPCHECK_TRAILING: return "trailing bytes after msgpack value";
	case REFD_MPCHECK_UTF8: return "a msgpack string that is not UTF-8";
	default: return "malformed msgpack";
	}
}

refd_mpdoc *
refd_mp_parse(const uint8_t *bytes, size_t len)
{
	refd_mpdoc *d;
	size_t off = 0;

	if (bytes == NULL || refd_mp_check(bytes, len, REFD_MP_MAX_DEPTH) != 0)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return NULL;
	d->buf = malloc(len);
	if (d->buf == NULL) {
		free(d);
		return NULL;
	}
	memcpy(d->buf, bytes, len);
	d->len = len;
	msgpack_unpacked_init(&d->up);
	if (msgpack_unpack_next(&d->up, (const char *)d->buf, len, &off) !=
	    MSGPACK_UNPACK_SUCCESS || off != len) {
		refd_mp_free(d);
		return NULL;
	}
	return d;
}

void
refd_mp_free(refd_mpdoc *d)
{
	if (d == NULL)
		return;
	msgpack_unpacked_destroy(&d->up);
	free(d->buf);
	free(d);
}

refd_mpv
refd_mp_root(const refd_mpdoc *d)
{
	if (d == NULL)
		return mkv(NULL, NULL);
	return mkv(&d->up.data, (refd_mpdoc *)d);
}

int
refd_mpv_type(refd_mpv v)
{
	const msgpack_object *o = obj(v);

	if (o == NULL)
		return REFD_MP_MISSING;
	switch (o->type) {
	case MSGPACK_OBJECT_NIL: return REFD_MP_NIL;
	case MSGPACK_OBJECT_BOOLEAN: return REFD_MP_BOOL;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
	case MSGPACK_OBJECT_NEGATIVE_INTEGER: return REFD_MP_INT;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64: return REFD_MP_FLOAT;
	case MSGPACK_OBJECT_STR: return REFD_MP_STR;
	case MSGPACK_OBJECT_BIN: return REFD_MP_BIN;
	case MSGPACK_OBJECT_ARRAY: return REFD_MP_ARRAY;
	case MSGPACK_OBJECT_MAP: return REFD_MP_MAP;
	case MSGPACK_OBJECT_EXT: return REFD_MP_EXT;
	}
	return REFD_MP_MISSING;
}

int
refd_mpv_ok(refd_mpv v)
{
	return v.p != NULL;
}

size_t
refd_mpv_len(refd_mpv v)
{
	const msgpack_object *o = obj(v);

	if (o == NULL)
		return 0;
	if (o->type == MSGPACK_OBJECT_ARRAY)
		return o->via.array.size;
	if (o->type == MSGPACK_OBJECT_MAP)
		return o->via.map.size;
	return 0;
}

refd_mpv
refd_mpv_at(refd_mpv v, size_t i)
{
	const msgpack_object *o = obj(v);

	if (o == NULL || o->type != MSGPACK_OBJECT_ARRAY ||
	    i >= o->via.array.size)
		return mkv(NULL, NULL);
	return mkv(&o->via.array.ptr[i], v.doc);
}

refd_mpv
refd_mpv_get(refd_mpv v, const char *key)
{
	const msgpack_object *o = obj(v);
	size_t i, kl;

	if (o == NULL || o->type != MSGPACK_OBJECT_MAP || key == NULL)
		return mkv(NULL, NULL);
	kl = strlen(key);
	for (i = 0; i < o->via.map.size; i++) {
		const msgpack_object *k = &o->via.map.ptr[i].key;

		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == kl &&
		    memcmp(k->via.str.ptr, key, kl) == 0)
			return mkv(&o->via.map.ptr[i].val, v.doc);
	}
	return mkv(NULL, NULL);
}

refd_mpv
refd_mpv_key_at(refd_mpv v, size_t i)
{
	const msgpack_object *o = obj(v);

	if (o == NULL || o->type != MSGPACK_OBJECT_MAP || i >= o->via.map.size)
		return mkv(NULL, NULL);
	return mkv(&o->via.map.ptr[i].key, v.doc);
}

refd_mpv
refd_mpv_val_at(refd_mpv v, size_t i)
{
	const msgpack_object *o = obj(v);

	if (o == NULL || o->type != MSGPACK_OBJECT_MAP || i >= o->via.map.size)
		return mkv(NULL, NULL);
	return mkv(&o->via.map.ptr[i].val, v.doc);
}

int
refd_mpv_int(refd_mpv v, int64_t *out)
{
	const msgpack_object *o = obj(v);

	if (o == NULL)
		return -1;
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
		if (o->via.u64 > (uint64_t)INT64_MAX)
			return -1;
		*out = (int64_t)o->via.u64;
		return 0;
	}
	if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
		*out = o->via.i64;
		return 0;
	}
	return -1;
}

int
refd_mpv_bool(refd_mpv v, int *out)
{
	const msgpack_object *o = obj(v);

	if (o == NULL || o->type != MSGPACK_OBJECT_BOOLEAN)
		return -1;
	*out = o->via.boolean ? 1 : 0;
	return 0;
}

int
refd_mpv_str(refd_mpv v, const char **s, size_t *len)
{
	const msgpack_object *o = obj(v);

	if (o == NULL || o->type != MSGPACK_OBJECT_STR)
		return -1;
	*s = o->via.str.ptr;
	*len = o->via.str.size;
	return 0;
}

int
refd_mpv_bin(refd_mpv v, const uint8_t **b, size_t *len)
{
	const msgpack_object *o = obj(v);

	if (o == NULL || o->type != MSGPACK_OBJECT_BIN)
		return -1;
	*b = (const uint8_t *)o->via.bin.ptr;
	*len = o->via.bin.size;
	return 0;
}

int64_t
refd_mpv_get_int(refd_mpv map, const char *key, int64_t dflt)
{
	int64_t i;

	if (refd_mpv_int(refd_mpv_get(map, key), &i) != 0)
		return dflt;
	return i;
}

int
refd_mpv_get_bool(refd_mpv map, const char *key, int dflt)
{
	int b;

	if (refd_mpv_bool(refd_mpv_get(map, key), &b) != 0)
		return dflt;
	return b;
}

const char *
refd_mpv_cstr(refd_mpv v, const char *dflt)
{
	const char *s;
	size_t n;
	char *c;

	if (refd_mpv_str(v, &s, &n) != 0 || v.doc == NULL)
		return dflt;
	if (memchr(s, '\0', n) != NULL)
		return dflt;
	c = msgpack_zone_malloc(v.doc->up.zone, n + 1);
	if (c == NULL)
		return dflt;
	memcpy(c, s, n);
	c[n] = '\0';
	return c;
}

const char *
refd_mpv_get_str(refd_mpv map, const char *key, const char *dflt)
{
	return refd_mpv_cstr(refd_mpv_get(map, key), dflt);
}

int
refd_mpv_streq(refd_mpv v, const char *s)
{
	const char *p;
	size_t n;

	if (refd_mpv_str(v, &p, &n) != 0)
		return 0;
	return strlen(s) == n && memcmp(p, s, n) == 0;
}

/* Writer. */

#define MPW_MAX_DEPTH 64

struct refd_mpw {
	msgpack_sbuffer sb;
	msgpack_packer pk;
	int depth;
	int err;
	size_t hdr[MPW_MAX_DEPTH];	/* offset of each open container */
	uint32_t count[MPW_MAX_DEPTH];
	uint8_t ismap[MPW_MAX_DEPTH];
};

refd_mpw *
refd_mpw_create(void)
{
	refd_mpw *w = calloc(1, sizeof(*w));

	if (w == NULL)
		return NULL;
	msgpack_sbuffer_init(&w->sb);
	msgpack_packer_init(&w->pk, &w->sb, msgpack_sbuffer_write);
	return w;
}

void
refd_mpw_destroy(refd_mpw *w)
{
	if (w == NULL)
		return;
	msgpack_sbuffer_destroy(&w->sb);
	free(w);
}

int
refd_mpw_output(const struct refd_host *host, refd_ctx *ctx, refd_mpw *w)
{
	int rc;

	if (w == NULL || refd_mpw_error(w)) {
		refd_mpw_destroy(w);
		return REFD_ENOMEM;
	}
	rc = host->output(ctx, refd_mpw_data(w), refd_mpw_len(w));
	refd_mpw_destroy(w);
	return rc;
}

void
refd_mpw_reset(refd_mpw *w)
{
	w->sb.size = 0;
	w->depth = 0;
	w->err = 0;
}

const uint8_t *
refd_mpw_data(const refd_mpw *w)
{
	return (const uint8_t *)w->sb.data;
}

size_t
refd_mpw_len(const refd_mpw *w)
{
	return w->sb.size;
}

int
refd_mpw_error(const refd_mpw *w)
{
	return w->err || w->depth != 0;
}

static void
item(refd_mpw *w)
{
	if (w->depth > 0)
		w->count[w->depth - 1]++;
}

static void
chk(refd_mpw *w, int rc)
{
	if (rc != 0)
		w->err = 1;
}

static void
open_container(refd_mpw *w, int ismap)
{
	static const uint8_t hdr[5] = { 0, 0, 0, 0, 0 };

	item(w);
	if (w->depth >= MPW_MAX_DEPTH) {
		w->err = 1;
		return;
	}
	w->hdr[w->depth] = w->sb.size;
	w->count[w->depth] = 0;
	w->ismap[w->depth] = (uint8_t)ismap;
	w->depth++;
	chk(w, msgpack_sbuffer_write(&w->sb, (const char *)hdr, sizeof(hdr)));
}

void
refd_mpw_map(refd_mpw *w)
{
	open_container(w, 1);
}

void
refd_mpw_array(refd_mpw *w)
{
	open_container(w, 0);
}

void
refd_mpw_end(refd_mpw *w)
{
	uint8_t *h;
	uint32_t n;

	if (w->depth <= 0) {
		w->err = 1;
		return;
	}
	w->depth--;
	if (w->err)
		return;
	n = w->count[w->depth];
	h = (uint8_t *)w->sb.data + w->hdr[w->depth];
	if (w->ismap[w->depth]) {
		if (n % 2 != 0)
			w->err = 1;
		n /= 2;
		h[0] = 0xdf;
	} else {
		h[0] = 0xdd;
	}
	h[1] = (uint8_t)(n >> 24);
	h[2] = (uint8_t)(n >> 16);
	h[3] = (uint8_t)(n >> 8);
	h[4] = (uint8_t)n;
}

void
refd_mpw_nil(refd_mpw *w)
{
	item(w);
	chk(w, msgpack_pack_nil(&w->pk));
}

void
refd_mpw_bool(refd_mpw *w, int b)
{
	item(w);
	chk(w, b ? msgpack_pack_true(&w->pk) : msgpack_pack_false(&w->pk));
}

void
refd_mpw_int(refd_mpw *w, int64_t i)
{
	item(w);
	chk(w, msgpack_pack_int64(&w->pk, i));
}

void
refd_mpw_strn(refd_mpw *w, const char *s, size_t n)
{
	item(w);
	chk(w, msgpack_pack_str_with_body(&w->pk, s, n));
}

void
refd_mpw_str(refd_mpw *w, const char *s)
{
	if (s == NULL)
		refd_mpw_nil(w);
	else
		refd_mpw_strn(w, s, strlen(s));
}

void
refd_mpw_bin(refd_mpw *w, const uint8_t *b, size_t n)
{
	item(w);
	chk(w, msgpack_pack_bin_with_body(&w->pk, b, n));
}

void
refd_mpw_raw(refd_mpw *w, const uint8_t *b, size_t n)
{
	item(w);
	if (b == NULL || refd_mp_check(b, n, 0) != 0) {
		w->err = 1;
		return;
	}
	chk(w, msgpack_sbuffer_write(&w->sb, (const char *)b, n));
}

void
refd_mpw_value(refd_mpw *w, refd_mpv v)
{
	item(w);
	if (obj(v) == NULL)
		chk(w, msgpack_pack_nil(&w->pk));
	else
		chk(w, msgpack_pack_object(&w->pk, *obj(v)));
}

void
refd_mpw_kint(refd_mpw *w, const char *k, int64_t i)
{
	refd_mpw_str(w, k);
	refd_mpw_int(w, i);
}

void
refd_mpw_kstr(refd_mpw *w, const char *k, const char *s)
{
	refd_mpw_str(w, k);
	refd_mpw_str(w, s);
}

void
refd_mpw_kbool(refd_mpw *w, const char *k, int b)
{
	refd_mpw_str(w, k);
	refd_mpw_bool(w, b);
}

void
refd_mpw_knil(refd_mpw *w, const char *k)
{
	refd_mpw_str(w, k);
	refd_mpw_nil(w);
}

void
refd_mpw_kmap(refd_mpw *w, const char *k)
{
	refd_mpw_str(w, k);
	refd_mpw_map(w);
}

void
refd_mpw_karray(refd_mpw *w, const char *k)
{
	refd_mpw_str(w, k);
	refd_mpw_array(w);
}
