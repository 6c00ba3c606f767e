/*
 * worker.c - a plugin's games in a worker process (see worker.h).
 *
 * Request body: op, handle, seat, nseats, memlimit, the draw counters
 * (counter, pos, salt_counter); for create and restore also the seed key
 * and the scripted draws; then the op's bytes.  Reply body: the op's
 * return value, handle, pending seats, the draw counters and memory use
 * after the op, the call (rejection, fault, output, events, draws,
 * commitments), the state serialized after an op that changed it (empty
 * otherwise) and, after such an op, what result says of the new state (so
 * that the usual "apply, then is it over?" costs one round trip).
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "refd/mp.h"
#include "log.h"
#include "worker.h"

#define FRAME_MAX ((size_t)1 << 30)
#define WORKER_FD 3

struct enc {
	struct buf b;
	int bad;
};

struct dec {
	const uint8_t *p;
	size_t n;
	int bad;
};

struct worker {
	struct plugin *pl;
	unsigned timeout_ms;	/* 0: unbounded */
	pid_t pid;		/* 0: not running */
	int fd;			/* our end of the socketpair, or -1 */
	uint64_t gen;		/* runs started */
	struct enc req;
	struct buf rep;
};

static uint64_t n_started, n_crashed, n_timeouts;

static const char *const op_names[] = {
	"?", "create", "restore", "destroy", "apply", "legal", "pending",
	"view", "result", "serialize", "redeal"
};

/* Encoding and decoding; both ends are this program. */

static void
put(struct enc *e, const void *p, size_t n)
{
	if (!e->bad && n > 0 && buf_add(&e->b, p, n) != 0)
		e->bad = 1;
}

static void
put_u32(struct enc *e, uint32_t v)
{
	put(e, &v, sizeof(v));
}

static void
put_i32(struct enc *e, int32_t v)
{
	put(e, &v, sizeof(v));
}

static void
put_u64(struct enc *e, uint64_t v)
{
	put(e, &v, sizeof(v));
}

static void
put_bytes(struct enc *e, const void *p, size_t n)
{
	if (n > FRAME_MAX) {
		e->bad = 1;
		return;
	}
	put_u32(e, (uint32_t)n);
	put(e, p, n);
}

static void
put_str(struct enc *e, const char *s)
{
	put_bytes(e, s, strlen(s));
}

static void
get(struct dec *d, void *out, size_t n)
{
	if (d->bad || d->n < n) {
		d->bad = 1;
		memset(out, 0, n);
		return;
	}
	memcpy(out, d->p, n);
	d->p += n;
	d->n -= n;
}

static uint32_t
get_u32(struct dec *d)
{
	uint32_t v;

	get(d, &v, sizeof(v));
	return v;
}

static int32_t
get_i32(struct dec *d)
{
	int32_t v;

	get(d, &v, sizeof(v));
	return v;
}

static uint64_t
get_u64(struct dec *d)
{
	uint64_t v;

	get(d, &v, sizeof(v));
	return v;
}

static const uint8_t *
get_bytes(struct dec *d, size_t *n)
{
	uint32_t l = get_u32(d);
	const uint8_t *p;

	*n = 0;
	if (d->bad || d->n < l) {
		d->bad = 1;
		return NULL;
	}
	p = d->p;
	d->p += l;
	d->n -= l;
	*n = l;
	return p;
}

static void
get_str(struct dec *d, char *out, size_t cap)
{
	size_t n;
	const uint8_t *p = get_bytes(d, &n);

	if (n >= cap)
		n = cap - 1;
	if (n > 0)
		memcpy(out, p, n);
	out[n] = '\0';
}

static void
put_call(struct enc *e, const struct call *c)
{
	size_t i;

	put_i32(e, c->reject_code);
	put_str(e, c->reject_rule);
	put_str(e, c->reject_msg);
	put_str(e, c->fault);
	put_bytes(e, c->out.data, c->out.len);
	put_u32(e, (uint32_t)c->nev);
	for (i = 0; i < c->nev; i++) {
		put_i32(e, c->ev[i].seat);
		put_bytes(e, c->ev[i].bytes, c->ev[i].len);
	}
	put_u32(e, (uint32_t)c->ndr);
	for (i = 0; i < c->ndr; i++) {
		put_u64(e, c->dr[i].index);
		put_u32(e, c->dr[i].kind);
		put_u32(e, c->dr[i].bound);
		put_u32(e, c->dr[i].value);
		put_str(e, c->dr[i].why);
	}
	put_u32(e, (uint32_t)c->ncm);
	for (i = 0; i < c->ncm; i++) {
		put_str(e, c->cm[i].zone);
		put_i32(e, c->cm[i].seat);
		put(e, c->cm[i].salt, sizeof(c->cm[i].salt));
		put(e, c->cm[i].hash, sizeof(c->cm[i].hash));
		put_bytes(e, c->cm[i].data, c->cm[i].len);
	}
}

/* Grow an array of the call to hold n elements. */
static int
grow(void **arr, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (n <= *cap)
		return 0;
	if ((p = realloc(*arr, n * size)) == NULL)
		return -1;
	*arr = p;
	*cap = n;
	return 0;
}

static uint8_t *
dup_bytes(const uint8_t *p, size_t n)
{
	uint8_t *q = malloc(n > 0 ? n : 1);

	if (q != NULL && n > 0)
		memcpy(q, p, n);
	return q;
}

/*
 * Read a call the worker sent into c (reset).  0, -1 when the bytes are
 * malformed (the worker is not to be trusted), or REFD_ENOMEM.
 */
static int
get_call(struct dec *d, struct call *c)
{
	const uint8_t *p;
	size_t len;
	uint32_t n, i;

	c->reject_code = get_i32(d);
	get_str(d, c->reject_rule, sizeof(c->reject_rule));
	get_str(d, c->reject_msg, sizeof(c->reject_msg));
	get_str(d, c->fault, sizeof(c->fault));
	p = get_bytes(d, &len);
	if (len > 0 && buf_add(&c->out, p, len) != 0)
		return REFD_ENOMEM;
	n = get_u32(d);
	if (d->bad || n > d->n)
		return -1;
	if (grow((void **)&c->ev, &c->cap_ev, n, sizeof(*c->ev)) != 0)
		return REFD_ENOMEM;
	for (i = 0; i < n; i++) {
		struct event *e = &c->ev[c->nev];

		e->seat = get_i32(d);
		p = get_bytes(d, &len);
		/* What h_emit checked in the worker, checked again. */
		if (d->bad || e->seat < REFD_SEAT_PUBLIC ||
		    e->seat >= REFD_MAX_SEATS || event_fault(p, len) != NULL)
			return -1;
		if ((e->bytes = dup_bytes(p, len)) == NULL)
			return REFD_ENOMEM;
		e->len = len;
		c->ev_bytes += len;
		c->nev++;
	}
	n = get_u32(d);
	if (d->bad || n > d->n)
		return -1;
	if (grow((void **)&c->dr, &c->cap_dr, n, sizeof(*c->dr)) != 0)
		return REFD_ENOMEM;
	for (i = 0; i < n; i++) {
		struct draw *r = &c->dr[c->ndr++];

		r->index = get_u64(d);
		r->kind = get_u32(d);
		r->bound = get_u32(d);
		r->value = get_u32(d);
		get_str(d, r->why, sizeof(r->why));
	}
	n = get_u32(d);
	if (d->bad || n > d->n)
		return -1;
	if (grow((void **)&c->cm, &c->cap_cm, n, sizeof(*c->cm)) != 0)
		return REFD_ENOMEM;
	for (i = 0; i < n; i++) {
		struct commitment *m = &c->cm[c->ncm];

		memset(m, 0, sizeof(*m));
		get_str(d, m->zone, sizeof(m->zone));
		m->seat = get_i32(d);
		get(d, m->salt, sizeof(m->salt));
		get(d, m->hash, sizeof(m->hash));
		p = get_bytes(d, &len);
		if (d->bad)
			return -1;
		if ((m->data = dup_bytes(p, len)) == NULL)
			return REFD_ENOMEM;
		m->len = len;
		c->ncm++;
	}
	return d->bad ? -1 : 0;
}

/* The worker process. */

struct table {
	struct game **g;
	size_t n;
};

static int wait_fd(int fd, short events, int64_t deadline);

/*
 * Read one frame (its length, then its body) into b, in as few reads as
 * the peer allows; with poll_first, wait for input (until deadline, -1
 * for ever) before each read.  0, 1 on timeout, 2 when the peer went
 * away, 3 when the frame is malformed (too long, or followed by bytes).
 */
static int
read_frame(int fd, struct buf *b, int64_t deadline, int poll_first)
{
	size_t need = 4;
	uint32_t len;
	ssize_t n;

	buf_reset(b);
	while (b->len < need) {
		if (poll_first && wait_fd(fd, POLLIN, deadline))
			return 1;
		if (buf_reserve(b, need > 4 ? need - b->len : 65536) != 0)
			return 3;
		n = read(fd, b->data + b->len, b->cap - b->len - 1);
		if (n == 0)
			return 2;
		if (n < 0 && (errno == EINTR || errno == EAGAIN ||
		    errno == EWOULDBLOCK))
			continue;
		if (n < 0)
			return 2;
		b->len += (size_t)n;
		if (need == 4 && b->len >= 4) {
			memcpy(&len, b->data, sizeof(len));
			if (len > FRAME_MAX)
				return 3;
			need += len;
		}
	}
	return b->len == need ? 0 : 3;
}

static int
send_all(int fd, const uint8_t *p, size_t n)
{
	ssize_t r;

	while (n > 0) {
		r = send(fd, p, n, MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static uint64_t
table_add(struct table *t, struct game *g)
{
	size_t i;
	struct game **ng;

	for (i = 0; i < t->n; i++)
		if (t->g[i] == NULL)
			break;
	if (i == t->n) {
		if ((ng = realloc(t->g, (t->n + 1) * sizeof(*ng))) == NULL)
			return 0;
		t->g = ng;
		t->n++;
	}
	t->g[i] = g;
	return (uint64_t)i + 1;
}

/* Run one request; the reply goes to e. */
static void
serve_one(struct plugin *pl, struct table *t, const uint8_t *p, size_t n,
    struct enc *e)
{
	struct dec d = { p, n, 0 };
	struct game *g = NULL;
	struct call c, sc, resc;
	const uint8_t *arg;
	size_t arglen;
	uint64_t handle, cnt, pos, salt, seats = 0;
	uint32_t op, nseats;
	int32_t seat;
	size_t memlimit;
	int rc, res = 0, changed = 0;

	call_init(&c);
	call_init(&sc);
	call_init(&resc);
	op = get_u32(&d);
	handle = get_u64(&d);
	seat = get_i32(&d);
	nseats = get_u32(&d);
	memlimit = (size_t)get_u64(&d);
	cnt = get_u64(&d);
	pos = get_u64(&d);
	salt = get_u64(&d);
	if (op == WOP_CREATE || op == WOP_RESTORE) {
		struct rng r;
		uint8_t key[32];
		uint32_t scripted, ns, i;
		int64_t *vals = NULL;

		get(&d, key, sizeof(key));
		scripted = get_u32(&d);
		ns = get_u32(&d);
		if (d.bad || ns > d.n / sizeof(int64_t) ||
		    (ns > 0 && (vals = malloc(ns * sizeof(*vals))) == NULL)) {
			rc = REFD_EINTERNAL;
		} else {
			for (i = 0; i < ns; i++)
				vals[i] = (int64_t)get_u64(&d);
			arg = get_bytes(&d, &arglen);
			if (scripted) {
				rc = rng_init_script(&r, vals, ns) == 0 ?
				    REFD_OK : REFD_ENOMEM;
				memcpy(r.key, key, sizeof(key));
			} else {
				rng_init_seed(&r, key);
				rc = REFD_OK;
			}
			r.counter = cnt;
			r.pos = pos;
			r.salt_counter = salt;
			if (rc == REFD_OK && d.bad)
				rc = REFD_EINTERNAL;
			else if (rc == REFD_OK && op == WOP_CREATE)
				rc = game_create(pl, arg, arglen, nseats, &r,
				    memlimit, &g, &c);
			else if (rc == REFD_OK)
				rc = game_restore(pl, arg, arglen, nseats, &r,
				    memlimit, &g, &c);
			rng_release(&r);
		}
		free(vals);
		handle = 0;
		if (rc == REFD_OK && (handle = table_add(t, g)) == 0) {
			game_destroy(g);
			g = NULL;
			rc = REFD_ENOMEM;
		}
		changed = op == WOP_CREATE;
	} else {
		arg = get_bytes(&d, &arglen);
		if (!d.bad && handle >= 1 && handle <= t->n)
			g = t->g[handle - 1];
		if (g == NULL) {
			snprintf(c.fault, sizeof(c.fault), "worker: no game %llu",
			    (unsigned long long)handle);
			rc = REFD_EPLUGINFAULT;
		} else {
			g->rng.counter = cnt;
			g->rng.pos = pos;
			g->rng.salt_counter = salt;
			switch (op) {
			case WOP_DESTROY:
				game_destroy(g);
				t->g[handle - 1] = g = NULL;
				rc = REFD_OK;
				break;
			case WOP_APPLY:
				rc = game_apply(g, (uint32_t)seat, arg, arglen,
				    &c);
				changed = rc == REFD_OK;
				break;
			case WOP_LEGAL:
				rc = game_legal(g, (uint32_t)seat, &c);
				break;
			case WOP_PENDING:
				rc = game_pending(g, &seats, &c);
				break;
			case WOP_VIEW:
				rc = game_view(g, seat, &c);
				break;
			case WOP_RESULT:
				rc = game_result(g, &c);
				break;
			case WOP_SERIALIZE:
				rc = game_serialize(g, &c);
				break;
			case WOP_REDEAL:
				rc = game_redeal(g, (uint32_t)seat, &c);
				changed = rc == REFD_OK;
				break;
			default:
				rc = REFD_EINTERNAL;
				break;
			}
		}
	}
	/* The new state, for the parent to rebuild it after a crash. */
	if (changed && g != NULL && game_serialize(g, &sc) != REFD_OK)
		buf_reset(&sc.out);
	if (changed && g != NULL) {
		res = game_result(g, &resc);
		if (resc.fault[0] != '\0' || res < 0 || res > 1)
			changed = 0;	/* let the parent ask and see */
	}
	put_u32(e, 0);		/* the frame's length, set below */
	put_i32(e, rc);
	put_u64(e, handle);
	put_u64(e, seats);
	put_u64(e, g != NULL ? g->rng.counter : cnt);
	put_u64(e, g != NULL ? g->rng.pos : pos);
	put_u64(e, g != NULL ? g->rng.salt_counter : salt);
	put_u64(e, g != NULL ? g->mem.bytes : 0);
	put_u64(e, g != NULL ? g->mem.peak : 0);
	put_call(e, &c);
	put_bytes(e, sc.out.data, sc.out.len);
	put_u32(e, changed && g != NULL);
	put_i32(e, res);
	put_bytes(e, resc.out.data, resc.out.len);
	call_release(&c);
	call_release(&sc);
	call_release(&resc);
}

static void __attribute__((noreturn))
serve(struct plugin *pl, int fd)
{
	struct table t = { NULL, 0 };
	struct buf in;
	struct enc e;
	uint32_t len;

	buf_init(&in);
	buf_init(&e.b);
	for (;;) {
		if (read_frame(fd, &in, -1, 0) != 0)
			_exit(0);
		buf_reset(&e.b);
		e.bad = 0;
		serve_one(pl, &t, in.data + 4, in.len - 4, &e);
		if (e.bad)
			_exit(3);
		len = (uint32_t)(e.b.len - sizeof(len));
		memcpy(e.b.data, &len, sizeof(len));
		if (send_all(fd, e.b.data, e.b.len) != 0)
			_exit(0);
	}
}

/* The parent's side. */

int
plugin_isolate(struct plugin *pl, unsigned timeout_ms)
{
	struct worker *w = calloc(1, sizeof(*w));

	if (w == NULL)
		return REFD_ENOMEM;
	w->pl = pl;
	w->timeout_ms = timeout_ms;
	w->fd = -1;
	buf_init(&w->req.b);
	buf_init(&w->rep);
	pl->worker = w;
	return REFD_OK;
}

void
worker_counts(uint64_t *started, uint64_t *crashed, uint64_t *timeouts)
{
	*started = n_started;
	*crashed = n_crashed;
	*timeouts = n_timeouts;
}

static int
spawn(struct worker *w, char *why, size_t whylen)
{
	struct sigaction sa;
	pid_t parent = getpid(), pid;
	int sv[2], oom;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		snprintf(why, whylen, "socketpair: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		/* Die with refd; leave its signals and its descriptors. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		sa.sa_handler = SIG_IGN;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sigaction(SIGPIPE, &sa, NULL);
		sa.sa_handler = SIG_DFL;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGCHLD, &sa, NULL);
		/* Out of memory, the kernel kills a worker, not refd. */
		if ((oom = open("/proc/self/oom_score_adj", O_WRONLY |
		    O_CLOEXEC)) >= 0) {
			if (write(oom, "1000", 4) != 4) {
				/* best effort */
			}
			close(oom);
		}
		if (sv[1] != WORKER_FD && dup2(sv[1], WORKER_FD) < 0)
			_exit(0);
		close_range(WORKER_FD + 1, ~0u, 0);
		/* This copy of the plugin runs its games here. */
		w->pl->worker = NULL;
		serve(w->pl, WORKER_FD);
	}
	close(sv[1]);
	fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	w->fd = sv[0];
	w->pid = pid;
	w->gen++;
	n_started++;
	if (w->gen > 1)
		log_info("plugin '%s': worker %ld started (run %llu)",
		    w->pl->name, (long)pid, (unsigned long long)w->gen);
	return 0;
}

/* How a worker ended, from its wait status. */
static void
status_text(int st, char *why, size_t whylen)
{
	if (WIFSIGNALED(st))
		snprintf(why, whylen, "was killed by signal %d (%s)",
		    WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(why, whylen, "exited with status %d",
		    WEXITSTATUS(st));
}

/* End the worker: wait for it when it is dying anyway, else kill it.
 * why gets how it ended. */
static void
reap(struct worker *w, int kill_now, char *why, size_t whylen)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };
	int st = 0, i;
	pid_t r = 0;

	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	if (w->pid == 0)
		return;
	for (i = 0; !kill_now && i < 100; i++) {
		r = waitpid(w->pid, &st, WNOHANG);
		if (r != 0)
			break;
		nanosleep(&ts, NULL);
	}
	if (r == 0) {
		kill(w->pid, SIGKILL);
		while ((r = waitpid(w->pid, &st, 0)) < 0 && errno == EINTR)
			;
	}
	if (r < 0)
		snprintf(why, whylen, "was lost (%s)", strerror(errno));
	else
		status_text(st, why, whylen);
	w->pid = 0;
}

void
worker_detach(struct plugin *pl)
{
	struct worker *w;
	char why[128];

	if (pl == NULL || (w = pl->worker) == NULL)
		return;
	reap(w, 0, why, sizeof(why));
	buf_release(&w->req.b);
	buf_release(&w->rep);
	free(w);
	pl->worker = NULL;
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for fd; 0 when ready, 1 when the deadline passed. */
static int
wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd pfd;
	int left, rc;

	for (;;) {
		left = -1;
		if (deadline >= 0) {
			int64_t l = deadline - now_ms();

			if (l <= 0)
				return 1;
			left = l > 1000000 ? 1000000 : (int)l;
		}
		pfd.fd = fd;
		pfd.events = events;
		pfd.revents = 0;
		rc = poll(&pfd, 1, left);
		if (rc > 0 || (rc < 0 && errno != EINTR))
			return 0;
		if (rc == 0 && deadline >= 0 && now_ms() >= deadline)
			return 1;
	}
}

/*
 * Send w->req, read the reply frame into w->rep.  0, 1 on timeout, 2 when
 * the worker went away, 3 when its reply is malformed.
 */
static int
exchange(struct worker *w, int64_t deadline)
{
	const uint8_t *p = w->req.b.data;
	size_t off = 0;
	ssize_t n;

	while (off < w->req.b.len) {
		n = send(w->fd, p + off, w->req.b.len - off, MSG_NOSIGNAL);
		if (n > 0)
			off += (size_t)n;
		else if (n < 0 && errno == EINTR)
			continue;
		else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (wait_fd(w->fd, POLLOUT, deadline))
				return 1;
		} else
			return 2;
	}
	return read_frame(w->fd, &w->rep, deadline, 1);
}

/*
 * A worker that died between ops (killed by the operator or the
 * out-of-memory killer) is reaped here, so that the op about to be sent
 * starts a new one instead of failing for what it did not do.
 */
static void
check_idle(struct worker *w)
{
	char why[128];
	int st;

	if (w->pid == 0 || waitpid(w->pid, &st, WNOHANG) != w->pid)
		return;
	status_text(st, why, sizeof(why));
	close(w->fd);
	w->fd = -1;
	w->pid = 0;
	n_crashed++;
	log_warn("plugin '%s': its idle worker %s; it will be restarted",
	    w->pl->name, why);
}

/* Send the request built in w->req (its frame length still 0) and take
 * the reply; on failure the worker is gone and c->fault says why. */
static int
roundtrip(struct worker *w, enum worker_op op, struct call *c)
{
	char why[160];
	int64_t deadline;
	uint32_t len;
	int rc;

	if (w->req.bad)
		return REFD_ENOMEM;
	len = (uint32_t)(w->req.b.len - sizeof(len));
	memcpy(w->req.b.data, &len, sizeof(len));
	if (w->pid == 0 && spawn(w, why, sizeof(why)) != 0) {
		snprintf(c->fault, sizeof(c->fault), "plugin worker cannot "
		    "start: %s", why);
		log_err("plugin '%s': %s", w->pl->name, c->fault);
		return REFD_EPLUGINFAULT;
	}
	deadline = w->timeout_ms > 0 ? now_ms() + w->timeout_ms : -1;
	rc = exchange(w, deadline);
	if (rc == 0)
		return REFD_OK;
	reap(w, rc != 2, why, sizeof(why));
	c->fault_reason = rc == 1 ? "timeout" : "crash";
	if (rc == 1) {
		n_timeouts++;
		snprintf(c->fault, sizeof(c->fault), "plugin timed out: %s "
		    "ran longer than plugin-timeout (%u ms); its worker was "
		    "killed and will be restarted", op_names[op], w->timeout_ms);
	} else if (rc == 2) {
		n_crashed++;
		snprintf(c->fault, sizeof(c->fault), "plugin crashed in %s: "
		    "its worker %s; it will be restarted", op_names[op], why);
	} else {
		n_crashed++;
		snprintf(c->fault, sizeof(c->fault), "plugin worker sent a "
		    "malformed reply to %s and was killed; it will be "
		    "restarted", op_names[op]);
	}
	log_warn("plugin '%s': %s", w->pl->name, c->fault);
	return REFD_EPLUGINFAULT;
}

static void
req_begin(struct worker *w, enum worker_op op, const struct game *g,
    int32_t seat)
{
	struct enc *e = &w->req;

	buf_reset(&e->b);
	e->bad = 0;
	put_u32(e, 0);
	put_u32(e, op);
	put_u64(e, g->handle);
	put_i32(e, seat);
	put_u32(e, g->nseats);
	put_u64(e, g->mem.limit);
	put_u64(e, g->rng.counter);
	put_u64(e, g->rng.pos);
	put_u64(e, g->rng.salt_counter);
}

/*
 * Whether every draw and commitment the worker reports follows from g's
 * seed: refd, not the worker, decides the dice that go into the log.
 * Draws are checked at the index each names (indexes rise, from g's
 * counter on); commitments in order from g's salt counter.
 */
static int
draws_follow(const struct game *g, const struct call *c)
{
	struct rng sim = g->rng;	/* rng_draw only reads the script */
	uint8_t salt[16], hash[ENG_HASH_LEN];
	uint64_t next = g->rng.scripted ? g->rng.pos : g->rng.counter, idx;
	uint32_t v;
	size_t i;

	for (i = 0; i < c->ndr; i++) {
		const struct draw *d = &c->dr[i];

		if ((d->kind != DRAW_ROLL && d->kind != DRAW_UNIFORM) ||
		    d->index < next)
			return 0;
		if (sim.scripted)
			sim.pos = d->index;
		else
			sim.counter = d->index;
		if (rng_draw(&sim, d->kind, d->bound, &idx, &v) != REFD_OK ||
		    v != d->value)
			return 0;
		next = sim.scripted ? sim.pos : sim.counter;
	}
	for (i = 0; i < c->ncm; i++) {
		rng_seal(&sim, g->rng.salt_counter + i, c->cm[i].data,
		    c->cm[i].len, salt, hash);
		if (memcmp(salt, c->cm[i].salt, sizeof(salt)) != 0 ||
		    memcmp(hash, c->cm[i].hash, sizeof(hash)) != 0)
			return 0;
	}
	return 1;
}

/* Take the reply in w->rep for g: the op's return value, or
 * REFD_EPLUGINFAULT when the reply is malformed. */
static int
take_reply(struct worker *w, struct game *g, uint64_t *handle,
    uint64_t *seats, struct call *c)
{
	struct dec d = { w->rep.data + 4, w->rep.len - 4, 0 };
	const uint8_t *snap, *res;
	size_t snaplen, reslen;
	uint64_t h, s, cnt, pos, salt, mb, mp;
	int rc, crc, res_known, res_rc;
	char why[128];

	rc = get_i32(&d);
	h = get_u64(&d);
	s = get_u64(&d);
	cnt = get_u64(&d);
	pos = get_u64(&d);
	salt = get_u64(&d);
	mb = get_u64(&d);
	mp = get_u64(&d);
	crc = get_call(&d, c);
	snap = get_bytes(&d, &snaplen);
	res_known = (int)get_u32(&d);
	res_rc = get_i32(&d);
	res = get_bytes(&d, &reslen);
	if (crc == REFD_ENOMEM) {
		call_reset(c);
		return REFD_ENOMEM;
	}
	if (crc != 0 || d.bad || d.n != 0 || rc > 1 || res_rc < 0 ||
	    res_rc > 1 || !draws_follow(g, c) || cnt < g->rng.counter ||
	    pos < g->rng.pos || salt < g->rng.salt_counter) {
		call_reset(c);
		reap(w, 1, why, sizeof(why));
		n_crashed++;
		c->fault_reason = "crash";
		snprintf(c->fault, sizeof(c->fault), "plugin worker sent a "
		    "malformed reply (or draws that do not follow from the "
		    "seed) and was killed; it will be restarted");
		log_warn("plugin '%s': %s", w->pl->name, c->fault);
		return REFD_EPLUGINFAULT;
	}
	g->rng.counter = cnt;
	g->rng.pos = pos;
	g->rng.salt_counter = salt;
	g->mem.bytes = (size_t)mb;
	g->mem.peak = (size_t)mp;
	if (snaplen > 0) {
		uint8_t *p = dup_bytes(snap, snaplen);

		if (p == NULL)
			return REFD_ENOMEM;
		free(g->snap);
		g->snap = p;
		g->snap_len = snaplen;
	}
	if (res_known) {
		uint8_t *p = dup_bytes(res, reslen);

		if (p == NULL)
			return REFD_ENOMEM;
		free(g->res_out);
		g->res_out = p;
		g->res_len = reslen;
		g->res_rc = res_rc;
		g->res_known = 1;
	}
	if (handle != NULL)
		*handle = h;
	if (seats != NULL)
		*seats = s;
	return rc;
}

/* Create or restore g's state in the worker (starting it if needed). */
static int
place(struct worker *w, struct game *g, enum worker_op op,
    const uint8_t *bytes, size_t len, struct call *c)
{
	struct enc *e = &w->req;
	uint64_t h = 0;
	int rc;

	req_begin(w, op, g, 0);
	put(e, g->rng.key, sizeof(g->rng.key));
	put_u32(e, (uint32_t)g->rng.scripted);
	put_u32(e, (uint32_t)g->rng.nscript);
	put(e, g->rng.script, g->rng.nscript * sizeof(*g->rng.script));
	put_bytes(e, bytes, len);
	if ((rc = roundtrip(w, op, c)) != REFD_OK)
		return rc;
	rc = take_reply(w, g, &h, NULL, c);
	if (rc == REFD_OK && h == 0) {
		snprintf(c->fault, sizeof(c->fault), "plugin worker gave no "
		    "state");
		rc = REFD_EPLUGINFAULT;
	}
	if (rc == REFD_OK) {
		g->handle = h;
		g->gen = w->gen;
	}
	return rc;
}

static void
proxy_free(struct game *g)
{
	rng_release(&g->rng);
	free(g->snap);
	free(g->res_out);
	free(g);
}

int
worker_game_create(struct plugin *pl, int restore, const uint8_t *bytes,
    size_t len, uint32_t nseats, const struct rng *rng, size_t memlimit,
    struct game **out, struct call *c)
{
	struct game *g;
	int rc;

	*out = NULL;
	if ((rc = game_new(pl, nseats, rng, memlimit, &g)) != REFD_OK)
		return rc;
	check_idle(pl->worker);
	rc = place(pl->worker, g, restore ? WOP_RESTORE : WOP_CREATE, bytes,
	    len, c);
	if (rc == REFD_OK && restore && g->snap == NULL &&
	    (g->snap = dup_bytes(bytes, len)) != NULL)
		g->snap_len = len;
	if (rc != REFD_OK) {
		proxy_free(g);
		return rc;
	}
	*out = g;
	return REFD_OK;
}

/* Make sure the running worker holds g's state: after a restart, restore
 * it from the state saved after its last change. */
static int
rehome(struct worker *w, struct game *g, struct call *c)
{
	struct call c2;
	int rc;

	check_idle(w);
	if (w->pid != 0 && g->gen == w->gen)
		return REFD_OK;
	if (g->snap == NULL) {
		snprintf(c->fault, sizeof(c->fault), "plugin worker was "
		    "restarted and this game's state was not saved");
		return REFD_EPLUGINFAULT;
	}
	call_init(&c2);
	rc = place(w, g, WOP_RESTORE, g->snap, g->snap_len, &c2);
	if (rc != REFD_OK) {
		snprintf(c->fault, sizeof(c->fault), "plugin worker was "
		    "restarted and cannot restore this game's state: %s",
		    c2.fault[0] ? c2.fault : c2.reject_msg[0] ? c2.reject_msg :
		    refd_strerror(rc));
		c->fault_reason = c2.fault_reason;
		rc = REFD_EPLUGINFAULT;
	}
	call_release(&c2);
	return rc;
}

void
worker_game_destroy(struct game *g)
{
	struct worker *w = g->pl->worker;
	struct call c;

	if (w->pid != 0 && g->gen == w->gen) {
		call_init(&c);
		req_begin(w, WOP_DESTROY, g, 0);
		put_bytes(&w->req, NULL, 0);
		if (roundtrip(w, WOP_DESTROY, &c) == REFD_OK)
			take_reply(w, g, NULL, NULL, &c);
		call_release(&c);
	}
	proxy_free(g);
}

int
worker_game_op(struct game *g, enum worker_op op, int32_t seat,
    const uint8_t *bytes, size_t len, uint64_t *seats, struct call *c)
{
	struct worker *w = g->pl->worker;
	int rc;

	if ((rc = rehome(w, g, c)) != REFD_OK)
		return rc;
	if (op == WOP_APPLY || op == WOP_REDEAL)
		g->res_known = 0;
	req_begin(w, op, g, seat);
	put_bytes(&w->req, bytes, len);
	if ((rc = roundtrip(w, op, c)) != REFD_OK)
		return rc;
	return take_reply(w, g, NULL, seats, c);
}
