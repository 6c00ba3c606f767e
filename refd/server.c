/*
 * server.c - the event loop over nanomsg sockets.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <nanomsg/nn.h>
#include <nanomsg/reqrep.h>

#include "refd/errors.h"

#include "log.h"
#include "proto.h"
#include "publisher.h"
#include "server.h"

/* Per-connection token bucket and memory of the current turn, keyed by
 * the nanomsg pipe id (the first four bytes of a raw REP backtrace). */
struct conn {
	uint32_t pipe;
	double tokens;
	double last;		/* monotonic seconds */
	double warned_at;	/* when its refusals were last logged */
	uint64_t refused;	/* refusals since then */
	int warned;
	uint64_t turn;		/* the turn `bytes` counts */
	uint64_t bytes;		/* requests and replies held in that turn */
	int mem_warned;
};

/* A request of the current turn, waiting for its reply to be sent. */
struct pend {
	void *control;		/* the backtrace, owned (NN_MSG) */
	void *msg;		/* the request, owned (NN_MSG) */
	size_t len;
	struct buf reply;
	int wrote;
};

struct server {
	const struct config *cfg;
	struct matchset *ms;
	struct proto proto;
	int rep;
	struct publisher **pubs;	/* one per publish endpoint */
	size_t npubs;
	struct conn *conns;
	size_t nconns, capconns;
	struct pend *pend;
	size_t npend;
	double last_prune;
	uint64_t turnno;
	double full_warned_at;	/* max-connections refusals: last report */
	uint64_t full_refused;	/* ... and how many since */
};

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
bind_all(int sock, char *const *eps, size_t n, const char *what, char *err,
    size_t errlen)
{
	size_t i;
	mode_t old;
	int rc;

	for (i = 0; i < n; i++) {
		/*
		 * An ipc socket file only the daemon's user may connect to:
		 * libnanomsg (1.1.5) aborts the whole process on a malformed
		 * ipc frame, so ipc is for trusted local clients; untrusted
		 * ones use tcp://, which survives any bytes.
		 */
		old = umask(077);
		rc = nn_bind(sock, eps[i]);
		umask(old);
		if (rc < 0) {
			snprintf(err, errlen, "%s '%s': cannot bind: %s%s", what,
			    eps[i], nn_strerror(nn_errno()),
			    nn_errno() == EADDRINUSE ? "; is another refd "
			    "running?" : "");
			return -1;
		}
		log_info("commands on %s", eps[i]);
	}
	return 0;
}

int
server_create(const struct config *cfg, const struct registry *reg,
    struct matchset *ms, struct server **out, char *err, size_t errlen)
{
	struct server *s;
	int maxsz;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->cfg = cfg;
	s->ms = ms;
	s->rep = -1;
	s->pend = calloc(cfg->max_batch, sizeof(*s->pend));
	s->pubs = calloc(cfg->npublish ? cfg->npublish : 1, sizeof(*s->pubs));
	if (s->pend == NULL || s->pubs == NULL) {
		free(s->pubs);
		free(s->pend);
		free(s);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	proto_init(&s->proto, cfg, reg, ms);
	s->rep = nn_socket(AF_SP_RAW, NN_REP);
	if (s->rep < 0) {
		snprintf(err, errlen, "cannot create sockets: %s",
		    nn_strerror(nn_errno()));
		server_destroy(s);
		return -1;
	}
	/*
	 * nanomsg drops a connection whose message exceeds NN_RCVMAXSIZE
	 * without a word; let messages up to the hard cap (twice
	 * max-message-size, plus 1 MiB) through so that they get a clear
	 * ETOOBIG.  The cap bounds what one connection's partial frame
	 * holds.
	 */
	maxsz = (int)config_recv_cap(cfg);
	nn_setsockopt(s->rep, NN_SOL_SOCKET, NN_RCVMAXSIZE, &maxsz,
	    sizeof(maxsz));
	if (bind_all(s->rep, cfg->listen, cfg->nlisten, "listen", err,
	    errlen) != 0) {
		server_destroy(s);
		return -1;
	}
	/* No PUB socket in refd: a subscriber's frame aborts its holder. */
	for (; s->npubs < cfg->npublish; s->npubs++) {
		if (publisher_start(cfg->publish[s->npubs],
		    &s->pubs[s->npubs], err, errlen) != 0) {
			server_destroy(s);
			return -1;
		}
		log_info("events on %s", cfg->publish[s->npubs]);
	}
	s->last_prune = now_mono();
	*out = s;
	return 0;
}

void
server_attach(struct server *s, struct matchset *ms)
{
	s->ms = ms;
	s->proto.ms = ms;
}

void
server_destroy(struct server *s)
{
	if (s == NULL)
		return;
	if (s->rep >= 0)
		nn_close(s->rep);
	while (s->npubs > 0)
		publisher_stop(s->pubs[--s->npubs]);
	free(s->pubs);
	proto_release(&s->proto);
	free(s->conns);
	free(s->pend);
	free(s);
}

/* Rate limiting. */

static void conn_prune(struct server *s, double now);

static struct conn *
conn_get(struct server *s, uint32_t pipe, double now, int *full)
{
	size_t i;
	struct conn *n;

	*full = 0;
	for (i = 0; i < s->nconns; i++)
		if (s->conns[i].pipe == pipe)
			return &s->conns[i];
	if (s->nconns >= s->cfg->max_connections) {
		conn_prune(s, now);
		if (s->nconns >= s->cfg->max_connections) {
			*full = 1;
			return NULL;
		}
	}
	if (s->nconns == s->capconns) {
		size_t cap = s->capconns ? s->capconns * 2 : 64;

		if ((n = realloc(s->conns, cap * sizeof(*n))) == NULL)
			return NULL;
		s->conns = n;
		s->capconns = cap;
	}
	n = &s->conns[s->nconns++];
	n->pipe = pipe;
	n->tokens = s->cfg->rate_burst;
	n->last = now;
	n->warned = 0;
	n->warned_at = 0;
	n->refused = 0;
	n->turn = 0;
	n->bytes = 0;
	n->mem_warned = 0;
	s->proto.st.connections = s->nconns;
	return n;
}

/* Forget connections idle long enough for a full bucket. */
static void
conn_prune(struct server *s, double now)
{
	size_t i = 0;
	double idle = s->cfg->rate_limit ? (double)s->cfg->rate_burst /
	    s->cfg->rate_limit + 1 : 1;

	while (i < s->nconns) {
		if (now - s->conns[i].last > idle)
			s->conns[i] = s->conns[--s->nconns];
		else
			i++;
	}
	s->proto.st.connections = s->nconns;
}

/* 1 when the connection (NULL: untracked) may send this request. */
static int
rate_ok(struct server *s, struct conn *c, double now)
{
	uint32_t pipe;

	if (s->cfg->rate_limit == 0 || c == NULL)
		return 1;
	pipe = c->pipe;
	c->tokens += (now - c->last) * s->cfg->rate_limit;
	if (c->tokens > s->cfg->rate_burst)
		c->tokens = s->cfg->rate_burst;
	c->last = now;
	if (c->tokens >= 1) {
		c->tokens -= 1;
		return 1;
	}
	/* At most one line a minute per connection, with a count. */
	c->refused++;
	if (!c->warned || now - c->warned_at >= 60) {
		log_warn("connection %08" PRIx32 ": over the request rate limit "
		    "(%" PRIu32 "/s, burst %" PRIu32 "); refused %" PRIu64
		    " request%s %s", pipe, s->cfg->rate_limit,
		    s->cfg->rate_burst, c->refused, c->refused == 1 ? "" : "s",
		    c->warned ? "in the last minute" : "so far");
		c->warned = 1;
		c->warned_at = now;
		c->refused = 0;
	}
	return 0;
}

static uint32_t
pipe_of(void *control)
{
	struct nn_msghdr h;
	struct nn_cmsghdr *cm;
	const unsigned char *d;

	memset(&h, 0, sizeof(h));
	h.msg_control = &control;
	h.msg_controllen = NN_MSG;
	for (cm = NN_CMSG_FIRSTHDR(&h); cm != NULL; cm = NN_CMSG_NXTHDR(&h,
	    cm)) {
		size_t spsz;

		/* nanomsg stores the header's size (a size_t), then the
		 * header: the pipe id, then the request's backtrace. */
		if (cm->cmsg_level != PROTO_SP || cm->cmsg_type != SP_HDR ||
		    cm->cmsg_len < NN_CMSG_LEN(sizeof(spsz) + 4))
			continue;
		d = NN_CMSG_DATA(cm);
		memcpy(&spsz, d, sizeof(spsz));
		if (spsz < 4)
			continue;
		d += sizeof(spsz);
		return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 |
		    (uint32_t)d[2] << 8 | (uint32_t)d[3];
	}
	return 0;
}

/*
 * 1 when the connection may hold `more` bytes more in this turn (its
 * requests and the replies to them wait until the turn's sync), under
 * max-connection-memory.  Counts them when it may.
 */
static int
mem_ok(struct server *s, struct conn *c, size_t more)
{
	if (c == NULL)
		return 1;
	if (c->turn != s->turnno) {
		c->turn = s->turnno;
		c->bytes = 0;
	}
	if (c->bytes + more > s->cfg->max_connection_memory) {
		if (!c->mem_warned)
			log_warn("connection %08" PRIx32 ": over "
			    "max-connection-memory (%" PRIu64 " bytes in one "
			    "turn); refusing its requests", c->pipe,
			    s->cfg->max_connection_memory);
		c->mem_warned = 1;
		return 0;
	}
	c->bytes += more;
	return 1;
}

static void
mem_error(struct server *s, struct pend *p, struct conn *c, size_t need,
    const char *what)
{
	char msg[256];

	s->proto.st.conn_limited++;
	snprintf(msg, sizeof(msg), "%s of %zu bytes would make this connection "
	    "hold more than %" PRIu64 " bytes in one turn "
	    "(max-connection-memory); send fewer or smaller requests at once",
	    what, need, s->cfg->max_connection_memory);
	buf_reset(&p->reply);
	proto_error_limit(&s->proto, p->msg, p->len, REFD_ELIMIT, msg,
	    (int64_t)s->cfg->max_connection_memory,
	    (int64_t)((c != NULL ? c->bytes : 0) + need), &p->reply);
}

/* A request from a connection beyond max-connections: ELIMIT, logged at
 * most once a minute with a count. */
static void
conns_full(struct server *s, struct pend *p, double now)
{
	char msg[256];

	s->proto.st.conn_limited++;
	s->full_refused++;
	if (now - s->full_warned_at >= 60 || s->full_warned_at == 0) {
		log_warn("%" PRIu32 " connections are served at once "
		    "(max-connections); refused %" PRIu64 " request%s of "
		    "others since the last report", s->cfg->max_connections,
		    s->full_refused, s->full_refused == 1 ? "" : "s");
		s->full_warned_at = now;
		s->full_refused = 0;
	}
	snprintf(msg, sizeof(msg), "too many connections: refd serves %" PRIu32
	    " at once (max-connections); retry in a few seconds",
	    s->cfg->max_connections);
	proto_error_limit(&s->proto, p->msg, p->len, REFD_ELIMIT, msg,
	    (int64_t)s->cfg->max_connections,
	    (int64_t)s->cfg->max_connections + 1, &p->reply);
}

/* Receive one request without blocking: 1, 0 when none, -1 on error. */
static int
recv_one(struct server *s, struct pend *p)
{
	struct nn_msghdr h;
	struct nn_iovec iov;
	void *msg = NULL, *control = NULL;
	int n;

	memset(&h, 0, sizeof(h));
	iov.iov_base = &msg;
	iov.iov_len = NN_MSG;
	h.msg_iov = &iov;
	h.msg_iovlen = 1;
	h.msg_control = &control;
	h.msg_controllen = NN_MSG;
	n = nn_recvmsg(s->rep, &h, NN_DONTWAIT);
	if (n < 0) {
		if (nn_errno() == EAGAIN || nn_errno() == EINTR)
			return 0;
		log_err("command channel: receive failed: %s",
		    nn_strerror(nn_errno()));
		return -1;
	}
	p->msg = msg;
	p->len = (size_t)n;
	p->control = control;
	p->wrote = 0;
	buf_init(&p->reply);
	return 1;
}

static void
send_reply(struct server *s, struct pend *p)
{
	struct nn_msghdr h;
	struct nn_iovec iov;

	memset(&h, 0, sizeof(h));
	iov.iov_base = p->reply.data;
	iov.iov_len = p->reply.len;
	h.msg_iov = &iov;
	h.msg_iovlen = 1;
	h.msg_control = &p->control;
	h.msg_controllen = NN_MSG;
	if (p->control == NULL || p->reply.len == 0 ||
	    nn_sendmsg(s->rep, &h, NN_DONTWAIT) < 0) {
		/* The peer went away, or nothing to say: drop it. */
		if (p->control != NULL)
			nn_freemsg(p->control);
	}
	p->control = NULL;
	nn_freemsg(p->msg);
	p->msg = NULL;
	buf_release(&p->reply);
}

static void
publish(struct server *s)
{
	size_t i, j, k, n;
	struct proto *pr = &s->proto;

	for (i = 0; i < pr->ntouched; i++) {
		struct match *m = pr->touched[i];
		const struct buf *evs = NULL;
		const char *id = match_id(m);

		n = match_new_public(m, &evs);
		for (k = 0; k < n; k++) {
			int sent = 0;

			for (j = 0; j < s->npubs; j++)
				sent |= publisher_queue(s->pubs[j], id,
				    MATCH_ID_LEN, evs[k].data, evs[k].len) == 0;
			if (sent)
				pr->st.published++;
		}
		match_events_clear(m);
	}
	proto_turn_done(pr);
}

/* One loop turn over the requests waiting now. */
static int
turn(struct server *s, int shutting_down)
{
	size_t i, wrote = 0;
	double now = now_mono();
	int rc, fatal = 0, full;

	s->npend = 0;
	s->turnno++;
	while (s->npend < s->cfg->max_batch) {
		struct pend *p = &s->pend[s->npend];
		struct conn *c;

		rc = recv_one(s, p);
		if (rc < 0)
			fatal = 1;
		if (rc <= 0)
			break;
		s->npend++;
		c = conn_get(s, pipe_of(p->control), now, &full);
		if (full) {
			s->proto.st.requests++;
			conns_full(s, p, now);
		} else if (shutting_down) {
			s->proto.st.requests++;
			proto_error(&s->proto, p->msg, p->len, REFD_ESHUTDOWN,
			    "refd is shutting down; retry later", &p->reply);
		} else if (!rate_ok(s, c, now)) {
			s->proto.st.requests++;
			s->proto.st.rate_limited++;
			proto_error(&s->proto, p->msg, p->len, REFD_ERATE,
			    "too many requests from this connection; slow "
			    "down (rate-limit)", &p->reply);
		} else if (!mem_ok(s, c, p->len)) {
			s->proto.st.requests++;
			mem_error(s, p, c, p->len, "a request");
		} else {
			s->proto.conn = c != NULL ? c->pipe : 0;
			p->wrote = proto_handle(&s->proto, p->msg, p->len,
			    &p->reply);
			wrote += p->wrote;
			/* A reply that changed nothing may be refused. */
			if (!mem_ok(s, c, p->reply.len) && !p->wrote)
				mem_error(s, p, c, p->reply.len, "a reply");
		}
	}
	if (!shutting_down)
		proto_expire(&s->proto);
	/* Group commit: one sync for the whole turn. */
	rc = matchset_sync(s->ms);
	if (wrote > 0)
		s->proto.st.syncs++;
	if (rc < 0) {
		s->proto.st.sync_failures++;
		log_err("cannot make match logs durable: %s (%s)",
		    refd_strerror(rc), refd_errname(rc));
		for (i = 0; i < s->npend; i++) {
			if (!s->pend[i].wrote)
				continue;
			buf_reset(&s->pend[i].reply);
			proto_error(&s->proto, s->pend[i].msg, s->pend[i].len,
			    REFD_ELOGIO, "the match log could not be made "
			    "durable; the command may not survive a crash, "
			    "retry it with the same cmd_id",
			    &s->pend[i].reply);
		}
	}
	for (i = 0; i < s->npend; i++)
		send_reply(s, &s->pend[i]);
	if (rc >= 0)
		publish(s);
	else
		proto_turn_done(&s->proto);
	/* Hand the events over; restart a publisher that died. */
	for (i = 0; i < s->npubs; i++)
		publisher_flush(s->pubs[i]);
	if (s->npend > 0) {
		s->proto.st.turns++;
		if (s->npend > s->proto.st.max_batch)
			s->proto.st.max_batch = s->npend;
	}
	if (now - s->last_prune > 10) {
		conn_prune(s, now);
		s->last_prune = now;
	}
	return fatal ? -1 : 0;
}

int
server_run(struct server *s, volatile sig_atomic_t *stop)
{
	struct nn_pollfd pfd;
	int rc;

	pfd.fd = s->rep;
	pfd.events = NN_POLLIN;
	while (!*stop) {
		pfd.revents = 0;
		rc = nn_poll(&pfd, 1, 200);
		if (rc < 0 && nn_errno() != EINTR) {
			log_err("poll failed: %s", nn_strerror(nn_errno()));
			return -1;
		}
		if (*stop)
			break;
		if (turn(s, 0) != 0)
			return -1;
	}
	log_info("shutting down: answering queued requests");
	(void)turn(s, 1);
	if (matchset_sync(s->ms) < 0)
		log_err("cannot make match logs durable at shutdown");
	return 0;
}
