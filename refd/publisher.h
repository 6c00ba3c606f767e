/*
 * publisher.h - the event channel's endpoints, each in a process of its
 * own.
 *
 * libnanomsg (1.1.5) aborts the process that holds a PUB socket when a
 * subscriber sends it a frame (nn_xpub_in is an assertion).  refd never
 * holds one: for each publish endpoint it starts a publisher, a fresh
 * image of refd (fork and exec of /proc/self/exe with --publisher) that
 * binds that one endpoint and publishes what refd writes to it over a
 * socketpair.  A publisher that dies is logged in one line and restarted
 * (at most once a second); subscribers reconnect on their own and fill
 * the gap with the `events` op.  The publisher never holds the signing
 * key, a match or a client's request.
 */
#ifndef REFD_PUBLISHER_H
#define REFD_PUBLISHER_H

#include <stddef.h>

struct publisher;

/* Start the publisher of one endpoint and wait until it has bound it.
 * 0, or -1 with err set (the endpoint, and why). */
int publisher_start(const char *endpoint, struct publisher **out, char *err,
    size_t errlen);
/* Queue one message (topic then body) for the subscribers; it is dropped
 * when the publisher is down or too far behind.  0, or -1 if dropped. */
int publisher_queue(struct publisher *p, const void *topic, size_t tlen,
    const void *body, size_t blen);
/* Write what is queued without blocking; notice a dead publisher and
 * restart it.  Call once a loop turn. */
void publisher_flush(struct publisher *p);
/* How many times the publisher was restarted. */
unsigned long publisher_restarts(const struct publisher *p);
/* Stop it (it publishes what it was given, then exits).  NULL is a no-op. */
void publisher_stop(struct publisher *p);

/* refd --publisher ENDPOINT, with the socketpair on descriptor 3: bind,
 * say "ok" (or why not) on it, then publish every message read from it
 * until it closes.  Returns the exit status. */
int publisher_main(const char *endpoint);

#endif
