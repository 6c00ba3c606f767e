/*
 * config.h - refd's settings: embedded defaults, refd.conf, command line.
 *
 * Every setting has a name used both in refd.conf ("name value") and on
 * the command line ("--name value" or "--name=value").  Layers apply in
 * order: defaults, the file, the command line; a later layer replaces a
 * value, and the first "listen" or "publish" of a layer replaces the
 * list inherited from the one before.
 */
#ifndef REFD_CONFIG_H
#define REFD_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "match.h"

#define CONFIG_MAX_ENDPOINTS 8

struct config {
	char *listen[CONFIG_MAX_ENDPOINTS];	/* command channel (REP) */
	size_t nlisten;
	char *publish[CONFIG_MAX_ENDPOINTS];	/* event channel (PUB) */
	size_t npublish;
	char *state_dir;
	char *plugin_dir;
	char *ruleset_dir;
	char *admin_token;	/* needed by "abort" when set */
	char *pid_file;
	enum fsync_policy fsync;
	uint32_t checkpoint_every;
	uint32_t max_matches;
	uint32_t max_waiting;	/* unfinished matches nobody joined */
	uint32_t max_waiting_conn;	/* ... that one connection created */
	uint32_t waiting_expiry;	/* s before an unstarted match is
					 * closed, 0: never */
	uint32_t max_connections;	/* tracked command connections */
	uint32_t finished_eviction;	/* s before a finished match's
					 * history leaves memory, 0: never */
	uint64_t max_match_memory;
	uint64_t max_log_bytes;
	uint64_t max_message_size;
	uint32_t max_depth;
	uint32_t rate_limit;	/* requests per second per connection, 0: off */
	uint32_t rate_burst;
	uint32_t max_batch;	/* requests per loop turn */
	uint64_t max_connection_memory;	/* request and reply bytes one
					 * connection may hold in a turn */
	int allow_scripted;
	int plugin_workers;	/* run plugin code in worker processes */
	uint32_t plugin_timeout;	/* ms per plugin op in a worker, 0: none */
	uint64_t plugin_memory;	/* a worker's address space, 0: no bound */
	uint32_t plugin_cpu;	/* a worker's CPU seconds, 0: no bound */
	int daemonize;
	int verbose;

	int layer_;		/* bookkeeping for list replacement */
	int listen_layer_, publish_layer_;
};

/* Fill the embedded defaults (runtime dir, state dir, build-tree or
 * installed plugins).  0, or -1 with err set. */
int config_init(struct config *c, char *err, size_t errlen);
void config_release(struct config *c);
/* Start a new layer (file, then command line). */
void config_layer(struct config *c);
/*
 * Set one option by name from text.  Returns 0, -1 for an unknown name
 * or -2 for a bad value (err says why, without a location prefix).
 */
int config_set(struct config *c, const char *name, const char *value,
    char *err, size_t errlen);
/* Whether name is a known option. */
int config_known(const char *name);
/* Parse a refd.conf: "name value" lines, '#' comments.  0 or -1 with err
 * "FILE:LINE: ...". */
int config_load(struct config *c, const char *path, char *err,
    size_t errlen);
/* Write every setting as refd.conf lines (for refd -t -v). */
void config_dump(const struct config *c, FILE *f);
/* The largest message refd receives (NN_RCVMAXSIZE): twice
 * max-message-size plus 1 MiB; above max-message-size is ETOOBIG. */
uint64_t config_recv_cap(const struct config *c);
/* Write the memory bounds the settings give (for refd -t -v). */
void config_memory(const struct config *c, FILE *f);
/* Fill the match layer's settings. */
void config_match(const struct config *c, struct match_config *mc);

/* $XDG_RUNTIME_DIR/refd or /tmp/refd-<uid>. */
void config_runtime_dir(char *out, size_t len);
/* Default endpoints, as refctl also needs them. */
void config_default_listen(char *out, size_t len);
void config_default_publish(char *out, size_t len);

#endif
