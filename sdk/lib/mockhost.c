/*
 * mockhost.c - a host table for plugin unit tests (see refd/mockhost.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refd/mockhost.h"
#include "refd/mp.h"

struct refd_ctx {
	refd_mock *m;
};

struct mev {
	int32_t seat;
	uint8_t *b;
	size_t n;
};

struct mdraw {
	int kind;
	uint32_t bound, value;
	char why[32];
};

struct mcommit {
	char zone[64];
	int32_t seat;
	uint8_t *b;
	size_t n;
};

/* A growable byte string. */
struct bytes {
	uint8_t *b;
	size_t n, cap;
};

struct refd_mock {
	struct refd_ctx ctx;
	struct refd_host host;

	int64_t *script;
	size_t nscript, pos;
	uint64_t seed;

	struct mev *ev;
	size_t nev, capev;
	struct mdraw *dr;
	size_t ndr, capdr;
	struct mcommit *cm;
	size_t ncm, capcm;
	struct bytes out;
	struct bytes logs;

	int reject_code;
	char reject_rule[32];
	char reject_msg[512];
	char fault[256];

	size_t live;
	int fail_alloc;
	int op;			/* enum refd_mock_op */
};

/* Allocation header: which mock accounts for it, and the size. */
struct mhdr {
	refd_mock *m;
	size_t n;
};
#define MHDR ((sizeof(struct mhdr) + 15) & ~(size_t)15)

static int
grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *p;
	size_t nc;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 8;
	p = realloc(*v, nc * size);
	if (p == NULL)
		return -1;
	*v = p;
	*cap = nc;
	return 0;
}

static int
bytes_add(struct bytes *s, const void *p, size_t n)
{
	if (s->n + n + 1 > s->cap) {
		size_t nc = s->cap ? s->cap : 64;
		uint8_t *q;

		while (nc < s->n + n + 1)
			nc *= 2;
		q = realloc(s->b, nc);
		if (q == NULL)
			return -1;
		s->b = q;
		s->cap = nc;
	}
	if (n > 0)
		memcpy(s->b + s->n, p, n);
	s->n += n;
	s->b[s->n] = '\0';
	return 0;
}

static void
fault(refd_mock *m, const char *fmt, ...)
{
	va_list ap;

	if (m->fault[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(m->fault, sizeof(m->fault), fmt, ap);
	va_end(ap);
}

static void *
m_alloc(refd_ctx *ctx, size_t n)
{
	refd_mock *m = ctx != NULL ? ctx->m : NULL;
	struct mhdr *h;

	if (n == 0 || n > SIZE_MAX - MHDR || (m != NULL && m->fail_alloc))
		return NULL;
	h = malloc(MHDR + n);
	if (h == NULL)
		return NULL;
	h->m = m;
	h->n = n;
	if (m != NULL)
		m->live += n;
	return (uint8_t *)h + MHDR;
}

static void
m_free(refd_ctx *ctx, void *p)
{
	struct mhdr *h;

	(void)ctx;
	if (p == NULL)
		return;
	h = (struct mhdr *)(void *)((uint8_t *)p - MHDR);
	if (h->m != NULL)
		h->m->live -= h->n;
	free(h);
}

static void *
m_realloc(refd_ctx *ctx, void *p, size_t n)
{
	struct mhdr *h;
	void *q;

	if (p == NULL)
		return m_alloc(ctx, n);
	if (n == 0) {
		m_free(ctx, p);
		return NULL;
	}
	h = (struct mhdr *)(void *)((uint8_t *)p - MHDR);
	q = m_alloc(ctx, n);
	if (q == NULL)
		return NULL;
	memcpy(q, p, h->n < n ? h->n : n);
	m_free(ctx, p);
	return q;
}

static void
m_log(refd_ctx *ctx, int level, const char *msg)
{
	static const char *const lv[] = { "error", "warning", "info",
		"debug" };
	refd_mock *m = ctx != NULL ? ctx->m : NULL;

	if (m == NULL)
		return;
	if (level < 0 || level > 3)
		level = 3;
	bytes_add(&m->logs, lv[level], strlen(lv[level]));
	bytes_add(&m->logs, ": ", 2);
	if (msg != NULL)
		bytes_add(&m->logs, msg, strlen(msg));
	bytes_add(&m->logs, "\n", 1);
}

static int
m_reject(refd_ctx *ctx, int code, const char *rule, const char *message)
{
	refd_mock *m = ctx->m;

	if (code >= 0)
		code = REFD_EILLEGAL;
	if (m->reject_code == 0) {
		m->reject_code = code;
		snprintf(m->reject_rule, sizeof(m->reject_rule), "%s",
		    rule != NULL ? rule : "");
		snprintf(m->reject_msg, sizeof(m->reject_msg), "%s",
		    message != NULL ? message : "");
	}
	return code;
}

static uint64_t
splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int
draw(refd_ctx *ctx, int kind, uint32_t bound, const char *why,
    uint32_t *out)
{
	refd_mock *m = ctx->m;
	struct mdraw *d;
	uint32_t v;

	if (m->op != REFD_MOCK_ANY && m->op != REFD_MOCK_CREATE &&
	    m->op != REFD_MOCK_APPLY && m->op != REFD_MOCK_REDEAL) {
		fault(m, "draw outside create, apply or redeal");
		return REFD_EPLUGINFAULT;
	}
	if (bound == 0) {
		fault(m, "draw with bound 0 (%s)", why != NULL ? why : "");
		return REFD_EARG;
	}
	if (m->nscript > 0) {
		int64_t s;

		if (m->pos >= m->nscript)
			return REFD_ESCRIPT;
		s = m->script[m->pos++];
		if (kind == 1 ? s < 1 || s > (int64_t)bound :
		    s < 0 || s >= (int64_t)bound)
			return REFD_ESCRIPT;
		v = (uint32_t)s;
	} else {
		v = (uint32_t)(splitmix(&m->seed) % bound) + (kind == 1);
	}
	if (grow((void **)&m->dr, &m->capdr, m->ndr, sizeof(*m->dr)) != 0)
		return REFD_ENOMEM;
	d = &m->dr[m->ndr++];
	d->kind = kind;
	d->bound = bound;
	d->value = v;
	snprintf(d->why, sizeof(d->why), "%s", why != NULL ? why : "");
	*out = v;
	return REFD_OK;
}

static int
m_roll(refd_ctx *ctx, uint32_t sides, const char *why, uint32_t *out)
{
	return draw(ctx, 1, sides, why, out);
}

static int
m_uniform(refd_ctx *ctx, uint32_t bound, const char *why, uint32_t *out)
{
	return draw(ctx, 2, bound, why, out);
}

static int
m_shuffle(refd_ctx *ctx, void *base, size_t n, size_t size, const char *why)
{
	uint8_t tmp[256], *a = base;
	size_t i;

	if (size > sizeof(tmp) || n > UINT32_MAX)
		return REFD_EARG;
	for (i = n; i > 1; i--) {
		uint32_t j;
		int rc = draw(ctx, 2, (uint32_t)i,
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
m_emit(refd_ctx *ctx, int32_t seat, const uint8_t *ev, size_t len)
{
	refd_mock *m = ctx->m;
	struct mev *e;

	if (m->op != REFD_MOCK_ANY && m->op != REFD_MOCK_CREATE &&
	    m->op != REFD_MOCK_APPLY) {
		fault(m, "event emitted outside create or apply");
		return REFD_EPLUGINFAULT;
	}
	if (seat < REFD_SEAT_PUBLIC || seat >= REFD_MAX_SEATS) {
		fault(m, "event for impossible seat %d", (int)seat);
		return REFD_EPLUGINFAULT;
	}
	if (ev == NULL || refd_mp_check(ev, len, 16) != 0 ||
	    ((ev[0] & 0xf0) != 0x80 && ev[0] != 0xde && ev[0] != 0xdf)) {
		fault(m, "event is not one msgpack map");
		return REFD_EPLUGINFAULT;
	}
	if (grow((void **)&m->ev, &m->capev, m->nev, sizeof(*m->ev)) != 0)
		return REFD_ENOMEM;
	e = &m->ev[m->nev];
	e->b = malloc(len);
	if (e->b == NULL)
		return REFD_ENOMEM;
	memcpy(e->b, ev, len);
	e->n = len;
	e->seat = seat;
	m->nev++;
	return REFD_OK;
}

static int
m_output(refd_ctx *ctx, const uint8_t *bytes, size_t len)
{
	refd_mock *m = ctx->m;

	if (m->op == REFD_MOCK_APPLY) {
		fault(m, "output during apply");
		return REFD_EPLUGINFAULT;
	}
	if (bytes == NULL && len > 0) {
		fault(m, "output of NULL bytes");
		return REFD_EPLUGINFAULT;
	}
	if (bytes_add(&m->out, bytes, len) != 0)
		return REFD_ENOMEM;
	return REFD_OK;
}

static int
m_commit(refd_ctx *ctx, const char *zone, int32_t seat, const uint8_t *data,
    size_t len)
{
	refd_mock *m = ctx->m;
	struct mcommit *c;

	if (m->op != REFD_MOCK_ANY && m->op != REFD_MOCK_CREATE &&
	    m->op != REFD_MOCK_APPLY && m->op != REFD_MOCK_REDEAL) {
		fault(m, "commitment outside create or apply");
		return REFD_EPLUGINFAULT;
	}
	if (zone == NULL || (data == NULL && len > 0)) {
		fault(m, "commitment without a zone or data");
		return REFD_EPLUGINFAULT;
	}
	if (grow((void **)&m->cm, &m->capcm, m->ncm, sizeof(*m->cm)) != 0)
		return REFD_ENOMEM;
	c = &m->cm[m->ncm];
	snprintf(c->zone, sizeof(c->zone), "%s", zone);
	c->seat = seat;
	c->b = malloc(len ? len : 1);
	if (c->b == NULL)
		return REFD_ENOMEM;
	if (len > 0)
		memcpy(c->b, data, len);
	c->n = len;
	m->ncm++;
	return REFD_OK;
}

refd_mock *
refd_mock_create(void)
{
	refd_mock *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->ctx.m = m;
	m->seed = 1;
	m->host.size = (uint32_t)sizeof(m->host);
	m->host.abi_major = REFD_ABI_MAJOR;
	m->host.abi_minor = REFD_ABI_MINOR;
	m->host.caps = REFD_HOST_CAPS_V1_0;
	m->host.alloc = m_alloc;
	m->host.realloc = m_realloc;
	m->host.free = m_free;
	m->host.log = m_log;
	m->host.reject = m_reject;
	m->host.roll = m_roll;
	m->host.uniform = m_uniform;
	m->host.shuffle = m_shuffle;
	m->host.emit = m_emit;
	m->host.output = m_output;
	m->host.commit = m_commit;
	return m;
}

void
refd_mock_clear(refd_mock *m)
{
	size_t i;

	for (i = 0; i < m->nev; i++)
		free(m->ev[i].b);
	for (i = 0; i < m->ncm; i++)
		free(m->cm[i].b);
	m->nev = m->ndr = m->ncm = 0;
	m->out.n = 0;
	if (m->out.b != NULL)
		m->out.b[0] = '\0';
	m->logs.n = 0;
	if (m->logs.b != NULL)
		m->logs.b[0] = '\0';
	m->reject_code = 0;
	m->reject_rule[0] = '\0';
	m->reject_msg[0] = '\0';
	m->fault[0] = '\0';
}

void
refd_mock_destroy(refd_mock *m)
{
	if (m == NULL)
		return;
	refd_mock_clear(m);
	free(m->ev);
	free(m->dr);
	free(m->cm);
	free(m->out.b);
	free(m->logs.b);
	free(m->script);
	free(m);
}

const struct refd_host *
refd_mock_host(refd_mock *m)
{
	return &m->host;
}

refd_ctx *
refd_mock_ctx(refd_mock *m)
{
	return &m->ctx;
}

int
refd_mock_script(refd_mock *m, const int64_t *vals, size_t n)
{
	int64_t *s = NULL;

	if (n > 0) {
		if (vals == NULL || n > SIZE_MAX / sizeof(*vals))
			return REFD_EARG;
		s = malloc(n * sizeof(*vals));
		if (s == NULL)
			return REFD_ENOMEM;
		memcpy(s, vals, n * sizeof(*vals));
	}
	free(m->script);
	m->script = s;
	m->nscript = n;
	m->pos = 0;
	return REFD_OK;
}

size_t
refd_mock_draws_left(const refd_mock *m)
{
	return m->nscript - m->pos;
}

void
refd_mock_op(refd_mock *m, int op)
{
	m->op = op;
}

void
refd_mock_seed(refd_mock *m, uint64_t seed)
{
	m->seed = seed;
}

size_t
refd_mock_nevents(const refd_mock *m)
{
	return m->nev;
}

const uint8_t *
refd_mock_event(const refd_mock *m, size_t i, size_t *len, int32_t *seat)
{
	if (i >= m->nev)
		return NULL;
	if (len != NULL)
		*len = m->ev[i].n;
	if (seat != NULL)
		*seat = m->ev[i].seat;
	return m->ev[i].b;
}

const uint8_t *
refd_mock_output(const refd_mock *m, size_t *len)
{
	if (len != NULL)
		*len = m->out.n;
	return m->out.b != NULL ? m->out.b : (const uint8_t *)"";
}

int
refd_mock_reject_code(const refd_mock *m)
{
	return m->reject_code;
}

const char *
refd_mock_reject_rule(const refd_mock *m)
{
	return m->reject_rule;
}

const char *
refd_mock_reject_message(const refd_mock *m)
{
	return m->reject_msg;
}

size_t
refd_mock_ndraws(const refd_mock *m)
{
	return m->ndr;
}

int
refd_mock_draw(const refd_mock *m, size_t i, int *kind, uint32_t *bound,
    uint32_t *value, const char **why)
{
	if (i >= m->ndr)
		return REFD_EARG;
	if (kind != NULL)
		*kind = m->dr[i].kind;
	if (bound != NULL)
		*bound = m->dr[i].bound;
	if (value != NULL)
		*value = m->dr[i].value;
	if (why != NULL)
		*why = m->dr[i].why;
	return REFD_OK;
}

size_t
refd_mock_ncommits(const refd_mock *m)
{
	return m->ncm;
}

const char *
refd_mock_commit(const refd_mock *m, size_t i, int32_t *seat,
    const uint8_t **data, size_t *len)
{
	if (i >= m->ncm)
		return NULL;
	if (seat != NULL)
		*seat = m->cm[i].seat;
	if (data != NULL)
		*data = m->cm[i].b;
	if (len != NULL)
		*len = m->cm[i].n;
	return m->cm[i].zone;
}

const char *
refd_mock_logs(const refd_mock *m)
{
	return m->logs.b != NULL ? (const char *)m->logs.b : "";
}

const char *
refd_mock_fault(const refd_mock *m)
{
	return m->fault;
}

size_t
refd_mock_live_bytes(const refd_mock *m)
{
	return m->live;
}

void
refd_mock_fail_alloc(refd_mock *m, int fail)
{
	m->fail_alloc = fail != 0;
}
