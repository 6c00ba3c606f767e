/*
 * engine.c - plugin loading and the host API table.
 */
#include <sys/stat.h>

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "refd/mp.h"
#include "engine.h"
#include "worker.h"

enum op_kind {
	OPK_INIT = 1,
	OPK_DESCRIBE,
	OPK_CONTENT,
	OPK_CREATE,
	OPK_APPLY,
	OPK_QUERY,	/* legal, pending, view, result, serialize */
	OPK_REDEAL
};

static int finish_call(struct call *c, int rc);

/*
 * What one op may ask of the host: a plugin stuck in a loop that emits,
 * draws, commits or outputs is stopped here, before it exhausts memory
 * (a loop that calls nothing is for plugin-timeout, see worker.h).
 */
#define OP_MAX_EVENTS 100000
#define OP_MAX_EVENT_BYTES ((size_t)16 << 20)
#define OP_MAX_DRAWS 1000000
#define OP_MAX_COMMITS 10000
#define OP_MAX_OUTPUT ((size_t)64 << 20)

struct refd_ctx {
	struct call *call;
	struct rng *rng;
	struct memacct *mem;
	int op;
};

const char *
refd_strerror(int code)
{
	switch (code) {
	case REFD_OK:
		return "success";
#define X(name, val, msg)                                                      \
	case val:                                                              \
		return msg;
		REFD_ERRNO_MAP(X)
#undef X
	default:
		return "unknown error";
	}
}

const char *
refd_errname(int code)
{
	switch (code) {
	case REFD_OK:
		return "OK";
#define X(name, val, msg)                                                      \
	case val:                                                              \
		return #name;
		REFD_ERRNO_MAP(X)
#undef X
	default:
		return "EUNKNOWN";
	}
}

/* Calls. */

void
call_init(struct call *c)
{
	memset(c, 0, sizeof(*c));
	buf_init(&c->out);
}

void
call_reset(struct call *c)
{
	size_t i;

	for (i = 0; i < c->nev; i++)
		free(c->ev[i].bytes);
	for (i = 0; i < c->ncm; i++)
		free(c->cm[i].data);
	c->nev = c->ndr = c->ncm = 0;
	c->ev_bytes = 0;
	buf_reset(&c->out);
	c->reject_code = 0;
	c->reject_rule[0] = '\0';
	c->reject_msg[0] = '\0';
	c->fault[0] = '\0';
	c->fault_reason = NULL;
}

void
call_release(struct call *c)
{
	call_reset(c);
	free(c->ev);
	free(c->dr);
	free(c->cm);
	buf_release(&c->out);
	memset(c, 0, sizeof(*c));
}

static void
fault(refd_ctx *ctx, const char *msg)
{
	if (ctx->call != NULL && ctx->call->fault[0] == '\0')
		snprintf(ctx->call->fault, sizeof(ctx->call->fault), "%s", msg);
}

/* Draw source: BLAKE2b keyed with the match seed over a 64-bit counter. */

void
rng_init_seed(struct rng *r, const uint8_t key[32])
{
	memset(r, 0, sizeof(*r));
	memcpy(r->key, key, 32);
}

int
rng_init_script(struct rng *r, const int64_t *vals, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->scripted = 1;
	if (n > 0) {
		r->script = malloc(n * sizeof(*vals));
		if (r->script == NULL)
			return -1;
		memcpy(r->script, vals, n * sizeof(*vals));
	}
	r->nscript = n;
	return 0;
}

int
rng_copy(struct rng *dst, const struct rng *src)
{
	*dst = *src;
	dst->script_index = NULL;
	if (src->scripted && src->nscript > 0) {
		dst->script = malloc(src->nscript * sizeof(*src->script));
		if (dst->script == NULL)
			return -1;
		memcpy(dst->script, src->script,
		    src->nscript * sizeof(*src->script));
		if (src->script_index != NULL) {
			dst->script_index = malloc(src->nscript *
			    sizeof(*src->script_index));
			if (dst->script_index == NULL) {
				free(dst->script);
				dst->script = NULL;
				return -1;
			}
			memcpy(dst->script_index, src->script_index,
			    src->nscript * sizeof(*src->script_index));
		}
	}
	return 0;
}

void
rng_release(struct rng *r)
{
	free(r->script);
	r->script = NULL;
	free(r->script_index);
	r->script_index = NULL;
	sodium_memzero(r->key, sizeof(r->key));
}

static uint32_t
prf32(const struct rng *r, uint64_t counter)
{
	uint8_t in[8], out[8];
	int i;

	for (i = 0; i < 8; i++)
		in[i] = (uint8_t)(counter >> (8 * i));
	crypto_generichash(out, sizeof(out), in, sizeof(in), r->key,
	    sizeof(r->key));
	return (uint32_t)out[0] | (uint32_t)out[1] << 8 |
	    (uint32_t)out[2] << 16 | (uint32_t)out[3] << 24;
}

int
rng_draw(struct rng *r, uint32_t kind, uint32_t bound, uint64_t *index,
    uint32_t *value)
{
	uint32_t limit, x;

	if (bound == 0)
		return REFD_EARG;
	*index = !r->scripted ? r->counter : r->script_index != NULL &&
	    r->pos < r->nscript ? r->script_index[r->pos] : r->pos;
	if (r->scripted) {
		int64_t v;

		if (r->pos >= r->nscript)
			return REFD_ESCRIPT;
		v = r->script[r->pos++];
		if (kind == DRAW_ROLL) {
			if (v < 1 || v > (int64_t)bound)
				return REFD_ESCRIPT;
		} else if (v < 0 || v >= (int64_t)bound) {
			return REFD_ESCRIPT;
		}
		*value = (uint32_t)v;
		return REFD_OK;
	}
	/* Unbiased: reject the top partial range of 2^32. */
	limit = (uint32_t)(0x100000000ull - (0x100000000ull % bound));
	for (;;) {
		x = prf32(r, r->counter++);
		if (limit == 0 || x < limit)
			break;
	}
	*value = x % bound;
	if (kind == DRAW_ROLL)
		*value += 1;
	return REFD_OK;
}

/* The host API table. */

struct memhdr {
	struct memacct *acct;
	size_t n;
};
#define MEMHDR_SIZE ((sizeof(struct memhdr) + 15) & ~(size_t)15)

static void *
h_alloc(refd_ctx *ctx, size_t n)
{
	struct memacct *a = ctx != NULL ? ctx->mem : NULL;
	struct memhdr *h;

	if (n == 0 || n > SIZE_MAX - MEMHDR_SIZE)
		return NULL;
	if (a != NULL && a->limit != 0 && a->bytes + n > a->limit)
		return NULL;
	h = malloc(MEMHDR_SIZE + n);
	if (h == NULL)
		return NULL;
	h->acct = a;
	h->n = n;
	if (a != NULL) {
		a->bytes += n;
		if (a->bytes > a->peak)
			a->peak = a->bytes;
	}
	return (uint8_t *)h + MEMHDR_SIZE;
}

static void
h_free(refd_ctx *ctx, void *p)
{
	struct memhdr *h;

	(void)ctx;
	if (p == NULL)
		return;
	h = (struct memhdr *)(void *)((uint8_t *)p - MEMHDR_SIZE);
	if (h->acct != NULL)
		h->acct->bytes -= h->n;
	free(h);
}

static void *
h_realloc(refd_ctx *ctx, void *p, size_t n)
{
	struct memhdr *h;
	void *q;

	if (p == NULL)
		return h_alloc(ctx, n);
	if (n == 0) {
		h_free(ctx, p);
		return NULL;
	}
	h = (struct memhdr *)(void *)((uint8_t *)p - MEMHDR_SIZE);
	q = h_alloc(ctx != NULL ? ctx : NULL, n);
	if (q == NULL)
		return NULL;
	memcpy(q, p, h->n < n ? h->n : n);
	h_free(ctx, p);
	return q;
}

static void
h_log(refd_ctx *ctx, int level, const char *msg)
{
	static const char *lv[] = { "error", "warning", "info", "debug" };

	(void)ctx;
	if (level < 0 || level > 3)
		level = 3;
	if (level <= REFD_LOG_WARN)
		fprintf(stderr, "plugin %s: %s\n", lv[level],
		    msg != NULL ? msg : "");
}

/* Whether every string in v, map keys included, is UTF-8. */
int
mpv_utf8_ok(refd_mpv v)
{
	const char *s;
	size_t n, i;

	switch (refd_mpv_type(v)) {
	case REFD_MP_STR:
		return refd_mpv_str(v, &s, &n) == 0 &&
		    refd_utf8_ok((const uint8_t *)s, n);
	case REFD_MP_ARRAY:
		for (i = 0; i < refd_mpv_len(v); i++)
			if (!mpv_utf8_ok(refd_mpv_at(v, i)))
				return 0;
		return 1;
	case REFD_MP_MAP:
		for (i = 0; i < refd_mpv_len(v); i++)
			if (!mpv_utf8_ok(refd_mpv_key_at(v, i)) ||
			    !mpv_utf8_ok(refd_mpv_val_at(v, i)))
				return 0;
		return 1;
	default:
		return 1;
	}
}

int
output_text_ok(const uint8_t *b, size_t len)
{
	return refd_mp_check_text(b, len, 0) == 0;
}

/*
 * What is wrong with an event for clients in any language, or NULL: it
 * must be one msgpack map (nesting at most 16) with string keys, and
 * every string UTF-8.
 */
const char *
event_fault(const uint8_t *ev, size_t len)
{
	refd_mpdoc *d;
	refd_mpv root;
	const char *why = NULL;
	size_t i;

	if (ev == NULL || refd_mp_check(ev, len, 16) != 0 ||
	    ((ev[0] & 0xf0) != 0x80 && ev[0] != 0xde && ev[0] != 0xdf))
		return "event is not one msgpack map";
	if ((d = refd_mp_parse(ev, len)) == NULL)
		return "event is not one msgpack map";
	root = refd_mp_root(d);
	for (i = 0; i < refd_mpv_len(root) && why == NULL; i++)
		if (refd_mpv_type(refd_mpv_key_at(root, i)) != REFD_MP_STR)
			why = "event has a key that is not a string";
	if (why == NULL && !mpv_utf8_ok(root))
		why = "event has a string that is not UTF-8";
	refd_mp_free(d);
	return why;
}

/* Replace every non-ASCII byte of s by '?' when s is not UTF-8 (a cut
 * multi-byte character at the end included). */
void
ascii_unless_utf8(char *s)
{
	size_t n = strlen(s);

	if (refd_utf8_ok((const uint8_t *)s, n))
		return;
	for (; *s; s++)
		if ((uint8_t)*s >= 0x80)
			*s = '?';
}

static int
h_reject(refd_ctx *ctx, int code, const char *rule, const char *message)
{
	struct call *c = ctx->call;

	if (code >= 0)
		code = REFD_EILLEGAL;
	if (c != NULL && c->reject_code == 0) {
		c->reject_code = code;
		snprintf(c->reject_rule, sizeof(c->reject_rule), "%s",
		    rule != NULL ? rule : "");
		snprintf(c->reject_msg, sizeof(c->reject_msg), "%s",
		    message != NULL ? message : refd_strerror(code));
		/* They go to clients as msgpack strings: UTF-8 only. */
		ascii_unless_utf8(c->reject_rule);
		ascii_unless_utf8(c->reject_msg);
	}
	return code;
}

static int
record_draw(refd_ctx *ctx, uint32_t kind, uint32_t bound, const char *why,
    uint32_t *out)
{
	struct call *c = ctx->call;
	uint64_t idx;
	int rc;

	if (ctx->rng == NULL || (ctx->op != OPK_CREATE && ctx->op != OPK_APPLY &&
	    ctx->op != OPK_REDEAL)) {
		fault(ctx, "draw outside create, apply or redeal");
		return REFD_EPLUGINFAULT;
	}
	if (c->ndr >= OP_MAX_DRAWS) {
		fault(ctx, "more than 1000000 draws in one op");
		return REFD_EPLUGINFAULT;
	}
	rc = rng_draw(ctx->rng, kind, bound, &idx, out);
	if (rc != REFD_OK)
		return rc;
	if (c->ndr == c->cap_dr) {
		size_t nc = c->cap_dr ? c->cap_dr * 2 : 16;
		struct draw *d = realloc(c->dr, nc * sizeof(*d));

		if (d == NULL)
			return REFD_ENOMEM;
		c->dr = d;
		c->cap_dr = nc;
	}
	c->dr[c->ndr].index = idx;
	c->dr[c->ndr].kind = kind;
	c->dr[c->ndr].bound = bound;
	c->dr[c->ndr].value = *out;
	snprintf(c->dr[c->ndr].why, sizeof(c->dr[c->ndr].why), "%s",
	    why != NULL ? why : "");
	c->ndr++;
	return REFD_OK;
}

static int
h_roll(refd_ctx *ctx, uint32_t sides, const char *why, uint32_t *out)
{
	return record_draw(ctx, DRAW_ROLL, sides, why, out);
}

static int
h_uniform(refd_ctx *ctx, uint32_t bound, const char *why, uint32_t *out)
{
	return record_draw(ctx, DRAW_UNIFORM, bound, why, out);
}

static int
h_shuffle(refd_ctx *ctx, void *base, size_t n, size_t size, const char *why)
{
	uint8_t tmp[256], *a = base;
	size_t i;

	if (size > sizeof(tmp) || n > UINT32_MAX)
		return REFD_EARG;
	for (i = n; i > 1; i--) {
		uint32_t j;
		int rc = record_draw(ctx, DRAW_UNIFORM, (uint32_t)i,
		    why != NULL ? why : "shuffle", &j);

		if (rc != REFD_OK)
			return rc;
		if (j != i - 1) {
			memcpy(tmp, a + (i - 1) * size, size);
			memcpy(a + (i - 1) * size, a + (size_t)j * size, size);
			memcpy(a + (size_t)j * size, tmp, size);
		}
	}
	return REFD_OK;
}

static int
h_emit(refd_ctx *ctx, int32_t seat, const uint8_t *ev, size_t len)
{
	const char *why;
	struct call *c = ctx->call;
	struct event *e;

	if (ctx->op != OPK_CREATE && ctx->op != OPK_APPLY) {
		fault(ctx, "event emitted outside create or apply");
		return REFD_EPLUGINFAULT;
	}
	if (seat < REFD_SEAT_PUBLIC || seat >= REFD_MAX_SEATS) {
		fault(ctx, "event for an impossible seat");
		return REFD_EPLUGINFAULT;
	}
	if (c->nev >= OP_MAX_EVENTS || len > OP_MAX_EVENT_BYTES - c->ev_bytes) {
		fault(ctx, "more than 100000 events or 16 MiB of events in one "
		    "op");
		return REFD_EPLUGINFAULT;
	}
	if ((why = event_fault(ev, len)) != NULL) {
		fault(ctx, why);
		return REFD_EPLUGINFAULT;
	}
	if (c->nev == c->cap_ev) {
		size_t nc = c->cap_ev ? c->cap_ev * 2 : 16;
		struct event *p = realloc(c->ev, nc * sizeof(*p));

		if (p == NULL)
			return REFD_ENOMEM;
		c->ev = p;
		c->cap_ev = nc;
	}
	e = &c->ev[c->nev];
	e->bytes = malloc(len);
	if (e->bytes == NULL)
		return REFD_ENOMEM;
	memcpy(e->bytes, ev, len);
	e->len = len;
	c->ev_bytes += len;
	e->seat = seat;
	c->nev++;
	return REFD_OK;
}

static int
h_output(refd_ctx *ctx, const uint8_t *bytes, size_t len)
{
	if (ctx->op == OPK_APPLY) {
		fault(ctx, "output during apply");
		return REFD_EPLUGINFAULT;
	}
	if (len > OP_MAX_OUTPUT - ctx->call->out.len) {
		fault(ctx, "more than 64 MiB of output in one op");
		return REFD_EPLUGINFAULT;
	}
	if (buf_add(&ctx->call->out, bytes, len) != 0)
		return REFD_ENOMEM;
	return REFD_OK;
}

void
rng_seal(const struct rng *r, uint64_t n, const uint8_t *data, size_t len,
    uint8_t salt[16], uint8_t hash[ENG_HASH_LEN])
{
	crypto_generichash_state st;
	uint8_t in[8];
	int i;

	/* Salt: keyed by the match seed, so nobody can predict it. */
	for (i = 0; i < 8; i++)
		in[i] = (uint8_t)(n >> (8 * i));
	crypto_generichash(salt, 16, in, sizeof(in), r->key, sizeof(r->key));
	crypto_generichash_init(&st, NULL, 0, ENG_HASH_LEN);
	crypto_generichash_update(&st, salt, 16);
	crypto_generichash_update(&st, data, len);
	crypto_generichash_final(&st, hash, ENG_HASH_LEN);
}

static int
h_commit(refd_ctx *ctx, const char *zone, int32_t seat, const uint8_t *data,
    size_t len)
{
	struct call *c = ctx->call;
	struct commitment *m;

	if (ctx->rng == NULL || (ctx->op != OPK_CREATE && ctx->op != OPK_APPLY &&
	    ctx->op != OPK_REDEAL) || zone == NULL) {
		fault(ctx, "commitment outside create or apply");
		return REFD_EPLUGINFAULT;
	}
	if (c->ncm >= OP_MAX_COMMITS) {
		fault(ctx, "more than 10000 commitments in one op");
		return REFD_EPLUGINFAULT;
	}
	if (c->ncm == c->cap_cm) {
		size_t nc = c->cap_cm ? c->cap_cm * 2 : 4;
		struct commitment *p = realloc(c->cm, nc * sizeof(*p));

		if (p == NULL)
			return REFD_ENOMEM;
		c->cm = p;
		c->cap_cm = nc;
	}
	m = &c->cm[c->ncm];
	memset(m, 0, sizeof(*m));
	snprintf(m->zone, sizeof(m->zone), "%s", zone);
	m->seat = seat;
	rng_seal(ctx->rng, ctx->rng->salt_counter++, data, len, m->salt,
	    m->hash);
	m->data = malloc(len ? len : 1);
	if (m->data == NULL)
		return REFD_ENOMEM;
	if (len)
		memcpy(m->data, data, len);
	m->len = len;
	c->ncm++;
	return REFD_OK;
}

static const struct refd_host host_table = {
	sizeof(struct refd_host),
	REFD_ABI_MAJOR,
	REFD_ABI_MINOR,
	REFD_HOST_CAPS_V1_0,
	h_alloc,
	h_realloc,
	h_free,
	h_log,
	h_reject,
	h_roll,
	h_uniform,
	h_shuffle,
	h_emit,
	h_output,
	h_commit,
};

/* Plugins. */

int
plugin_file_hash(const char *path, uint8_t out[ENG_HASH_LEN])
{
	crypto_generichash_state st;
	uint8_t b[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	crypto_generichash_init(&st, NULL, 0, ENG_HASH_LEN);
	while ((n = read(fd, b, sizeof(b))) > 0)
		crypto_generichash_update(&st, b, (size_t)n);
	close(fd);
	if (n < 0)
		return -1;
	crypto_generichash_final(&st, out, ENG_HASH_LEN);
	return 0;
}

char *
plugin_stem(const char *path)
{
	const char *b = strrchr(path, '/');
	size_t n;
	char *s;

	b = b != NULL ? b + 1 : path;
	n = strlen(b);
	if (n > 3 && strcmp(b + n - 3, ".so") == 0)
		n -= 3;
	s = malloc(n + 1);
	if (s == NULL)
		return NULL;
	memcpy(s, b, n);
	s[n] = '\0';
	return s;
}

/*
 * Descriptor sizes by ABI minor, for every minor up to this refd's: a
 * plugin that claims minor m must carry exactly desc_size[m].  Append a
 * line with each new minor.
 */
static const uint32_t desc_size[REFD_ABI_MINOR + 1] = {
	(uint32_t)REFD_PLUGIN_SIZE_1_0,
};
/* magic, abi_major, abi_minor, size: the same layout in every major. */
#define DESC_HEAD_SIZE 12

/* The checks on the plugin's file that run no code: a regular file that
 * neither group nor others may write. */
int
plugin_check_file(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "plugin '%s': file: cannot open: %s; check "
		    "the path", path, strerror(errno));
		return REFD_EDLOPEN;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "plugin '%s': file: not a regular file; "
		    "give the path of a .so file", path);
		return REFD_EDLOPEN;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen,
		    "plugin '%s': file mode: found %03o, expected no group or "
		    "world write; run 'chmod go-w %s'", path,
		    (unsigned)(st.st_mode & 0777), path);
		return REFD_EPERM;
	}
	return REFD_OK;
}

/*
 * Open the file and find the descriptor, running no plugin function (the
 * dynamic loader still runs ELF constructors; plugins must have none).
 * *symsize is the size of the entry symbol from the ELF symbol table, or 0
 * when the dynamic loader cannot tell.
 */
static int
open_descriptor(const char *path, void **dlp, const struct refd_plugin **dp,
    size_t *symsize, char *err, size_t errlen)
{
	void *dl;
	const struct refd_plugin *d;
	const ElfW(Sym) *sym = NULL;
	Dl_info info;
	int major;

	*symsize = 0;
	if ((major = plugin_check_file(path, err, errlen)) != REFD_OK)
		return major;
	/* A file name: never a library for the loader to search for. */
	if (strchr(path, '/') == NULL) {
		char rel[PATH_MAX];

		snprintf(rel, sizeof(rel), "./%s", path);
		dl = dlopen(rel, RTLD_NOW | RTLD_LOCAL);
	} else {
		dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	}
	if (dl == NULL) {
		const char *why = dlerror(), *advice = "";

		if (why == NULL)
			why = "unknown error";
		if (strstr(why, "undefined symbol") != NULL)
			advice = "; rebuild the plugin against this refd's SDK";
		else if (strstr(why, "ELF") != NULL ||
		    strstr(why, "file too short") != NULL)
			advice = "; it is not a shared object for this system: "
			    "build it here";
		else if (strstr(why, "cannot open shared object") != NULL)
			advice = "; a library it needs is missing: install it";
		snprintf(err, errlen, "plugin '%s': dlopen: %s%s", path, why,
		    advice);
		return REFD_EDLOPEN;
	}
	d = dlsym(dl, REFD_PLUGIN_ENTRY_STR);
	if (d == NULL) {
		for (major = REFD_ABI_MAJOR + 1; major < REFD_ABI_MAJOR + 10;
		    major++) {
			char name[32];

			snprintf(name, sizeof(name), "refd_plugin_v%d", major);
			if (dlsym(dl, name) != NULL) {
				snprintf(err, errlen,
				    "plugin '%s': abi major: found %d (symbol "
				    "'%s'), expected %d; upgrade refd, or "
				    "rebuild the plugin against this refd's SDK",
				    path, major, name, REFD_ABI_MAJOR);
				dlclose(dl);
				return REFD_EABIMAJOR;
			}
		}
		snprintf(err, errlen,
		    "plugin '%s': entry: symbol '%s' not found; define the "
		    "plugin with REFD_PLUGIN_DEFINE from <refd/plugin.h>", path,
		    REFD_PLUGIN_ENTRY_STR);
		dlclose(dl);
		return REFD_ENOENTRY;
	}
	if (dladdr1(d, &info, (void **)&sym, RTLD_DL_SYMENT) != 0 &&
	    sym != NULL) {
		if (ELF64_ST_TYPE(sym->st_info) == STT_FUNC ||
		    ELF64_ST_TYPE(sym->st_info) == STT_GNU_IFUNC) {
			snprintf(err, errlen,
			    "plugin '%s': entry: '%s' is a function, expected "
			    "a const data object; define the plugin with "
			    "REFD_PLUGIN_DEFINE", path, REFD_PLUGIN_ENTRY_STR);
			dlclose(dl);
			return REFD_ENOENTRY;
		}
		*symsize = (size_t)sym->st_size;
	}
	*dlp = dl;
	*dp = d;
	return REFD_OK;
}

/* Whether p points into the same loaded object as anchor. */
static int
inside(const void *p, const void *anchor)
{
	Dl_info a, b;

	if (p == NULL || dladdr(anchor, &a) == 0 || dladdr(p, &b) == 0)
		return 0;
	return a.dli_fbase == b.dli_fbase;
}

/*
 * The loader checks, in order: magic, major, size, minor, required
 * capabilities, name, ops, then the remaining descriptor fields.  On
 * success *dc holds a copy of the descriptor, zero-filled past its size.
 */
static int
check_descriptor(const char *path, const struct refd_plugin *d,
    size_t symsize, struct refd_plugin *dc, char *err, size_t errlen)
{
	char *stem;
	uint64_t unknown;
	const struct refd_plugin_ops *o;

	memset(dc, 0, sizeof(*dc));
	if (symsize != 0 && symsize < DESC_HEAD_SIZE) {
		snprintf(err, errlen,
		    "plugin '%s': entry: found %zu bytes, expected at least %d; "
		    "'%s' is not a refd descriptor, rebuild the plugin with "
		    "REFD_PLUGIN_DEFINE", path, symsize, DESC_HEAD_SIZE,
		    REFD_PLUGIN_ENTRY_STR);
		return REFD_EMAGIC;
	}
	if (d->magic != REFD_PLUGIN_MAGIC) {
		snprintf(err, errlen,
		    "plugin '%s': magic: found 0x%08x, expected 0x%08x; not a "
		    "refd plugin or a damaged file, rebuild it", path,
		    (unsigned)d->magic, (unsigned)REFD_PLUGIN_MAGIC);
		return REFD_EMAGIC;
	}
	if (d->abi_major != REFD_ABI_MAJOR) {
		snprintf(err, errlen,
		    "plugin '%s': abi major: found %u, expected %u; rebuild the "
		    "plugin against this refd's SDK", path,
		    (unsigned)d->abi_major, (unsigned)REFD_ABI_MAJOR);
		return REFD_EABIMAJOR;
	}
	if (symsize != 0 && d->size > symsize) {
		snprintf(err, errlen,
		    "plugin '%s': size: found %u, but the descriptor object is "
		    "%zu bytes; the descriptor is damaged, rebuild the plugin",
		    path, (unsigned)d->size, symsize);
		return REFD_EABISIZE;
	}
	if (d->abi_minor <= REFD_ABI_MINOR &&
	    d->size != desc_size[d->abi_minor]) {
		snprintf(err, errlen,
		    "plugin '%s': size: found %u, expected %u for ABI %u.%u; "
		    "the descriptor does not match its version, rebuild the "
		    "plugin against an unmodified SDK", path, (unsigned)d->size,
		    (unsigned)desc_size[d->abi_minor], (unsigned)d->abi_major,
		    (unsigned)d->abi_minor);
		return REFD_EABISIZE;
	}
	if (d->abi_minor > REFD_ABI_MINOR && d->size < sizeof(*d)) {
		snprintf(err, errlen,
		    "plugin '%s': size: found %u, expected at least %u for ABI "
		    "%u.%u; the descriptor is damaged, rebuild the plugin",
		    path, (unsigned)d->size, (unsigned)sizeof(*d),
		    (unsigned)d->abi_major, (unsigned)d->abi_minor);
		return REFD_EABISIZE;
	}
	if (d->abi_minor > REFD_ABI_MINOR) {
		snprintf(err, errlen,
		    "plugin '%s': abi minor: found %u, expected at most %u; "
		    "upgrade refd to ABI %u.%u, or rebuild the plugin against "
		    "this refd's SDK", path, (unsigned)d->abi_minor,
		    (unsigned)REFD_ABI_MINOR, (unsigned)d->abi_major,
		    (unsigned)d->abi_minor);
		return REFD_EABIMINOR;
	}
	memcpy(dc, d, d->size < sizeof(*dc) ? d->size : sizeof(*dc));
	unknown = dc->required_caps & ~(uint64_t)REFD_HOST_CAPS_V1_0;
	if (unknown != 0) {
		snprintf(err, errlen,
		    "plugin '%s': required caps: found 0x%llx, this refd knows "
		    "0x%llx (unknown 0x%llx); upgrade refd", path,
		    (unsigned long long)dc->required_caps,
		    (unsigned long long)REFD_HOST_CAPS_V1_0,
		    (unsigned long long)unknown);
		return REFD_ECAPS;
	}
	if (dc->name != NULL && !inside(dc->name, d)) {
		snprintf(err, errlen,
		    "plugin '%s': name: found a pointer outside the plugin, "
		    "expected the plugin's own string; the descriptor is "
		    "damaged, rebuild the plugin", path);
		return REFD_ENAME;
	}
	stem = plugin_stem(path);
	if (stem == NULL)
		return REFD_ENOMEM;
	if (dc->name == NULL || strcmp(dc->name, stem) != 0) {
		snprintf(err, errlen,
		    "plugin '%s': name: found '%.64s', expected '%s' (the file "
		    "name); rename the file to '%.64s.so' or fix the descriptor",
		    path, dc->name != NULL ? dc->name : "(null)", stem,
		    dc->name != NULL ? dc->name : "(null)");
		free(stem);
		return REFD_ENAME;
	}
	free(stem);
	o = dc->ops;
	if (o == NULL) {
		snprintf(err, errlen,
		    "plugin '%s': ops: found NULL, expected an ops table; "
		    "rebuild the plugin", path);
		return REFD_EOPS;
	}
	if (!inside(o, d)) {
		snprintf(err, errlen,
		    "plugin '%s': ops: found a pointer outside the plugin, "
		    "expected the plugin's own ops table; the descriptor is "
		    "damaged, rebuild the plugin", path);
		return REFD_EOPS;
	}
	if (o->size < offsetof(struct refd_plugin_ops, redeal)) {
		snprintf(err, errlen,
		    "plugin '%s': ops size: found %u, expected at least %u; "
		    "rebuild the plugin against this refd's SDK", path,
		    (unsigned)o->size,
		    (unsigned)offsetof(struct refd_plugin_ops, redeal));
		return REFD_EOPS;
	}
#define REQ(m)                                                                 \
	if (o->m == NULL) {                                                    \
		snprintf(err, errlen,                                          \
		    "plugin '%s': ops: found no '%s', expected one; implement " \
		    "the required op", path, #m);                               \
		return REFD_EOPS;                                              \
	}
	REQ(init) REQ(describe) REQ(content_load) REQ(content_free) REQ(create)
	REQ(apply) REQ(legal) REQ(pending) REQ(view) REQ(result) REQ(serialize)
	REQ(restore) REQ(destroy)
#undef REQ
	if ((dc->version != NULL && !inside(dc->version, d)) ||
	    (dc->summary != NULL && !inside(dc->summary, d))) {
		snprintf(err, errlen,
		    "plugin '%s': %s: found a pointer outside the plugin, "
		    "expected the plugin's own string; the descriptor is "
		    "damaged, rebuild the plugin", path,
		    dc->version != NULL && !inside(dc->version, d) ? "version" :
		    "summary");
		return REFD_EDESC;
	}
	if (dc->version == NULL || dc->version[0] == '\0') {
		snprintf(err, errlen,
		    "plugin '%s': version: found none, expected a version "
		    "string; fix the descriptor", path);
		return REFD_EDESC;
	}
	if (dc->min_seats < 1 || dc->max_seats < dc->min_seats ||
	    dc->max_seats > REFD_MAX_SEATS) {
		snprintf(err, errlen,
		    "plugin '%s': seats: found %u..%u, expected a range within "
		    "1..%d; fix the descriptor", path, (unsigned)dc->min_seats,
		    (unsigned)dc->max_seats, REFD_MAX_SEATS);
		return REFD_EDESC;
	}
	return REFD_OK;
}

static const char *
strornull(const char *s)
{
	return s != NULL ? s : "(null)";
}

int
plugin_info(const char *path, struct buf *out, char *err, size_t errlen)
{
	void *dl = NULL;
	const struct refd_plugin *d = NULL;
	struct refd_plugin dc;
	size_t symsize;
	int rc = open_descriptor(path, &dl, &d, &symsize, err, errlen);

	if (rc != REFD_OK)
		return rc;
	buf_printf(out, "file: %s\n", path);
	buf_printf(out, "entry: %s (%zu bytes)\n", REFD_PLUGIN_ENTRY_STR,
	    symsize);
	rc = check_descriptor(path, d, symsize, &dc, err, errlen);
	if (symsize == 0 || symsize >= DESC_HEAD_SIZE) {
		buf_printf(out, "magic: 0x%08x%s\n", (unsigned)d->magic,
		    d->magic == REFD_PLUGIN_MAGIC ? "" : " (wrong)");
		buf_printf(out, "abi: %u.%u\n", (unsigned)d->abi_major,
		    (unsigned)d->abi_minor);
		buf_printf(out, "size: %u\n", (unsigned)d->size);
	}
	/* The rest only from a descriptor whose layout refd knows. */
	if (dc.magic == REFD_PLUGIN_MAGIC) {
		buf_printf(out, "flags: 0x%x\n", (unsigned)dc.flags);
		buf_printf(out, "required caps: 0x%llx\n",
		    (unsigned long long)dc.required_caps);
		buf_printf(out, "name: %s\n", strornull(dc.name));
		buf_printf(out, "version: %s\n", strornull(dc.version));
		buf_printf(out, "summary: %s\n", strornull(dc.summary));
		buf_printf(out, "seats: %u..%u\n", (unsigned)dc.min_seats,
		    (unsigned)dc.max_seats);
		if (dc.ops != NULL) {
			const struct refd_plugin_ops *o = dc.ops;

			buf_printf(out, "ops size: %u\n", (unsigned)o->size);
#define SHOW(m)                                                                \
	if (o->size >= offsetof(struct refd_plugin_ops, m) + sizeof(o->m))     \
		buf_printf(out, "op %s: %s\n", #m, o->m != NULL ? "yes" : "no");
			SHOW(init) SHOW(fini) SHOW(describe) SHOW(content_load)
			SHOW(content_free) SHOW(create) SHOW(apply) SHOW(legal)
			SHOW(pending) SHOW(view) SHOW(result) SHOW(serialize)
			SHOW(restore) SHOW(destroy) SHOW(redeal)
#undef SHOW
		}
	}
	buf_printf(out, "loadable: %s\n", rc == REFD_OK ? "yes" : err);
	dlclose(dl);
	return REFD_OK;
}

int
plugin_open(const char *path, struct plugin **out, char *err, size_t errlen)
{
	return plugin_open_locked(path, NULL, NULL, out, err, errlen);
}

int
plugin_open_locked(const char *path, int (*lock)(void *), void *arg,
    struct plugin **out, char *err, size_t errlen)
{
	struct plugin *pl;
	const struct refd_plugin *d;
	struct refd_plugin dc;
	size_t symsize;
	void *dl;
	struct call c;
	refd_ctx ctx;
	int rc;

	*out = NULL;
	rc = open_descriptor(path, &dl, &d, &symsize, err, errlen);
	if (rc != REFD_OK)
		return rc;
	rc = check_descriptor(path, d, symsize, &dc, err, errlen);
	if (rc != REFD_OK) {
		dlclose(dl);
		return rc;
	}
	pl = calloc(1, sizeof(*pl));
	if (pl == NULL) {
		dlclose(dl);
		return REFD_ENOMEM;
	}
	pl->dl = dl;
	pl->descbuf = dc;
	pl->desc = &pl->descbuf;
	pl->path = strdup(path);
	pl->name = strdup(dc.name);
	memcpy(&pl->ops, dc.ops, dc.ops->size < sizeof(pl->ops) ?
	    dc.ops->size : sizeof(pl->ops));
	pl->ops.size = sizeof(pl->ops);
	if (pl->path == NULL || pl->name == NULL ||
	    plugin_file_hash(path, pl->file_hash) != 0) {
		plugin_close(pl);
		snprintf(err, errlen, "plugin '%s': file: cannot read it back "
		    "to hash it; check the file", path);
		return REFD_EDLOPEN;
	}
	if (lock != NULL && lock(arg) != 0) {
		plugin_close(pl);
		snprintf(err, errlen, "plugin '%s': worker: cannot drop its "
		    "privileges: %s", path, strerror(errno));
		return REFD_EPLUGINFAULT;
	}
	call_init(&c);
	memset(&ctx, 0, sizeof(ctx));
	ctx.call = &c;
	ctx.op = OPK_INIT;
	rc = pl->ops.init(&ctx, &host_table, &pl->pdata);
	if (rc != REFD_OK) {
		snprintf(err, errlen,
		    "plugin '%s': init: returned %s (%d), expected OK%s%s; fix "
		    "what the plugin reports", path, refd_errname(rc), rc,
		    c.reject_msg[0] ? ": " : "", c.reject_msg);
		call_release(&c);
		pl->pdata = NULL;
		plugin_close(pl);
		return REFD_EINIT;
	}
	pl->initialized = 1;
	call_reset(&c);
	ctx.op = OPK_DESCRIBE;
	rc = pl->ops.describe(&ctx, pl->pdata);
	if (rc != REFD_OK || refd_mp_check(c.out.data, c.out.len, 0) != 0) {
		snprintf(err, errlen,
		    "plugin '%s': describe: failed or gave malformed msgpack",
		    path);
		call_release(&c);
		plugin_close(pl);
		return REFD_EPLUGINFAULT;
	}
	pl->describe = buf_detach(&c.out, &pl->describe_len);
	call_release(&c);
	*out = pl;
	return REFD_OK;
}

int
plugin_set_content(struct plugin *pl, struct call *c)
{
	refd_ctx ctx;
	void *h = NULL;
	int rc;

	if (pl->worker != NULL)
		return worker_set_content(pl, c);
	call_reset(c);
	memset(&ctx, 0, sizeof(ctx));
	ctx.call = c;
	ctx.op = OPK_CONTENT;
	rc = finish_call(c, pl->ops.content_load(&ctx, pl->pdata, pl->content,
	    pl->content_len, &h));
	if (rc != REFD_OK)
		return rc == REFD_EPLUGINFAULT ? rc : REFD_ECONTENT;
	if (pl->content_h != NULL)
		pl->ops.content_free(pl->pdata, pl->content_h);
	pl->content_h = h;
	pl->content_set = 1;
	return REFD_OK;
}

const struct scenario *
plugin_scenario(const struct plugin *pl, const char *name)
{
	size_t i;

	for (i = 0; i < pl->nscenarios; i++)
		if (strcmp(pl->scenarios[i].name, name) == 0)
			return &pl->scenarios[i];
	return NULL;
}

void
plugin_close(struct plugin *pl)
{
	size_t i;

	if (pl == NULL)
		return;
	worker_detach(pl);
	if (pl->content_h != NULL && pl->ops.content_free != NULL)
		pl->ops.content_free(pl->pdata, pl->content_h);
	if (pl->initialized && pl->ops.fini != NULL)
		pl->ops.fini(pl->pdata);
	for (i = 0; i < pl->nscenarios; i++) {
		free(pl->scenarios[i].name);
		free(pl->scenarios[i].setup);
	}
	free(pl->scenarios);
	free(pl->content);
	free(pl->content_dir);
	free(pl->describe);
	refd_mp_free(pl->describe_doc);
	free(pl->version);
	free(pl->summary);
	free(pl->path);
	free(pl->name);
	if (pl->dl != NULL)
		dlclose(pl->dl);
	free(pl);
}

/* Games. */

static void
ctx_for(refd_ctx *ctx, struct game *g, struct call *c, int op)
{
	ctx->call = c;
	ctx->rng = g != NULL ? &g->rng : NULL;
	ctx->mem = g != NULL ? &g->mem : NULL;
	ctx->op = op;
}

static int
finish_call(struct call *c, int rc)
{
	if (c->fault[0] != '\0')
		return REFD_EPLUGINFAULT;
	if (rc > 0)
		rc = REFD_OK;
	if (rc < 0 && c->reject_code == 0) {
		c->reject_code = rc;
		snprintf(c->reject_msg, sizeof(c->reject_msg), "%s",
		    refd_strerror(rc));
	}
	return rc;
}

int
game_new(struct plugin *pl, uint32_t nseats, const struct rng *rng,
    size_t memlimit, struct game **out)
{
	struct game *g = calloc(1, sizeof(*g));

	if (g == NULL)
		return REFD_ENOMEM;
	g->pl = pl;
	g->nseats = nseats;
	g->mem.limit = memlimit;
	if (rng_copy(&g->rng, rng) != 0) {
		free(g);
		return REFD_ENOMEM;
	}
	*out = g;
	return REFD_OK;
}

int
game_create(struct plugin *pl, const uint8_t *setup, size_t len,
    uint32_t nseats, const struct rng *rng, size_t memlimit,
    struct game **out, struct call *c)
{
	struct game *g;
	refd_ctx ctx;
	int rc;

	call_reset(c);
	*out = NULL;
	if (nseats < pl->desc->min_seats || nseats > pl->desc->max_seats) {
		c->reject_code = REFD_ESETUP;
		snprintf(c->reject_msg, sizeof(c->reject_msg),
		    "ruleset '%s' takes %u to %u seats, not %u", pl->name,
		    pl->desc->min_seats, pl->desc->max_seats, nseats);
		return REFD_ESETUP;
	}
	if (pl->worker != NULL)
		return worker_game_create(pl, 0, setup, len, nseats, rng,
		    memlimit, out, c);
	rc = game_new(pl, nseats, rng, memlimit, &g);
	if (rc != REFD_OK)
		return rc;
	ctx_for(&ctx, g, c, OPK_CREATE);
	rc = finish_call(c, pl->ops.create(&ctx, pl->pdata, pl->content_h,
	    setup, len, nseats, &g->state));
	if (rc != REFD_OK || g->state == NULL) {
		if (g->state != NULL)
			pl->ops.destroy(&ctx, g->state);
		g->state = NULL;
		game_destroy(g);
		if (rc == REFD_OK) {
			snprintf(c->fault, sizeof(c->fault),
			    "create returned no state");
			rc = REFD_EPLUGINFAULT;
		}
		return rc;
	}
	*out = g;
	return REFD_OK;
}

int
game_restore(struct plugin *pl, const uint8_t *bytes, size_t len,
    uint32_t nseats, const struct rng *rng, size_t memlimit,
    struct game **out, struct call *c)
{
	struct game *g;
	refd_ctx ctx;
	int rc;

	call_reset(c);
	*out = NULL;
	if (pl->worker != NULL)
		return worker_game_create(pl, 1, bytes, len, nseats, rng,
		    memlimit, out, c);
	rc = game_new(pl, nseats, rng, memlimit, &g);
	if (rc != REFD_OK)
		return rc;
	ctx_for(&ctx, g, c, OPK_QUERY);
	rc = finish_call(c, pl->ops.restore(&ctx, pl->pdata, pl->content_h,
	    bytes, len, &g->state));
	if (rc != REFD_OK || g->state == NULL) {
		if (g->state != NULL)
			pl->ops.destroy(&ctx, g->state);
		g->state = NULL;
		game_destroy(g);
		return rc != REFD_OK ? rc : REFD_EPLUGINFAULT;
	}
	*out = g;
	return REFD_OK;
}

void
game_destroy(struct game *g)
{
	refd_ctx ctx;
	struct call c;

	if (g == NULL)
		return;
	if (g->pl->worker != NULL) {
		worker_game_destroy(g);
		return;
	}
	if (g->state != NULL) {
		call_init(&c);
		ctx_for(&ctx, g, &c, OPK_QUERY);
		g->pl->ops.destroy(&ctx, g->state);
		call_release(&c);
	}
	rng_release(&g->rng);
	free(g);
}

int
game_serialize(struct game *g, struct call *c)
{
	refd_ctx ctx;

	call_reset(c);
	if (g->pl->worker != NULL && g->snap != NULL)
		return buf_add(&c->out, g->snap, g->snap_len) == 0 ? REFD_OK :
		    REFD_ENOMEM;
	if (g->pl->worker != NULL)
		return worker_game_op(g, WOP_SERIALIZE, 0, NULL, 0, NULL, c);
	ctx_for(&ctx, g, c, OPK_QUERY);
	return finish_call(c, g->pl->ops.serialize(&ctx, g->state));
}

int
game_apply(struct game *g, uint32_t seat, const uint8_t *cmd, size_t len,
    struct call *c)
{
	refd_ctx ctx;
	struct rng saved = g->rng;
	uint8_t *snap = NULL;
	size_t snaplen = 0;
	int rc;

	call_reset(c);
	if (seat >= g->nseats) {
		c->reject_code = REFD_ESEAT;
		snprintf(c->reject_msg, sizeof(c->reject_msg),
		    "seat %u does not exist", seat);
		return REFD_ESEAT;
	}
	if (g->pl->worker != NULL)
		return worker_game_op(g, WOP_APPLY, (int32_t)seat, cmd, len,
		    NULL, c);
	if (g->pl->desc->flags & REFD_PF_ROLLBACK) {
		rc = game_serialize(g, c);
		if (rc != REFD_OK)
			return rc;
		snap = buf_detach(&c->out, &snaplen);
		call_reset(c);
	}
	ctx_for(&ctx, g, c, OPK_APPLY);
	rc = finish_call(c, g->pl->ops.apply(&ctx, g->state, seat, cmd, len));
	if (rc != REFD_OK) {
		/* A rejection changes nothing: no draws, no events. */
		g->rng.counter = saved.counter;
		g->rng.pos = saved.pos;
		g->rng.salt_counter = saved.salt_counter;
		if (snap != NULL) {
			void *st = NULL;
			struct call rc2;
			refd_ctx c2;

			call_init(&rc2);
			ctx_for(&c2, g, &rc2, OPK_QUERY);
			if (g->pl->ops.restore(&c2, g->pl->pdata,
			    g->pl->content_h, snap, snaplen, &st) == REFD_OK &&
			    st != NULL) {
				g->pl->ops.destroy(&c2, g->state);
				g->state = st;
			} else {
				/* The rejected apply may have changed the
				 * state and it cannot be put back. */
				snprintf(c->fault, sizeof(c->fault),
				    "restore of the snapshot after a rejected "
				    "apply failed; the state may be damaged");
				rc = REFD_EPLUGINFAULT;
			}
			call_release(&rc2);
		}
		{
			size_t i;

			for (i = 0; i < c->nev; i++)
				free(c->ev[i].bytes);
			for (i = 0; i < c->ncm; i++)
				free(c->cm[i].data);
			c->nev = c->ndr = c->ncm = 0;
			c->ev_bytes = 0;
		}
	}
	free(snap);
	return rc;
}

int
game_legal(struct game *g, uint32_t seat, struct call *c)
{
	refd_ctx ctx;

	call_reset(c);
	if (seat >= g->nseats)
		return REFD_ESEAT;
	if (g->pl->worker != NULL)
		return worker_game_op(g, WOP_LEGAL, (int32_t)seat, NULL, 0, NULL,
		    c);
	ctx_for(&ctx, g, c, OPK_QUERY);
	return finish_call(c, g->pl->ops.legal(&ctx, g->state, seat));
}

int
game_pending(struct game *g, uint64_t *seats, struct call *c)
{
	refd_ctx ctx;

	call_reset(c);
	*seats = 0;
	if (g->pl->worker != NULL)
		return worker_game_op(g, WOP_PENDING, 0, NULL, 0, seats, c);
	ctx_for(&ctx, g, c, OPK_QUERY);
	return finish_call(c, g->pl->ops.pending(&ctx, g->state, seats));
}

int
game_view(struct game *g, int32_t seat, struct call *c)
{
	refd_ctx ctx;

	call_reset(c);
	if (seat != REFD_SEAT_PUBLIC && (seat < 0 || (uint32_t)seat >= g->nseats))
		return REFD_ESEAT;
	if (g->pl->worker != NULL)
		return worker_game_op(g, WOP_VIEW, seat, NULL, 0, NULL, c);
	ctx_for(&ctx, g, c, OPK_QUERY);
	return finish_call(c, g->pl->ops.view(&ctx, g->state, seat));
}

int
game_result(struct game *g, struct call *c)
{
	refd_ctx ctx;
	int rc;

	call_reset(c);
	if (g->pl->worker != NULL && g->res_known)
		return buf_add(&c->out, g->res_out, g->res_len) == 0 ?
		    g->res_rc : REFD_ENOMEM;
	if (g->pl->worker != NULL)
		return worker_game_op(g, WOP_RESULT, 0, NULL, 0, NULL, c);
	ctx_for(&ctx, g, c, OPK_QUERY);
	rc = g->pl->ops.result(&ctx, g->state);
	if (c->fault[0] != '\0')
		return REFD_EPLUGINFAULT;
	return rc;
}

int
game_redeal(struct game *g, uint32_t seat, struct call *c)
{
	refd_ctx ctx;

	call_reset(c);
	if (g->pl->ops.redeal == NULL)
		return REFD_EOPS;
	if (g->pl->worker != NULL)
		return worker_game_op(g, WOP_REDEAL, (int32_t)seat, NULL, 0,
		    NULL, c);
	ctx_for(&ctx, g, c, OPK_REDEAL);
	return finish_call(c, g->pl->ops.redeal(&ctx, g->state, seat));
}

int
game_state_hash(struct game *g, uint8_t out[ENG_HASH_LEN])
{
	struct call c;
	int rc;

	call_init(&c);
	rc = game_serialize(g, &c);
	if (rc == REFD_OK)
		crypto_generichash(out, ENG_HASH_LEN, c.out.data, c.out.len,
		    NULL, 0);
	call_release(&c);
	return rc;
}

/* The type an argument's description starts with: 'i' int, 'b' bool, 's'
 * str (or a quoted choice), 'a' array ('['), 'm' map ('{'), or 0 when it
 * names none. */
static int
arg_type(const char *d, size_t n)
{
	while (n > 0 && *d == ' ') {
		d++;
		n--;
	}
	if (n >= 3 && memcmp(d, "int", 3) == 0 && (n == 3 || !isalpha(
	    (unsigned char)d[3])))
		return 'i';
	if (n >= 4 && memcmp(d, "bool", 4) == 0)
		return 'b';
	if ((n >= 3 && memcmp(d, "str", 3) == 0 && (n == 3 ||
	    !isalpha((unsigned char)d[3]))) || (n > 0 && d[0] == '"'))
		return 's';
	if (n > 0 && d[0] == '[')
		return 'a';
	if (n > 0 && d[0] == '{')
		return 'm';
	return 0;
}

static const char *
mp_type_name(int t)
{
	switch (t) {
	case REFD_MP_NIL: return "nil";
	case REFD_MP_BOOL: return "a boolean";
	case REFD_MP_INT: return "an integer";
	case REFD_MP_FLOAT: return "a number";
	case REFD_MP_STR: return "a string";
	case REFD_MP_BIN: return "bytes";
	case REFD_MP_ARRAY: return "an array";
	case REFD_MP_MAP: return "a map";
	default: return "another type";
	}
}

refd_mpv
plugin_describe(struct plugin *pl)
{
	if (pl->describe_doc == NULL && pl->describe != NULL)
		pl->describe_doc = refd_mp_parse(pl->describe,
		    pl->describe_len);
	return refd_mp_root(pl->describe_doc);
}

int
plugin_check_args(struct plugin *pl, const uint8_t *cmd, size_t len,
    char *msg, size_t n)
{
	static const char *const want[] = { ['i'] = "an integer",
		['b'] = "a boolean", ['s'] = "a string", ['a'] = "an array",
		['m'] = "a map" };
	refd_mpdoc *cd;
	refd_mpv root, spec, args, commands;
	const char *type;
	size_t i, tl;
	int rc = 0;

	commands = refd_mpv_get(plugin_describe(pl), "commands");
	if (refd_mpv_type(commands) != REFD_MP_MAP ||
	    (cd = refd_mp_parse(cmd, len)) == NULL)
		return 0;	/* the plugin says what is wrong */
	root = refd_mp_root(cd);
	if (refd_mpv_str(refd_mpv_get(root, "type"), &type, &tl) != 0 ||
	    tl > 63) {
		refd_mp_free(cd);
		return 0;
	}
	{
		char t[64];

		memcpy(t, type, tl);
		t[tl] = '\0';
		spec = refd_mpv_get(commands, t);
	}
	args = refd_mpv_get(spec, "args");
	for (i = 0; rc == 0 && i < refd_mpv_len(root); i++) {
		refd_mpv k = refd_mpv_key_at(root, i), v = refd_mpv_val_at(root, i);
		const char *kn, *d;
		size_t kl, dl, j;
		int at, vt = refd_mpv_type(v), ok;

		if (refd_mpv_str(k, &kn, &kl) != 0)
			continue;
		for (j = 0; j < refd_mpv_len(args); j++) {
			const char *an;
			size_t al;

			if (refd_mpv_str(refd_mpv_key_at(args, j), &an, &al) != 0 ||
			    al != kl || memcmp(an, kn, kl) != 0 ||
			    refd_mpv_str(refd_mpv_val_at(args, j), &d, &dl) != 0)
				continue;
			at = arg_type(d, dl);
			ok = at == 0 || (at == 'i' && vt == REFD_MP_INT) ||
			    (at == 'b' &&
			    vt == REFD_MP_BOOL) || (at == 's' &&
			    vt == REFD_MP_STR) || (at == 'a' &&
			    vt == REFD_MP_ARRAY) || (at == 'm' &&
			    vt == REFD_MP_MAP) || vt == REFD_MP_NIL;
			if (!ok) {
				snprintf(msg, n, "command '%.*s': argument "
				    "'%.*s': expected %s, found %s", (int)tl,
				    type, (int)(kl > 40 ? 40 : kl), kn,
				    want[at], mp_type_name(vt));
				rc = -1;
			}
			break;
		}
	}
	refd_mp_free(cd);
	return rc;
}
