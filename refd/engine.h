/*
 * engine.h - the host side of the plugin ABI: loading plugins and their
 * content, and running one game state through the ops with fair or
 * scripted draws, collecting events, draws, commitments and output.
 *
 * Used by refd, refctl (check-plugin, verify, replay) and the scenario
 * runner.  Single-threaded: a struct plugin and its games are used from one
 * thread at a time.
 */
#ifndef REFD_ENGINE_H
#define REFD_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "refd/mp.h"
#include "refd/plugin.h"
#include "buf.h"

#define ENG_HASH_LEN 32

struct scenario {
	char *name;
	uint8_t *setup;		/* msgpack */
	size_t setup_len;
};

struct plugin {
	char *path;
	char *name;
	void *dl;
	const struct refd_plugin *desc;	/* &descbuf */
	struct refd_plugin descbuf;	/* copy, zero-filled past its size */
	int initialized;		/* init succeeded: fini is due */
	struct refd_plugin_ops ops;	/* copy, zero-filled past ops->size */
	void *pdata;
	uint8_t file_hash[ENG_HASH_LEN];

	char *content_dir;
	uint8_t *content;	/* msgpack map stem -> data */
	size_t content_len;
	void *content_h;
	uint8_t content_hash[ENG_HASH_LEN];
	struct scenario *scenarios;
	size_t nscenarios;

	uint8_t *describe;	/* msgpack from the describe op */
	size_t describe_len;
	struct refd_mpdoc *describe_doc;	/* parsed, for plugin_check_args */

	int content_set;	/* content_load accepted pl->content */
	char *version;		/* plugin_open_isolated: the descriptor's */
	char *summary;		/* strings, owned (desc points at them) */

	struct worker *worker;	/* NULL: games run in this process */
};

/* One draw as recorded in the log. */
struct draw {
	uint64_t index;		/* counter value of the first attempt */
	uint32_t kind;		/* DRAW_ROLL or DRAW_UNIFORM */
	uint32_t bound;		/* sides for a roll, bound for uniform */
	uint32_t value;		/* 1..sides or 0..bound-1 */
	char why[24];
};
enum { DRAW_ROLL = 1, DRAW_UNIFORM = 2 };

struct event {
	int32_t seat;		/* REFD_SEAT_PUBLIC or a seat */
	uint8_t *bytes;
	size_t len;
};

struct commitment {
	char zone[48];
	int32_t seat;
	uint8_t salt[16];
	uint8_t hash[ENG_HASH_LEN];
	uint8_t *data;		/* opened at the end */
	size_t len;
};

struct rng {
	uint8_t key[32];
	uint64_t counter;
	int scripted;
	int64_t *script;
	size_t nscript;
	size_t pos;
	uint64_t *script_index;	/* or NULL: each scripted draw's index */
	uint64_t salt_counter;
};

struct memacct {
	size_t bytes;
	size_t limit;		/* 0: unbounded */
	size_t peak;
};

/* What one op produced. */
struct call {
	struct buf out;
	struct event *ev;
	size_t nev, cap_ev;
	struct draw *dr;
	size_t ndr, cap_dr;
	struct commitment *cm;
	size_t ncm, cap_cm;
	int reject_code;
	char reject_rule[24];
	char reject_msg[512];
	size_t ev_bytes;	/* sum of the events' lengths */
	char fault[256];	/* host-detected plugin misbehaviour */
	const char *fault_reason;	/* "crash", "timeout" or NULL */
};

struct game {
	struct plugin *pl;
	void *state;
	uint32_t nseats;
	struct rng rng;
	struct memacct mem;
	uint64_t step_budget;	/* reserved */

	/* Games of a plugin with a worker (worker.h): the state lives in
	 * the worker; snap is its latest serialization, kept to rebuild the
	 * state in a new worker after a crash. */
	uint64_t handle;	/* the worker's name for the state */
	uint64_t gen;		/* which worker run holds it */
	uint8_t *snap;		/* NULL: not known */
	size_t snap_len;
	int res_known;		/* res_* hold result's answer for the state */
	int res_rc;
	uint8_t *res_out;
	size_t res_len;
};

/* Plugins. */
int plugin_open(const char *path, struct plugin **out, char *err,
    size_t errlen);
/* The same, calling lock(arg) (when not NULL) after the dynamic loader
 * ran and before any plugin function: a worker locks itself down there. */
int plugin_open_locked(const char *path, int (*lock)(void *), void *arg,
    struct plugin **out, char *err, size_t errlen);
/* The file checks of plugin_open that run no plugin code. */
int plugin_check_file(const char *path, char *err, size_t errlen);
/* The file name of path without ".so" (malloc'd), or NULL. */
char *plugin_stem(const char *path);
int plugin_info(const char *path, struct buf *out, char *err, size_t errlen);
int plugin_load_content(struct plugin *pl, const char *dir, char *err,
    size_t errlen);
/* Hand pl->content to the plugin's content_load (done by
 * plugin_load_content; also for content given as bytes). */
int plugin_set_content(struct plugin *pl, struct call *c);
const struct scenario *plugin_scenario(const struct plugin *pl,
    const char *name);
void plugin_close(struct plugin *pl);
int plugin_file_hash(const char *path, uint8_t out[ENG_HASH_LEN]);
/*
 * Check a command's argument types against the plugin's describe: an
 * argument whose description starts with a type (refd-plugin(3), The
 * describe map) must have that type.  0, or -1 with the message in msg.
 */
int plugin_check_args(struct plugin *pl, const uint8_t *cmd, size_t len,
    char *msg, size_t n);
/* The plugin's describe answer, parsed once and kept. */
refd_mpv plugin_describe(struct plugin *pl);

/* Calls. */
void call_init(struct call *c);
void call_reset(struct call *c);
void call_release(struct call *c);

/* Draw source. */
int rng_copy(struct rng *dst, const struct rng *src);
void rng_init_seed(struct rng *r, const uint8_t key[32]);
int rng_init_script(struct rng *r, const int64_t *vals, size_t n);
void rng_release(struct rng *r);
int rng_draw(struct rng *r, uint32_t kind, uint32_t bound, uint64_t *index,
    uint32_t *value);
/* Salt number n of r and the commitment hash of data under it. */
void rng_seal(const struct rng *r, uint64_t n, const uint8_t *data, size_t len,
    uint8_t salt[16], uint8_t hash[ENG_HASH_LEN]);

/*
 * Games.  Each op resets *c and fills it.  Return REFD_OK or a negative
 * code; on a rejection c->reject_* say why and nothing changed.
 */
int game_create(struct plugin *pl, const uint8_t *setup, size_t len,
    uint32_t nseats, const struct rng *rng, size_t memlimit,
    struct game **out, struct call *c);
int game_restore(struct plugin *pl, const uint8_t *bytes, size_t len,
    uint32_t nseats, const struct rng *rng, size_t memlimit,
    struct game **out, struct call *c);
void game_destroy(struct game *g);
/* A game object without a state (for worker.c). */
int game_new(struct plugin *pl, uint32_t nseats, const struct rng *rng,
    size_t memlimit, struct game **out);
int game_apply(struct game *g, uint32_t seat, const uint8_t *cmd, size_t len,
    struct call *c);
int game_legal(struct game *g, uint32_t seat, struct call *c);
int game_pending(struct game *g, uint64_t *seats, struct call *c);
int game_view(struct game *g, int32_t seat, struct call *c);
int game_result(struct game *g, struct call *c);
int game_serialize(struct game *g, struct call *c);
int game_redeal(struct game *g, uint32_t seat, struct call *c);
int game_state_hash(struct game *g, uint8_t out[ENG_HASH_LEN]);

/* What makes an event unfit for clients (not one msgpack map of depth at
 * most 16, a key that is not a string, a string that is not UTF-8), or
 * NULL when it is fine. */
const char *event_fault(const uint8_t *ev, size_t len);
/* Whether b is one msgpack value whose strings are all UTF-8. */
int output_text_ok(const uint8_t *b, size_t len);
/* Whether every string in v, map keys included, is UTF-8. */
int mpv_utf8_ok(refd_mpv v);
/* Replace every non-ASCII byte of the C string s by '?' unless s is
 * UTF-8 (text that goes out as a msgpack str). */
void ascii_unless_utf8(char *s);

const char *refd_strerror(int code);
const char *refd_errname(int code);

#endif
