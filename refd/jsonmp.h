/*
 * jsonmp.h - conversion between JSON (jansson) and msgpack bytes.
 *
 * JSON integers become msgpack integers, reals become float64, strings
 * stay strings.  Back to JSON, msgpack bin becomes a lowercase hex string
 * and ext becomes {"ext": type, "hex": ...}; non-string map keys are
 * written as their JSON text.
 */
#ifndef REFD_JSONMP_H
#define REFD_JSONMP_H

#include <jansson.h>

#include "refd/mp.h"

/* Append json as one msgpack value.  0, or -1 on a writer error. */
int json_to_mp(const json_t *j, refd_mpw *w);
/* New reference, or NULL for a missing value. */
json_t *mp_to_json(refd_mpv v);
/* Convenience: bytes -> JSON text (caller frees), NULL if malformed. */
char *mp_bytes_to_json_text(const uint8_t *b, size_t n, size_t flags);

#endif
