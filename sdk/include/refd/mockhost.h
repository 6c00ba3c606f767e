/*
 * refd/mockhost.h - a host for unit-testing plugin ops without refd.
 *
 * Part of the SDK helper library (librefdsdk.a).  A mock gives a plugin the
 * same struct refd_host table refd gives it, but the draws come from a
 * script (or from a seeded generator) and everything the plugin emits,
 * outputs, rejects, draws, commits or logs is kept for the test to read:
 *
 *	refd_mock *m = refd_mock_create();
 *	const struct refd_plugin *p = &refd_plugin_v1;	// link the plugin in
 *	void *pdata, *content, *state;
 *	int64_t dice[] = { 14, 6 };
 *
 *	p->ops->init(refd_mock_ctx(m), refd_mock_host(m), &pdata);
 *	p->ops->content_load(refd_mock_ctx(m), pdata, bytes, len, &content);
 *	p->ops->create(refd_mock_ctx(m), pdata, content, setup, slen, 2,
 *	    &state);
 *	refd_mock_clear(m);
 *	refd_mock_script(m, dice, 2);
 *	rc = p->ops->apply(refd_mock_ctx(m), state, 0, cmd, clen);
 *	// refd_mock_nevents(m), refd_mock_event(m, 0, &len, &seat),
 *	// refd_mock_reject_rule(m), refd_mock_draws_left(m) ...
 *
 * Draws follow refd exactly: roll gives 1..sides, uniform 0..bound-1, and
 * shuffle of n items draws uniform(i) for i = n, n-1, .., 2 and swaps item
 * i-1 with the drawn one, so a script written for the mock replays the
 * same way in refd's scripted-dice scenarios.  A scripted value out of
 * range or a script that runs out gives REFD_ESCRIPT, as in refd.
 *
 * Like refd, the mock copies what the plugin hands it.  Events must be one
 * msgpack map and output well-formed msgpack; anything else is recorded as
 * a fault (refd_mock_fault) and the call returns REFD_EPLUGINFAULT.
 *
 * One mock serves one test thread.  All returned pointers are owned by the
 * mock and valid until the next refd_mock_clear or refd_mock_destroy.
 *
 * This header is part of the stable SDK.  It compiles alone as C99 and C++.
 */
#ifndef REFD_MOCKHOST_H
#define REFD_MOCKHOST_H

#include <stddef.h>
#include <stdint.h>

#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct refd_mock refd_mock;

/* NULL when out of memory.  destroy(NULL) is a no-op. */
refd_mock *refd_mock_create(void);
void refd_mock_destroy(refd_mock *m);

/* The host table for init, and the ctx to pass to every op. */
const struct refd_host *refd_mock_host(refd_mock *m);
refd_ctx *refd_mock_ctx(refd_mock *m);

/*
 * Draws.  refd_mock_script replaces the script with a copy of vals (0 or
 * REFD_ENOMEM); draws take from it in order.  Without a script (n = 0) the
 * draws come from a generator seeded by refd_mock_seed (default seed 1).
 */
int refd_mock_script(refd_mock *m, const int64_t *vals, size_t n);
size_t refd_mock_draws_left(const refd_mock *m);
void refd_mock_seed(refd_mock *m, uint64_t seed);

/*
 * What refd allows depends on the op being called: draws only in create,
 * apply and redeal; events only in create and apply; commitments only in
 * create, apply and redeal; no output during apply.  Tell the mock which
 * op the next calls belong to and it refuses the same things, with
 * REFD_EPLUGINFAULT and a refd_mock_fault message.  REFD_MOCK_ANY (the
 * default) allows everything.
 */
enum refd_mock_op {
	REFD_MOCK_ANY = 0,
	REFD_MOCK_INIT = 1,
	REFD_MOCK_CONTENT = 2,
	REFD_MOCK_CREATE = 3,
	REFD_MOCK_APPLY = 4,
	REFD_MOCK_QUERY = 5,	/* describe, legal, pending, view, result,
				 * serialize, restore, destroy */
	REFD_MOCK_REDEAL = 6
};
void refd_mock_op(refd_mock *m, int op);

/* Forget captured events, output, draws, commitments, logs, rejection
 * and fault; the script, seed, op and memory accounting stay. */
void refd_mock_clear(refd_mock *m);

/* Events, in emission order: bytes, length and seat (REFD_SEAT_PUBLIC or
 * a seat).  NULL for i out of range. */
size_t refd_mock_nevents(const refd_mock *m);
const uint8_t *refd_mock_event(const refd_mock *m, size_t i, size_t *len,
    int32_t *seat);

/* Output appended by describe, legal, view, result or serialize. */
const uint8_t *refd_mock_output(const refd_mock *m, size_t *len);

/* The first rejection since the last clear: code 0 when none; rule and
 * message "" when none. */
int refd_mock_reject_code(const refd_mock *m);
const char *refd_mock_reject_rule(const refd_mock *m);
const char *refd_mock_reject_message(const refd_mock *m);

/* Draws made: kind 1 roll, 2 uniform; bound = sides or bound. */
size_t refd_mock_ndraws(const refd_mock *m);
int refd_mock_draw(const refd_mock *m, size_t i, int *kind,
    uint32_t *bound, uint32_t *value, const char **why);

/* Commitments: zone, seat and the committed bytes. */
size_t refd_mock_ncommits(const refd_mock *m);
const char *refd_mock_commit(const refd_mock *m, size_t i, int32_t *seat,
    const uint8_t **data, size_t *len);

/* Log lines ("level: message\n" each), "" when none. */
const char *refd_mock_logs(const refd_mock *m);

/* The first misuse the mock saw ("" when none), e.g. an event that is not
 * a msgpack map. */
const char *refd_mock_fault(const refd_mock *m);

/* Bytes allocated through host->alloc/realloc and not yet freed. */
size_t refd_mock_live_bytes(const refd_mock *m);
/* Fail every allocation from now on (1) or not (0), to test ENOMEM paths. */
void refd_mock_fail_alloc(refd_mock *m, int fail);

#ifdef __cplusplus
}
#endif

#endif /* REFD_MOCKHOST_H */
