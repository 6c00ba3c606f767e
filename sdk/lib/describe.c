/*
 * describe.c - describe from tables, flat state serialize and restore
 * (see refd/describe.h).
 */
#include <stdlib.h>
#include <string.h>

#include "refd/describe.h"
#include "refd/errors.h"

int
refd_describe(const struct refd_host *host, refd_ctx *ctx,
    const char *summary, uint32_t min_seats, uint32_t max_seats,
    const struct refd_option_doc *options,
    const struct refd_command_doc *commands)
{
	refd_mpw *w = refd_mpw_create();
	const struct refd_option_doc *o;
	const struct refd_command_doc *c;
	const struct refd_arg_doc *a;

	refd_mpw_map(w);
	refd_mpw_kstr(w, "summary", summary);
	refd_mpw_karray(w, "seats");
	refd_mpw_int(w, min_seats);
	refd_mpw_int(w, max_seats);
	refd_mpw_end(w);
	refd_mpw_kmap(w, "options");
	for (o = options; o != NULL && o->name != NULL; o++) {
		refd_mpw_kmap(w, o->name);
		refd_mpw_kstr(w, "type", o->type);
		if (o->dflt != NULL && o->type != NULL &&
		    strcmp(o->type, "int") == 0)
			refd_mpw_kint(w, "default", strtoll(o->dflt, NULL, 10));
		else if (o->dflt != NULL && o->type != NULL &&
		    strcmp(o->type, "bool") == 0)
			refd_mpw_kbool(w, "default", strcmp(o->dflt, "true") ==
			    0);
		else if (o->dflt != NULL)
			refd_mpw_kstr(w, "default", o->dflt);
		refd_mpw_kstr(w, "doc", o->doc);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_mpw_kmap(w, "commands");
	for (c = commands; c != NULL && c->type != NULL; c++) {
		refd_mpw_kmap(w, c->type);
		refd_mpw_kmap(w, "args");
		for (a = c->args; a != NULL && a->name != NULL; a++)
			refd_mpw_kstr(w, a->name, a->desc);
		refd_mpw_end(w);
		refd_mpw_kstr(w, "doc", c->doc);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_mpw_end(w);
	return refd_mpw_output(host, ctx, w);
}

int
refd_flat_serialize(const struct refd_host *host, refd_ctx *ctx,
    const void *state, size_t size, uint32_t magic)
{
	refd_mpw *w = refd_mpw_create();
	uint8_t *b = malloc(size + 4);
	int rc;

	if (b == NULL) {
		refd_mpw_destroy(w);
		return REFD_ENOMEM;
	}
	b[0] = (uint8_t)(magic >> 24);
	b[1] = (uint8_t)(magic >> 16);
	b[2] = (uint8_t)(magic >> 8);
	b[3] = (uint8_t)magic;
	memcpy(b + 4, state, size);
	refd_mpw_bin(w, b, size + 4);
	free(b);
	rc = refd_mpw_output(host, ctx, w);
	return rc;
}

int
refd_flat_restore(const struct refd_host *host, refd_ctx *ctx,
    const uint8_t *bytes, size_t len, size_t size, uint32_t magic,
    const char *(*check)(const void *state), void **out)
{
	refd_mpdoc *d = refd_mp_parse(bytes, len);
	const uint8_t *b;
	const char *why;
	size_t n;
	void *s;

	if (d == NULL || refd_mpv_bin(refd_mp_root(d), &b, &n) != 0 ||
	    n != size + 4 || b[0] != (uint8_t)(magic >> 24) ||
	    b[1] != (uint8_t)(magic >> 16) || b[2] != (uint8_t)(magic >> 8) ||
	    b[3] != (uint8_t)magic) {
		refd_mp_free(d);
		return host->reject(ctx, REFD_EARG, NULL, "state: not this "
		    "plugin's state (magic or size differs)");
	}
	if ((s = host->alloc(ctx, size)) == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memcpy(s, b + 4, size);
	refd_mp_free(d);
	if (check != NULL && (why = check(s)) != NULL) {
		host->free(ctx, s);
		return host->reject(ctx, REFD_EARG, NULL, why);
	}
	*out = s;
	return REFD_OK;
}
