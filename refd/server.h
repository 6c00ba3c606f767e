/*
 * server.h - the event loop: one nn_poll over the command channel (a raw
 * REP socket, many requests per turn) and the event channel (PUB).
 *
 * One loop turn: take every waiting request (up to max-batch), apply each
 * through proto_handle, make the logs durable once (matchset_sync: group
 * commit), then send every reply and publish the new public events.
 * Single-threaded.
 */
#ifndef REFD_SERVER_H
#define REFD_SERVER_H

#include <signal.h>

#include "config.h"
#include "match.h"

struct server;

/* Bind every endpoint.  cfg, reg and ms (may be NULL until
 * server_attach) are borrowed and must outlive the server.  0, or -1 with err set (which endpoint, and why). */
int server_create(const struct config *cfg, const struct registry *reg,
    struct matchset *ms, struct server **out, char *err, size_t errlen);
/* Hand the server its matches (borrowed); before server_run.  Lets the
 * daemon bind before it opens the state directory. */
void server_attach(struct server *s, struct matchset *ms);
/* Serve until *stop becomes nonzero (set from a signal handler), then
 * answer what is queued with ESHUTDOWN.  0, or -1 on a fatal error. */
int server_run(struct server *s, volatile sig_atomic_t *stop);
/* Close the sockets.  NULL is a no-op. */
void server_destroy(struct server *s);

#endif
