/*
 * refd/describe.h - a plugin's describe answer and a flat state's
 * serialize and restore, from tables: what a plugin writes by hand
 * otherwise.
 *
 * Part of the SDK helper library (librefdsdk.a).
 *
 *	static const struct refd_option_doc opts[] = {
 *		{ "max_rounds", "int", "20", "rounds before the higher HP wins" },
 *		{ NULL, NULL, NULL, NULL } };
 *	static const struct refd_arg_doc attack_args[] = {
 *		{ "card", "int, optional: a card value from your hand" },
 *		{ NULL, NULL } };
 *	static const struct refd_command_doc cmds[] = {
 *		{ "attack", attack_args, "d20 + attack against the foe's AC" },
 *		{ "defend", NULL, "+4 AC until your next turn" },
 *		{ NULL, NULL, NULL } };
 *
 *	return refd_describe(host, ctx, "a duel", 2, 2, opts, cmds);
 *
 * An argument's description starts with its type (int, bool, str, a quoted
 * choice, "[" for an array): refd then refuses a command whose argument
 * has another type with EARG before apply runs (refd-plugin(3)).
 */
#ifndef REFD_DESCRIBE_H
#define REFD_DESCRIBE_H

#include <stddef.h>
#include <stdint.h>

#include "refd/mp.h"
#include "refd/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

struct refd_option_doc {
	const char *name;
	const char *type;	/* "int", "bool", "str", "[str]", ... */
	const char *dflt;	/* the default as text ("20", "true"), or NULL */
	const char *doc;
};

struct refd_arg_doc {
	const char *name;
	const char *desc;	/* starts with the type: "int: ..." */
};

struct refd_command_doc {
	const char *type;
	const struct refd_arg_doc *args;	/* ends with { NULL, NULL }; or NULL */
	const char *doc;
};

/* Write {summary, seats, options, commands} and hand it to host->output.
 * The tables end with an entry whose name (type) is NULL.  A default is
 * written as an integer for type "int", a boolean for "bool", else as
 * text. */
int refd_describe(const struct refd_host *host, refd_ctx *ctx,
    const char *summary, uint32_t min_seats, uint32_t max_seats,
    const struct refd_option_doc *options,
    const struct refd_command_doc *commands);

/*
 * A flat state: one struct with no pointers, zeroed when made (padding
 * included), so that its bytes are the same on every replay.  serialize
 * writes one msgpack bin: the 4-byte magic big-endian, then the struct's
 * bytes.  restore checks the magic and the size, copies the bytes into
 * memory from host->alloc, then calls check (when not NULL), which returns
 * NULL or why the state is damaged.
 */
int refd_flat_serialize(const struct refd_host *host, refd_ctx *ctx,
    const void *state, size_t size, uint32_t magic);
int refd_flat_restore(const struct refd_host *host, refd_ctx *ctx,
    const uint8_t *bytes, size_t len, size_t size, uint32_t magic,
    const char *(*check)(const void *state), void **out);

#ifdef __cplusplus
}
#endif

#endif /* REFD_DESCRIBE_H */
