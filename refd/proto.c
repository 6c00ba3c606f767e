/*
 * proto.c - protocol v1: envelope decoding, op dispatch, replies.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "refd/errors.h"
#include "refd/mp.h"
#include "refd/plugin.h"

#include "evlog.h"
#include "log.h"
#include "proto.h"
#include "worker.h"

/* What went wrong, for the error map. */
struct perr {
	int code;
	char message[512];
	char rule[24];
	const char *arg;	/* the argument at fault */
	int64_t limit, got;	/* -1: not a limit error */
	const char *reason;
};

struct req {
	struct proto *p;
	refd_mpv a;		/* the envelope map */
	refd_mpw *res;		/* the result value */
	struct perr *e;
	int wrote;		/* a match log was written */
};

static void
perr_init(struct perr *e)
{
	memset(e, 0, sizeof(*e));
	e->limit = e->got = -1;
}

static int
fail(struct perr *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct perr *e, int code, const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	return code;
}

static int
fail_match(struct perr *e, const struct match_err *me)
{
	e->code = me->code != 0 ? me->code : REFD_EINTERNAL;
	snprintf(e->message, sizeof(e->message), "%s",
	    me->message[0] ? me->message : refd_strerror(e->code));
	snprintf(e->rule, sizeof(e->rule), "%s", me->rule);
	e->reason = me->reason;
	return e->code;
}

void
proto_init(struct proto *p, const struct config *cfg,
    const struct registry *reg, struct matchset *ms)
{
	memset(p, 0, sizeof(*p));
	p->cfg = cfg;
	p->reg = reg;
	p->ms = ms;
	p->publish = (const char *const *)cfg->publish;
	p->npublish = cfg->npublish;
	p->started = time(NULL);
}

void
proto_release(struct proto *p)
{
	free(p->touched);
	p->touched = NULL;
	p->ntouched = p->captouched = 0;
}

void
proto_turn_done(struct proto *p)
{
	p->ntouched = 0;
}

static void
touch(struct proto *p, struct match *m)
{
	size_t i;
	struct match **n;

	for (i = 0; i < p->ntouched; i++)
		if (p->touched[i] == m)
			return;
	if (p->ntouched == p->captouched) {
		size_t cap = p->captouched ? p->captouched * 2 : 16;

		n = realloc(p->touched, cap * sizeof(*n));
		if (n == NULL) {
			log_err("out of memory tracking changed matches");
			return;
		}
		p->touched = n;
		p->captouched = cap;
	}
	p->touched[p->ntouched++] = m;
}

/* Arguments. */

static int
arg_str(struct req *r, const char *name, int required, const char **out)
{
	refd_mpv v = refd_mpv_get(r->a, name);
	const char *s;
	size_t n;

	*out = NULL;
	if (!refd_mpv_ok(v) || refd_mpv_type(v) == REFD_MP_NIL) {
		if (!required)
			return 0;
		r->e->arg = name;
		return fail(r->e, REFD_EARG, "argument '%s': missing", name);
	}
	if (refd_mpv_str(v, &s, &n) != 0 || n == 0 || memchr(s, 0, n)) {
		r->e->arg = name;
		return fail(r->e, REFD_EARG,
		    "argument '%s': expected a non-empty string", name);
	}
	*out = refd_mpv_get_str(r->a, name, NULL);
	if (*out == NULL)
		return fail(r->e, REFD_ENOMEM, "out of memory");
	return 0;
}

static int
arg_int(struct req *r, const char *name, int required, int64_t min,
    int64_t max, int64_t dflt, int64_t *out)
{
	refd_mpv v = refd_mpv_get(r->a, name);

	*out = dflt;
	if (!refd_mpv_ok(v) || refd_mpv_type(v) == REFD_MP_NIL) {
		if (!required)
			return 0;
		r->e->arg = name;
		return fail(r->e, REFD_EARG, "argument '%s': missing", name);
	}
	if (refd_mpv_int(v, out) != 0 || *out < min || *out > max) {
		r->e->arg = name;
		return fail(r->e, REFD_EARG,
		    "argument '%s': expected an integer %" PRId64 "..%" PRId64,
		    name, min, max);
	}
	return 0;
}

static int
arg_match(struct req *r, struct match **m)
{
	struct match_err me;
	const char *id;
	int rc;

	if ((rc = arg_str(r, "match", 1, &id)) != 0)
		return rc;
	*m = matchset_find(r->p->ms, id);
	if (*m == NULL) {
		r->e->arg = "match";
		return fail(r->e, REFD_ENOMATCH, "match '%.64s': no such match",
		    id);
	}
	memset(&me, 0, sizeof(me));
	if (match_use(*m, &me) != 0)
		return fail_match(r->e, &me);
	return 0;
}

/* seat (absent or -1: public/spectator) and token (needed for a seat). */
static int
arg_seat(struct req *r, int32_t *seat, const char **token)
{
	int64_t s;
	int rc;

	if ((rc = arg_int(r, "seat", 0, -1, REFD_MAX_SEATS - 1, -1, &s)) != 0)
		return rc;
	*seat = (int32_t)s;
	*token = NULL;
	if (s < 0)
		return 0;
	return arg_str(r, "token", 1, token);
}

/* Ops. */

static const char *const op_names[] = {
	"hello", "rulesets", "create", "join", "act", "legal", "pending",
	"view", "events", "export", "resign", "abort", "matches", "stats",
	"pubkey", "head", NULL
};

static void
write_pubkey(refd_mpw *w, struct proto *p)
{
	char hex[65];

	hex_encode(matchset_pubkey(p->ms), 32, hex);
	refd_mpw_str(w, hex);
}

static int
op_hello(struct req *r)
{
	const struct config *c = r->p->cfg;
	refd_mpw *w = r->res;
	size_t i;

	refd_mpw_map(w);
	refd_mpw_kstr(w, "server", "refd");
	refd_mpw_kstr(w, "version", REFD_VERSION);
	refd_mpw_karray(w, "protocol");
	refd_mpw_int(w, PROTO_VERSION);
	refd_mpw_end(w);
	/* Minor versions add to v1 without changing what v1 clients rely
	 * on (refd-protocol(7), VERSIONS). */
	refd_mpw_kint(w, "protocol_minor", PROTO_MINOR);
	refd_mpw_kmap(w, "abi");
	refd_mpw_kint(w, "major", REFD_ABI_MAJOR);
	refd_mpw_kint(w, "minor", REFD_ABI_MINOR);
	refd_mpw_end(w);
	refd_mpw_karray(w, "ops");
	for (i = 0; op_names[i] != NULL; i++)
		refd_mpw_str(w, op_names[i]);
	refd_mpw_end(w);
	refd_mpw_kmap(w, "limits");
	refd_mpw_kint(w, "max_message_size", (int64_t)c->max_message_size);
	refd_mpw_kint(w, "max_depth", c->max_depth);
	refd_mpw_kint(w, "max_matches", c->max_matches);
	refd_mpw_kint(w, "max_waiting_matches", c->max_waiting);
	refd_mpw_kint(w, "max_waiting_per_connection", c->max_waiting_conn);
	refd_mpw_kint(w, "waiting_expiry", c->waiting_expiry);
	refd_mpw_kint(w, "rate_limit", c->rate_limit);
	refd_mpw_kint(w, "rate_burst", c->rate_burst);
	refd_mpw_kint(w, "max_connection_memory",
	    (int64_t)c->max_connection_memory);
	refd_mpw_kint(w, "max_match_memory", (int64_t)c->max_match_memory);
	refd_mpw_kint(w, "max_log_bytes", (int64_t)c->max_log_bytes);
	refd_mpw_end(w);
	refd_mpw_karray(w, "publish");
	for (i = 0; i < r->p->npublish; i++)
		refd_mpw_str(w, r->p->publish[i]);
	refd_mpw_end(w);
	refd_mpw_kbool(w, "scripted_dice", c->allow_scripted);
	refd_mpw_str(w, "pubkey");
	write_pubkey(w, r->p);
	refd_mpw_end(w);
	return 0;
}

static int
op_pubkey(struct req *r)
{
	refd_mpw_map(r->res);
	refd_mpw_kstr(r->res, "algorithm", "ed25519");
	refd_mpw_str(r->res, "pubkey");
	write_pubkey(r->res, r->p);
	refd_mpw_end(r->res);
	return 0;
}

/* head: the signed head of a match's log (refd-evlog(5), Heads). */
static int
op_head(struct req *r)
{
	struct match *m;
	struct match_err me;
	uint64_t records, seq;
	uint8_t hash[EVLOG_HASH_LEN], sig[EVLOG_SIG_LEN];
	char hx[2 * EVLOG_SIG_LEN + 1];
	int rc;

	memset(&me, 0, sizeof(me));
	if ((rc = arg_match(r, &m)) != 0)
		return rc;
	if (match_head(m, &records, &seq, hash, sig, &me) != 0)
		return fail_match(r->e, &me);
	refd_mpw_map(r->res);
	refd_mpw_kstr(r->res, "match", match_id(m));
	refd_mpw_kint(r->res, "records", (int64_t)records);
	refd_mpw_kint(r->res, "seq", (int64_t)seq);
	hex_encode(hash, EVLOG_HASH_LEN, hx);
	refd_mpw_kstr(r->res, "hash", hx);
	refd_mpw_str(r->res, "pubkey");
	write_pubkey(r->res, r->p);
	hex_encode(sig, EVLOG_SIG_LEN, hx);
	refd_mpw_kstr(r->res, "sig", hx);
	refd_mpw_end(r->res);
	return 0;
}

static int
op_rulesets(struct req *r)
{
	const struct registry *reg = r->p->reg;
	refd_mpw *w = r->res;
	size_t i, k;

	refd_mpw_array(w);
	for (i = 0; i < reg->n; i++) {
		const struct plugin *pl = reg->pl[i];
		const struct refd_plugin *d = pl->desc;
		char abi[24];
		char hex[2 * ENG_HASH_LEN + 1];

		refd_mpw_map(w);
		refd_mpw_kstr(w, "name", pl->name);
		refd_mpw_kstr(w, "version", d->version ? d->version : "");
		snprintf(abi, sizeof(abi), "%u.%u", (unsigned)d->abi_major,
		    (unsigned)d->abi_minor);
		refd_mpw_kstr(w, "abi", abi);
		refd_mpw_kstr(w, "summary", d->summary ? d->summary : "");
		refd_mpw_karray(w, "seats");
		refd_mpw_int(w, d->min_seats);
		refd_mpw_int(w, d->max_seats);
		refd_mpw_end(w);
		refd_mpw_kint(w, "flags", d->flags);
		hex_encode(pl->file_hash, ENG_HASH_LEN, hex);
		refd_mpw_kstr(w, "plugin_hash", hex);
		hex_encode(pl->content_hash, ENG_HASH_LEN, hex);
		refd_mpw_kstr(w, "content_hash", hex);
		refd_mpw_karray(w, "scenarios");
		for (k = 0; k < pl->nscenarios; k++)
			refd_mpw_str(w, pl->scenarios[k].name);
		refd_mpw_end(w);
		refd_mpw_str(w, "describe");
		if (pl->describe != NULL)
			refd_mpw_raw(w, pl->describe, pl->describe_len);
		else
			refd_mpw_nil(w);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	return 0;
}

/* "seed_commit": the server seed's commitment, given to every seat before
 * it contributes its own seed (refd-evlog(5), Fair dice). */
static void
put_seed_commit(struct req *r, const struct match *m)
{
	char ck[2 * 32 + 1];

	match_seed_commit(m, ck);
	refd_mpw_kstr(r->res, "seed_commit", ck);
}

/*
 * Matches nobody joined yet are capped in all (max-waiting-matches) and
 * per connection (max-waiting-per-connection), so that one client cannot
 * fill the match table; waiting-expiry closes those nobody joins.
 */
static int
waiting_ok(struct req *r)
{
	const struct config *c = r->p->cfg;
	size_t total, mine;

	matchset_waiting(r->p->ms, r->p->conn, &total, &mine);
	if (r->p->conn != 0 && mine >= c->max_waiting_conn) {
		r->e->limit = c->max_waiting_conn;
		r->e->got = (int64_t)mine + 1;
		return fail(r->e, REFD_ETOOMANY, "too many waiting matches "
		    "from this connection: %zu created and nobody joined them "
		    "(max-waiting-per-connection); join or abort one first",
		    mine);
	}
	if (total >= c->max_waiting) {
		r->e->limit = c->max_waiting;
		r->e->got = (int64_t)total + 1;
		return fail(r->e, REFD_ETOOMANY, "too many waiting matches: "
		    "%zu matches nobody joined is the limit "
		    "(max-waiting-matches); join one or retry after they "
		    "expire", total);
	}
	return 0;
}

static int
op_create(struct req *r)
{
	struct match_create_args ca;
	struct match_err me;
	struct match *m = NULL;
	refd_mpv setup = refd_mpv_get(r->a, "setup");
	refd_mpv dice = refd_mpv_get(r->a, "dice");
	refd_mpw *sw = NULL;
	int64_t *dv = NULL, seats;
	static const uint8_t empty_map = 0x80;
	size_t i;
	int rc;

	memset(&ca, 0, sizeof(ca));
	memset(&me, 0, sizeof(me));
	if ((rc = arg_str(r, "ruleset", 1, &ca.ruleset)) != 0 ||
	    (rc = arg_str(r, "scenario", 0, &ca.scenario)) != 0 ||
	    (rc = arg_int(r, "seats", 0, 0, REFD_MAX_SEATS, 0, &seats)) != 0)
		return rc;
	ca.nseats = (uint32_t)seats;
	if ((rc = waiting_ok(r)) != 0)
		return rc;
	if (refd_mpv_ok(setup) && refd_mpv_type(setup) != REFD_MP_NIL) {
		if (ca.scenario != NULL) {
			r->e->arg = "setup";
			return fail(r->e, REFD_EARG, "arguments 'setup' and "
			    "'scenario': give one or the other");
		}
		if (refd_mpv_type(setup) != REFD_MP_MAP) {
			r->e->arg = "setup";
			return fail(r->e, REFD_EARG,
			    "argument 'setup': expected a map");
		}
		sw = refd_mpw_create();
		if (sw == NULL)
			return fail(r->e, REFD_ENOMEM, "out of memory");
		refd_mpw_value(sw, setup);
		if (refd_mpw_error(sw)) {
			refd_mpw_destroy(sw);
			return fail(r->e, REFD_ENOMEM, "out of memory");
		}
		ca.setup = refd_mpw_data(sw);
		ca.setup_len = refd_mpw_len(sw);
	} else if (ca.scenario == NULL) {
		ca.setup = &empty_map;
		ca.setup_len = 1;
	}
	if (refd_mpv_ok(dice) && refd_mpv_type(dice) != REFD_MP_NIL) {
		if (!r->p->cfg->allow_scripted) {
			refd_mpw_destroy(sw);
			r->e->arg = "dice";
			return fail(r->e, REFD_EARG, "argument 'dice': scripted "
			    "dice are disabled on this server (see "
			    "allow-scripted-dice in refd.conf(5))");
		}
		if (refd_mpv_type(dice) != REFD_MP_ARRAY ||
		    refd_mpv_len(dice) > 100000) {
			refd_mpw_destroy(sw);
			r->e->arg = "dice";
			return fail(r->e, REFD_EARG, "argument 'dice': expected "
			    "an array of at most 100000 integers");
		}
		ca.ndice = refd_mpv_len(dice);
		dv = calloc(ca.ndice ? ca.ndice : 1, sizeof(*dv));
		if (dv == NULL) {
			refd_mpw_destroy(sw);
			return fail(r->e, REFD_ENOMEM, "out of memory");
		}
		for (i = 0; i < ca.ndice; i++) {
			if (refd_mpv_int(refd_mpv_at(dice, i), &dv[i]) != 0) {
				free(dv);
				refd_mpw_destroy(sw);
				r->e->arg = "dice";
				return fail(r->e, REFD_EARG, "argument 'dice': "
				    "item %zu: expected an integer", i);
			}
		}
		ca.dice = dv;
		ca.scripted = 1;
	}
	rc = match_create(r->p->ms, &ca, &m, &me);
	free(dv);
	refd_mpw_destroy(sw);
	if (rc != 0)
		return fail_match(r->e, &me);
	r->wrote = 1;
	touch(r->p, m);
	match_set_creator(m, r->p->conn);
	log_info("match '%s': created (ruleset '%s'%s%s%s)", match_id(m),
	    ca.ruleset, ca.scenario ? ", scenario '" : "",
	    ca.scenario ? ca.scenario : "", ca.scenario ? "'" : "");
	refd_mpw_map(r->res);
	refd_mpw_kstr(r->res, "match", match_id(m));
	refd_mpw_kstr(r->res, "ruleset", ca.ruleset);
	refd_mpw_kbool(r->res, "scripted", ca.scripted);
	refd_mpw_kint(r->res, "seq", (int64_t)match_seq(m));
	refd_mpw_kint(r->res, "seats", (int64_t)match_nseats(m));
	put_seed_commit(r, m);
	refd_mpw_end(r->res);
	return 0;
}

static int
op_join(struct req *r)
{
	struct match *m;
	struct match_err me;
	char token[MATCH_TOKEN_LEN + 1];
	refd_mpv sv = refd_mpv_get(r->a, "seed");
	const uint8_t *seed = NULL;
	size_t seedlen = 0;
	int64_t seat;
	int rc;

	memset(&me, 0, sizeof(me));
	if ((rc = arg_match(r, &m)) != 0 ||
	    (rc = arg_int(r, "seat", 1, 0, REFD_MAX_SEATS - 1, 0, &seat)) != 0)
		return rc;
	if (refd_mpv_ok(sv) && refd_mpv_type(sv) != REFD_MP_NIL) {
		const char *s;

		if (refd_mpv_bin(sv, &seed, &seedlen) != 0) {
			if (refd_mpv_str(sv, &s, &seedlen) != 0) {
				r->e->arg = "seed";
				return fail(r->e, REFD_EARG, "argument 'seed': "
				    "expected a string or binary");
			}
			seed = (const uint8_t *)s;
		}
		if (seedlen > 64) {
			r->e->arg = "seed";
			r->e->limit = 64;
			r->e->got = (int64_t)seedlen;
			return fail(r->e, REFD_EARG, "argument 'seed': %zu "
			    "bytes, at most 64", seedlen);
		}
	}
	rc = match_join(m, (uint32_t)seat, seed, seedlen, token, &me);
	if (rc != 0)
		return fail_match(r->e, &me);
	r->wrote = 1;
	touch(r->p, m);
	refd_mpw_map(r->res);
	refd_mpw_kstr(r->res, "match", match_id(m));
	refd_mpw_kint(r->res, "seat", seat);
	refd_mpw_kstr(r->res, "token", token);
	refd_mpw_kint(r->res, "seq", (int64_t)match_seq(m));
	put_seed_commit(r, m);
	refd_mpw_end(r->res);
	return 0;
}

static int
op_act(struct req *r)
{
	struct match *m;
	struct match_err me;
	struct act_result ar;
	refd_mpv cmd = refd_mpv_get(r->a, "cmd");
	const char *token, *cmd_id;
	int64_t expected;
	int32_t seat;
	refd_mpw *cw;
	int rc;

	memset(&me, 0, sizeof(me));
	memset(&ar, 0, sizeof(ar));
	if ((rc = arg_match(r, &m)) != 0)
		return rc;
	if (!refd_mpv_ok(refd_mpv_get(r->a, "seat")) ||
	    refd_mpv_type(refd_mpv_get(r->a, "seat")) == REFD_MP_NIL ||
	    refd_mpv_get_int(r->a, "seat", 0) == REFD_SEAT_PUBLIC) {
		r->e->arg = "seat";
		return fail(r->e, REFD_ESPECTATOR, "match '%s': spectators "
		    "cannot act; join a seat first", match_id(m));
	}
	if ((rc = arg_seat(r, &seat, &token)) != 0 ||
	    (rc = arg_str(r, "cmd_id", 1, &cmd_id)) != 0 ||
	    (rc = arg_int(r, "expected_seq", 0, -1, INT64_MAX, -1,
	    &expected)) != 0)
		return rc;
	if (strlen(cmd_id) > 128) {
		r->e->arg = "cmd_id";
		return fail(r->e, REFD_EARG,
		    "argument 'cmd_id': longer than 128 bytes");
	}
	if (!refd_mpv_ok(cmd) || refd_mpv_type(cmd) != REFD_MP_MAP) {
		r->e->arg = "cmd";
		return fail(r->e, REFD_EARG, "argument 'cmd': expected a map");
	}
	if ((cw = refd_mpw_create()) == NULL)
		return fail(r->e, REFD_ENOMEM, "out of memory");
	refd_mpw_value(cw, cmd);
	if (refd_mpw_error(cw)) {
		refd_mpw_destroy(cw);
		return fail(r->e, REFD_ENOMEM, "out of memory");
	}
	rc = match_act(m, (uint32_t)seat, token, cmd_id, expected,
	    refd_mpw_data(cw), refd_mpw_len(cw), &ar, &me);
	refd_mpw_destroy(cw);
	if (rc != 0) {
		r->p->st.rejected++;
		return fail_match(r->e, &me);
	}
	if (!ar.replayed) {
		r->wrote = 1;
		r->p->st.commands++;
		touch(r->p, m);
	}
	if (ar.finished && !ar.replayed)
		log_info("match '%s': finished at seq %" PRIu64, match_id(m),
		    ar.seq);
	refd_mpw_map(r->res);
	refd_mpw_kint(r->res, "seq", (int64_t)ar.seq);
	refd_mpw_kbool(r->res, "replayed", ar.replayed);
	refd_mpw_kbool(r->res, "finished", ar.finished);
	refd_mpw_end(r->res);
	return 0;
}

static int
op_legal(struct req *r)
{
	struct match *m;
	struct match_err me;
	struct buf out;
	const char *token;
	int32_t seat;
	int rc;

	memset(&me, 0, sizeof(me));
	if ((rc = arg_match(r, &m)) != 0 || (rc = arg_seat(r, &seat,
	    &token)) != 0)
		return rc;
	if (seat < 0) {
		r->e->arg = "seat";
		return fail(r->e, REFD_ESPECTATOR, "match '%s': spectators "
		    "have no legal commands; give a seat and its token",
		    match_id(m));
	}
	buf_init(&out);
	rc = match_legal(m, (uint32_t)seat, token, &out, &me);
	if (rc == 0) {
		refd_mpw_map(r->res);
		refd_mpw_kint(r->res, "seq", (int64_t)match_seq(m));
		refd_mpw_str(r->res, "legal");
		refd_mpw_raw(r->res, out.data, out.len);
		refd_mpw_end(r->res);
	}
	buf_release(&out);
	return rc != 0 ? fail_match(r->e, &me) : 0;
}

static int
op_pending(struct req *r)
{
	struct match *m;
	struct match_err me;
	uint64_t seats = 0;
	int rc, i;

	memset(&me, 0, sizeof(me));
	if ((rc = arg_match(r, &m)) != 0)
		return rc;
	if (match_pending(m, &seats, &me) != 0)
		return fail_match(r->e, &me);
	refd_mpw_map(r->res);
	refd_mpw_kint(r->res, "seq", (int64_t)match_seq(m));
	refd_mpw_kbool(r->res, "finished", match_finished(m));
	refd_mpw_karray(r->res, "seats");
	for (i = 0; i < 64; i++)
		if (seats & ((uint64_t)1 << i))
			refd_mpw_int(r->res, i);
	refd_mpw_end(r->res);
	refd_mpw_end(r->res);
	return 0;
}

static int
op_view(struct req *r)
{
	struct match *m;
	struct match_err me;
	struct buf out;
	const char *token;
	int32_t seat;
	int rc;

	memset(&me, 0, sizeof(me));
	if ((rc = arg_match(r, &m)) != 0 || (rc = arg_seat(r, &seat,
	    &token)) != 0)
		return rc;
	buf_init(&out);
	rc = match_view(m, seat, token, &out, &me);
	if (rc == 0) {
		refd_mpw_map(r->res);
		refd_mpw_kint(r->res, "seq", (int64_t)match_seq(m));
		refd_mpw_kint(r->res, "seat", seat);
		refd_mpw_kbool(r->res, "finished", match_finished(m));
		put_seed_commit(r, m);
		refd_mpw_str(r->res, "view");
		refd_mpw_raw(r->res, out.data, out.len);
		refd_mpw_end(r->res);
	}
	buf_release(&out);
	return rc != 0 ? fail_match(r->e, &me) : 0;
}

static int
op_events(struct req *r)
{
	struct match *m;
	struct match_err me;
	struct buf out;
	const char *token;
	int64_t since, limit;
	int32_t seat;
	uint64_t until;
	int rc, more;
	struct ev_page pg;

	memset(&me, 0, sizeof(me));
	if ((rc = arg_match(r, &m)) != 0 || (rc = arg_seat(r, &seat,
	    &token)) != 0 || (rc = arg_int(r, "since", 0, 0, INT64_MAX, 0,
	    &since)) != 0 || (rc = arg_int(r, "limit", 0, 1, INT64_MAX, 0,
	    &limit)) != 0)
		return rc;
	/* A reply stays well inside the connection's memory: a longer
	 * history comes in pages (more: true). */
	pg.limit = (uint64_t)limit;
	pg.max_bytes = (size_t)(r->p->cfg->max_connection_memory / 4);
	buf_init(&out);
	rc = match_events_since(m, (uint64_t)since, seat, token, &pg, &out,
	    &until, &more, &me);
	if (rc == 0) {
		refd_mpw_map(r->res);
		refd_mpw_kint(r->res, "seq", (int64_t)match_seq(m));
		refd_mpw_kint(r->res, "until", (int64_t)until);
		refd_mpw_kbool(r->res, "more", more);
		refd_mpw_kbool(r->res, "finished", match_finished(m));
		refd_mpw_str(r->res, "events");
		refd_mpw_raw(r->res, out.data, out.len);
		refd_mpw_end(r->res);
	}
	buf_release(&out);
	return rc != 0 ? fail_match(r->e, &me) : 0;
}

static int
admin_ok(struct req *r)
{
	const char *want = r->p->cfg->admin_token;
	const char *got = refd_mpv_get_str(r->a, "admin_token", NULL);

	if (want == NULL)
		return 0;
	return got != NULL && strlen(got) == strlen(want) &&
	    sodium_memcmp(got, want, strlen(want)) == 0;
}

static int
op_export(struct req *r)
{
	struct match *m;
	struct match_err me;
	struct buf out;
	int rc;

	memset(&me, 0, sizeof(me));
	if ((rc = arg_match(r, &m)) != 0)
		return rc;
	if (!match_finished(m) && (r->p->cfg->admin_token == NULL ||
	    !admin_ok(r)))
		return fail(r->e, REFD_EUNFINISHED, "match '%s': the log holds "
		    "hidden information until the match is over; export it "
		    "when it is finished (or give the operator's admin_token)",
		    match_id(m));
	buf_init(&out);
	rc = match_export(m, &out, &me);
	if (rc == 0) {
		refd_mpw_map(r->res);
		refd_mpw_kstr(r->res, "match", match_id(m));
		refd_mpw_kint(r->res, "seq", (int64_t)match_seq(m));
		refd_mpw_kbool(r->res, "finished", match_finished(m));
		refd_mpw_str(r->res, "log");
		refd_mpw_bin(r->res, out.data, out.len);
		refd_mpw_end(r->res);
	}
	buf_release(&out);
	return rc != 0 ? fail_match(r->e, &me) : 0;
}

static int
op_resign(struct req *r)
{
	struct match *m;
	struct match_err me;
	const char *token;
	int32_t seat;
	int rc;

	memset(&me, 0, sizeof(me));
	if ((rc = arg_match(r, &m)) != 0 || (rc = arg_seat(r, &seat,
	    &token)) != 0)
		return rc;
	if (seat < 0) {
		r->e->arg = "seat";
		return fail(r->e, REFD_ESPECTATOR, "match '%s': spectators "
		    "cannot resign", match_id(m));
	}
	if (match_resign(m, (uint32_t)seat, token, &me) != 0)
		return fail_match(r->e, &me);
	r->wrote = 1;
	touch(r->p, m);
	log_info("match '%s': seat %d resigned", match_id(m), (int)seat);
	refd_mpw_map(r->res);
	refd_mpw_kint(r->res, "seq", (int64_t)match_seq(m));
	refd_mpw_kbool(r->res, "finished", match_finished(m));
	refd_mpw_end(r->res);
	return 0;
}

/*
 * abort: the operator's admin_token (when refd.conf sets one), or every
 * seated player's consent: each seat asks with its token, and the match
 * ends when all seated players have asked.  Nobody else may abort.
 */
static int
op_abort(struct req *r)
{
	struct match *m;
	struct match_err me;
	const char *reason, *token;
	int32_t seat;
	uint64_t cons;
	int rc, all = 0, i;

	memset(&me, 0, sizeof(me));
	if ((rc = arg_match(r, &m)) != 0 ||
	    (rc = arg_str(r, "reason", 0, &reason)) != 0 ||
	    (rc = arg_seat(r, &seat, &token)) != 0)
		return rc;
	if (refd_mpv_ok(refd_mpv_get(r->a, "admin_token")) &&
	    refd_mpv_type(refd_mpv_get(r->a, "admin_token")) != REFD_MP_NIL) {
		if (!admin_ok(r)) {
			r->e->arg = "admin_token";
			return fail(r->e, REFD_ETOKEN, "match '%s': the "
			    "admin_token does not match%s", match_id(m),
			    r->p->cfg->admin_token == NULL ? " (this server "
			    "has no admin-token set)" : "");
		}
		all = 1;
	} else if (seat < 0) {
		r->e->arg = "admin_token";
		return fail(r->e, REFD_ETOKEN, "match '%s': abort needs the "
		    "operator's admin_token or every seated player's consent "
		    "(each seat asks with its seat and token)", match_id(m));
	} else if (match_consent_abort(m, (uint32_t)seat, token, &all,
	    &me) != 0) {
		return fail_match(r->e, &me);
	}
	if (all) {
		if (reason == NULL)
			reason = seat < 0 ? "aborted by the operator" :
			    "aborted by every seated player";
		if (match_abort(m, reason, &me) != 0)
			return fail_match(r->e, &me);
		r->wrote = 1;
		touch(r->p, m);
		log_info("match '%s': aborted: %s", match_id(m), reason);
	} else {
		log_info("match '%s': seat %d asks to abort it", match_id(m),
		    (int)seat);
	}
	cons = match_consents(m);
	refd_mpw_map(r->res);
	refd_mpw_kint(r->res, "seq", (int64_t)match_seq(m));
	refd_mpw_kbool(r->res, "finished", match_finished(m));
	refd_mpw_karray(r->res, "consents");
	for (i = 0; i < 64; i++)
		if (cons & ((uint64_t)1 << i))
			refd_mpw_int(r->res, i);
	refd_mpw_end(r->res);
	refd_mpw_end(r->res);
	return 0;
}

void
proto_expire(struct proto *p)
{
	uint32_t ex = p->cfg->waiting_expiry;
	time_t now = time(NULL);
	struct match_err me;
	struct match *m;
	char reason[128];
	size_t i;

	if (now == p->last_expiry)
		return;
	p->last_expiry = now;
	if (p->cfg->finished_eviction != 0)
		(void)matchset_evict(p->ms, p->cfg->finished_eviction);
	if (ex == 0)
		return;
	for (i = 0; (m = matchset_at(p->ms, i)) != NULL; i++) {
		if (match_finished(m) || match_started(m) || match_broken(m) ||
		    match_created(m) + (int64_t)ex > (int64_t)now)
			continue;
		snprintf(reason, sizeof(reason), "expired: the match did not "
		    "start within %" PRIu32 " seconds (waiting-expiry)", ex);
		memset(&me, 0, sizeof(me));
		if (match_abort(m, reason, &me) != 0) {
			log_warn("match '%s': cannot close it after "
			    "waiting-expiry: %s", match_id(m), me.message);
			continue;
		}
		touch(p, m);
		log_info("match '%s': %s", match_id(m), reason);
	}
}

struct foreach_arg {
	refd_mpw *w;
	struct buf b;
	int err;
};

static void
info_one(struct match *m, void *arg)
{
	struct foreach_arg *fa = arg;

	buf_reset(&fa->b);
	if (match_info(m, &fa->b) != 0) {
		fa->err = 1;
		return;
	}
	refd_mpw_raw(fa->w, fa->b.data, fa->b.len);
}

/*
 * matches: a page of at most `limit` (default and at most
 * PROTO_MATCHES_PAGE) matches in creation order, those after the match
 * `after` when given; a full page may have a next one.
 */
static int
op_matches(struct req *r)
{
	struct foreach_arg fa;
	struct match *m, *after = NULL;
	const char *aid;
	int64_t limit;
	size_t i = 0, n = 0;
	int rc;

	if ((rc = arg_str(r, "after", 0, &aid)) != 0 ||
	    (rc = arg_int(r, "limit", 0, 1, PROTO_MATCHES_PAGE,
	    PROTO_MATCHES_PAGE, &limit)) != 0)
		return rc;
	if (aid != NULL && (after = matchset_find(r->p->ms, aid)) == NULL) {
		r->e->arg = "after";
		return fail(r->e, REFD_ENOMATCH, "argument 'after': match "
		    "'%.64s': no such match", aid);
	}
	if (after != NULL)
		while ((m = matchset_at(r->p->ms, i++)) != NULL && m != after)
			;
	fa.w = r->res;
	fa.err = 0;
	buf_init(&fa.b);
	refd_mpw_array(r->res);
	for (; n < (size_t)limit && (m = matchset_at(r->p->ms, i)) != NULL;
	    i++, n++)
		info_one(m, &fa);
	refd_mpw_end(r->res);
	buf_release(&fa.b);
	if (fa.err)
		return fail(r->e, REFD_EINTERNAL, "cannot describe a match");
	return 0;
}

static int
op_stats(struct req *r)
{
	const struct proto_stats *s = &r->p->st;
	refd_mpw *w = r->res;

	refd_mpw_map(w);
	refd_mpw_kint(w, "uptime", (int64_t)(time(NULL) - r->p->started));
	refd_mpw_kint(w, "matches", (int64_t)matchset_count(r->p->ms));
	refd_mpw_kint(w, "rulesets", (int64_t)r->p->reg->n);
	refd_mpw_kint(w, "requests", (int64_t)s->requests);
	refd_mpw_kint(w, "ok", (int64_t)s->ok);
	refd_mpw_kint(w, "errors", (int64_t)s->errors);
	refd_mpw_kint(w, "commands", (int64_t)s->commands);
	refd_mpw_kint(w, "rejected", (int64_t)s->rejected);
	refd_mpw_kint(w, "rate_limited", (int64_t)s->rate_limited);
	refd_mpw_kint(w, "conn_limited", (int64_t)s->conn_limited);
	refd_mpw_kint(w, "too_big", (int64_t)s->too_big);
	refd_mpw_kint(w, "malformed", (int64_t)s->malformed);
	refd_mpw_kint(w, "turns", (int64_t)s->turns);
	refd_mpw_kint(w, "max_batch", (int64_t)s->max_batch);
	refd_mpw_kint(w, "syncs", (int64_t)s->syncs);
	refd_mpw_kint(w, "sync_failures", (int64_t)s->sync_failures);
	refd_mpw_kint(w, "published", (int64_t)s->published);
	refd_mpw_kint(w, "connections", (int64_t)s->connections);
	{
		uint64_t ev, rv;

		matchset_evictions(r->p->ms, &ev, &rv);
		refd_mpw_kint(w, "evicted", (int64_t)ev);
		refd_mpw_kint(w, "revived", (int64_t)rv);
	}
	{
		uint64_t started, crashed, timeouts;

		worker_counts(&started, &crashed, &timeouts);
		refd_mpw_kint(w, "plugin_workers_started", (int64_t)started);
		refd_mpw_kint(w, "plugin_crashes", (int64_t)crashed);
		refd_mpw_kint(w, "plugin_timeouts", (int64_t)timeouts);
	}
	refd_mpw_end(w);
	return 0;
}

struct op {
	const char *name;
	int (*fn)(struct req *r);
};

static const struct op ops[] = {
	{ "hello", op_hello },
	{ "rulesets", op_rulesets },
	{ "create", op_create },
	{ "join", op_join },
	{ "act", op_act },
	{ "legal", op_legal },
	{ "pending", op_pending },
	{ "view", op_view },
	{ "events", op_events },
	{ "export", op_export },
	{ "resign", op_resign },
	{ "abort", op_abort },
	{ "matches", op_matches },
	{ "stats", op_stats },
	{ "pubkey", op_pubkey },
	{ "head", op_head },
};

/* Replies. */

static void
write_error(refd_mpw *w, struct perr *e)
{
	int detail = e->rule[0] || e->arg || e->limit >= 0 || e->reason;

	/* Text echoed from a request (cut at a byte count, perhaps inside a
	 * character) goes out as UTF-8. */
	ascii_unless_utf8(e->message);
	refd_mpw_kmap(w, "error");
	refd_mpw_kint(w, "code", e->code);
	refd_mpw_kstr(w, "name", refd_errname(e->code));
	refd_mpw_kstr(w, "message", e->message[0] ? e->message :
	    refd_strerror(e->code));
	if (detail) {
		refd_mpw_kmap(w, "detail");
		if (e->rule[0])
			refd_mpw_kstr(w, "rule", e->rule);
		if (e->arg)
			refd_mpw_kstr(w, "arg", e->arg);
		if (e->limit >= 0) {
			refd_mpw_kint(w, "limit", e->limit);
			refd_mpw_kint(w, "got", e->got);
		}
		if (e->reason)
			refd_mpw_kstr(w, "reason", e->reason);
		refd_mpw_end(w);
	} else {
		refd_mpw_knil(w, "detail");
	}
	refd_mpw_end(w);
}

static void
finish(struct proto *p, refd_mpv id, struct perr *e,
    const refd_mpw *res, struct buf *reply)
{
	refd_mpw *w = refd_mpw_create();

	if (w == NULL)
		return;
	refd_mpw_map(w);
	refd_mpw_kint(w, "v", PROTO_VERSION);
	refd_mpw_str(w, "id");
	if (refd_mpv_ok(id))
		refd_mpw_value(w, id);
	else
		refd_mpw_nil(w);
	refd_mpw_kbool(w, "ok", e->code == 0);
	if (e->code == 0) {
		refd_mpw_str(w, "result");
		refd_mpw_raw(w, refd_mpw_data(res), refd_mpw_len(res));
		p->st.ok++;
	} else {
		write_error(w, e);
		p->st.errors++;
	}
	refd_mpw_end(w);
	if (!refd_mpw_error(w))
		buf_add(reply, refd_mpw_data(w), refd_mpw_len(w));
	refd_mpw_destroy(w);
}

/* The request's id when it is a well-formed map with one. */
static refd_mpdoc *
parse_for_id(const struct proto *p, const uint8_t *req, size_t len,
    refd_mpv *id)
{
	refd_mpdoc *d = NULL;

	id->p = NULL;
	id->doc = NULL;
	if (len <= p->cfg->max_message_size &&
	    refd_mp_check(req, len, (int)p->cfg->max_depth) == 0 &&
	    (d = refd_mp_parse(req, len)) != NULL)
		*id = refd_mpv_get(refd_mp_root(d), "id");
	return d;
}

void
proto_error_limit(struct proto *p, const uint8_t *req, size_t len, int code,
    const char *message, int64_t limit, int64_t got, struct buf *reply)
{
	struct perr e;
	refd_mpv id;
	refd_mpdoc *d = parse_for_id(p, req, len, &id);

	perr_init(&e);
	e.code = code;
	e.limit = limit;
	e.got = got;
	snprintf(e.message, sizeof(e.message), "%s", message);
	finish(p, id, &e, NULL, reply);
	refd_mp_free(d);
}

void
proto_error(struct proto *p, const uint8_t *req, size_t len, int code,
    const char *message, struct buf *reply)
{
	proto_error_limit(p, req, len, code, message, -1, -1, reply);
}

int
proto_handle(struct proto *p, const uint8_t *req, size_t len,
    struct buf *reply)
{
	struct perr e;
	struct req r;
	refd_mpdoc *d = NULL;
	refd_mpv root, id = { NULL, NULL };
	const char *op;
	char badarg[72];
	int64_t v;
	size_t i;
	int rc;

	p->st.requests++;
	perr_init(&e);
	memset(&r, 0, sizeof(r));
	r.p = p;
	r.e = &e;
	if (len > p->cfg->max_message_size) {
		p->st.too_big++;
		e.limit = (int64_t)p->cfg->max_message_size;
		e.got = (int64_t)len;
		fail(&e, REFD_ETOOBIG, "message of %zu bytes is larger than "
		    "the limit of %" PRIu64 " bytes (max-message-size)", len,
		    p->cfg->max_message_size);
		goto out;
	}
	rc = refd_mp_check(req, len, (int)p->cfg->max_depth);
	if (rc == REFD_MPCHECK_DEPTH) {
		p->st.malformed++;
		e.limit = p->cfg->max_depth;
		e.got = e.limit + 1;
		fail(&e, REFD_EDEPTH, "message nests containers deeper than "
		    "the limit of %u (max-depth)", (unsigned)p->cfg->max_depth);
		goto out;
	}
	if (rc != 0) {
		p->st.malformed++;
		e.reason = refd_mp_check_str(rc);
		fail(&e, REFD_EPROTO, "request is not one well-formed msgpack "
		    "value: %s", refd_mp_check_str(rc));
		goto out;
	}
	if ((d = refd_mp_parse(req, len)) == NULL) {
		p->st.malformed++;
		fail(&e, REFD_EPROTO, "request is not well-formed msgpack");
		goto out;
	}
	root = refd_mp_root(d);
	if (refd_mpv_type(root) != REFD_MP_MAP) {
		p->st.malformed++;
		fail(&e, REFD_EPROTO, "request must be a map with 'v', 'id' "
		    "and 'op'");
		goto out;
	}
	for (i = 0; i < refd_mpv_len(root); i++) {
		if (refd_mpv_type(refd_mpv_key_at(root, i)) != REFD_MP_STR) {
			p->st.malformed++;
			fail(&e, REFD_EPROTO, "request map key %zu is not a "
			    "msgpack str (keys and text must be str, not bin "
			    "or numbers)", i);
			goto out;
		}
	}
	/* Every str of a request is UTF-8: nothing else is stored, or
	 * echoed in a reply (the id included). */
	for (i = 0; i < refd_mpv_len(root); i++) {
		if (!mpv_utf8_ok(refd_mpv_key_at(root, i))) {
			p->st.malformed++;
			fail(&e, REFD_EPROTO, "request map key %zu is not valid "
			    "UTF-8", i);
			goto out;
		}
		if (!mpv_utf8_ok(refd_mpv_val_at(root, i))) {
			const char *k;
			size_t kn;

			refd_mpv_str(refd_mpv_key_at(root, i), &k, &kn);
			snprintf(badarg, sizeof(badarg), "%.*s", kn > 64 ? 64 :
			    (int)kn, k);
			ascii_unless_utf8(badarg);
			e.arg = badarg;
			fail(&e, REFD_EARG, "argument '%s': a string in it is "
			    "not valid UTF-8", badarg);
			id = refd_mpv_get(root, "id");
			if (strcmp(badarg, "id") == 0 || (refd_mpv_type(id) !=
			    REFD_MP_INT && refd_mpv_type(id) != REFD_MP_STR))
				id.p = NULL;
			goto out;
		}
	}
	id = refd_mpv_get(root, "id");
	if (refd_mpv_ok(id) && refd_mpv_type(id) != REFD_MP_INT &&
	    refd_mpv_type(id) != REFD_MP_STR && refd_mpv_type(id) !=
	    REFD_MP_NIL) {
		id.p = NULL;
		e.arg = "id";
		fail(&e, REFD_EARG, "argument 'id': expected an integer or a "
		    "string");
		goto out;
	}
	r.a = root;
	op = refd_mpv_get_str(root, "op", NULL);
	if (op == NULL) {
		e.arg = "op";
		fail(&e, REFD_EARG, "argument 'op': missing or not a string");
		goto out;
	}
	if (refd_mpv_int(refd_mpv_get(root, "v"), &v) != 0) {
		if (strcmp(op, "hello") != 0) {
			e.arg = "v";
			fail(&e, REFD_EVERSION, "argument 'v': missing; this "
			    "server speaks protocol version %d",
			    PROTO_VERSION);
			goto out;
		}
	} else if (v != PROTO_VERSION) {
		e.arg = "v";
		fail(&e, REFD_EVERSION, "protocol version %" PRId64 " is not "
		    "supported; this server speaks version %d", v,
		    PROTO_VERSION);
		goto out;
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(ops[i].name, op) == 0)
			break;
	if (i == sizeof(ops) / sizeof(ops[0])) {
		e.arg = "op";
		fail(&e, REFD_EOP, "op '%.64s': unknown; see refd-protocol(7) "
		    "or the 'ops' list of hello", op);
		goto out;
	}
	if ((r.res = refd_mpw_create()) == NULL) {
		fail(&e, REFD_ENOMEM, "out of memory");
		goto out;
	}
	rc = ops[i].fn(&r);
	if (rc == 0 && refd_mpw_error(r.res))
		fail(&e, REFD_ENOMEM, "out of memory writing the reply");
	else if (rc != 0 && e.code == 0)
		fail(&e, rc, "%s", refd_strerror(rc));
out:
	finish(p, id, &e, r.res, reply);
	refd_mpw_destroy(r.res);
	refd_mp_free(d);
	return r.wrote;
}
