/*
 * evlog.h - the per-match event log: framing, hashing, signing, record
 * encoding and decoding, and the replay checks shared by the daemon's
 * recovery (match.c) and the offline verifier (refctl_verify.c).  The
 * format is documented in refd-evlog(5).
 *
 * File:   "refdlog1" (8 bytes), then frames.
 * Frame:  u32 len (big-endian), u32 ~len, payload (len bytes: one msgpack
 *         map), BLAKE2b-256 of the payload (32 bytes).
 * Chain:  every payload carries "prev", the hash of the frame before it
 *         (32 zero bytes for the header).
 * Sign:   a record with a signature ends with the key "sig" and a 64-byte
 *         bin; the signature is ed25519 over EVLOG_SIG_DOMAIN followed by
 *         the payload with those 64 bytes zeroed.
 *
 * Single-threaded; no global state.
 */
#ifndef REFD_EVLOG_H
#define REFD_EVLOG_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "refd/mp.h"
#include "buf.h"
#include "engine.h"

#define EVLOG_MAGIC "refdlog1"
#define EVLOG_MAGIC_LEN 8
#define EVLOG_FORMAT 1
#define EVLOG_FRAME_HEAD 8
#define EVLOG_HASH_LEN 32
#define EVLOG_FRAME_OVERHEAD (EVLOG_FRAME_HEAD + EVLOG_HASH_LEN)
#define EVLOG_MAX_RECORD (64u << 20)
#define EVLOG_SIG_LEN 64
#define EVLOG_PK_LEN 32
#define EVLOG_SK_LEN 64
#define EVLOG_SEED_LEN 32
#define EVLOG_SHARE_MAX 64
#define EVLOG_SIG_DOMAIN "refd-evlog-v1 signature\n"

/* The daemon's signing key (<state_dir>/refd.key). */
struct evlog_key {
	uint8_t pk[EVLOG_PK_LEN];
	uint8_t sk[EVLOG_SK_LEN];
};

/*
 * Load <state_dir>/refd.key, or create it (mode 0600, and refd.pub with
 * the hex public key) when it does not exist.  *created is set when a new
 * key was made.  0, or a negative code with a sentence in err.
 */
int evlog_key_load(const char *state_dir, struct evlog_key *k, int *created,
    char *err, size_t errlen);
void evlog_key_release(struct evlog_key *k);

/* Seal and open the server seed for the daemon itself (secretbox with a
 * key derived from the daemon's secret key).  sealed: 24-byte nonce,
 * then the box (EVLOG_SEED_LEN + 16 bytes). */
#define EVLOG_SEALED_LEN (24 + 16 + EVLOG_SEED_LEN)
void evlog_seal_seed(const struct evlog_key *k, const uint8_t *seed,
    uint8_t sealed[EVLOG_SEALED_LEN]);
int evlog_open_seed(const struct evlog_key *k, const uint8_t *sealed,
    size_t len, uint8_t seed[EVLOG_SEED_LEN]);

/* Hashes. */
void evlog_hash(const uint8_t *p, size_t len, uint8_t out[EVLOG_HASH_LEN]);
/* Seed commitment: BLAKE2b-256 of the server seed. */
void evlog_seed_commit(const uint8_t *seed, uint8_t out[EVLOG_HASH_LEN]);
/* Match seed: BLAKE2b-256 over a domain string, the server seed and each
 * seat's contribution (u32 big-endian length, bytes) in seat order. */
void evlog_match_seed(const uint8_t *server_seed, const uint8_t *const *share,
    const size_t *share_len, uint32_t nseats, uint8_t out[32]);
/* Token hash: BLAKE2b-256 of the token's text. */
void evlog_token_hash(const char *token, uint8_t out[EVLOG_HASH_LEN]);
/* Commitment hash of an opening, as engine.c computes it. */
void evlog_commit_hash(const uint8_t *salt, size_t saltlen,
    const uint8_t *data, size_t len, uint8_t out[EVLOG_HASH_LEN]);

/* Sign a payload that ends with "sig" and 64 zero bytes, in place. */
int evlog_sign(const struct evlog_key *k, uint8_t *payload, size_t len);
/*
 * A head: the daemon's signed statement that the log of match holds
 * `records` records, the last one of seq `seq` hashing to `hash`.  The
 * signature is ed25519 over EVLOG_HEAD_DOMAIN, the 16-character match id,
 * records and seq as 8 bytes big-endian each, then hash.
 */
#define EVLOG_HEAD_DOMAIN "refd-evlog-v1 head\n"
void evlog_head_sign(const struct evlog_key *k, const char *match,
    uint64_t records, uint64_t seq, const uint8_t hash[EVLOG_HASH_LEN],
    uint8_t sig[EVLOG_SIG_LEN]);
/* 0 when sig is pk's signature of that head, else -1. */
int evlog_head_check(const uint8_t *pk, const char *match, uint64_t records,
    uint64_t seq, const uint8_t hash[EVLOG_HASH_LEN],
    const uint8_t sig[EVLOG_SIG_LEN]);
/* 0 when the payload's signature is valid for pk; -1 when the payload
 * has no signature trailer; -2 when the signature is wrong. */
int evlog_sig_check(const uint8_t *pk, const uint8_t *payload, size_t len);

/* The writer side of one log file. */
struct evlog {
	int fd;
	char *path;
	uint64_t size;		/* bytes written, all complete frames */
	uint64_t nrec;		/* frames written */
	uint8_t last[EVLOG_HASH_LEN];	/* hash of the last frame */
	int dirty;		/* written since the last fsync */
	int64_t synced_at;	/* monotonic ms of the last fsync */
};

/* Create a new log file (it must not exist) and write the magic. */
int evlog_create(struct evlog *l, const char *path, char *err,
    size_t errlen);
/* Open an existing, already validated log for appending: size, nrec and
 * last as the scan found them. */
int evlog_reopen(struct evlog *l, const char *path, uint64_t size,
    uint64_t nrec, const uint8_t last[EVLOG_HASH_LEN], char *err,
    size_t errlen);
/* Append one frame; on a short write the file is cut back to its old
 * size.  hash_out (may be NULL) gets the frame's hash. */
int evlog_append(struct evlog *l, const uint8_t *payload, size_t len,
    uint8_t hash_out[EVLOG_HASH_LEN]);
int evlog_fsync(struct evlog *l);
void evlog_release(struct evlog *l);

/* Reading a file: frames split and their hashes checked. */
struct evlog_frame {
	uint64_t off;		/* of the frame head */
	const uint8_t *p;	/* payload, into evlog_scan.data */
	size_t len;
	uint8_t hash[EVLOG_HASH_LEN];
};

enum evlog_tail {
	EVLOG_CLEAN = 0,	/* every byte belongs to a good frame */
	EVLOG_TORN = 1,		/* the last frame is incomplete or damaged */
	EVLOG_DAMAGED = 2	/* a bad frame with data after it */
};

struct evlog_scan {
	uint8_t *data;
	size_t size;
	struct evlog_frame *fr;
	size_t n;
	size_t good_end;	/* offset after the last good frame */
	int tail;		/* enum evlog_tail */
	int tail_whole;		/* EVLOG_TORN: the last frame is all there
				 * but its hash does not match (its bytes
				 * changed after it was written) */
	char why[256];		/* what is wrong at good_end */
};

/* Read and split a file.  0 (even with a torn or damaged tail: see
 * s->tail), or a negative code when the file cannot be read or is not a
 * log (err says why). */
int evlog_scan_file(const char *path, struct evlog_scan *s, char *err,
    size_t errlen);
int evlog_scan_bytes(const uint8_t *data, size_t size, struct evlog_scan *s,
    char *err, size_t errlen);
void evlog_scan_release(struct evlog_scan *s);

/* Decoded records. */
enum evlog_kind {
	EVK_HEADER = 1,
	EVK_JOIN = 2,
	EVK_START = 3,
	EVK_CMD = 4,
	EVK_CHECKPOINT = 5,
	EVK_FINAL = 6
};

struct evlog_event {
	int32_t seat;
	const uint8_t *bytes;
	size_t len;
};

struct evlog_commit {
	char zone[48];
	int32_t seat;
	uint8_t hash[EVLOG_HASH_LEN];
	const uint8_t *salt;	/* openings only */
	size_t saltlen;
	const uint8_t *data;
	size_t len;
};

struct evlog_rec {
	int kind;
	uint64_t n;		/* record number, header = 0 */
	uint64_t seq;		/* not for checkpoints */
	uint8_t prev[EVLOG_HASH_LEN];
	int64_t time;		/* header and final: unix seconds */
	int has_sig;

	/* header */
	int64_t format;
	char refd_version[32];
	char match[40];
	char ruleset[64];
	char ruleset_version[64];
	uint32_t abi_major, abi_minor;
	uint8_t plugin_hash[EVLOG_HASH_LEN];
	uint8_t content_hash[EVLOG_HASH_LEN];
	char scenario[64];
	const uint8_t *setup;
	size_t setup_len;
	uint32_t nseats;
	uint8_t commit[EVLOG_HASH_LEN];
	int scripted;
	int64_t *dice;
	size_t ndice;
	uint8_t pubkey[EVLOG_PK_LEN];
	const uint8_t *sealed;
	size_t sealed_len;

	/* join (seat), cmd (seat), final (seat of a resignation or -1) */
	int32_t seat;
	uint8_t token_hash[EVLOG_HASH_LEN];
	const uint8_t *share;
	size_t share_len;

	/* start, cmd, final */
	char cmd_id[136];
	const uint8_t *cmd;
	size_t cmd_len;
	struct draw *dr;
	size_t ndr;
	struct evlog_event *ev;
	size_t nev;
	struct evlog_commit *cm;
	size_t ncm;
	uint8_t state[EVLOG_HASH_LEN];

	/* checkpoint */
	uint64_t at;

	/* final */
	char why[16];		/* "result", "resign", "abort", "limit" */
	char reason[256];
	const uint8_t *result;	/* msgpack map */
	size_t result_len;
	uint8_t server_seed[EVLOG_SEED_LEN];
	struct evlog_commit *open;
	size_t nopen;

	refd_mpdoc *doc;
};

/* Decode one payload.  0, or -1 with a sentence naming the field. */
int evlog_decode(const uint8_t *p, size_t len, struct evlog_rec *r,
    char *err, size_t errlen);
void evlog_rec_release(struct evlog_rec *r);
const char *evlog_kind_name(int kind);

/*
 * Encoding.  Each writes one whole payload into w (reset first).  Records
 * with a signature get the trailer; the caller signs with evlog_sign.
 */
struct evlog_header_args {
	const char *match;
	const char *ruleset;
	const char *ruleset_version;
	uint32_t abi_major, abi_minor;
	const uint8_t *plugin_hash;
	const uint8_t *content_hash;
	const char *scenario;	/* or NULL */
	const uint8_t *setup;
	size_t setup_len;
	uint32_t nseats;
	const uint8_t *commit;
	int scripted;
	const int64_t *dice;
	size_t ndice;
	const uint8_t *pubkey;
	const uint8_t *sealed;	/* EVLOG_SEALED_LEN bytes */
	int64_t time;
};
void evlog_enc_header(refd_mpw *w, const uint8_t *prev,
    const struct evlog_header_args *a);
void evlog_enc_join(refd_mpw *w, uint64_t n, uint64_t seq,
    const uint8_t *prev, uint32_t seat, const uint8_t *token_hash,
    const uint8_t *share, size_t share_len);
/* start (cmd == NULL) or cmd: the call's draws, events and commitments. */
void evlog_enc_step(refd_mpw *w, uint64_t n, uint64_t seq,
    const uint8_t *prev, int32_t seat, const char *cmd_id,
    const uint8_t *cmd, size_t cmd_len, const struct call *c,
    const uint8_t *state_hash);
void evlog_enc_checkpoint(refd_mpw *w, uint64_t n, const uint8_t *prev,
    uint64_t at);
/* The final record carries one public event, {"type": "end", "why",
 * "seat"?, "reason"?, "result"}: evlog_end_event writes it alone. */
/*
 * The result map refd writes for a match a seat resigned (loser, the
 * others win once it started), an abort or a limit (loser -1, nobody
 * wins): {"winners", "reason"}, appended to out.  0, or -1 out of memory.
 * Written by match.c, checked by refctl verify.
 */
int evlog_host_result(uint32_t nseats, int started, int32_t loser,
    const char *reason, struct buf *out);
void evlog_end_event(refd_mpw *w, const char *why, int32_t seat,
    const char *reason, const uint8_t *result, size_t result_len);
void evlog_enc_final(refd_mpw *w, uint64_t n, uint64_t seq,
    const uint8_t *prev, const char *why, int32_t seat, const char *reason,
    const uint8_t *result, size_t result_len, const uint8_t *server_seed,
    const struct commitment *open, size_t nopen, int64_t time);

/*
 * Compare what one create/apply call produced against the record: every
 * draw, event and commitment, in order, then the state hash (unless
 * state_hash is NULL).  0, or
 * REFD_EDIVERGE with "field: expected X, found Y" in err (expected = what
 * the replay gives, found = what the log says).
 */
int evlog_compare(const struct evlog_rec *r, const struct call *c,
    const uint8_t *state_hash, char *err, size_t errlen);

/* Wall clock and monotonic milliseconds. */
int64_t evlog_now(void);
int64_t evlog_mono_ms(void);

#endif
