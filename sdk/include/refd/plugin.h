/*
 * refd/plugin.h - the refd ruleset plugin ABI, version 1.
 *
 * A ruleset plugin is a shared object that exports exactly one data symbol,
 * REFD_PLUGIN_ENTRY (refd_plugin_v1 for ABI major 1): a const struct
 * refd_plugin descriptor.  Looking the symbol up and reading the descriptor
 * runs no plugin code, so refd can check a plugin before trusting it.
 *
 * Boundary: only C scalars, opaque handles and msgpack-encoded bytes cross
 * it.  No msgpack-c, nanomsg or libc structure appears here, so either side
 * can change those libraries without breaking the ABI.
 *
 * Compatibility rules (see refd-plugin(3)):
 *  - every struct starts with (or carries) a size field; the reader uses
 *    min(size, sizeof) and treats missing trailing members as absent;
 *  - structs and enums are append-only; values are explicit and never
 *    renumbered; members are never removed or reordered;
 *  - a new minor version only appends; a new major renames the entry symbol;
 *  - the first 12 bytes of the descriptor (magic, abi_major, abi_minor,
 *    size) keep their layout in every major, so any refd can explain why
 *    it refuses any plugin;
 *  - refd loads a plugin built against any minor up to its own, and
 *    refuses a newer minor (the plugin may call host members refd lacks).
 *
 * Threading and ownership contract:
 *  - refd calls a plugin from one thread at a time per plugin instance.
 *    Ops on different match states may in a later minor run on different
 *    threads, so a plugin keeps no mutable global state: everything lives
 *    in the per-load data (init), the loaded content, or the match state.
 *  - Every byte buffer the host passes in is borrowed for the duration of
 *    the call only.  Bytes the plugin hands to the host (emit, output,
 *    reject) are copied by the host before the call returns.
 *  - Memory the plugin allocates for a state or content is owned by the
 *    plugin and released by destroy / content_free.  Plugins should use
 *    host->alloc/host->free so the host can account and bound memory.
 *  - The host table given to init is the same const object for every load
 *    and lives as long as the process, so a plugin may keep its address in
 *    a static pointer (as sqlite3ext.h's sqlite3_api); nothing else global
 *    may change after init.
 *  - ctx is valid only during the call it was passed to.  fini and
 *    content_free get no ctx: they call host->free(NULL, p), which is
 *    valid for memory from any ctx.
 *  - ELF constructors and destructors run when the file is opened, before
 *    any check: a plugin must not have any.
 *  - A plugin uses no clock, no file, no socket, no libc rand, no floating
 *    point in anything that decides an outcome, and no randomness except
 *    the host's draws.  The same inputs and draws give the same outputs.
 *  - apply either accepts the command (returns REFD_OK, may emit events and
 *    consume draws) or rejects it through host->reject (returns the
 *    negative code it got back).  A rejected command must leave the state
 *    exactly as it was; a plugin that cannot promise that sets
 *    REFD_PF_ROLLBACK and the host snapshots the state around apply.
 *    Events emitted during a rejected apply are discarded by the host.
 *
 * This header is part of the stable SDK.  It compiles alone as C99 and C++.
 */
#ifndef REFD_PLUGIN_H
#define REFD_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

#define REFD_ABI_MAJOR 1
#define REFD_ABI_MINOR 0

/* "REFD" in ASCII, stored as a native integer. */
#define REFD_PLUGIN_MAGIC 0x52454644u

#define REFD_ENTRY_NAME_(major) refd_plugin_v##major
#define REFD_ENTRY_NAME(major) REFD_ENTRY_NAME_(major)
/* The data symbol a plugin built against this header exports. */
#define REFD_PLUGIN_ENTRY REFD_ENTRY_NAME(REFD_ABI_MAJOR)
#define REFD_PLUGIN_ENTRY_STR "refd_plugin_v1"

/* Seat numbers: 0 .. nseats-1; these stand for everyone else. */
#define REFD_SEAT_PUBLIC (-1)	/* emit: a public event; view: spectators */
#define REFD_MAX_SEATS 32

/* Log levels for host->log. */
enum refd_log_level {
	REFD_LOG_ERROR = 0,
	REFD_LOG_WARN = 1,
	REFD_LOG_INFO = 2,
	REFD_LOG_DEBUG = 3
};

/*
 * Plugin flags (struct refd_plugin.flags): what the plugin provides or asks.
 * Unknown bits are ignored by the host.
 */
enum refd_plugin_flag {
	REFD_PF_ROLLBACK = 1u << 0,	/* host snapshots state around apply */
	REFD_PF_HIDDEN = 1u << 1,	/* the game has hidden information */
	REFD_PF_SEALED_SETUP = 1u << 2	/* seats submit sealed setup choices */
};

/*
 * Host capabilities (struct refd_plugin.required_caps): what the plugin
 * cannot work without.  The loader refuses a plugin that requires a bit
 * this host does not know.  Append-only.
 */
enum refd_host_cap {
	REFD_CAP_DRAWS = 1u << 0,	/* roll / uniform / shuffle */
	REFD_CAP_EVENTS = 1u << 1,	/* emit public and private events */
	REFD_CAP_COMMIT = 1u << 2	/* hidden-zone commitments */
};
#define REFD_HOST_CAPS_V1_0                                                    \
	((uint64_t)(REFD_CAP_DRAWS | REFD_CAP_EVENTS | REFD_CAP_COMMIT))

/* Opaque per-call context the host passes to every op. */
typedef struct refd_ctx refd_ctx;

/*
 * The host API table, handed to the plugin's init and valid until fini.
 * Append-only: a plugin built against an older minor sees a prefix of it,
 * and a plugin must check `size` before using a member added after 1.0
 * (REFD_HOST_HAS(host, member)).
 */
struct refd_host {
	uint32_t size;		/* sizeof(struct refd_host) as the host built it */
	uint16_t abi_major;
	uint16_t abi_minor;
	uint64_t caps;		/* enum refd_host_cap bits this host provides */

	/* Memory.  Never returns NULL for n > 0 unless the match is over its
	 * memory bound; then the plugin must fail the op with REFD_ENOMEM. */
	void *(*alloc)(refd_ctx *ctx, size_t n);
	void *(*realloc)(refd_ctx *ctx, void *p, size_t n);
	void (*free)(refd_ctx *ctx, void *p);

	/* Diagnostics for operators, never part of the game record. */
	void (*log)(refd_ctx *ctx, int level, const char *msg);

	/*
	 * Reject the current command or input: code from errors.h (REFD_E*),
	 * rule id from the ruleset spec ("R000-47", may be NULL) and one
	 * sentence a player understands.  Returns `code` so a plugin writes
	 * `return host->reject(ctx, REFD_EILLEGAL, "R000-47", "...");`.
	 */
	int (*reject)(refd_ctx *ctx, int code, const char *rule,
	    const char *message);

	/*
	 * Draws.  Each draw is recorded in the log with its index.  roll
	 * gives 1..sides, uniform gives 0..bound-1, shuffle permutes n
	 * elements of `size` bytes each (Fisher-Yates over uniform draws).
	 * They return REFD_OK or a negative code (REFD_ESCRIPT when scripted
	 * dice ran out); the plugin must then fail the op with that code.
	 * `why` names the roll for the record ("attack", "morale"); may be
	 * NULL.
	 */
	int (*roll)(refd_ctx *ctx, uint32_t sides, const char *why,
	    uint32_t *out);
	int (*uniform)(refd_ctx *ctx, uint32_t bound, const char *why,
	    uint32_t *out);
	int (*shuffle)(refd_ctx *ctx, void *base, size_t n, size_t size,
	    const char *why);

	/*
	 * Events: one msgpack map per call.  seat = REFD_SEAT_PUBLIC for
	 * everyone, or a seat number for that seat's eyes only.  The host
	 * adds seq, index and seat.
	 */
	int (*emit)(refd_ctx *ctx, int32_t seat, const uint8_t *ev,
	    size_t len);

	/*
	 * Output of describe, legal, view, serialize and result: the op
	 * appends msgpack bytes; the concatenation must be one msgpack
	 * value.
	 */
	int (*output)(refd_ctx *ctx, const uint8_t *bytes, size_t len);

	/*
	 * Hidden-zone commitment: the host publishes a salted BLAKE2b hash of
	 * `data` under `zone` (e.g. "deck.1") in the public record and opens
	 * it (salt and data) at the end of the match.  Call again after the
	 * zone changes.  seat = owner, or REFD_SEAT_PUBLIC for nobody's.
	 */
	int (*commit)(refd_ctx *ctx, const char *zone, int32_t seat,
	    const uint8_t *data, size_t len);
};

/* Size of the v1.0 host table: a host never hands out a smaller one. */
#define REFD_HOST_SIZE_1_0                                                     \
	(offsetof(struct refd_host, commit) + sizeof(void (*)(void)))

#define REFD_HOST_HAS(host, member)                                            \
	((host)->size >= offsetof(struct refd_host, member) +                  \
	    sizeof((host)->member) && (host)->member != NULL)

/*
 * The ops table.  Required ops (the loader refuses a plugin without them):
 * init, describe, content_load, content_free, create, apply, legal,
 * pending, view, result, serialize, restore, destroy.  Optional: fini,
 * redeal.  All return REFD_OK (0) or a negative REFD_E* code; op-specific
 * success values are documented per op.
 */
struct refd_plugin_ops {
	uint32_t size;		/* sizeof(struct refd_plugin_ops) */

	/* Once per load, before any other op.  *pdata is the plugin's own
	 * per-load data, passed back to content_load, create and restore. */
	int (*init)(refd_ctx *ctx, const struct refd_host *host,
	    void **pdata);
	void (*fini)(void *pdata);

	/*
	 * Output a msgpack map: {"summary": str, "seats": [min, max],
	 * "options": {name: {"type":..,"default":..,"doc":..}},
	 * "commands": {name: {"args": {name: type}, "doc": str}}}.
	 * "seats" repeats the descriptor's range; "commands" names every
	 * command "type" legal may list (refctl check-plugin checks both).
	 */
	int (*describe)(refd_ctx *ctx, void *pdata);

	/* Parse and check ruleset content (msgpack map: file stem -> the
	 * file's data).  Reject with the file, the field and the reason. */
	int (*content_load)(refd_ctx *ctx, void *pdata, const uint8_t *content,
	    size_t len, void **out_content);
	void (*content_free)(void *pdata, void *content);

	/*
	 * Create a match: setup bytes (msgpack map), nseats seats.  May draw
	 * and emit (deal, shuffle, roll for terrain).  *out_state is owned by
	 * the plugin until destroy.
	 */
	int (*create)(refd_ctx *ctx, void *pdata, const void *content,
	    const uint8_t *setup, size_t len, uint32_t nseats,
	    void **out_state);

	/* Apply one command (msgpack map with "type") from seat. */
	int (*apply)(refd_ctx *ctx, void *state, uint32_t seat,
	    const uint8_t *cmd, size_t len);

	/*
	 * Output a msgpack array of the commands seat may send now, each
	 * {"cmd": {...}, "label": str}; where the space is continuous or too
	 * large to list, a template {"template": {...}, "label": str} with
	 * bounds: in a template a value {"min": a, "max": b} stands for any
	 * integer a..b and {"one_of": [...]} for any one of the items (refctl
	 * check-plugin instantiates templates that way).  An empty array when
	 * the seat owes nothing.
	 */
	int (*legal)(refd_ctx *ctx, const void *state, uint32_t seat);

	/* Which seats owe a decision now: bit i set for seat i. */
	int (*pending)(refd_ctx *ctx, const void *state, uint64_t *seats);

	/* Output a msgpack map: the state as seen by seat, or by spectators
	 * with seat = REFD_SEAT_PUBLIC.  Never leaks hidden data. */
	int (*view)(refd_ctx *ctx, const void *state, int32_t seat);

	/*
	 * Returns 0 while the match goes on, 1 once it is over; when over,
	 * outputs a msgpack map {"winners": [seats], "reason": str, ...}.
	 */
	int (*result)(refd_ctx *ctx, const void *state);

	/* Output the whole state as bytes restore() turns back into an
	 * identical state.  Deterministic: equal states, equal bytes. */
	int (*serialize)(refd_ctx *ctx, const void *state);
	int (*restore)(refd_ctx *ctx, void *pdata, const void *content,
	    const uint8_t *bytes, size_t len, void **out_state);

	void (*destroy)(refd_ctx *ctx, void *state);

	/*
	 * Optional, for games with hidden information (REFD_PF_HIDDEN):
	 * re-randomise seat's hidden data with host draws and nothing else.
	 * The conformance checker uses it to prove that no other seat's view
	 * depends on it.
	 */
	int (*redeal)(refd_ctx *ctx, void *state, uint32_t seat);
};

/* Size of the v1.0 ops table (through redeal). */
#define REFD_OPS_SIZE_1_0                                                      \
	(offsetof(struct refd_plugin_ops, redeal) + sizeof(void (*)(void)))

/* The descriptor: a const data object, never a function. */
struct refd_plugin {
	uint32_t magic;		/* REFD_PLUGIN_MAGIC */
	uint16_t abi_major;	/* REFD_ABI_MAJOR the plugin was built with */
	uint16_t abi_minor;	/* REFD_ABI_MINOR the plugin was built with */
	uint32_t size;		/* sizeof(struct refd_plugin) */
	uint32_t flags;		/* enum refd_plugin_flag */
	uint64_t required_caps;	/* enum refd_host_cap bits it needs */
	const char *name;	/* must equal the file name without ".so" */
	const char *version;	/* the ruleset implementation version */
	const char *summary;	/* one line */
	uint32_t min_seats;
	uint32_t max_seats;
	const struct refd_plugin_ops *ops;
};

/* Size of the v1.0 descriptor: the loader wants exactly this for 1.0. */
#define REFD_PLUGIN_SIZE_1_0                                                   \
	(offsetof(struct refd_plugin, ops) + sizeof(void *))

/*
 * Convenience for plugin sources:
 *   REFD_PLUGIN_DEFINE("duel", "1.0.0", "a two-seat duel", 2, 2, 0, &ops);
 * requires REFD_CAP_DRAWS | REFD_CAP_EVENTS; REFD_PLUGIN_DEFINE_CAPS names
 * the required host capabilities itself.
 */
#ifdef __cplusplus
#define REFD_EXPORT_ extern "C" __attribute__((visibility("default")))
#else
#define REFD_EXPORT_ __attribute__((visibility("default")))
#endif
#define REFD_PLUGIN_DEFINE(name_, version_, summary_, minseats_, maxseats_,   \
    flags_, ops_)                                                              \
	REFD_EXPORT_ const struct refd_plugin REFD_PLUGIN_ENTRY = {            \
		REFD_PLUGIN_MAGIC, REFD_ABI_MAJOR, REFD_ABI_MINOR,             \
		(uint32_t)sizeof(struct refd_plugin), (flags_),                \
		(uint64_t)(REFD_CAP_DRAWS | REFD_CAP_EVENTS), (name_),         \
		(version_), (summary_), (minseats_), (maxseats_), (ops_)       \
	}
#define REFD_PLUGIN_DEFINE_CAPS(name_, version_, summary_, minseats_,         \
    maxseats_, flags_, caps_, ops_)                                            \
	REFD_EXPORT_ const struct refd_plugin REFD_PLUGIN_ENTRY = {            \
		REFD_PLUGIN_MAGIC, REFD_ABI_MAJOR, REFD_ABI_MINOR,             \
		(uint32_t)sizeof(struct refd_plugin), (flags_),                \
		(uint64_t)(caps_), (name_), (version_), (summary_),            \
		(minseats_), (maxseats_), (ops_)                               \
	}

#ifdef __cplusplus
}
#endif

#endif /* REFD_PLUGIN_H */
