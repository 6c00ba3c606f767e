/*
 * match.c - matches: seats, tokens, fair seeds, commands, events, the
 * per-match event log, group commit and crash recovery.  See match.h for
 * the contract and refd-evlog(5) for the log format.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "refd/mp.h"
#include "evlog.h"
#include "match.h"

struct idem {
	struct idem *next;
	uint32_t seat;
	char *id;
	uint8_t cmd_hash[EVLOG_HASH_LEN];
	uint64_t seq;
	int finished;
};

struct mevent {
	uint64_t seq;
	uint32_t i;
	int32_t seat;
	uint64_t n;		/* a public event's number among them, from 1 */
	uint8_t *bytes;
	size_t len;
};

struct seatinfo {
	int taken;
	uint8_t token_hash[EVLOG_HASH_LEN];
	uint8_t share[EVLOG_SHARE_MAX];
	size_t share_len;
};

struct match {
	struct matchset *ms;
	char id[MATCH_ID_LEN + 1];
	struct plugin *pl;
	struct game *g;		/* NULL until every seat joined */
	uint32_t nseats;
	struct seatinfo seat[REFD_MAX_SEATS];
	uint32_t joined;
	uint8_t server_seed[EVLOG_SEED_LEN];
	int scripted;
	int64_t *dice;
	size_t ndice;
	uint8_t *setup;
	size_t setup_len;
	int64_t created;

	struct evlog log;
	char *path;
	uint64_t seq;
	uint64_t since_ckpt;
	int started;
	int finished;
	char why[16];
	uint8_t *result;
	size_t result_len;
	int broken;
	char broken_why[256];
	uint32_t plugin_faults;	/* crashes and timeouts in a row */

	struct commitment *cm;	/* every commitment made, for the openings */
	size_t ncm, cap_cm;
	struct mevent *ev;
	size_t nev, cap_ev;
	uint64_t npublic;	/* public events so far (their n) */
	struct buf *pub;
	size_t npub, cap_pub;

	struct idem **idem;
	size_t idem_buckets, nidem;

	uint32_t creator;	/* the connection that created it (0: none) */
	int evicted;		/* finished, its history dropped (revive) */
	int64_t used;		/* monotonic ms of its last use */
	uint64_t consent;	/* seats that asked to abort it */

	int registered;		/* in its matchset (add_match) */
	int listed;		/* in the matchset's sync list */
};

struct matchset {
	struct match_config cfg;
	char *state_dir;
	char *dir;		/* <state_dir>/matches */
	char *qdir;		/* <state_dir>/quarantine */
	const struct registry *reg;
	void (*report)(void *, const char *);
	void *report_arg;
	struct evlog_key key;
	struct match **m;
	size_t n, cap;
	struct match **idx;	/* open addressing by id, 2 * cap slots */
	size_t idx_cap;
	size_t live;		/* unfinished matches */
	int dir_dirty;		/* a log file was created since the last sync */
	/* Matches with a log to sync or close at the next matchset_sync,
	 * so that a turn costs what it wrote, not the number of matches. */
	struct match **sync;
	size_t nsync, capsync;
	int sweep;		/* the list overflowed: look at every match */
	struct syncpool *pool;	/* threads for parallel fdatasync, or NULL */
	int lockfd;		/* <state_dir>/refd.lock, flock()ed */
	refd_mpw *w;		/* scratch writer for records */
	uint64_t evicted, revived;	/* finished matches' histories */
};

/* Errors. */

static int __attribute__((format(printf, 3, 4)))
fail(struct match_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (e != NULL) {
		e->code = code;
		e->rule[0] = '\0';
		e->reason = NULL;
		va_start(ap, fmt);
		vsnprintf(e->message, sizeof(e->message), fmt, ap);
		va_end(ap);
	}
	return code;
}

static void __attribute__((format(printf, 2, 3)))
report(struct matchset *ms, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (ms->report != NULL)
		ms->report(ms->report_arg, line);
}

/*
 * A match whose plugin crashed or timed out this many times in a row (no
 * accepted command between) is suspended until refd restarts: each of
 * those can hold the daemon up for plugin-timeout.
 */
#define MATCH_PLUGIN_FAULTS 3

/* The plugin's rejection (or fault) as a match error. */
static int
fail_call(struct match *m, struct match_err *e, int rc, const struct call *c,
    const char *what)
{
	char who[96];

	/* A match being created has no log yet: name its ruleset. */
	if (m->path == NULL)
		snprintf(who, sizeof(who), "ruleset '%s'", m->pl->name);
	else
		snprintf(who, sizeof(who), "match '%s'", m->id);
	if (rc == REFD_ENOMEM || c->reject_code == REFD_ENOMEM)
		return fail(e, REFD_ELIMIT, "%s: %s needs more than "
		    "max-match-memory (%zu bytes)", who, what,
		    m->ms->cfg.max_match_memory);
	if (rc == REFD_EPLUGINFAULT) {
		if (m->path != NULL && c->fault_reason != NULL &&
		    ++m->plugin_faults == MATCH_PLUGIN_FAULTS)
			report(m->ms, "match '%s': suspended after %u crashes "
			    "or timeouts of ruleset '%s' in a row (last in %s: "
			    "%s)", m->id, m->plugin_faults, m->pl->name, what,
			    c->fault);
		fail(e, REFD_EPLUGINFAULT, "%s: ruleset '%s' misbehaved in %s: "
		    "%s", who, m->pl->name, what,
		    c->fault[0] ? c->fault : "no reason given");
		if (e != NULL)
			e->reason = c->fault_reason != NULL ? c->fault_reason :
			    "fault";
		return rc;
	}
	if (rc == REFD_ESCRIPT)
		return fail(e, REFD_ESCRIPT, "%s: %s: scripted dice exhausted "
		    "or out of range (%zu given)", who, what, m->ndice);
	fail(e, rc, "%s", c->reject_msg[0] ? c->reject_msg :
	    refd_strerror(rc));
	if (e != NULL)
		snprintf(e->rule, sizeof(e->rule), "%s", c->reject_rule);
	return rc;
}

/* Registry. */

struct plugin *
registry_find(const struct registry *r, const char *name)
{
	size_t i;

	if (r == NULL || name == NULL)
		return NULL;
	for (i = 0; i < r->n; i++)
		if (strcmp(r->pl[i]->name, name) == 0)
			return r->pl[i];
	return NULL;
}

/* Idempotency table. */

static uint64_t
idem_key(uint32_t seat, const char *id)
{
	uint64_t h = 1469598103934665603ull ^ seat;

	for (; *id; id++)
		h = (h ^ (uint8_t)*id) * 1099511628211ull;
	return h;
}

static struct idem *
idem_find(const struct match *m, uint32_t seat, const char *id)
{
	struct idem *x;

	if (m->idem_buckets == 0)
		return NULL;
	for (x = m->idem[idem_key(seat, id) & (m->idem_buckets - 1)];
	    x != NULL; x = x->next)
		if (x->seat == seat && strcmp(x->id, id) == 0)
			return x;
	return NULL;
}

static struct idem *
idem_add(struct match *m, uint32_t seat, const char *id, const uint8_t *cmd,
    size_t len, uint64_t seq)
{
	struct idem *x;
	size_t b;

	if (m->nidem >= m->idem_buckets) {
		size_t nb = m->idem_buckets ? m->idem_buckets * 2 : 64, i;
		struct idem **t = calloc(nb, sizeof(*t));

		if (t == NULL)
			return NULL;
		for (i = 0; i < m->idem_buckets; i++) {
			while ((x = m->idem[i]) != NULL) {
				m->idem[i] = x->next;
				b = idem_key(x->seat, x->id) & (nb - 1);
				x->next = t[b];
				t[b] = x;
			}
		}
		free(m->idem);
		m->idem = t;
		m->idem_buckets = nb;
	}
	x = calloc(1, sizeof(*x));
	if (x == NULL || (x->id = strdup(id)) == NULL) {
		free(x);
		return NULL;
	}
	x->seat = seat;
	evlog_hash(cmd, len, x->cmd_hash);
	x->seq = seq;
	b = idem_key(seat, id) & (m->idem_buckets - 1);
	x->next = m->idem[b];
	m->idem[b] = x;
	m->nidem++;
	return x;
}

/* Matches: memory. */

/* Put a registered match on its matchset's sync list (once). */
static void
sync_list(struct match *m)
{
	struct matchset *ms = m->ms;

	if (!m->registered || m->listed)
		return;
	if (ms->nsync == ms->capsync) {
		size_t nc = ms->capsync ? ms->capsync * 2 : 64;
		struct match **x = realloc(ms->sync, nc * sizeof(*x));

		if (x == NULL) {
			ms->sweep = 1;
			return;
		}
		ms->sync = x;
		ms->capsync = nc;
	}
	ms->sync[ms->nsync++] = m;
	m->listed = 1;
}

/* Free what a match's log can give back: its game, events, commitments
 * and command ids. */
static void
drop_history(struct match *m)
{
	size_t i;
	struct idem *x;

	game_destroy(m->g);
	m->g = NULL;
	for (i = 0; i < m->ncm; i++)
		free(m->cm[i].data);
	free(m->cm);
	m->cm = NULL;
	m->ncm = m->cap_cm = 0;
	for (i = 0; i < m->nev; i++)
		free(m->ev[i].bytes);
	free(m->ev);
	m->ev = NULL;
	m->nev = m->cap_ev = 0;
	for (i = 0; i < m->idem_buckets; i++) {
		while ((x = m->idem[i]) != NULL) {
			m->idem[i] = x->next;
			free(x->id);
			free(x);
		}
	}
	free(m->idem);
	m->idem = NULL;
	m->idem_buckets = m->nidem = 0;
}

static void
match_free(struct match *m)
{
	size_t i;

	if (m == NULL)
		return;
	drop_history(m);
	evlog_release(&m->log);
	free(m->path);
	free(m->dice);
	free(m->setup);
	free(m->result);
	for (i = 0; i < m->npub; i++)
		buf_release(&m->pub[i]);
	free(m->pub);
	sodium_memzero(m->server_seed, sizeof(m->server_seed));
	free(m);
}

static struct match *
match_new(struct matchset *ms)
{
	struct match *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->ms = ms;
	m->log.fd = -1;
	m->used = evlog_mono_ms();
	return m;
}

/* Keep the commitments (with their data) of one call for the openings. */
static int
keep_commits(struct match *m, const struct call *c)
{
	size_t i;

	for (i = 0; i < c->ncm; i++) {
		struct commitment *x;

		if (m->ncm == m->cap_cm) {
			size_t nc = m->cap_cm ? m->cap_cm * 2 : 16;

			x = realloc(m->cm, nc * sizeof(*x));
			if (x == NULL)
				return REFD_ENOMEM;
			m->cm = x;
			m->cap_cm = nc;
		}
		x = &m->cm[m->ncm];
		*x = c->cm[i];
		x->data = malloc(c->cm[i].len ? c->cm[i].len : 1);
		if (x->data == NULL)
			return REFD_ENOMEM;
		if (c->cm[i].len)
			memcpy(x->data, c->cm[i].data, c->cm[i].len);
		m->ncm++;
	}
	return REFD_OK;
}

/* The event as clients see it: {seq, i, seat?, ...event}, or for the PUB
 * socket {match, seq, i, ...event}.  Keys the host writes win over the
 * event's own keys of the same name. */
static int
event_map(const struct match *m, const struct mevent *ev, int for_pub,
    refd_mpw *w)
{
	refd_mpdoc *d = refd_mp_parse(ev->bytes, ev->len);
	refd_mpv root = refd_mp_root(d);
	size_t i, n;

	if (d == NULL)
		return -1;
	refd_mpw_map(w);
	if (for_pub)
		refd_mpw_kstr(w, "match", m->id);
	refd_mpw_kint(w, "seq", (int64_t)ev->seq);
	refd_mpw_kint(w, "i", ev->i);
	if (ev->seat == REFD_SEAT_PUBLIC)
		refd_mpw_kint(w, "n", (int64_t)ev->n);
	if (!for_pub && ev->seat != REFD_SEAT_PUBLIC)
		refd_mpw_kint(w, "seat", ev->seat);
	n = refd_mpv_len(root);
	for (i = 0; i < n; i++) {
		refd_mpv k = refd_mpv_key_at(root, i);

		if (refd_mpv_streq(k, "seq") || refd_mpv_streq(k, "i") ||
		    (ev->seat == REFD_SEAT_PUBLIC && refd_mpv_streq(k, "n")) ||
		    (for_pub && refd_mpv_streq(k, "match")) ||
		    (!for_pub && ev->seat != REFD_SEAT_PUBLIC &&
		    refd_mpv_streq(k, "seat")))
			continue;
		refd_mpw_value(w, k);
		refd_mpw_value(w, refd_mpv_val_at(root, i));
	}
	refd_mpw_end(w);
	refd_mp_free(d);
	return 0;
}

static int
add_event(struct match *m, uint64_t seq, uint32_t i, int32_t seat,
    const uint8_t *bytes, size_t len, int publish)
{
	struct mevent *ev;

	if (m->nev == m->cap_ev) {
		size_t nc = m->cap_ev ? m->cap_ev * 2 : 64;

		ev = realloc(m->ev, nc * sizeof(*ev));
		if (ev == NULL)
			return REFD_ENOMEM;
		m->ev = ev;
		m->cap_ev = nc;
	}
	ev = &m->ev[m->nev];
	ev->bytes = malloc(len);
	if (ev->bytes == NULL)
		return REFD_ENOMEM;
	memcpy(ev->bytes, bytes, len);
	ev->len = len;
	ev->seq = seq;
	ev->i = i;
	ev->seat = seat;
	ev->n = seat == REFD_SEAT_PUBLIC ? ++m->npublic : 0;
	m->nev++;
	if (publish && seat == REFD_SEAT_PUBLIC) {
		refd_mpw *w;
		struct buf *b;

		if (m->npub == m->cap_pub) {
			size_t nc = m->cap_pub ? m->cap_pub * 2 : 16;

			b = realloc(m->pub, nc * sizeof(*b));
			if (b == NULL)
				return REFD_ENOMEM;
			m->pub = b;
			m->cap_pub = nc;
		}
		if ((w = refd_mpw_create()) == NULL)
			return REFD_ENOMEM;
		if (event_map(m, ev, 1, w) == 0 && !refd_mpw_error(w)) {
			b = &m->pub[m->npub];
			buf_init(b);
			if (buf_add(b, refd_mpw_data(w), refd_mpw_len(w)) == 0)
				m->npub++;
		}
		refd_mpw_destroy(w);
	}
	return REFD_OK;
}

static int
add_events(struct match *m, uint64_t seq, const struct event *ev, size_t n,
    int publish)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		if ((rc = add_event(m, seq, (uint32_t)i, ev[i].seat,
		    ev[i].bytes, ev[i].len, publish)) != REFD_OK)
			return rc;
	return REFD_OK;
}

/* Writing records. */

static void
set_broken(struct match *m, const char *what)
{
	m->broken = 1;
	snprintf(m->broken_why, sizeof(m->broken_why), "%s", what);
	report(m->ms, "match '%s': log '%s': %s; the match is stopped until "
	    "refd restarts and recovers it", m->id, m->path, what);
}

/* Append the record in ms->w, signed when sign is set. */
static int
put_record(struct match *m, int sign)
{
	refd_mpw *w = m->ms->w;
	uint8_t *p;
	size_t len;
	int rc;

	if (refd_mpw_error(w))
		return REFD_ENOMEM;
	len = refd_mpw_len(w);
	p = malloc(len);
	if (p == NULL)
		return REFD_ENOMEM;
	memcpy(p, refd_mpw_data(w), len);
	if (sign && evlog_sign(&m->ms->key, p, len) != 0) {
		free(p);
		return REFD_EINTERNAL;
	}
	rc = evlog_append(&m->log, p, len, NULL);
	free(p);
	if (rc == REFD_OK)
		sync_list(m);
	return rc;
}

static int
maybe_checkpoint(struct match *m)
{
	uint32_t every = m->ms->cfg.checkpoint_every;

	m->since_ckpt++;
	if (every == 0 || m->since_ckpt < every || m->finished)
		return REFD_OK;
	evlog_enc_checkpoint(m->ms->w, m->log.nrec, m->log.last, m->seq);
	m->since_ckpt = 0;
	return put_record(m, 1);
}

/* Write the final record and end the match. */
static int
finish(struct match *m, const char *why, int32_t seat, const char *reason,
    const uint8_t *result, size_t result_len)
{
	refd_mpw *ev;
	int rc;

	evlog_enc_final(m->ms->w, m->log.nrec, m->seq + 1, m->log.last, why,
	    seat, reason, result, result_len, m->server_seed, m->cm, m->ncm,
	    evlog_now());
	rc = put_record(m, 1);
	if (rc != REFD_OK)
		return rc;
	m->seq++;
	m->finished = 1;
	m->ms->live--;
	snprintf(m->why, sizeof(m->why), "%s", why);
	free(m->result);
	m->result = malloc(result_len);
	if (m->result != NULL) {
		memcpy(m->result, result, result_len);
		m->result_len = result_len;
	}
	if ((ev = refd_mpw_create()) != NULL) {
		evlog_end_event(ev, why, seat, reason, result, result_len);
		if (!refd_mpw_error(ev))
			add_event(m, m->seq, 0, REFD_SEAT_PUBLIC,
			    refd_mpw_data(ev), refd_mpw_len(ev), 1);
		refd_mpw_destroy(ev);
	}
	return REFD_OK;
}

/* A result map for resign/abort (evlog_host_result). */
static int
host_result(struct match *m, int32_t loser, const char *reason,
    struct buf *out)
{
	return evlog_host_result(m->nseats, m->started, loser, reason, out) ==
	    0 ? REFD_OK : REFD_ENOMEM;
}

/*
 * Room the closing records need after one more record with the call c:
 * a checkpoint and the final record of a match ended by max-log-bytes,
 * whose openings include c's new commitments, plus some slack for a
 * result larger than the host's (a resignation's winners).  A command is
 * refused when its record would not leave this room, so that the log of
 * a match ended by the limit stays within max-log-bytes.
 */
#define CLOSING_SLACK 256

static size_t
closing_reserve(struct match *m, const struct call *c)
{
	refd_mpw *w = refd_mpw_create();
	struct buf rb;
	size_t n = CLOSING_SLACK, i;

	buf_init(&rb);
	if (w == NULL || host_result(m, -1, "the log reached max-log-bytes",
	    &rb) != REFD_OK) {
		refd_mpw_destroy(w);
		buf_release(&rb);
		return m->ms->cfg.max_log_bytes;	/* refuse: no room known */
	}
	evlog_enc_checkpoint(w, m->log.nrec + 1, m->log.last, m->seq + 1);
	n += refd_mpw_len(w) + EVLOG_FRAME_OVERHEAD;
	refd_mpw_reset(w);
	evlog_enc_final(w, m->log.nrec + 2, m->seq + 2, m->log.last, "limit",
	    -1, "the log reached max-log-bytes", rb.data, rb.len,
	    m->server_seed, m->cm, m->ncm, evlog_now());
	n += refd_mpw_len(w) + EVLOG_FRAME_OVERHEAD;
	/* Each new opening: zone, seat, salt, hash and data. */
	for (i = 0; c != NULL && i < c->ncm; i++)
		n += c->cm[i].len + sizeof(c->cm[i].zone) + 128;
	if (refd_mpw_error(w))
		n = m->ms->cfg.max_log_bytes;
	refd_mpw_destroy(w);
	buf_release(&rb);
	return n;
}

/* After an accepted step: is the game over?  Then write the final. */
static int
check_over(struct match *m, int *over)
{
	struct call c;
	int rc;

	*over = 0;
	call_init(&c);
	rc = game_result(m->g, &c);
	if (rc == 1) {
		if (c.out.len == 0 || refd_mp_check(c.out.data, c.out.len,
		    0) != 0) {
			buf_reset(&c.out);
			buf_addstr(&c.out, "\x81\xa6reason\xa9game over");
		}
		*over = 1;
		rc = finish(m, "result", -1, NULL, c.out.data, c.out.len);
	} else if (rc < 0) {
		report(m->ms, "match '%s': ruleset '%s': result failed: %s",
		    m->id, m->pl->name, c.fault[0] ? c.fault :
		    refd_strerror(rc));
		rc = REFD_OK;
	}
	call_release(&c);
	return rc;
}

/* The rng of a started match. */
static int
make_rng(struct match *m, struct rng *r)
{
	const uint8_t *sh[REFD_MAX_SEATS];
	size_t shl[REFD_MAX_SEATS];
	uint8_t seed[32];
	uint32_t i;

	for (i = 0; i < m->nseats; i++) {
		sh[i] = m->seat[i].share;
		shl[i] = m->seat[i].share_len;
	}
	evlog_match_seed(m->server_seed, sh, shl, m->nseats, seed);
	if (m->scripted) {
		if (rng_init_script(r, m->dice, m->ndice) != 0)
			return REFD_ENOMEM;
		memcpy(r->key, seed, sizeof(seed));
	} else {
		rng_init_seed(r, seed);
	}
	sodium_memzero(seed, sizeof(seed));
	return REFD_OK;
}

/* Every seat is in: run the plugin's create (c gets its output). */
static int
start_game(struct match *m, struct game **g, struct call *c)
{
	struct rng r;
	int rc;

	if ((rc = make_rng(m, &r)) != REFD_OK)
		return rc;
	rc = game_create(m->pl, m->setup, m->setup_len, m->nseats, &r,
	    m->ms->cfg.max_match_memory, g, c);
	rng_release(&r);
	return rc;
}

/* Log the start record for a game create produced, and adopt the game. */
static int
write_start(struct match *m, struct game *g, struct call *c)
{
	uint8_t sh[EVLOG_HASH_LEN];
	int rc, over;

	if ((rc = game_state_hash(g, sh)) != REFD_OK)
		return rc;
	evlog_enc_step(m->ms->w, m->log.nrec, m->seq + 1, m->log.last, -1,
	    NULL, NULL, 0, c, sh);
	if ((rc = put_record(m, 0)) != REFD_OK)
		return rc;
	m->seq++;
	m->g = g;
	m->started = 1;
	if ((rc = keep_commits(m, c)) != REFD_OK ||
	    (rc = add_events(m, m->seq, c->ev, c->nev, 1)) != REFD_OK)
		return rc;
	if ((rc = maybe_checkpoint(m)) != REFD_OK)
		return rc;
	return check_over(m, &over);
}

static int
check_token(struct match *m, uint32_t seat, const char *token,
    struct match_err *e)
{
	uint8_t h[EVLOG_HASH_LEN];

	if (seat >= m->nseats)
		return fail(e, REFD_ESEAT, "match '%s': seat %u does not exist "
		    "(the match has %u seats)", m->id, seat, m->nseats);
	if (!m->seat[seat].taken)
		return fail(e, REFD_ETOKEN, "match '%s': seat %u has not been "
		    "joined; join it first", m->id, seat);
	if (token == NULL)
		return fail(e, REFD_ETOKEN, "match '%s': seat %u: a token is "
		    "required", m->id, seat);
	evlog_token_hash(token, h);
	if (sodium_memcmp(h, m->seat[seat].token_hash, sizeof(h)) != 0)
		return fail(e, REFD_ETOKEN, "match '%s': seat %u: the token "
		    "does not match", m->id, seat);
	return REFD_OK;
}

static int
check_usable(struct match *m, struct match_err *e)
{
	if (m->broken)
		return fail(e, REFD_ELOGIO, "match '%s': its log failed (%s); "
		    "restart refd to recover it", m->id, m->broken_why);
	return REFD_OK;
}

/* Refuse to run the plugin for a match it failed too often. */
static int
check_plugin(struct match *m, struct match_err *e)
{
	if (m->plugin_faults < MATCH_PLUGIN_FAULTS)
		return REFD_OK;
	fail(e, REFD_EPLUGINFAULT, "match '%s': suspended after %u crashes or "
	    "timeouts of ruleset '%s' in a row; resign or abort it, or restart "
	    "refd to try again", m->id, m->plugin_faults, m->pl->name);
	if (e != NULL)
		e->reason = "suspended";
	return REFD_EPLUGINFAULT;
}

/* Matchset. */

static size_t
id_slot(const char *id, size_t cap)
{
	uint64_t h = 1469598103934665603ull;

	for (; *id; id++)
		h = (h ^ (uint8_t)*id) * 1099511628211ull;
	return (size_t)(h & (cap - 1));
}

static void
idx_put(struct matchset *ms, struct match *m)
{
	size_t i = id_slot(m->id, ms->idx_cap);

	while (ms->idx[i] != NULL)
		i = (i + 1) & (ms->idx_cap - 1);
	ms->idx[i] = m;
}

static int
add_match(struct matchset *ms, struct match *m)
{
	if (ms->n == ms->cap) {
		size_t nc = ms->cap ? ms->cap * 2 : 16, i;
		struct match **x = calloc(2 * nc, sizeof(*x)), **v;

		if (x == NULL)
			return REFD_ENOMEM;
		v = realloc(ms->m, nc * sizeof(*v));
		if (v == NULL) {
			free(x);
			return REFD_ENOMEM;
		}
		ms->m = v;
		ms->cap = nc;
		free(ms->idx);
		ms->idx = x;
		ms->idx_cap = 2 * nc;
		for (i = 0; i < ms->n; i++)
			idx_put(ms, ms->m[i]);
	}
	ms->m[ms->n++] = m;
	idx_put(ms, m);
	if (!m->finished)
		ms->live++;
	m->registered = 1;
	if (m->log.dirty || (m->finished && m->log.fd >= 0))
		sync_list(m);
	return REFD_OK;
}

struct match *
matchset_find(struct matchset *ms, const char *id)
{
	size_t i;

	if (id == NULL || ms->idx_cap == 0)
		return NULL;
	for (i = id_slot(id, ms->idx_cap); ms->idx[i] != NULL;
	    i = (i + 1) & (ms->idx_cap - 1))
		if (strcmp(ms->idx[i]->id, id) == 0)
			return ms->idx[i];
	return NULL;
}

size_t
matchset_count(const struct matchset *ms)
{
	return ms->n;
}

void
matchset_foreach(struct matchset *ms, void (*f)(struct match *m, void *arg),
    void *arg)
{
	size_t i;

	for (i = 0; i < ms->n; i++)
		f(ms->m[i], arg);
}

const uint8_t *
matchset_pubkey(const struct matchset *ms)
{
	return ms->key.pk;
}

/*
 * Group commit over many files: one fdatasync per log file, but issued
 * in parallel so that the file system commits them together (ext4 and
 * xfs join concurrent fsyncs into one journal commit); sequential
 * fdatasyncs cost one device flush each.  The threads only call
 * fdatasync on the fds they are given; every match object stays with
 * the event loop's thread.
 */
#define SYNC_THREADS 15

struct syncpool {
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	pthread_t th[SYNC_THREADS];
	int nth;
	int quit;
	uint64_t gen;
	const int *fd;
	int *err;
	size_t n, next, finished;
};

/* Take and sync fds until none is left; called with p->mu held. */
static void
pool_drain(struct syncpool *p)
{
	while (p->next < p->n) {
		size_t i = p->next++;
		int r;

		pthread_mutex_unlock(&p->mu);
		r = fdatasync(p->fd[i]) == 0 ? 0 : errno;
		pthread_mutex_lock(&p->mu);
		p->err[i] = r;
		if (++p->finished == p->n)
			pthread_cond_signal(&p->done);
	}
}

static void *
pool_main(void *arg)
{
	struct syncpool *p = arg;
	uint64_t seen = 0;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && p->gen == seen)
			pthread_cond_wait(&p->go, &p->mu);
		if (p->quit)
			break;
		seen = p->gen;
		pool_drain(p);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void
pool_destroy(struct syncpool *p)
{
	int i;

	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->nth; i++)
		pthread_join(p->th[i], NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
	free(p);
}

/* fdatasync n fds, in parallel when there are several: err[i] gets 0 or
 * an errno.  Without threads (none could be made) it syncs in turn. */
static void
sync_fds(struct matchset *ms, const int *fd, int *err, size_t n)
{
	struct syncpool *p = ms->pool;
	size_t i;

	if (n > 1 && p == NULL && (p = calloc(1, sizeof(*p))) != NULL) {
		pthread_mutex_init(&p->mu, NULL);
		pthread_cond_init(&p->go, NULL);
		pthread_cond_init(&p->done, NULL);
		ms->pool = p;
	}
	if (p != NULL && n > 1) {
		sigset_t all, old;

		/* Grow the pool up to one thread per extra fd; the threads
		 * take no signal: the event loop's thread handles them. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		while ((size_t)p->nth < n - 1 && p->nth < SYNC_THREADS &&
		    pthread_create(&p->th[p->nth], NULL, pool_main, p) == 0)
			p->nth++;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (p == NULL || p->nth == 0 || n < 2) {
		for (i = 0; i < n; i++)
			err[i] = fdatasync(fd[i]) == 0 ? 0 : errno;
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->fd = fd;
	p->err = err;
	p->n = n;
	p->next = p->finished = 0;
	p->gen++;
	pthread_cond_broadcast(&p->go);
	pool_drain(p);
	while (p->finished < p->n)
		pthread_cond_wait(&p->done, &p->mu);
	p->n = 0;
	pthread_mutex_unlock(&p->mu);
}

/* Sync or close one match's log as the policy says: 1 when it is still
 * dirty (a batch log not due yet), -1 when its fsync failed, else 0. */
static int
sync_one(struct matchset *ms, struct match *m, int64_t now)
{
	int rc = 0;

	if (m->log.fd < 0)
		return 0;
	if (m->log.dirty && ms->cfg.fsync == FSYNC_NEVER)
		m->log.dirty = 0;
	if (m->log.dirty && (ms->cfg.fsync == FSYNC_ALWAYS ||
	    now - m->log.synced_at >= 1000) &&
	    evlog_fsync(&m->log) != REFD_OK) {
		if (!m->broken)
			set_broken(m, "fsync failed");
		rc = -1;
	}
	/* A finished log takes no more records: free its fd. */
	if (m->finished && !m->log.dirty) {
		close(m->log.fd);
		m->log.fd = -1;
	}
	return rc < 0 ? -1 : m->log.dirty && m->log.fd >= 0;
}

int
matchset_sync(struct matchset *ms)
{
	int64_t now = evlog_mono_ms();
	int rc = 0;
	size_t i, keep = 0;

	if (ms->sweep) {
		for (i = 0; i < ms->n; i++)
			if (sync_one(ms, ms->m[i], now) < 0)
				rc = REFD_ELOGIO;
		ms->sweep = 0;
	}
	/* The logs due now are made durable together first; sync_one
	 * then finds them clean (or broken). */
	if (ms->cfg.fsync != FSYNC_NEVER && ms->nsync > 1) {
		int *fd = malloc(ms->nsync * 2 * sizeof(*fd)), *err;
		struct match **due = malloc(ms->nsync * sizeof(*due));
		size_t n = 0;

		if (fd != NULL && due != NULL) {
			err = fd + ms->nsync;
			for (i = 0; i < ms->nsync; i++) {
				struct match *m = ms->sync[i];

				if (m->log.fd >= 0 && m->log.dirty &&
				    (ms->cfg.fsync == FSYNC_ALWAYS ||
				    now - m->log.synced_at >= 1000)) {
					due[n] = m;
					fd[n++] = m->log.fd;
				}
			}
			sync_fds(ms, fd, err, n);
			for (i = 0; i < n; i++) {
				if (err[i] != 0) {
					/* Still dirty: sync_one tries once
					 * more, this turn fails anyway. */
					if (!due[i]->broken)
						set_broken(due[i],
						    "fsync failed");
					rc = REFD_ELOGIO;
					continue;
				}
				due[i]->log.dirty = 0;
				due[i]->log.synced_at = now;
			}
		}
		free(fd);
		free(due);
	}
	for (i = 0; i < ms->nsync; i++) {
		struct match *m = ms->sync[i];
		int r = sync_one(ms, m, now);

		if (r < 0)
			rc = REFD_ELOGIO;
		/* Still dirty (a batch not due, or a failed fsync that the
		 * next turn reports again, as a sweep would): keep it. */
		if (r != 0)
			ms->sync[keep++] = m;
		else
			m->listed = 0;
	}
	ms->nsync = keep;
	/* New log files: their directory entries must be durable too. */
	if (ms->dir_dirty && ms->cfg.fsync != FSYNC_NEVER) {
		int fd = open(ms->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0 || fsync(fd) != 0)
			rc = REFD_ELOGIO;
		else
			ms->dir_dirty = 0;
		if (fd >= 0)
			close(fd);
	} else {
		ms->dir_dirty = 0;
	}
	return rc;
}

void
matchset_destroy(struct matchset *ms)
{
	size_t i;

	if (ms == NULL)
		return;
	for (i = 0; i < ms->n; i++) {
		if (ms->m[i]->log.dirty && ms->m[i]->log.fd >= 0 &&
		    ms->cfg.fsync != FSYNC_NEVER)
			evlog_fsync(&ms->m[i]->log);
		match_free(ms->m[i]);
	}
	free(ms->m);
	free(ms->idx);
	free(ms->sync);
	pool_destroy(ms->pool);
	refd_mpw_destroy(ms->w);
	evlog_key_release(&ms->key);
	if (ms->lockfd >= 0)
		close(ms->lockfd);
	free(ms->state_dir);
	free(ms->dir);
	free(ms->qdir);
	free(ms);
}

/* Create. */

/*
 * The first key of a client's setup that the ruleset does not take: not
 * one of the options its describe lists, nor "seats" (read by the host).
 * Copies it into key and the option names into opts; 0 when every key is
 * known (or the ruleset lists no options).
 */
static int
unknown_setup_key(struct plugin *pl, const uint8_t *setup,
    size_t len, char *key, size_t kn, char *opts, size_t on)
{
	refd_mpdoc *sd = refd_mp_parse(setup, len);
	refd_mpv o = refd_mpv_get(plugin_describe(pl), "options"), root;
	size_t i, j, n = 0;
	int found = 0;

	opts[0] = '\0';
	if (sd == NULL || refd_mpv_type(o) != REFD_MP_MAP) {
		refd_mp_free(sd);
		return 0;
	}
	for (j = 0; j < refd_mpv_len(o); j++) {
		const char *k;
		size_t kl;

		if (refd_mpv_str(refd_mpv_key_at(o, j), &k, &kl) == 0 && n < on)
			n += (size_t)snprintf(opts + n, on - n, "%s%.*s",
			    j ? ", " : "", (int)kl, k);
	}
	root = refd_mp_root(sd);
	for (i = 0; i < refd_mpv_len(root) && !found; i++) {
		refd_mpv kv = refd_mpv_key_at(root, i);
		const char *k;
		size_t kl;

		if (refd_mpv_str(kv, &k, &kl) != 0) {
			snprintf(key, kn, "(a key that is not a string)");
			found = 1;
			break;
		}
		if (kl == 5 && memcmp(k, "seats", 5) == 0)
			continue;
		found = 1;
		for (j = 0; j < refd_mpv_len(o) && found; j++) {
			const char *ok;
			size_t ol;

			if (refd_mpv_str(refd_mpv_key_at(o, j), &ok, &ol) == 0 &&
			    ol == kl && memcmp(ok, k, kl) == 0)
				found = 0;
		}
		if (found) {
			size_t c;

			snprintf(key, kn, "%.*s", (int)(kl > 64 ? 64 : kl), k);
			for (c = 0; key[c] != '\0'; c++)
				if ((unsigned char)key[c] < 0x20 ||
				    (unsigned char)key[c] > 0x7e)
					key[c] = '?';
		}
	}
	refd_mp_free(sd);
	return found;
}

int
match_create(struct matchset *ms, const struct match_create_args *a,
    struct match **out, struct match_err *e)
{
	struct evlog_header_args h;
	struct plugin *pl;
	const uint8_t *setup;
	size_t setup_len;
	uint32_t nseats;
	struct match *m;
	struct game *g = NULL;
	struct call c;
	struct rng r;
	uint8_t idb[MATCH_ID_LEN / 2], commit[EVLOG_HASH_LEN];
	uint8_t sealed[EVLOG_SEALED_LEN], probe[32];
	char err[512];
	int rc, tries;
	static const uint8_t empty_map = 0x80;

	*out = NULL;
	if (ms->cfg.max_matches != 0 && ms->live >= ms->cfg.max_matches)
		return fail(e, REFD_ETOOMANY, "too many matches: %zu unfinished "
		    "matches is the limit (max-matches); finish or abort one",
		    ms->live);
	if (a->ruleset == NULL || (pl = registry_find(ms->reg,
	    a->ruleset)) == NULL)
		return fail(e, REFD_ENORULESET, "ruleset '%.64s': not loaded; "
		    "see the 'rulesets' op", a->ruleset ? a->ruleset : "");
	if (a->scenario != NULL) {
		const struct scenario *sc = plugin_scenario(pl, a->scenario);

		if (sc == NULL)
			return fail(e, REFD_ENOSCENARIO, "ruleset '%s': no "
			    "scenario '%.64s'", pl->name, a->scenario);
		setup = sc->setup;
		setup_len = sc->setup_len;
	} else if (a->setup != NULL && a->setup_len > 0) {
		setup = a->setup;
		setup_len = a->setup_len;
		if (refd_mp_check(setup, setup_len, 0) != 0 ||
		    ((setup[0] & 0xf0) != 0x80 && setup[0] != 0xde &&
		    setup[0] != 0xdf))
			return fail(e, REFD_ESETUP, "setup: expected one msgpack "
			    "map");
		{
			char key[80], opts[1024];

			if (unknown_setup_key(pl, setup, setup_len, key,
			    sizeof(key), opts, sizeof(opts)))
				return fail(e, REFD_ESETUP, "setup: unknown key "
				    "'%s': ruleset '%s' takes %s", key, pl->name,
				    opts);
		}
	} else {
		setup = &empty_map;
		setup_len = 1;
	}
	nseats = a->nseats;
	if (nseats == 0) {
		/* A setup may name its seat count (a 3-player map, say);
		 * else the ruleset's minimum. */
		refd_mpdoc *d = refd_mp_parse(setup, setup_len);
		int64_t v = 0;

		if (refd_mpv_int(refd_mpv_get(refd_mp_root(d), "seats"),
		    &v) == 0 && v > 0 && v <= REFD_MAX_SEATS)
			nseats = (uint32_t)v;
		else
			nseats = pl->desc->min_seats;
		refd_mp_free(d);
	}
	if (nseats < pl->desc->min_seats || nseats > pl->desc->max_seats)
		return fail(e, REFD_ESETUP, "ruleset '%s' takes %u to %u seats, "
		    "not %u", pl->name, (unsigned)pl->desc->min_seats,
		    (unsigned)pl->desc->max_seats, (unsigned)nseats);
	if (a->scripted && !ms->cfg.allow_scripted)
		return fail(e, REFD_EARG, "scripted dice are disabled on this "
		    "server");
	if (!a->scripted && a->dice != NULL)
		return fail(e, REFD_EARG, "dice given for a match that is not "
		    "scripted");

	/* Try the setup now, so a bad one fails at create, not at the last
	 * join: a throwaway game with throwaway (or the scripted) dice. */
	call_init(&c);
	if (a->scripted) {
		if (rng_init_script(&r, a->dice, a->ndice) != 0) {
			call_release(&c);
			return fail(e, REFD_ENOMEM, "out of memory");
		}
	} else {
		randombytes_buf(probe, sizeof(probe));
		rng_init_seed(&r, probe);
	}
	rc = game_create(pl, setup, setup_len, nseats, &r,
	    ms->cfg.max_match_memory, &g, &c);
	rng_release(&r);
	game_destroy(g);
	if (rc != REFD_OK) {
		struct match tmp;

		memset(&tmp, 0, sizeof(tmp));
		tmp.ms = ms;
		tmp.pl = pl;
		tmp.ndice = a->ndice;
		rc = fail_call(&tmp, e, rc == REFD_OK ? REFD_ESETUP : rc, &c,
		    "create");
		if (rc != REFD_ELIMIT && rc != REFD_EPLUGINFAULT &&
		    rc != REFD_ESCRIPT && e != NULL) {
			char msg[sizeof(e->message)];

			snprintf(msg, sizeof(msg), "%s", e->message);
			snprintf(e->message, sizeof(e->message), "ruleset "
			    "'%s': setup: %s", pl->name, msg);
		}
		call_release(&c);
		return rc;
	}
	call_release(&c);

	if ((m = match_new(ms)) == NULL)
		return fail(e, REFD_ENOMEM, "out of memory");
	m->pl = pl;
	m->nseats = nseats;
	m->scripted = a->scripted != 0;
	m->created = evlog_now();
	m->setup = malloc(setup_len);
	if (m->setup == NULL) {
		match_free(m);
		return fail(e, REFD_ENOMEM, "out of memory");
	}
	memcpy(m->setup, setup, setup_len);
	m->setup_len = setup_len;
	if (m->scripted && a->ndice > 0) {
		m->dice = malloc(a->ndice * sizeof(*m->dice));
		if (m->dice == NULL) {
			match_free(m);
			return fail(e, REFD_ENOMEM, "out of memory");
		}
		memcpy(m->dice, a->dice, a->ndice * sizeof(*m->dice));
		m->ndice = a->ndice;
	}
	randombytes_buf(m->server_seed, sizeof(m->server_seed));
	evlog_seed_commit(m->server_seed, commit);
	evlog_seal_seed(&ms->key, m->server_seed, sealed);
	for (tries = 0; tries < 16; tries++) {
		struct stat st;
		char path[4096];

		randombytes_buf(idb, sizeof(idb));
		hex_encode(idb, sizeof(idb), m->id);
		snprintf(path, sizeof(path), "%s/%s.log", ms->dir, m->id);
		if (matchset_find(ms, m->id) == NULL && stat(path, &st) != 0) {
			m->path = strdup(path);
			break;
		}
	}
	if (m->path == NULL) {
		match_free(m);
		return fail(e, REFD_EINTERNAL, "cannot pick a match id");
	}
	rc = evlog_create(&m->log, m->path, err, sizeof(err));
	if (rc != REFD_OK) {
		match_free(m);
		return fail(e, rc, "%s", err);
	}
	ms->dir_dirty = 1;
	memset(&h, 0, sizeof(h));
	h.match = m->id;
	h.ruleset = pl->name;
	h.ruleset_version = pl->desc->version;
	h.abi_major = pl->desc->abi_major;
	h.abi_minor = pl->desc->abi_minor;
	h.plugin_hash = pl->file_hash;
	h.content_hash = pl->content_hash;
	h.scenario = a->scenario;
	h.setup = setup;
	h.setup_len = setup_len;
	h.nseats = nseats;
	h.commit = commit;
	h.scripted = m->scripted;
	h.dice = m->dice;
	h.ndice = m->ndice;
	h.pubkey = ms->key.pk;
	h.sealed = sealed;
	h.time = m->created;
	memset(probe, 0, sizeof(probe));
	evlog_enc_header(ms->w, probe, &h);
	rc = put_record(m, 1);
	if (rc == REFD_OK)
		rc = add_match(ms, m);
	if (rc != REFD_OK) {
		unlink(m->path);
		match_free(m);
		return fail(e, rc, "match: cannot write the log header: %s",
		    refd_strerror(rc));
	}
	*out = m;
	return REFD_OK;
}

int
match_join(struct match *m, uint32_t seat, const uint8_t *seed,
    size_t seedlen, char token_out[MATCH_TOKEN_LEN + 1], struct match_err *e)
{
	uint8_t tb[MATCH_TOKEN_LEN / 2], th[EVLOG_HASH_LEN];
	struct game *g = NULL;
	struct call c;
	int rc;

	token_out[0] = '\0';
	if ((rc = check_usable(m, e)) != REFD_OK)
		return rc;
	if (m->finished)
		return fail(e, REFD_EFINISHED, "match '%s': finished", m->id);
	if (seat >= m->nseats)
		return fail(e, REFD_ESEAT, "match '%s': seat %u does not exist "
		    "(the match has %u seats)", m->id, seat, m->nseats);
	if (m->seat[seat].taken)
		return fail(e, REFD_ESEATTAKEN, "match '%s': seat %u is already "
		    "taken", m->id, seat);
	if (seedlen > EVLOG_SHARE_MAX || (seed == NULL && seedlen > 0))
		return fail(e, REFD_EARG, "seed: %zu bytes, at most %d",
		    seedlen, EVLOG_SHARE_MAX);
	if (m->log.size >= m->ms->cfg.max_log_bytes &&
	    m->ms->cfg.max_log_bytes != 0)
		return fail(e, REFD_ELIMIT, "match '%s': log reached "
		    "max-log-bytes (%zu)", m->id, m->ms->cfg.max_log_bytes);
	randombytes_buf(tb, sizeof(tb));
	hex_encode(tb, sizeof(tb), token_out);
	evlog_token_hash(token_out, th);

	/* Take the seat provisionally: the match seed needs every share. */
	m->seat[seat].taken = 1;
	memcpy(m->seat[seat].token_hash, th, sizeof(th));
	if (seedlen > 0)
		memcpy(m->seat[seat].share, seed, seedlen);
	m->seat[seat].share_len = seedlen;
	call_init(&c);
	if (m->joined + 1 == m->nseats) {
		rc = start_game(m, &g, &c);
		if (rc != REFD_OK) {
			memset(&m->seat[seat], 0, sizeof(m->seat[seat]));
			rc = fail_call(m, e, rc, &c, "create");
			call_release(&c);
			token_out[0] = '\0';
			return rc;
		}
	}
	evlog_enc_join(m->ms->w, m->log.nrec, m->seq + 1, m->log.last, seat,
	    th, seed, seedlen);
	rc = put_record(m, 0);
	if (rc != REFD_OK) {
		memset(&m->seat[seat], 0, sizeof(m->seat[seat]));
		game_destroy(g);
		call_release(&c);
		token_out[0] = '\0';
		if (m->log.fd < 0)
			set_broken(m, "a write failed");
		return fail(e, rc, "match '%s': cannot write the log: %s",
		    m->id, refd_strerror(rc));
	}
	m->seq++;
	m->joined++;
	rc = maybe_checkpoint(m);
	if (rc == REFD_OK && g != NULL) {
		rc = write_start(m, g, &c);
		if (m->g != g)
			game_destroy(g);
	}
	call_release(&c);
	if (rc != REFD_OK) {
		set_broken(m, "a write failed");
		return fail(e, rc, "match '%s': cannot write the log: %s",
		    m->id, refd_strerror(rc));
	}
	return REFD_OK;
}

/* Destroy the in-memory match and load it again from its log. */
static int load_log(struct matchset *ms, const char *path, int lazy,
    struct match **out, int *quarantine, char *why, size_t whylen);

static void
reload(struct match *m)
{
	struct matchset *ms = m->ms;
	struct match *nm = NULL, tmp;
	char why[512];
	int q = 0;

	if (m->log.dirty && m->log.fd >= 0 && ms->cfg.fsync != FSYNC_NEVER)
		evlog_fsync(&m->log);
	if (load_log(ms, m->path, 0, &nm, &q, why, sizeof(why)) != REFD_OK) {
		set_broken(m, why);
		return;
	}
	nm->plugin_faults = m->plugin_faults;
	/* Keep unpublished events for the PUB socket. */
	match_events_clear(nm);
	free(nm->pub);
	nm->pub = m->pub;
	nm->npub = m->npub;
	nm->cap_pub = m->cap_pub;
	m->pub = NULL;
	m->npub = m->cap_pub = 0;
	if (!m->finished)
		ms->live--;
	if (!nm->finished)
		ms->live++;
	/* The caller holds m: swap the contents, free the old ones. */
	tmp = *m;
	*m = *nm;
	*nm = tmp;
	m->registered = nm->registered;
	m->listed = nm->listed;
	m->creator = nm->creator;
	m->consent = nm->consent;
	match_free(nm);
	if (m->log.dirty || (m->finished && m->log.fd >= 0))
		sync_list(m);
}

int
match_act(struct match *m, uint32_t seat, const char *token,
    const char *cmd_id, int64_t expected_seq, const uint8_t *cmd, size_t len,
    struct act_result *res, struct match_err *e)
{
	uint8_t ch[EVLOG_HASH_LEN], sh[EVLOG_HASH_LEN];
	struct idem *x;
	struct call c;
	int rc, over;

	memset(res, 0, sizeof(*res));
	if ((rc = check_usable(m, e)) != REFD_OK)
		return rc;
	if (seat == (uint32_t)REFD_SEAT_PUBLIC)
		return fail(e, REFD_ESPECTATOR, "match '%s': spectators cannot "
		    "act", m->id);
	if ((rc = check_token(m, seat, token, e)) != REFD_OK)
		return rc;
	if (cmd_id == NULL || cmd_id[0] == '\0' || strlen(cmd_id) > 128)
		return fail(e, REFD_EARG, "cmd_id: expected a string of 1 to "
		    "128 bytes");
	if (cmd == NULL || len == 0 || refd_mp_check(cmd, len, 0) != 0)
		return fail(e, REFD_EBADCMD, "command: expected one msgpack "
		    "value");
	if ((x = idem_find(m, seat, cmd_id)) != NULL) {
		evlog_hash(cmd, len, ch);
		if (sodium_memcmp(ch, x->cmd_hash, sizeof(ch)) != 0)
			return fail(e, REFD_EIDEMPOTENCY, "match '%s': seat %u: "
			    "command id '%.64s' was used for a different "
			    "command (seq %" PRIu64 "); use a new id", m->id,
			    seat, cmd_id, x->seq);
		res->seq = x->seq;
		res->replayed = 1;
		res->finished = x->finished;
		return REFD_OK;
	}
	if (m->finished)
		return fail(e, REFD_EFINISHED, "match '%s': finished", m->id);
	if (!m->started)
		return fail(e, REFD_ENOTSTARTED, "match '%s': waiting for %u "
		    "of %u seats to join", m->id, m->nseats - m->joined,
		    m->nseats);
	if (expected_seq >= 0 && (uint64_t)expected_seq != m->seq)
		return fail(e, REFD_ESTALE, "match '%s': expected seq %" PRId64
		    ", but the match is at seq %" PRIu64 "; fetch the events "
		    "since %" PRId64, m->id, expected_seq, m->seq,
		    expected_seq);
	if (m->ms->cfg.max_log_bytes != 0 &&
	    m->log.size + len >= m->ms->cfg.max_log_bytes)
		return fail(e, REFD_ELIMIT, "match '%s': the log would pass "
		    "max-log-bytes (%zu)", m->id, m->ms->cfg.max_log_bytes);
	if ((rc = check_plugin(m, e)) != REFD_OK)
		return rc;
	{
		char why[256];

		if (plugin_check_args(m->g->pl, cmd, len, why,
		    sizeof(why)) != 0)
			return fail(e, REFD_EARG, "%s", why);
	}
	call_init(&c);
	rc = game_apply(m->g, seat, cmd, len, &c);
	if (rc != REFD_OK) {
		rc = fail_call(m, e, rc, &c, "apply");
		call_release(&c);
		if (rc == REFD_EPLUGINFAULT)
			reload(m);
		return rc;
	}
	if ((rc = game_state_hash(m->g, sh)) != REFD_OK) {
		rc = fail_call(m, e, rc, &c, "serialize");
		call_release(&c);
		reload(m);
		return rc;
	}
	evlog_enc_step(m->ms->w, m->log.nrec, m->seq + 1, m->log.last,
	    (int32_t)seat, cmd_id, cmd, len, &c, sh);
	if (m->ms->cfg.max_log_bytes != 0 && m->log.size +
	    refd_mpw_len(m->ms->w) + EVLOG_FRAME_OVERHEAD +
	    closing_reserve(m, &c) > m->ms->cfg.max_log_bytes) {
		struct buf rb;

		/* Undo the command by reloading, then end the match. */
		call_release(&c);
		reload(m);
		buf_init(&rb);
		if (!m->broken && host_result(m, -1, "the log reached "
		    "max-log-bytes", &rb) == REFD_OK)
			finish(m, "limit", -1, "the log reached max-log-bytes",
			    rb.data, rb.len);
		buf_release(&rb);
		return fail(e, REFD_ELIMIT, "match '%s': the command's record "
		    "would pass max-log-bytes (%zu); the match was ended",
		    m->id, m->ms->cfg.max_log_bytes);
	}
	rc = put_record(m, 0);
	if (rc != REFD_OK) {
		call_release(&c);
		if (m->log.fd < 0)
			set_broken(m, "a write failed");
		else
			reload(m);
		return fail(e, rc, "match '%s': cannot write the log: %s",
		    m->id, refd_strerror(rc));
	}
	m->seq++;
	m->plugin_faults = 0;
	res->seq = m->seq;
	x = idem_add(m, seat, cmd_id, cmd, len, m->seq);
	if (keep_commits(m, &c) != REFD_OK ||
	    add_events(m, m->seq, c.ev, c.nev, 1) != REFD_OK || x == NULL) {
		call_release(&c);
		set_broken(m, "out of memory");
		return fail(e, REFD_ENOMEM, "out of memory");
	}
	call_release(&c);
	rc = check_over(m, &over);
	if (rc == REFD_OK && !over)
		rc = maybe_checkpoint(m);
	if (rc != REFD_OK) {
		set_broken(m, "a write failed");
		return fail(e, rc, "match '%s': cannot write the log: %s",
		    m->id, refd_strerror(rc));
	}
	res->finished = m->finished;
	x->finished = m->finished;
	return REFD_OK;
}

int
match_resign(struct match *m, uint32_t seat, const char *token,
    struct match_err *e)
{
	struct buf rb;
	char reason[64];
	int rc;

	if ((rc = check_usable(m, e)) != REFD_OK ||
	    (rc = check_token(m, seat, token, e)) != REFD_OK)
		return rc;
	if (m->finished)
		return fail(e, REFD_EFINISHED, "match '%s': finished", m->id);
	snprintf(reason, sizeof(reason), "seat %u resigned", seat);
	buf_init(&rb);
	rc = host_result(m, (int32_t)seat, reason, &rb);
	if (rc == REFD_OK)
		rc = finish(m, "resign", (int32_t)seat, NULL, rb.data, rb.len);
	buf_release(&rb);
	if (rc != REFD_OK) {
		set_broken(m, "a write failed");
		return fail(e, rc, "match '%s': cannot write the log: %s",
		    m->id, refd_strerror(rc));
	}
	return REFD_OK;
}

int
match_abort(struct match *m, const char *reason, struct match_err *e)
{
	struct buf rb;
	int rc;

	if ((rc = check_usable(m, e)) != REFD_OK)
		return rc;
	if (m->finished)
		return fail(e, REFD_EFINISHED, "match '%s': finished", m->id);
	if (reason == NULL || reason[0] == '\0')
		reason = "aborted by the operator";
	buf_init(&rb);
	rc = host_result(m, -1, reason, &rb);
	if (rc == REFD_OK)
		rc = finish(m, "abort", -1, reason, rb.data, rb.len);
	buf_release(&rb);
	if (rc != REFD_OK) {
		set_broken(m, "a write failed");
		return fail(e, rc, "match '%s': cannot write the log: %s",
		    m->id, refd_strerror(rc));
	}
	return REFD_OK;
}

int
match_consent_abort(struct match *m, uint32_t seat, const char *token,
    int *all, struct match_err *e)
{
	uint64_t seated = 0;
	uint32_t i;
	int rc;

	*all = 0;
	if ((rc = check_usable(m, e)) != REFD_OK ||
	    (rc = check_token(m, seat, token, e)) != REFD_OK)
		return rc;
	if (m->finished)
		return fail(e, REFD_EFINISHED, "match '%s': finished", m->id);
	m->consent |= (uint64_t)1 << seat;
	for (i = 0; i < m->nseats; i++)
		if (m->seat[i].taken)
			seated |= (uint64_t)1 << i;
	*all = (m->consent & seated) == seated;
	return REFD_OK;
}

uint64_t
match_consents(const struct match *m)
{
	return m->consent;
}

void
match_set_creator(struct match *m, uint32_t conn)
{
	m->creator = conn;
}

int
match_waiting(const struct match *m)
{
	return !m->finished && !m->broken && m->joined == 0;
}

/*
 * Bring back an evicted match's history from its log (the records
 * alone, as for a finished match at start).
 */
static int
revive(struct match *m, struct match_err *e)
{
	struct match *nm = NULL;
	char why[512];
	int q = 0;

	if (!m->evicted)
		return REFD_OK;
	if (load_log(m->ms, m->path, 1, &nm, &q, why, sizeof(why)) !=
	    REFD_OK) {
		set_broken(m, why);
		return fail(e, REFD_ELOG, "match '%s': its log cannot be read "
		    "back: %s", m->id, why);
	}
	m->cm = nm->cm;
	m->ncm = nm->ncm;
	m->cap_cm = nm->cap_cm;
	m->ev = nm->ev;
	m->nev = nm->nev;
	m->cap_ev = nm->cap_ev;
	m->idem = nm->idem;
	m->idem_buckets = nm->idem_buckets;
	m->nidem = nm->nidem;
	nm->cm = NULL;
	nm->ev = NULL;
	nm->idem = NULL;
	nm->ncm = nm->nev = nm->nidem = nm->idem_buckets = 0;
	match_free(nm);
	m->evicted = 0;
	m->ms->revived++;
	return REFD_OK;
}

int
match_use(struct match *m, struct match_err *e)
{
	m->used = evlog_mono_ms();
	return revive(m, e);
}

size_t
matchset_evict(struct matchset *ms, uint32_t age)
{
	int64_t now = evlog_mono_ms();
	size_t i, n = 0;
	struct match *m;

	for (i = 0; i < ms->n; i++) {
		m = ms->m[i];
		if (!m->finished || m->evicted || m->broken || m->npub > 0 ||
		    m->listed || m->log.dirty || m->log.fd >= 0 ||
		    now - m->used < (int64_t)age * 1000)
			continue;
		drop_history(m);
		m->evicted = 1;
		ms->evicted++;
		n++;
	}
	return n;
}

void
matchset_evictions(const struct matchset *ms, uint64_t *evicted,
    uint64_t *revived)
{
	*evicted = ms->evicted;
	*revived = ms->revived;
}

int
match_broken(const struct match *m)
{
	return m->broken;
}

int
match_started(const struct match *m)
{
	return m->started;
}

int64_t
match_created(const struct match *m)
{
	return m->created;
}

void
matchset_waiting(const struct matchset *ms, uint32_t conn, size_t *total,
    size_t *mine)
{
	size_t i;

	*total = *mine = 0;
	for (i = 0; i < ms->n; i++) {
		if (!match_waiting(ms->m[i]))
			continue;
		(*total)++;
		if (conn != 0 && ms->m[i]->creator == conn)
			(*mine)++;
	}
}

struct match *
matchset_at(const struct matchset *ms, size_t i)
{
	return i < ms->n ? ms->m[i] : NULL;
}

/* Queries. */

static int
not_started(struct match *m, struct match_err *e)
{
	return fail(e, REFD_ENOTSTARTED, "match '%s': waiting for %u of %u "
	    "seats to join", m->id, m->nseats - m->joined, m->nseats);
}

int
match_legal(struct match *m, uint32_t seat, const char *token,
    struct buf *out, struct match_err *e)
{
	struct call c;
	int rc;

	if ((int32_t)seat == REFD_SEAT_PUBLIC)
		return fail(e, REFD_ESPECTATOR, "match '%s': spectators have no "
		    "legal commands", m->id);
	if ((rc = check_token(m, seat, token, e)) != REFD_OK)
		return rc;
	if (!m->started)
		return not_started(m, e);
	if (m->finished) {
		static const uint8_t empty = 0x90;

		return buf_add(out, &empty, 1) == 0 ? REFD_OK :
		    fail(e, REFD_ENOMEM, "out of memory");
	}
	if ((rc = check_plugin(m, e)) != REFD_OK)
		return rc;
	call_init(&c);
	rc = game_legal(m->g, seat, &c);
	if (rc == REFD_OK && (c.out.len == 0 ||
	    refd_mp_check(c.out.data, c.out.len, 0) != 0)) {
		snprintf(c.fault, sizeof(c.fault), "legal gave no msgpack value");
		rc = REFD_EPLUGINFAULT;
	} else if (rc == REFD_OK && !output_text_ok(c.out.data, c.out.len)) {
		snprintf(c.fault, sizeof(c.fault), "legal gave a string that is "
		    "not UTF-8");
		rc = REFD_EPLUGINFAULT;
	}
	if (rc != REFD_OK)
		rc = fail_call(m, e, rc, &c, "legal");
	else if (buf_add(out, c.out.data, c.out.len) != 0)
		rc = fail(e, REFD_ENOMEM, "out of memory");
	call_release(&c);
	return rc;
}

/* Build the game of a finished match that was loaded lazily. */
static int
materialize(struct match *m, struct match_err *e)
{
	struct match *nm = NULL;
	char why[512];
	int q = 0;

	if (m->g != NULL || !m->started)
		return REFD_OK;
	if (load_log(m->ms, m->path, 0, &nm, &q, why, sizeof(why)) != REFD_OK)
		return fail(e, REFD_ELOG, "match '%s': its log does not replay: "
		    "%s", m->id, why);
	m->g = nm->g;
	nm->g = NULL;
	match_free(nm);
	return m->g != NULL ? REFD_OK : fail(e, REFD_ELOG, "match '%s': its "
	    "log does not replay", m->id);
}

int
match_view(struct match *m, int32_t seat, const char *token, struct buf *out,
    struct match_err *e)
{
	struct call c;
	int rc;

	if (seat != REFD_SEAT_PUBLIC) {
		if (seat < 0)
			return fail(e, REFD_ESEAT, "match '%s': seat %d does "
			    "not exist", m->id, (int)seat);
		if ((rc = check_token(m, (uint32_t)seat, token, e)) != REFD_OK)
			return rc;
	}
	if (!m->started)
		return not_started(m, e);
	if ((rc = materialize(m, e)) != REFD_OK ||
	    (!m->finished && (rc = check_plugin(m, e)) != REFD_OK))
		return rc;
	call_init(&c);
	rc = game_view(m->g, seat, &c);
	if (rc == REFD_OK && (c.out.len == 0 ||
	    refd_mp_check(c.out.data, c.out.len, 0) != 0)) {
		snprintf(c.fault, sizeof(c.fault), "view gave no msgpack value");
		rc = REFD_EPLUGINFAULT;
	} else if (rc == REFD_OK && !output_text_ok(c.out.data, c.out.len)) {
		snprintf(c.fault, sizeof(c.fault), "view gave a string that is "
		    "not UTF-8");
		rc = REFD_EPLUGINFAULT;
	}
	if (rc != REFD_OK)
		rc = fail_call(m, e, rc, &c, "view");
	else if (buf_add(out, c.out.data, c.out.len) != 0)
		rc = fail(e, REFD_ENOMEM, "out of memory");
	call_release(&c);
	return rc;
}

int
match_pending(struct match *m, uint64_t *seats, struct match_err *e)
{
	struct call c;
	int rc;

	*seats = 0;
	if (!m->started)
		return not_started(m, e);
	if (m->finished)
		return REFD_OK;
	if ((rc = check_plugin(m, e)) != REFD_OK)
		return rc;
	call_init(&c);
	rc = game_pending(m->g, seats, &c);
	if (rc != REFD_OK)
		rc = fail_call(m, e, rc, &c, "pending");
	call_release(&c);
	return rc;
}

int
match_events_since(struct match *m, uint64_t since, int32_t seat,
    const char *token, const struct ev_page *pg, struct buf *out,
    uint64_t *until, int *more, struct match_err *e)
{
	refd_mpw *w;
	size_t i, lo, hi, n = 0;
	int rc;

	*until = m->seq;
	*more = 0;

	if (seat != REFD_SEAT_PUBLIC) {
		if (seat < 0)
			return fail(e, REFD_ESEAT, "match '%s': seat %d does "
			    "not exist", m->id, (int)seat);
		if ((rc = check_token(m, (uint32_t)seat, token, e)) != REFD_OK)
			return rc;
	}
	/* Events are in seq order: find the first with seq > since. */
	lo = 0;
	hi = m->nev;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->ev[mid].seq <= since)
			lo = mid + 1;
		else
			hi = mid;
	}
	if ((w = refd_mpw_create()) == NULL)
		return fail(e, REFD_ENOMEM, "out of memory");
	refd_mpw_array(w);
	for (i = lo; i < m->nev; i++) {
		const struct mevent *ev = &m->ev[i];

		/* A page ends between two seqs, never inside one. */
		if (i > lo && ev->seq != m->ev[i - 1].seq && n > 0 &&
		    ((pg->limit > 0 && n >= pg->limit) ||
		    (pg->max_bytes > 0 && refd_mpw_len(w) >= pg->max_bytes))) {
			*until = m->ev[i - 1].seq;
			*more = 1;
			break;
		}
		if (ev->seat != REFD_SEAT_PUBLIC && ev->seat != seat)
			continue;
		n++;
		if (event_map(m, ev, 0, w) != 0) {
			refd_mpw_destroy(w);
			return fail(e, REFD_EINTERNAL, "match '%s': a stored "
			    "event is damaged", m->id);
		}
	}
	refd_mpw_end(w);
	rc = REFD_OK;
	if (refd_mpw_error(w) || buf_add(out, refd_mpw_data(w),
	    refd_mpw_len(w)) != 0)
		rc = fail(e, REFD_ENOMEM, "out of memory");
	refd_mpw_destroy(w);
	return rc;
}

int
match_info(struct match *m, struct buf *out)
{
	refd_mpw *w = refd_mpw_create();
	uint32_t i;
	int rc = REFD_OK;

	if (w == NULL)
		return REFD_ENOMEM;
	refd_mpw_map(w);
	refd_mpw_kstr(w, "id", m->id);
	refd_mpw_kstr(w, "ruleset", m->pl->name);
	refd_mpw_kstr(w, "status", m->broken ? "broken" : m->finished ?
	    "finished" : m->started ? "playing" : "waiting");
	refd_mpw_karray(w, "seats");
	for (i = 0; i < m->nseats; i++)
		refd_mpw_bool(w, m->seat[i].taken);
	refd_mpw_end(w);
	refd_mpw_kint(w, "seq", (int64_t)m->seq);
	refd_mpw_kbool(w, "finished", m->finished);
	refd_mpw_kbool(w, "scripted", m->scripted);
	refd_mpw_kint(w, "created", m->created);
	refd_mpw_str(w, "result");
	if (m->finished && m->result != NULL)
		refd_mpw_raw(w, m->result, m->result_len);
	else
		refd_mpw_nil(w);
	if (m->finished)
		refd_mpw_kstr(w, "end", m->why);
	refd_mpw_end(w);
	if (refd_mpw_error(w) || buf_add(out, refd_mpw_data(w),
	    refd_mpw_len(w)) != 0)
		rc = REFD_ENOMEM;
	refd_mpw_destroy(w);
	return rc;
}

int
match_export(struct match *m, struct buf *out, struct match_err *e)
{
	uint8_t b[65536];
	ssize_t n;
	uint64_t left = m->log.size;
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fail(e, REFD_ELOGIO, "match '%s': log '%s': cannot open: "
		    "%s", m->id, m->path, strerror(errno));
	/* Only complete frames: never a record being written. */
	while (left > 0 && (n = read(fd, b, left < sizeof(b) ? (size_t)left :
	    sizeof(b))) > 0) {
		if (buf_add(out, b, (size_t)n) != 0) {
			close(fd);
			return fail(e, REFD_ENOMEM, "out of memory");
		}
		left -= (uint64_t)n;
	}
	close(fd);
	if (left != 0)
		return fail(e, REFD_ELOGIO, "match '%s': log '%s': short read",
		    m->id, m->path);
	return REFD_OK;
}

const char *
match_id(const struct match *m)
{
	return m->id;
}

/* The server seed's commitment, as in the header, in hexadecimal: what a
 * seat checks the revealed seed against after the match. */
void
match_seed_commit(const struct match *m, char out[2 * EVLOG_HASH_LEN + 1])
{
	uint8_t ck[EVLOG_HASH_LEN];

	evlog_seed_commit(m->server_seed, ck);
	hex_encode(ck, sizeof(ck), out);
}

uint64_t
match_seq(const struct match *m)
{
	return m->seq;
}

uint32_t
match_nseats(const struct match *m)
{
	return m->nseats;
}

int
match_finished(const struct match *m)
{
	return m->finished;
}

size_t
match_new_public(struct match *m, const struct buf **evs)
{
	*evs = m->pub;
	return m->npub;
}

void
match_events_clear(struct match *m)
{
	size_t i;

	for (i = 0; i < m->npub; i++)
		buf_release(&m->pub[i]);
	m->npub = 0;
}

/* Recovery. */

#define LBAD(q, ...)                                                           \
	do {                                                                   \
		*quarantine = (q);                                             \
		snprintf(why, whylen, __VA_ARGS__);                            \
		goto bad;                                                      \
	} while (0)

/* Commands between two state-hash checks when a log is replayed at start. */
#define RECOVER_HASH_EVERY 64

static int
check_sig(const struct evlog_rec *hdr, const struct evlog_frame *f)
{
	return evlog_sig_check(hdr->pubkey, f->p, f->len);
}

/* Write the scanned bytes of the log `path` to a new file in the
 * quarantine directory (its name in dst).  0, or -1 with errno set. */
static int
keep_copy(struct matchset *ms, const char *path, const struct evlog_scan *s,
    char *dst, size_t dstlen)
{
	const char *base = strrchr(path, '/');
	size_t off = 0;
	ssize_t n;
	int fd = -1, k;

	base = base != NULL ? base + 1 : path;
	for (k = 0; k < 1000 && fd < 0; k++) {
		if (k == 0)
			snprintf(dst, dstlen, "%s/%s.damaged-tail", ms->qdir,
			    base);
		else
			snprintf(dst, dstlen, "%s/%s.damaged-tail.%d",
			    ms->qdir, base, k);
		fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	if (fd < 0)
		return -1;
	while (off < s->size) {
		n = write(fd, s->data + off, s->size - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	if (fsync(fd) != 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/*
 * Load one log: validate framing and chain, replay every record through
 * the plugin, and rebuild the match.  A torn tail is cut off (reported; a
 * whole but damaged last record is copied to the quarantine first).  On
 * failure *quarantine says whether the log itself is bad (1: move it
 * away, an interrupted create's log included) or the match only cannot be
 * resumed here (0: leave it).  lazy: a finished match is
 * loaded from its records without running the plugin (its game is built
 * on first use by materialize()).
 */
static int
add_rec_events(struct match *m, const struct evlog_rec *r)
{
	size_t i;
	int rc;

	for (i = 0; i < r->nev; i++)
		if ((rc = add_event(m, m->seq, (uint32_t)i, r->ev[i].seat,
		    r->ev[i].bytes, r->ev[i].len, 0)) != REFD_OK)
			return rc;
	return REFD_OK;
}

static int
load_log(struct matchset *ms, const char *path, int lazy,
    struct match **out, int *quarantine, char *why, size_t whylen)
{
	struct evlog_scan s;
	struct evlog_rec hdr, r;
	struct match *m = NULL;
	struct game *pending = NULL;
	struct call c;
	struct idem *lastcmd = NULL;
	static const uint8_t zero[EVLOG_HASH_LEN];
	char err[512];
	const char *base;
	size_t i, bl, ck = 0, unchecked = 0;
	uint8_t want[EVLOG_HASH_LEN];
	int rc, seed_ok = 0, skip = 0;

	*out = NULL;
	*quarantine = 0;
	memset(&hdr, 0, sizeof(hdr));
	memset(&r, 0, sizeof(r));
	call_init(&c);
	rc = evlog_scan_file(path, &s, err, sizeof(err));
	if (rc != REFD_OK) {
		*quarantine = rc == REFD_ELOG;
		snprintf(why, whylen, "%s", err);
		call_release(&c);
		return rc;
	}
	if (s.tail == EVLOG_DAMAGED)
		LBAD(1, "%s, with %zu more bytes after it: the log is damaged "
		    "in the middle", s.why, s.size - s.good_end);
	if (s.n == 0) {
		/* The crash came before the header was durable: the create
		 * was never acknowledged.  Kept, as any damaged log. */
		LBAD(1, "no header record (%s): a create interrupted before "
		    "it was acknowledged", s.tail == EVLOG_TORN ? s.why :
		    "an empty file");
	}
	if (s.tail == EVLOG_TORN && s.tail_whole) {
		/* A whole last record whose bytes changed: a crash does not
		 * do that, and it may have been acknowledged.  Keep the log
		 * as it is before cutting the record. */
		char dst[4096];

		if (keep_copy(ms, path, &s, dst, sizeof(dst)) != 0)
			LBAD(0, "%s; cannot keep a copy before cutting it: %s",
			    s.why, strerror(errno));
		report(ms, "log '%s': the last record is whole but damaged "
		    "(%s): it may have been acknowledged; cut it (%zu bytes) "
		    "so that the match resumes before it, a retry of its "
		    "command applies it again; the log as it was is kept in "
		    "'%s'", path, s.why, s.size - s.good_end, dst);
	}
	if (s.tail == EVLOG_TORN) {
		if (truncate(path, (off_t)s.good_end) != 0)
			LBAD(0, "cannot truncate a torn final record: %s",
			    strerror(errno));
		if (!s.tail_whole)
			report(ms, "log '%s': truncated a torn final record "
			    "(%s; %zu bytes cut); it was never acknowledged",
			    path, s.why, s.size - s.good_end);
	}
	if (evlog_decode(s.fr[0].p, s.fr[0].len, &hdr, err, sizeof(err)) != 0)
		LBAD(1, "record 0 (header): %s", err);
	if (hdr.kind != EVK_HEADER || hdr.n != 0 ||
	    memcmp(hdr.prev, zero, sizeof(zero)) != 0)
		LBAD(1, "record 0: expected a header record");
	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	bl = strlen(hdr.match);
	if (bl != MATCH_ID_LEN || strncmp(base, hdr.match, bl) != 0 ||
	    strcmp(base + bl, ".log") != 0)
		LBAD(1, "header: match id '%s' does not match the file name",
		    hdr.match);
	if (check_sig(&hdr, &s.fr[0]) != 0)
		LBAD(1, "record 0 (header): signature is invalid");
	if ((m = match_new(ms)) == NULL)
		LBAD(0, "out of memory");
	memcpy(m->id, hdr.match, MATCH_ID_LEN);
	m->path = strdup(path);
	m->pl = registry_find(ms->reg, hdr.ruleset);
	if (m->pl == NULL)
		LBAD(0, "ruleset '%s' is not loaded; the match is not resumed "
		    "(load the plugin and restart)", hdr.ruleset);
	if (memcmp(m->pl->file_hash, hdr.plugin_hash, EVLOG_HASH_LEN) != 0 ||
	    memcmp(m->pl->content_hash, hdr.content_hash,
	    EVLOG_HASH_LEN) != 0)
		report(ms, "match '%s': ruleset '%s': the %s changed since the "
		    "match began; replaying to check it still agrees", m->id,
		    hdr.ruleset, memcmp(m->pl->file_hash, hdr.plugin_hash,
		    EVLOG_HASH_LEN) != 0 ? "plugin file" : "content");
	if (hdr.nseats < m->pl->desc->min_seats ||
	    hdr.nseats > m->pl->desc->max_seats)
		LBAD(1, "header: %u seats, ruleset '%s' takes %u to %u",
		    hdr.nseats, hdr.ruleset, m->pl->desc->min_seats,
		    m->pl->desc->max_seats);
	m->nseats = hdr.nseats;
	m->scripted = hdr.scripted;
	m->created = hdr.time;
	m->setup = malloc(hdr.setup_len);
	if (m->path == NULL || m->setup == NULL)
		LBAD(0, "out of memory");
	memcpy(m->setup, hdr.setup, hdr.setup_len);
	m->setup_len = hdr.setup_len;
	if (hdr.ndice > 0) {
		m->dice = malloc(hdr.ndice * sizeof(*m->dice));
		if (m->dice == NULL)
			LBAD(0, "out of memory");
		memcpy(m->dice, hdr.dice, hdr.ndice * sizeof(*m->dice));
		m->ndice = hdr.ndice;
	}
	/* The server seed: from the final record when there is one, else
	 * opened with our key. */
	if (s.n > 1) {
		struct evlog_rec fin;

		if (evlog_decode(s.fr[s.n - 1].p, s.fr[s.n - 1].len, &fin, err,
		    sizeof(err)) == 0 && fin.kind == EVK_FINAL) {
			uint8_t ck[EVLOG_HASH_LEN];

			evlog_seed_commit(fin.server_seed, ck);
			if (memcmp(ck, hdr.commit, sizeof(ck)) != 0) {
				evlog_rec_release(&fin);
				LBAD(1, "final record: the revealed server seed "
				    "does not match the header's commitment");
			}
			memcpy(m->server_seed, fin.server_seed,
			    EVLOG_SEED_LEN);
			seed_ok = 1;
			skip = lazy;
		}
		evlog_rec_release(&fin);
	}
	if (!seed_ok) {
		uint8_t ck[EVLOG_HASH_LEN];

		if (memcmp(hdr.pubkey, ms->key.pk, EVLOG_PK_LEN) != 0 ||
		    evlog_open_seed(&ms->key, hdr.sealed, hdr.sealed_len,
		    m->server_seed) != 0)
			LBAD(0, "the server seed was sealed with another "
			    "daemon key (refd.key changed); the match cannot "
			    "be resumed");
		evlog_seed_commit(m->server_seed, ck);
		if (memcmp(ck, hdr.commit, sizeof(ck)) != 0)
			LBAD(1, "header: the sealed server seed does not match "
			    "the commitment");
	}

	for (i = 1; i < s.n; i++) {
		const struct evlog_frame *f = &s.fr[i];

		evlog_rec_release(&r);
		if (evlog_decode(f->p, f->len, &r, err, sizeof(err)) != 0)
			LBAD(1, "record %zu at offset %" PRIu64 ": %s", i,
			    f->off, err);
		if (r.n != i)
			LBAD(1, "record %zu at offset %" PRIu64 ": number: "
			    "found %" PRIu64 "; records are missing or out of "
			    "order", i, f->off, r.n);
		if (memcmp(r.prev, s.fr[i - 1].hash, EVLOG_HASH_LEN) != 0)
			LBAD(1, "record %zu at offset %" PRIu64 ": the hash "
			    "chain is broken (prev does not match record %zu)",
			    i, f->off, i - 1);
		if (m->finished)
			LBAD(1, "record %zu: a %s record after the final one",
			    i, evlog_kind_name(r.kind));
		if (r.kind != EVK_CHECKPOINT && r.seq != m->seq + 1)
			LBAD(1, "record %zu: seq: expected %" PRIu64 ", found %"
			    PRIu64, i, m->seq + 1, r.seq);
		switch (r.kind) {
		case EVK_JOIN:
			if (r.seat < 0 || (uint32_t)r.seat >= m->nseats ||
			    m->seat[r.seat].taken || r.share_len >
			    EVLOG_SHARE_MAX)
				LBAD(1, "record %zu: join of seat %d is not "
				    "possible", i, (int)r.seat);
			m->seat[r.seat].taken = 1;
			memcpy(m->seat[r.seat].token_hash, r.token_hash,
			    EVLOG_HASH_LEN);
			if (r.share_len)
				memcpy(m->seat[r.seat].share, r.share,
				    r.share_len);
			m->seat[r.seat].share_len = r.share_len;
			m->joined++;
			m->seq++;
			m->since_ckpt++;
			if (m->joined == m->nseats && !skip) {
				rc = start_game(m, &pending, &c);
				if (rc == REFD_ENOMEM ||
				    c.reject_code == REFD_ENOMEM)
					LBAD(0, "record %zu: the match needs more "
					    "than max-match-memory (%zu bytes); "
					    "raise it and restart", i,
					    ms->cfg.max_match_memory);
				if (rc != REFD_OK)
					LBAD(1, "record %zu: the ruleset's create "
					    "fails on replay: %s", i,
					    c.fault[0] ? c.fault : c.reject_msg);
			}
			break;
		case EVK_START: {
			uint8_t sh[EVLOG_HASH_LEN];

			if (skip) {
				if (m->joined != m->nseats || m->started)
					LBAD(1, "record %zu: start before every "
					    "seat joined", i);
				m->started = 1;
				m->seq++;
				if (add_rec_events(m, &r) != REFD_OK)
					LBAD(0, "out of memory");
				break;
			}
			if (pending == NULL)
				LBAD(1, "record %zu: start before every seat "
				    "joined", i);
			if (game_state_hash(pending, sh) != REFD_OK)
				LBAD(1, "record %zu: cannot hash the state", i);
			if (evlog_compare(&r, &c, sh, err, sizeof(err)) != 0)
				LBAD(1, "record %zu (seq %" PRIu64 ", start): "
				    "replay diverges: %s", i, r.seq, err);
			m->g = pending;
			pending = NULL;
			m->started = 1;
			m->seq++;
			m->since_ckpt++;
			if (keep_commits(m, &c) != REFD_OK ||
			    add_events(m, m->seq, c.ev, c.nev, 0) != REFD_OK)
				LBAD(0, "out of memory");
			break;
		}
		case EVK_CMD: {
			uint8_t sh[EVLOG_HASH_LEN];

			if (!m->started)
				LBAD(1, "record %zu: a command before the "
				    "start", i);
			if ((uint32_t)r.seat >= m->nseats)
				LBAD(1, "record %zu: no seat %d", i,
				    (int)r.seat);
			if (idem_find(m, (uint32_t)r.seat, r.cmd_id) != NULL)
				LBAD(1, "record %zu: command id '%s' of seat %d "
				    "appears twice", i, r.cmd_id, (int)r.seat);
			if (skip) {
				m->seq++;
				lastcmd = idem_add(m, (uint32_t)r.seat, r.cmd_id,
				    r.cmd, r.cmd_len, m->seq);
				if (lastcmd == NULL ||
				    add_rec_events(m, &r) != REFD_OK)
					LBAD(0, "out of memory");
				break;
			}
			rc = game_apply(m->g, (uint32_t)r.seat, r.cmd,
			    r.cmd_len, &c);
			if (rc == REFD_ENOMEM || c.reject_code == REFD_ENOMEM)
				LBAD(0, "record %zu: the match needs more than "
				    "max-match-memory (%zu bytes); raise it and "
				    "restart", i, ms->cfg.max_match_memory);
			if (rc != REFD_OK)
				LBAD(1, "record %zu (seq %" PRIu64 "): replay "
				    "rejects the command: %s", i, r.seq,
				    c.fault[0] ? c.fault : c.reject_msg);
			/*
			 * Draws, events and commitments are compared at
			 * every record, the state hash (serializing and
			 * hashing the whole state, most of a replay's cost)
			 * every RECOVER_HASH_EVERY commands and at the last
			 * one; refctl verify checks every record.
			 */
			unchecked = r.seq % RECOVER_HASH_EVERY != 0 ? i : 0;
			if (unchecked)
				memcpy(want, r.state, sizeof(want));
			else if (game_state_hash(m->g, sh) != REFD_OK)
				LBAD(1, "record %zu: cannot hash the state", i);
			if (evlog_compare(&r, &c, unchecked ? NULL : sh, err,
			    sizeof(err)) != 0)
				LBAD(1, "record %zu (seq %" PRIu64 "): replay "
				    "diverges: %s", i, r.seq, err);
			m->seq++;
			m->since_ckpt++;
			lastcmd = idem_add(m, (uint32_t)r.seat, r.cmd_id,
			    r.cmd, r.cmd_len, m->seq);
			if (lastcmd == NULL || keep_commits(m, &c) != REFD_OK ||
			    add_events(m, m->seq, c.ev, c.nev, 0) != REFD_OK)
				LBAD(0, "out of memory");
			break;
		}
		case EVK_CHECKPOINT:
			if (r.at != m->seq)
				LBAD(1, "record %zu: checkpoint at seq %" PRIu64
				    ", expected %" PRIu64, i, r.at, m->seq);
			/* Only the last checkpoint's signature is checked
			 * (below): it signs the hash chain, so it vouches for
			 * every record before it as the earlier ones would,
			 * and an ed25519 check costs more than replaying
			 * dozens of records. */
			ck = i;
			m->since_ckpt = 0;
			break;
		case EVK_FINAL:
			if (check_sig(&hdr, f) != 0)
				LBAD(1, "record %zu: final signature is invalid",
				    i);
			ck = 0;		/* the final signature covers them */
			m->seq++;
			m->finished = 1;
			snprintf(m->why, sizeof(m->why), "%s", r.why);
			m->result = malloc(r.result_len);
			if (m->result == NULL)
				LBAD(0, "out of memory");
			memcpy(m->result, r.result, r.result_len);
			m->result_len = r.result_len;
			if (r.nev > 0 && add_event(m, m->seq, 0,
			    REFD_SEAT_PUBLIC, r.ev[0].bytes, r.ev[0].len,
			    0) != REFD_OK)
				LBAD(0, "out of memory");
			if (lastcmd != NULL && strcmp(r.why, "result") == 0)
				lastcmd->finished = 1;
			break;
		default:
			LBAD(1, "record %zu: a second header", i);
		}
	}
	evlog_rec_release(&r);
	if (unchecked) {
		uint8_t sh[EVLOG_HASH_LEN];

		if (game_state_hash(m->g, sh) != REFD_OK)
			LBAD(1, "record %zu: cannot hash the state", unchecked);
		if (memcmp(sh, want, sizeof(sh)) != 0)
			LBAD(1, "record %zu: replay diverges: state hash differs "
			    "(checked at the last command; refctl verify names "
			    "the first record that differs)", unchecked);
	}
	if (ck != 0 && check_sig(&hdr, &s.fr[ck]) != 0)
		LBAD(1, "record %zu: checkpoint signature is invalid", ck);
	m->log.size = s.good_end;
	m->log.nrec = s.n;
	memcpy(m->log.last, s.fr[s.n - 1].hash, EVLOG_HASH_LEN);
	if (!m->finished) {
		rc = evlog_reopen(&m->log, path, s.good_end, s.n,
		    s.fr[s.n - 1].hash, err, sizeof(err));
		if (rc != REFD_OK)
			LBAD(0, "%s", err);
		/* Finish what a crash interrupted: the start record after the
		 * last join, or the final record after the last command. */
		if (pending != NULL) {
			struct game *g = pending;

			pending = NULL;
			rc = write_start(m, g, &c);
			if (m->g != g)
				game_destroy(g);
			if (rc != REFD_OK)
				LBAD(0, "cannot write the start record: %s",
				    refd_strerror(rc));
			report(ms, "match '%s': wrote the start record a crash "
			    "interrupted", m->id);
		} else if (m->started) {
			int over;

			if ((rc = check_over(m, &over)) != REFD_OK)
				LBAD(0, "cannot write the final record: %s",
				    refd_strerror(rc));
			if (over) {
				if (lastcmd != NULL)
					lastcmd->finished = 1;
				report(ms, "match '%s': wrote the final record "
				    "a crash interrupted", m->id);
			}
		}
		if (m->log.dirty && ms->cfg.fsync != FSYNC_NEVER)
			evlog_fsync(&m->log);
	}
	evlog_rec_release(&hdr);
	evlog_scan_release(&s);
	call_release(&c);
	match_events_clear(m);
	*out = m;
	return REFD_OK;
bad:
	game_destroy(pending);
	evlog_rec_release(&r);
	evlog_rec_release(&hdr);
	evlog_scan_release(&s);
	call_release(&c);
	match_free(m);
	return *quarantine ? REFD_ELOG : REFD_EINTERNAL;
}

static void
quarantine_log(struct matchset *ms, const char *path, const char *name,
    const char *why)
{
	char dst[4096];
	struct stat st;
	int k;

	snprintf(dst, sizeof(dst), "%s/%s", ms->qdir, name);
	for (k = 1; k < 1000 && stat(dst, &st) == 0; k++)
		snprintf(dst, sizeof(dst), "%s/%s.%d", ms->qdir, name, k);
	if (rename(path, dst) != 0) {
		report(ms, "log '%s': %s; cannot move it to '%s': %s; the "
		    "match is not resumed", path, why, dst, strerror(errno));
		return;
	}
	report(ms, "log '%s': %s; moved to '%s' (not truncated: inspect it "
	    "with 'refctl verify %s')", path, why, dst, dst);
}

static int
cmp_created(const void *a, const void *b)
{
	const struct match *x = *(struct match *const *)a;
	const struct match *y = *(struct match *const *)b;

	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return strcmp(x->id, y->id);
}

static int
make_dir(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (mkdir(path, 0700) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "state directory '%s': cannot create: %s",
		    path, strerror(errno));
		return REFD_ELOGIO;
	}
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "state directory '%s': not a directory",
		    path);
		return REFD_ELOGIO;
	}
	return REFD_OK;
}

/* One matchset per state directory: two would append to the same logs. */
static int
lock_state(struct matchset *ms, char *err, size_t errlen)
{
	char path[4096], pid[32];
	int n;

	snprintf(path, sizeof(path), "%s/refd.lock", ms->state_dir);
	ms->lockfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (ms->lockfd < 0) {
		snprintf(err, errlen, "state directory '%s': cannot open '%s': "
		    "%s", ms->state_dir, path, strerror(errno));
		return REFD_ELOGIO;
	}
	if (flock(ms->lockfd, LOCK_EX | LOCK_NB) != 0) {
		n = (int)pread(ms->lockfd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		snprintf(err, errlen, "state directory '%s': in use by another "
		    "refd%s%s%s; stop it first (its public key is in "
		    "'%s/refd.pub')", ms->state_dir, pid[0] ? " (pid " : "",
		    pid, pid[0] ? ")" : "", ms->state_dir);
		return REFD_ELOGIO;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(ms->lockfd, 0) != 0 ||
	    pwrite(ms->lockfd, pid, (size_t)n, 0) != n) {
		/* The pid is only informative. */
	}
	return REFD_OK;
}

int
matchset_read_pubkey(const char *state_dir, uint8_t pk[32], char *err,
    size_t errlen)
{
	struct evlog_key k;
	int created, rc;

	rc = evlog_key_load(state_dir, &k, &created, err, errlen);
	if (rc == REFD_OK)
		memcpy(pk, k.pk, 32);
	evlog_key_release(&k);
	return rc;
}

int
matchset_create(const struct match_config *cfg, const struct registry *reg,
    void (*rep)(void *arg, const char *line), void *arg,
    struct matchset **out, char *err, size_t errlen)
{
	struct matchset *ms;
	char path[4096], hex[2 * EVLOG_PK_LEN + 1];
	struct dirent *de;
	DIR *d;
	int rc, created;
	size_t recovered = 0, finished = 0, failed = 0;

	*out = NULL;
	if (cfg->state_dir == NULL || cfg->state_dir[0] == '\0') {
		snprintf(err, errlen, "state directory: not set");
		return REFD_EARG;
	}
	ms = calloc(1, sizeof(*ms));
	if (ms == NULL) {
		snprintf(err, errlen, "out of memory");
		return REFD_ENOMEM;
	}
	ms->lockfd = -1;
	ms->cfg = *cfg;
	ms->reg = reg;
	ms->report = rep;
	ms->report_arg = arg;
	ms->state_dir = strdup(cfg->state_dir);
	snprintf(path, sizeof(path), "%s/matches", cfg->state_dir);
	ms->dir = strdup(path);
	snprintf(path, sizeof(path), "%s/quarantine", cfg->state_dir);
	ms->qdir = strdup(path);
	ms->w = refd_mpw_create();
	if (ms->state_dir == NULL || ms->dir == NULL || ms->qdir == NULL ||
	    ms->w == NULL) {
		matchset_destroy(ms);
		snprintf(err, errlen, "out of memory");
		return REFD_ENOMEM;
	}
	ms->cfg.state_dir = ms->state_dir;
	if ((rc = make_dir(ms->state_dir, err, errlen)) != REFD_OK ||
	    (rc = lock_state(ms, err, errlen)) != REFD_OK ||
	    (rc = make_dir(ms->dir, err, errlen)) != REFD_OK ||
	    (rc = make_dir(ms->qdir, err, errlen)) != REFD_OK ||
	    (rc = evlog_key_load(ms->state_dir, &ms->key, &created, err,
	    errlen)) != REFD_OK) {
		matchset_destroy(ms);
		return rc;
	}
	hex_encode(ms->key.pk, EVLOG_PK_LEN, hex);
	if (created)
		report(ms, "created the signing key '%s/refd.key'; public key "
		    "%s", ms->state_dir, hex);
	d = opendir(ms->dir);
	if (d == NULL) {
		snprintf(err, errlen, "state directory '%s': cannot read: %s",
		    ms->dir, strerror(errno));
		matchset_destroy(ms);
		return REFD_ELOGIO;
	}
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		struct match *m;
		char why[768];
		int q;

		if (l < 5 || strcmp(de->d_name + l - 4, ".log") != 0 ||
		    de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", ms->dir, de->d_name);
		rc = load_log(ms, path, 1, &m, &q, why, sizeof(why));
		if (rc != REFD_OK) {
			failed++;
			if (q)
				quarantine_log(ms, path, de->d_name, why);
			else
				report(ms, "log '%s': %s", path, why);
			continue;
		}
		if (add_match(ms, m) != REFD_OK) {
			match_free(m);
			failed++;
			continue;
		}
		if (m->finished)
			finished++;
		else
			recovered++;
	}
	closedir(d);
	if (ms->n > 1)
		qsort(ms->m, ms->n, sizeof(*ms->m), cmp_created);
	if (failed > 0)
		report(ms, "recovered %zu unfinished and %zu finished matches; "
		    "%zu logs could not be resumed", recovered, finished,
		    failed);
	else if (recovered + finished > 0)
		report(ms, "recovered %zu unfinished and %zu finished matches",
		    recovered, finished);
	*out = ms;
	return REFD_OK;
}

int
match_head(struct match *m, uint64_t *records, uint64_t *seq,
    uint8_t hash[EVLOG_HASH_LEN], uint8_t sig[EVLOG_SIG_LEN],
    struct match_err *e)
{
	if (m->log.fd >= 0 && m->log.dirty && evlog_fsync(&m->log) != 0)
		return fail(e, REFD_ELOGIO, "match '%s': the log cannot be "
		    "made durable", m->id);
	*records = m->log.nrec;
	*seq = m->seq;
	memcpy(hash, m->log.last, EVLOG_HASH_LEN);
	evlog_head_sign(&m->ms->key, m->id, *records, *seq, hash, sig);
	return 0;
}
