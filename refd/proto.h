/*
 * proto.h - protocol v1: envelope decoding, op dispatch, replies.
 *
 * A request is one msgpack map {v, id, op, ...arguments}; a reply is
 * {v, id, ok: true, result} or {v, id, ok: false, error: {code, name,
 * message, detail}}.  See refd-protocol(7).  Single-threaded: called from
 * the server's event loop only.
 */
#ifndef REFD_PROTO_H
#define REFD_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "buf.h"
#include "config.h"
#include "match.h"

#define PROTO_VERSION 1
#define PROTO_MINOR 1	/* 1.1: seats in create, n on public events, unknown setup keys refused */
#define PROTO_MATCHES_PAGE 1000	/* matches per page of the matches op */

struct proto_stats {
	uint64_t requests;
	uint64_t ok;
	uint64_t errors;
	uint64_t rate_limited;
	uint64_t conn_limited;	/* over max-connection-memory */
	uint64_t too_big;
	uint64_t malformed;
	uint64_t turns;
	uint64_t max_batch;
	uint64_t syncs;
	uint64_t sync_failures;
	uint64_t published;
	uint64_t commands;	/* accepted act records */
	uint64_t rejected;	/* act refused by the rules */
	uint64_t connections;	/* currently tracked by the rate limiter */
};

struct proto {
	const struct config *cfg;
	const struct registry *reg;
	struct matchset *ms;
	const char *const *publish;	/* event endpoints, for hello */
	size_t npublish;
	time_t started;
	uint32_t conn;		/* the connection of the request being
				 * handled (0: unknown), set by the server */
	time_t last_expiry;	/* the last waiting-expiry sweep */
	struct proto_stats st;
	/* Matches changed in this loop turn, for publishing. */
	struct match **touched;
	size_t ntouched, captouched;
};

/* Embedded: pointers are borrowed and must outlive the proto. */
void proto_init(struct proto *p, const struct config *cfg,
    const struct registry *reg, struct matchset *ms);
void proto_release(struct proto *p);

/*
 * Handle one request: append the encoded reply to `reply` (always one
 * reply, even for garbage).  Returns 1 when the request wrote to a match
 * log (the reply may only be sent after matchset_sync), else 0.
 */
/* At most once a second: close the matches that did not start within
 * waiting-expiry (their final records are written like any command's),
 * and evict the finished ones unused for finished-eviction. */
void proto_expire(struct proto *p);
int proto_handle(struct proto *p, const uint8_t *req, size_t len,
    struct buf *reply);

/* An error reply to `req` (its id echoed when it has one), for errors
 * found outside proto_handle: rate limits, sync failures, shutdown. */
void proto_error(struct proto *p, const uint8_t *req, size_t len, int code,
    const char *message, struct buf *reply);

/* proto_error for a limit: the error's detail names the limit and what
 * the request needed. */
void proto_error_limit(struct proto *p, const uint8_t *req, size_t len,
    int code, const char *message, int64_t limit, int64_t got,
    struct buf *reply);

/* Forget the matches touched in this turn. */
void proto_turn_done(struct proto *p);

#endif
