/*
 * match.h - matches: seats, tokens, fair seeds, commands, events and the
 * per-match event log.  The daemon's protocol layer (proto.c, server.c)
 * calls this; it never touches a socket.  Single-threaded: the event loop
 * owns every object here.
 *
 * Lifecycle of a match:
 *   match_create    header record (setup, seats, seed commitment, hashes)
 *   match_join      one join record per seat (token hash, seed share);
 *                   when every seat is in, the match seed is derived and
 *                   the plugin's create runs (start record: its events,
 *                   draws and commitments)
 *   match_act       one record per accepted command
 *   (checkpoints)   signed every `checkpoint_every` records
 *   final record    result, revealed server seed, openings, signature
 *
 * Group commit: match_create/join/act write their record with write(2)
 * and mark the log dirty; nothing is durable until matchset_sync().  The
 * caller acknowledges a command only after matchset_sync() returned 0 for
 * the loop turn in which the command was applied (fsync policy "always").
 */
#ifndef REFD_MATCH_H
#define REFD_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "engine.h"

#define MATCH_ID_LEN 16		/* lowercase hex characters */
#define MATCH_TOKEN_LEN 32	/* lowercase hex characters of a seat token */

enum fsync_policy {
	FSYNC_ALWAYS = 0,
	FSYNC_BATCH = 1,	/* at most once a second */
	FSYNC_NEVER = 2
};

struct match_config {
	const char *state_dir;	/* logs in <state_dir>/matches/ */
	enum fsync_policy fsync;
	uint32_t checkpoint_every;	/* records between signed checkpoints */
	uint32_t max_matches;
	size_t max_match_memory;	/* plugin memory per match, bytes */
	size_t max_log_bytes;		/* per match */
	int allow_scripted;		/* accept scripted dice at create */
};

/* Loaded rulesets, by name. */
struct registry {
	struct plugin **pl;
	size_t n;
};
struct plugin *registry_find(const struct registry *r, const char *name);

struct matchset;
struct match;

/* Errors carry a code from errors.h and a sentence (and a rule id when a
 * plugin rejected a command). */
struct match_err {
	int code;
	char rule[24];
	char message[512];
	/* REFD_EPLUGINFAULT: "crash", "timeout" (the plugin's worker died or
	 * overran plugin-timeout), "fault" (it misused the host table) or
	 * "suspended" (three crashes or timeouts in a row: the match no
	 * longer runs the plugin until refd restarts); else NULL.  A static
	 * string. */
	const char *reason;
};

/*
 * Create the set, lock <state_dir> (one set per directory: a second
 * refd on it is refused), load the daemon's signing key (created on first
 * start in <state_dir>/refd.key, mode 0600) and recover every match log found
 * under <state_dir>/matches: torn final records are truncated and
 * reported, broken logs are moved to <state_dir>/quarantine with a clear
 * message, unfinished matches are rebuilt and resume.  `report` receives
 * one line per notable event (for the daemon log).
 */
int matchset_create(const struct match_config *cfg, const struct registry *reg,
    void (*report)(void *arg, const char *line), void *arg,
    struct matchset **out, char *err, size_t errlen);
void matchset_destroy(struct matchset *ms);
/* fsync every log written since the last call (per the policy).  0, or a
 * negative code when a log could not be made durable. */
int matchset_sync(struct matchset *ms);
struct match *matchset_find(struct matchset *ms, const char *id);
size_t matchset_count(const struct matchset *ms);
/* Call f for each match (ids in creation order). */
void matchset_foreach(struct matchset *ms,
    void (*f)(struct match *m, void *arg), void *arg);
/* The daemon's ed25519 public key, 32 bytes. */
const uint8_t *matchset_pubkey(const struct matchset *ms);
/* The public key of the daemon keeping state in state_dir (creating the
 * key pair when there is none), without opening or recovering any log:
 * safe while a refd runs on that directory.  0, or a negative code. */
int matchset_read_pubkey(const char *state_dir, uint8_t pk[32], char *err,
    size_t errlen);

struct match_create_args {
	const char *ruleset;
	const uint8_t *setup;	/* msgpack map, or NULL with scenario */
	size_t setup_len;
	const char *scenario;	/* name in the ruleset content, or NULL */
	uint32_t nseats;	/* 0: the ruleset's minimum */
	const int64_t *dice;	/* scripted draws (tests), or NULL */
	size_t ndice;
	int scripted;		/* nonzero: scripted-dice match, never ranked */
};

int match_create(struct matchset *ms, const struct match_create_args *a,
    struct match **out, struct match_err *e);

/*
 * Take seat `seat` (must be free): `seed` is the seat's seed contribution
 * (any bytes, up to 64; NULL for none).  Writes a fresh random token
 * (MATCH_TOKEN_LEN hex chars + NUL) into token_out.  When this was the
 * last free seat, the match starts (plugin create runs).
 */
int match_join(struct match *m, uint32_t seat, const uint8_t *seed,
    size_t seedlen, char token_out[MATCH_TOKEN_LEN + 1], struct match_err *e);

/* Result of an accepted (or replayed) command. */
struct act_result {
	uint64_t seq;		/* the record's seq */
	int replayed;		/* 1: same command id seen before; nothing applied */
	int finished;		/* the match is over after this command */
};

/*
 * Apply a command.  cmd_id: the client's command id (non-empty string,
 * unique per seat); expected_seq: -1, or the seq the client believes is
 * the latest (a newer one gives REFD_ESTALE).  A rejected command changes
 * nothing and writes nothing.  A repeated cmd_id with the same command
 * returns the first result (replayed = 1); with a different command,
 * REFD_EIDEMPOTENCY.
 */
int match_act(struct match *m, uint32_t seat, const char *token,
    const char *cmd_id, int64_t expected_seq, const uint8_t *cmd,
    size_t len, struct act_result *res, struct match_err *e);

/* Resign a seat (token needed) or abort the match (operator). */
int match_resign(struct match *m, uint32_t seat, const char *token,
    struct match_err *e);
int match_abort(struct match *m, const char *reason, struct match_err *e);
/*
 * Record that seat `seat` (token needed) asks to abort the match; *all is
 * 1 when every seated player has now asked.  The consents live in memory
 * only (a restart forgets them).
 */
int match_consent_abort(struct match *m, uint32_t seat, const char *token,
    int *all, struct match_err *e);
/* Bit i: seat i asked to abort. */
uint64_t match_consents(const struct match *m);
/* The connection that created the match (in memory, for the per-connection
 * count of waiting matches). */
void match_set_creator(struct match *m, uint32_t conn);
/* 1 when unfinished and nobody has joined it yet. */
int match_waiting(const struct match *m);
int match_started(const struct match *m);
int match_broken(const struct match *m);
/* Creation time, seconds since the epoch (from its header). */
int64_t match_created(const struct match *m);
/* Waiting matches (match_waiting): all of them, and those `conn` created. */
void matchset_waiting(const struct matchset *ms, uint32_t conn,
    size_t *total, size_t *mine);
/*
 * Mark a match used now, and bring back its history (events, command ids,
 * openings) from its log when it was evicted.  Call before any op on it
 * but the summary (match_info).  REFD_OK, or REFD_ELOG (the match is then
 * broken).
 */
int match_use(struct match *m, struct match_err *e);
/* Drop the history of finished matches unused for `age` seconds (their
 * logs keep it; match_use brings it back).  Returns how many. */
size_t matchset_evict(struct matchset *ms, uint32_t age);
/* Evictions and revivals since start. */
void matchset_evictions(const struct matchset *ms, uint64_t *evicted,
    uint64_t *revived);
/* The i-th match in creation order, or NULL past the end. */
struct match *matchset_at(const struct matchset *ms, size_t i);

/*
 * Queries.  seat = REFD_SEAT_PUBLIC for spectators (token ignored);
 * otherwise the seat's token is required.  Each appends one msgpack value
 * to out.
 */
int match_legal(struct match *m, uint32_t seat, const char *token,
    struct buf *out, struct match_err *e);
int match_view(struct match *m, int32_t seat, const char *token,
    struct buf *out, struct match_err *e);
int match_pending(struct match *m, uint64_t *seats, struct match_err *e);
/* A page of events: at most limit events and about max_bytes of them
 * (0: no bound), always whole seqs. */
struct ev_page {
	uint64_t limit;
	size_t max_bytes;
};
/* Array of event maps {seq, i, seat?, ...event} with seq > since, one
 * page of them: *until is the seq they are complete through (the match's
 * seq when *more is 0; else ask again with since = *until). */
int match_events_since(struct match *m, uint64_t since, int32_t seat,
    const char *token, const struct ev_page *pg, struct buf *out,
    uint64_t *until, int *more, struct match_err *e);
/* Summary map: id, ruleset, status, seats (taken or not), seq, result. */
int match_info(struct match *m, struct buf *out);
/* The log file's bytes as they are now. */
int match_export(struct match *m, struct buf *out, struct match_err *e);

const char *match_id(const struct match *m);
void match_seed_commit(const struct match *m, char out[2 * 32 + 1]);
uint64_t match_seq(const struct match *m);
uint32_t match_nseats(const struct match *m);
/*
 * The match's head (refd-evlog(5), Heads): the log's record count, the seq
 * and the hash of its last record, signed by the daemon; the log is made
 * durable first, so that a head never names a record a crash could lose.
 */
int match_head(struct match *m, uint64_t *records, uint64_t *seq,
    uint8_t hash[32], uint8_t sig[64], struct match_err *e);
int match_finished(const struct match *m);

/*
 * Public events produced since the last call, for the PUB socket: each
 * element is one msgpack map {match, seq, i, ...event}.  The caller
 * publishes them after matchset_sync() and then calls match_events_clear.
 */
size_t match_new_public(struct match *m, const struct buf **evs);
void match_events_clear(struct match *m);

#endif
