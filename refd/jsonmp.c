/*
 * jsonmp.c - conversion between JSON (jansson) and msgpack bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jsonmp.h"

int
json_to_mp(const json_t *j, refd_mpw *w)
{
	const char *k;
	json_t *v;
	size_t i;

	switch (json_typeof(j)) {
	case JSON_OBJECT:
		refd_mpw_map(w);
		json_object_foreach((json_t *)j, k, v) {
			refd_mpw_str(w, k);
			json_to_mp(v, w);
		}
		refd_mpw_end(w);
		break;
	case JSON_ARRAY:
		refd_mpw_array(w);
		json_array_foreach(j, i, v)
			json_to_mp(v, w);
		refd_mpw_end(w);
		break;
	case JSON_STRING:
		refd_mpw_strn(w, json_string_value(j), json_string_length(j));
		break;
	case JSON_INTEGER:
		refd_mpw_int(w, (int64_t)json_integer_value(j));
		break;
	case JSON_REAL: {
		/* Encode as msgpack float64 by hand: the writer has no
		 * floats on purpose (rules never use them). */
		double d = json_real_value(j);
		uint64_t u;
		uint8_t b[9];
		int s;

		memcpy(&u, &d, sizeof(u));
		b[0] = 0xcb;
		for (s = 0; s < 8; s++)
			b[1 + s] = (uint8_t)(u >> (56 - 8 * s));
		refd_mpw_raw(w, b, sizeof(b));
		break;
	}
	case JSON_TRUE:
		refd_mpw_bool(w, 1);
		break;
	case JSON_FALSE:
		refd_mpw_bool(w, 0);
		break;
	case JSON_NULL:
	default:
		refd_mpw_nil(w);
		break;
	}
	return 0;
}

json_t *
mp_to_json(refd_mpv v)
{
	size_t i, n;
	json_t *o;

	switch (refd_mpv_type(v)) {
	case REFD_MP_MISSING:
		return NULL;
	case REFD_MP_NIL:
		return json_null();
	case REFD_MP_BOOL: {
		int b = 0;

		refd_mpv_bool(v, &b);
		return json_boolean(b);
	}
	case REFD_MP_INT: {
		int64_t x = 0;

		if (refd_mpv_int(v, &x) != 0)
			return json_string("<uint64 overflow>");
		return json_integer((json_int_t)x);
	}
	case REFD_MP_FLOAT: {
		/* Re-read the float through a tiny copy of the bytes. */
		refd_mpw *w = refd_mpw_create();
		double d = 0;

		if (w != NULL) {
			const uint8_t *b;

			refd_mpw_value(w, v);
			b = refd_mpw_data(w);
			if (refd_mpw_len(w) == 9 && b[0] == 0xcb) {
				uint64_t u = 0;
				int s;

				for (s = 0; s < 8; s++)
					u = u << 8 | b[1 + s];
				memcpy(&d, &u, sizeof(d));
			} else if (refd_mpw_len(w) == 5 && b[0] == 0xca) {
				uint32_t u = 0;
				float f;
				int s;

				for (s = 0; s < 4; s++)
					u = u << 8 | b[1 + s];
				memcpy(&f, &u, sizeof(f));
				d = f;
			}
			refd_mpw_destroy(w);
		}
		return json_real(d);
	}
	case REFD_MP_STR: {
		const char *s;
		size_t len;

		refd_mpv_str(v, &s, &len);
		o = json_stringn_nocheck(s, len);
		return o;
	}
	case REFD_MP_BIN: {
		const uint8_t *b;
		size_t len;
		char *hx;

		refd_mpv_bin(v, &b, &len);
		hx = malloc(len * 2 + 1);
		if (hx == NULL)
			return json_null();
		hex_encode(b, len, hx);
		o = json_string(hx);
		free(hx);
		return o;
	}
	case REFD_MP_ARRAY:
		o = json_array();
		n = refd_mpv_len(v);
		for (i = 0; i < n; i++)
			json_array_append_new(o, mp_to_json(refd_mpv_at(v, i)));
		return o;
	case REFD_MP_MAP:
		o = json_object();
		n = refd_mpv_len(v);
		for (i = 0; i < n; i++) {
			refd_mpv k = refd_mpv_key_at(v, i);
			json_t *jv = mp_to_json(refd_mpv_val_at(v, i));
			const char *ks;
			size_t kl;

			if (refd_mpv_str(k, &ks, &kl) == 0) {
				char *kc = strndup(ks, kl);

				if (kc != NULL)
					json_object_set_new_nocheck(o, kc, jv);
				else
					json_decref(jv);
				free(kc);
			} else {
				json_t *jk = mp_to_json(k);
				char *kt = json_dumps(jk, JSON_ENCODE_ANY |
				    JSON_COMPACT);

				json_object_set_new_nocheck(o, kt ? kt : "?", jv);
				free(kt);
				json_decref(jk);
			}
		}
		return o;
	case REFD_MP_EXT:
	default:
		return json_string("<ext>");
	}
}

char *
mp_bytes_to_json_text(const uint8_t *b, size_t n, size_t flags)
{
	refd_mpdoc *d = refd_mp_parse(b, n);
	json_t *j;
	char *s;

	if (d == NULL)
		return NULL;
	j = mp_to_json(refd_mp_root(d));
	refd_mp_free(d);
	if (j == NULL)
		return NULL;
	s = json_dumps(j, flags | JSON_ENCODE_ANY);
	json_decref(j);
	return s;
}
