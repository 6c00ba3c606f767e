/*
 * worker.h - running a plugin's games in a worker process, so that a
 * plugin that crashes or never returns costs one command, not the daemon.
 *
 * refd forks one worker per plugin (lazily, at the first game op, and
 * again after the worker died).  The worker is a copy of refd with the
 * plugin already loaded; it holds the game states and runs the ops on
 * them with the same engine code as in-process mode (draws, events,
 * commitments, the memory bound and the fault checks all happen there).
 * The parent keeps for every game its draw counters, which it sends with
 * every op, and the latest serialized state, which the worker returns
 * after every op that may change the state.  One op is one round trip on
 * a socketpair: a frame of a 32-bit length (native byte order: both ends
 * are the same program) and a body.
 *
 * Every op has a time budget (plugin-timeout).  A worker that dies or
 * overruns is killed and reaped; the op fails with REFD_EPLUGINFAULT and
 * call->fault says what happened ("plugin crashed: ..." or "plugin timed
 * out: ...").  The next op on any game of the plugin starts a new worker
 * and restores each game it touches from its saved state, so other matches
 * lose nothing; the match whose command failed is rebuilt from its log by
 * match.c.
 *
 * Used by engine.c only (game_* dispatch here when pl->worker is set).
 * Single-threaded, like the engine.
 */
#ifndef REFD_WORKER_H
#define REFD_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"

enum worker_op {
	WOP_CREATE = 1,
	WOP_RESTORE,
	WOP_DESTROY,
	WOP_APPLY,
	WOP_LEGAL,
	WOP_PENDING,
	WOP_VIEW,
	WOP_RESULT,
	WOP_SERIALIZE,
	WOP_REDEAL,
	WOP_LOAD
};

/* The argument that makes refd (or any program calling worker_main
 * first) a plugin worker: refd starts workers as /proc/self/exe with it. */
#define WORKER_ARG "--plugin-worker"

/* When argv says so, become a plugin worker and never return; otherwise
 * return at once.  Call first thing in main of a program that runs
 * plugins in workers. */
void worker_main(int argc, char **argv);

/* Limits of every worker from now on: address space in bytes (0: none)
 * and CPU seconds over a worker's life (0: none). */
void worker_set_limits(uint64_t as_bytes, uint32_t cpu_s);

/* Open a plugin without running any of its code in this process: the
 * checks on the file here, the loader, init and describe in a new worker
 * (then every op of its games); pl->desc and pl->describe come from the
 * worker.  plugin_set_content hands content to the worker. */
int plugin_open_isolated(const char *path, unsigned timeout_ms,
    struct plugin **out, char *err, size_t errlen);
/* plugin_set_content for a plugin with a worker. */
int worker_set_content(struct plugin *pl, struct call *c);

/* Run pl's games in a worker from now on; timeout_ms > 0 bounds each op.
 * No process starts until the first game op.  0, or REFD_ENOMEM. */
int plugin_isolate(struct plugin *pl, unsigned timeout_ms);
/* Stop the worker (if any) and forget it; from plugin_close. */
void worker_detach(struct plugin *pl);
/* Workers started and faults seen, for all plugins (for stats). */
void worker_counts(uint64_t *started, uint64_t *crashed, uint64_t *timeouts);

/* The engine's game_create/game_restore for a plugin with a worker. */
int worker_game_create(struct plugin *pl, int restore, const uint8_t *bytes,
    size_t len, uint32_t nseats, const struct rng *rng, size_t memlimit,
    struct game **out, struct call *c);
/* Free the game and its state in the worker (if the worker holds it). */
void worker_game_destroy(struct game *g);
/* One op (WOP_APPLY .. WOP_REDEAL) on g: seat is the op's seat argument,
 * bytes the command for apply; *seats gets pending's answer.  Returns
 * what the op returned in the worker, or REFD_EPLUGINFAULT. */
int worker_game_op(struct game *g, enum worker_op op, int32_t seat,
    const uint8_t *bytes, size_t len, uint64_t *seats, struct call *c);

#endif
