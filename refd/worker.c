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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/landlock.h>
#include <seccomp.h>

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
/* The first word of the frame a worker's SIGSYS handler sends instead of
 * a reply: then the system call's number and its audit architecture. */
#define DENIED_MARK ((int32_t)0x5359534e)
/* A worker's start (exec, the loader, init, describe, content_load) gets
 * plugin-timeout and this much more. */
#define START_SLACK_MS 1000

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
	int send_content;	/* start with pl->content */
	struct enc req;
	struct buf rep;
};

static uint64_t n_started, n_crashed, n_timeouts;
static uint64_t lim_as;		/* RLIMIT_AS of workers, 0: none */
static uint32_t lim_cpu;	/* RLIMIT_CPU of workers, 0: none */

static const char *const op_names[] = {
	"?", "create", "restore", "destroy", "apply", "legal", "pending",
	"view", "result", "serialize", "redeal", "load"
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

/* The worker's lockdown. */

/* SIGSYS from the filter: tell refd which call it was, then die. */
static void
on_sigsys(int sig, siginfo_t *si, void *uc)
{
	uint8_t f[16];
	uint32_t len = 12, arch = si->si_arch;
	int32_t mark = DENIED_MARK, nr = si->si_syscall;

	(void)sig;
	(void)uc;
	memcpy(f, &len, 4);
	memcpy(f + 4, &mark, 4);
	memcpy(f + 8, &nr, 4);
	memcpy(f + 12, &arch, 4);
	if (write(WORKER_FD, f, sizeof(f)) < 0) {
		/* refd sees the worker die all the same */
	}
	_exit(70);
}

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

/*
 * While the dynamic loader maps the plugin (and runs its constructors),
 * files may be opened for reading only, and, where the kernel has
 * Landlock, only the plugin file and the system's library directories.
 * Best effort: without Landlock the seccomp filter still refuses every
 * write, and every open once the plugin is loaded.
 */
static void
landlock_loader(const char *plugin)
{
	static const char *const libs[] = { "/lib", "/lib64", "/usr/lib",
	    "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache", NULL };
	struct landlock_ruleset_attr ra;
	struct landlock_path_beneath_attr pb;
	struct stat st;
	long abi;
	int rs, fd, i;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1)
		return;
	memset(&ra, 0, sizeof(ra));
	ra.handled_access_fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;
	if (abi >= 2)
		ra.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		ra.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		ra.handled_access_fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	rs = (int)syscall(SYS_landlock_create_ruleset, &ra, sizeof(ra), 0);
	if (rs < 0)
		return;
	for (i = -1; i < 0 || libs[i] != NULL; i++) {
		fd = open(i < 0 ? plugin : libs[i], O_PATH | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(&pb, 0, sizeof(pb));
		pb.parent_fd = fd;
		pb.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE |
		    LANDLOCK_ACCESS_FS_EXECUTE;
		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
			pb.allowed_access |= LANDLOCK_ACCESS_FS_READ_DIR;
		syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH,
		    &pb, 0);
		close(fd);
	}
	syscall(SYS_landlock_restrict_self, rs, 0);
	close(rs);
}

static void
allow(scmp_filter_ctx f, int nr, unsigned n, const struct scmp_arg_cmp *a)
{
	/* A call this architecture lacks is refused anyway. */
	if (seccomp_rule_add_array(f, SCMP_ACT_ALLOW, nr, n, a) != 0) {
		/* nothing to allow */
	}
}

/*
 * The seccomp filter: what the op loop needs, and for loading (the
 * dynamic loader, reading the plugin file to hash it) also read-only
 * opens, file mappings and stat.  Everything else raises SIGSYS
 * (on_sigsys).  The loop's filter is added on top of the loader's, so
 * once it is in place the stricter of the two decides.
 */
static int
load_filter(int loading)
{
	/* (the second datum is unused by SCMP_CMP_EQ; given for clang's
	 * -Wmissing-field-initializers) */
	struct scmp_arg_cmp fd1 = SCMP_A0(SCMP_CMP_EQ, 1, 0);
	struct scmp_arg_cmp fd2 = SCMP_A0(SCMP_CMP_EQ, 2, 0);
	struct scmp_arg_cmp fd3 = SCMP_A0(SCMP_CMP_EQ, WORKER_FD, 0);
	struct scmp_arg_cmp anon = SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_ANONYMOUS,
	    MAP_ANONYMOUS);
	struct scmp_arg_cmp rdonly = SCMP_A2(SCMP_CMP_MASKED_EQ,
	    O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | O_TMPFILE, O_RDONLY);
	struct scmp_arg_cmp self = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid(),
	    0);
	scmp_filter_ctx f;
	int rc;

#ifdef REFD_SANITIZE
	/*
	 * AddressSanitizer's own reports (a crash's) read /proc and the
	 * executable: in a sanitized build a denied call fails with EPERM
	 * instead of killing the worker, so a crash is reported as a crash.
	 */
	if ((f = seccomp_init(SCMP_ACT_ERRNO(EPERM))) == NULL)
		return -1;
#else
	if ((f = seccomp_init(SCMP_ACT_TRAP)) == NULL)
		return -1;
#endif
	/* The channel to refd; stdout and stderr (refd's, or /dev/null). */
	allow(f, SCMP_SYS(read), 1, &fd3);
	allow(f, SCMP_SYS(write), 1, &fd1);
	allow(f, SCMP_SYS(write), 1, &fd2);
	allow(f, SCMP_SYS(write), 1, &fd3);
	allow(f, SCMP_SYS(sendto), 1, &fd3);
	/* Memory, and private anonymous mappings only. */
	allow(f, SCMP_SYS(brk), 0, NULL);
	allow(f, SCMP_SYS(mmap), 1, &anon);
	allow(f, SCMP_SYS(munmap), 0, NULL);
	allow(f, SCMP_SYS(mremap), 0, NULL);
	allow(f, SCMP_SYS(mprotect), 0, NULL);
	allow(f, SCMP_SYS(madvise), 0, NULL);
	allow(f, SCMP_SYS(futex), 0, NULL);
	allow(f, SCMP_SYS(fstat), 0, NULL);
	/* Ending, and abort() (which signals itself). */
	allow(f, SCMP_SYS(exit), 0, NULL);
	allow(f, SCMP_SYS(exit_group), 0, NULL);
	allow(f, SCMP_SYS(rt_sigreturn), 0, NULL);
	allow(f, SCMP_SYS(rt_sigprocmask), 0, NULL);
	allow(f, SCMP_SYS(getpid), 0, NULL);
	allow(f, SCMP_SYS(gettid), 0, NULL);
	allow(f, SCMP_SYS(tgkill), 1, &self);
	if (loading) {
		allow(f, SCMP_SYS(openat), 1, &rdonly);
		allow(f, SCMP_SYS(read), 0, NULL);
		allow(f, SCMP_SYS(pread64), 0, NULL);
		allow(f, SCMP_SYS(mmap), 0, NULL);
		allow(f, SCMP_SYS(newfstatat), 0, NULL);
		allow(f, SCMP_SYS(close), 0, NULL);
		/* To add the loop's filter (filters only ever narrow). */
		allow(f, SCMP_SYS(prctl), 0, NULL);
		allow(f, SCMP_SYS(seccomp), 0, NULL);
	}
#ifdef REFD_SANITIZE
	/*
	 * Built with AddressSanitizer (make SANITIZE=1): its runtime reads
	 * its limits and maps, and sets up an alternate signal stack, in
	 * the worker too.  Never in a build for use.
	 */
	allow(f, SCMP_SYS(sigaltstack), 0, NULL);
	allow(f, SCMP_SYS(prlimit64), 0, NULL);
	allow(f, SCMP_SYS(getrlimit), 0, NULL);
	allow(f, SCMP_SYS(prctl), 0, NULL);
	allow(f, SCMP_SYS(sched_yield), 0, NULL);
	allow(f, SCMP_SYS(rt_sigaction), 0, NULL);
#endif
	rc = seccomp_load(f);
	seccomp_release(f);
	return rc == 0 ? 0 : -1;
}

static void
limit(int what, uint64_t v)
{
	struct rlimit rl;

	rl.rlim_cur = rl.rlim_max = (rlim_t)v;
	setrlimit(what, &rl);
}

#ifdef REFD_SANITIZE
/* This process's address space now, in bytes (0 if unknown). */
static uint64_t
mapped_now(void)
{
	unsigned long long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu", &pages) != 1)
		pages = 0;
	fclose(f);
	return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}
#endif

/*
 * Before the plugin's file is even mapped: resource limits, no new
 * privileges, the loader's Landlock rules and seccomp filter, SIGSYS
 * reported to refd.
 */
static int
lock_loader(const char *plugin, uint64_t as, uint32_t cpu)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGSYS, &sa, NULL) != 0)
		return -1;
#ifndef REFD_SANITIZE
	if (as > 0)
		limit(RLIMIT_AS, as);
#else
	/* AddressSanitizer reserves terabytes of address space at start:
	 * the limit bounds what is mapped on top of it (its large blocks;
	 * small ones come from space it reserved). */
	if (as > 0)
		limit(RLIMIT_AS, as + mapped_now());
#endif
	if (cpu > 0)
		limit(RLIMIT_CPU, cpu);
	limit(RLIMIT_FSIZE, 0);
	limit(RLIMIT_NOFILE, 8);
	limit(RLIMIT_NPROC, 0);
	limit(RLIMIT_CORE, 0);
	limit(RLIMIT_MEMLOCK, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	landlock_loader(plugin);
	return load_filter(1);
}

/* After the loader, before init: the op loop's filter. */
static int
lock_loop(void *arg)
{
	(void)arg;
	return load_filter(0);
}

static void __attribute__((noreturn))
worker_run(void)
{
	struct plugin *pl = NULL;
	struct buf in;
	struct enc e;
	struct dec d;
	struct call c;
	char path[4096], err[1024];
	const uint8_t *content;
	size_t clen;
	uint64_t as;
	uint32_t cpu, with_content, len;
	int rc, crc = REFD_OK;

	buf_init(&in);
	buf_init(&e.b);
	e.bad = 0;
	call_init(&c);
	err[0] = '\0';
	if (read_frame(WORKER_FD, &in, -1, 0) != 0)
		_exit(0);
	d.p = in.data + 4;
	d.n = in.len - 4;
	d.bad = 0;
	if (get_u32(&d) != WOP_LOAD)
		_exit(3);
	get_str(&d, path, sizeof(path));
	as = get_u64(&d);
	cpu = get_u32(&d);
	with_content = get_u32(&d);
	content = get_bytes(&d, &clen);
	if (d.bad)
		_exit(3);
	if (lock_loader(path, as, cpu) != 0) {
		snprintf(err, sizeof(err), "plugin '%s': worker: cannot drop "
		    "its privileges: %s", path, strerror(errno));
		rc = REFD_EPLUGINFAULT;
	} else
		rc = plugin_open_locked(path, lock_loop, NULL, &pl, err,
		    sizeof(err));
	if (rc == REFD_OK && with_content) {
		if ((pl->content = dup_bytes(content, clen)) == NULL)
			crc = REFD_ENOMEM;
		else {
			pl->content_len = clen;
			crc = plugin_set_content(pl, &c);
		}
	}
	put_u32(&e, 0);
	put_i32(&e, rc);
	put_str(&e, err);
	put_u32(&e, pl != NULL ? pl->desc->abi_major : 0);
	put_u32(&e, pl != NULL ? pl->desc->abi_minor : 0);
	put_u32(&e, pl != NULL ? pl->desc->flags : 0);
	put_u64(&e, pl != NULL ? pl->desc->required_caps : 0);
	put_u32(&e, pl != NULL ? pl->desc->min_seats : 0);
	put_u32(&e, pl != NULL ? pl->desc->max_seats : 0);
	put_str(&e, pl != NULL ? pl->desc->name : "");
	put_str(&e, pl != NULL ? pl->desc->version : "");
	put_str(&e, pl != NULL && pl->desc->summary ? pl->desc->summary : "");
	put_u32(&e, pl != NULL && pl->ops.redeal != NULL);
	put_bytes(&e, pl != NULL ? pl->describe : NULL,
	    pl != NULL ? pl->describe_len : 0);
	put_i32(&e, crc);
	put_call(&e, &c);
	if (e.bad)
		_exit(3);
	len = (uint32_t)(e.b.len - sizeof(len));
	memcpy(e.b.data, &len, sizeof(len));
	if (send_all(WORKER_FD, e.b.data, e.b.len) != 0 || rc != REFD_OK ||
	    crc != REFD_OK)
		_exit(0);
	call_release(&c);
	buf_release(&in);
	buf_release(&e.b);
	serve(pl, WORKER_FD);
}

void
worker_main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], WORKER_ARG) == 0)
		worker_run();
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
	w->send_content = pl->content_set;
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

/* Fork, and exec a fresh image of this program as a worker. */
static int
spawn(struct worker *w, char *why, size_t whylen)
{
	static char arg0[] = "refd-worker", arg1[] = WORKER_ARG;
	char *argv[] = { arg0, arg1, NULL }, *envp[] = { NULL };
	struct sigaction sa;
	sigset_t all;
	pid_t parent = getpid(), pid;
	int sv[2], oom, fd;

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
		/*
		 * Die with refd, and only then: a SIGTERM or SIGINT for the
		 * whole process group (a service manager stopping refd,
		 * Ctrl-C) must not kill the workers under a refd that still
		 * finishes its loop turn.  Ignored signals stay ignored
		 * across exec; the death signal stays too.
		 */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		sa.sa_handler = SIG_IGN;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sigaction(SIGPIPE, &sa, NULL);
		sigaction(SIGXFSZ, &sa, NULL);
		sa.sa_handler = SIG_DFL;
		sigaction(SIGCHLD, &sa, NULL);
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		/* Out of memory, the kernel kills a worker, not refd. */
		if ((oom = open("/proc/self/oom_score_adj", O_WRONLY |
		    O_CLOEXEC)) >= 0) {
			if (write(oom, "1000", 4) != 4) {
				/* best effort */
			}
			close(oom);
		}
		/* Descriptors: /dev/null, /dev/null, refd's stderr, the
		 * channel; nothing else crosses the exec. */
		if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
		}
		if (sv[1] != WORKER_FD && dup2(sv[1], WORKER_FD) < 0)
			_exit(0);
		if (fcntl(WORKER_FD, F_SETFD, 0) != 0)
			_exit(0);
		close_range(WORKER_FD + 1, ~0u, 0);
		execve("/proc/self/exe", argv, envp);
		_exit(127);
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
exchange(struct worker *w, const struct buf *req, int64_t deadline)
{
	const uint8_t *p = req->data;
	size_t off = 0;
	ssize_t n;

	while (off < req->len) {
		n = send(w->fd, p + off, req->len - off, MSG_NOSIGNAL);
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

/* The plugin's name, or its path before it is known. */
static const char *
wname(const struct worker *w)
{
	return w->pl->name != NULL ? w->pl->name : w->pl->path;
}

/*
 * Whether the frame in w->rep is what a worker's SIGSYS handler sends:
 * then call gets the name and number of the system call it was denied.
 */
static int
denied_call(const struct worker *w, char *call, size_t calllen)
{
	int32_t mark, nr;
	uint32_t arch;
	char *s;

	if (w->rep.len != 16)
		return 0;
	memcpy(&mark, w->rep.data + 4, 4);
	if (mark != DENIED_MARK)
		return 0;
	memcpy(&nr, w->rep.data + 8, 4);
	memcpy(&arch, w->rep.data + 12, 4);
	s = seccomp_syscall_resolve_num_arch(arch, nr);
	snprintf(call, calllen, "%s (%d)", s != NULL ? s : "unknown", (int)nr);
	free(s);
	return 1;
}

/*
 * The exchange for op failed (exchange's code; 0 when the worker was
 * denied the system call named call): end the worker, say why in c->fault
 * and in one log line.  REFD_EPLUGINFAULT.
 */
static int
failed(struct worker *w, enum worker_op op, int rc, const char *call,
    struct call *c)
{
	const char *then;
	char why[128];

	reap(w, rc == 1 || rc == 3, why, sizeof(why));
	c->fault_reason = rc == 1 ? "timeout" : "crash";
	if (rc == 1)
		n_timeouts++;
	else
		n_crashed++;
	/* A worker that fails to start is not restarted by itself: the
	 * caller says what becomes of the plugin (refused, or the op
	 * fails), in its own log line. */
	then = op == WOP_LOAD ? "" : " and will be restarted";
	if (rc == 0)
		snprintf(c->fault, sizeof(c->fault), "plugin made a system "
		    "call its sandbox denies in %s: %s; its worker was "
		    "killed%s", op_names[op], call, then);
	else if (rc == 1)
		snprintf(c->fault, sizeof(c->fault), "plugin timed out: %s "
		    "ran longer than plugin-timeout (%u ms%s); its worker was "
		    "killed%s", op_names[op], w->timeout_ms,
		    op == WOP_LOAD ? ", and 1 s to start" : "", then);
	else if (rc == 2)
		snprintf(c->fault, sizeof(c->fault), "plugin crashed in %s: "
		    "its worker %s%s", op_names[op], why,
		    op == WOP_LOAD ? "" : "; it will be restarted");
	else
		snprintf(c->fault, sizeof(c->fault), "plugin worker sent a "
		    "malformed reply to %s and was killed%s", op_names[op],
		    op == WOP_LOAD ? "" : "; it will be restarted");
	if (op != WOP_LOAD)
		log_warn("plugin '%s': %s", wname(w), c->fault);
	return REFD_EPLUGINFAULT;
}

/* Text from a worker, made printable for logs and replies. */
static void
printable(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

/* What a worker says of the plugin it loaded. */
struct loaded {
	uint32_t abi_major, abi_minor, flags, min_seats, max_seats;
	uint64_t caps;
	char name[256], version[256], summary[512];
	uint32_t has_redeal;
	const uint8_t *describe;
	size_t describe_len;
};

static int
stub_redeal(refd_ctx *ctx, void *state, uint32_t seat)
{
	(void)ctx;
	(void)state;
	(void)seat;
	return REFD_EINTERNAL;
}

/*
 * Take what the worker of pl read from the plugin's descriptor, checked
 * again here: the worker ran the plugin's code and is not to be trusted.
 */
static int
take_desc(struct plugin *pl, const struct loaded *l, char *why,
    size_t whylen)
{
	char *stem = plugin_stem(pl->path);
	const char *bad = NULL;

	if (stem == NULL)
		return REFD_ENOMEM;
	if (strcmp(l->name, stem) != 0)
		bad = "name";
	else if (l->abi_major != REFD_ABI_MAJOR ||
	    l->abi_minor > REFD_ABI_MINOR)
		bad = "abi";
	else if ((l->caps & ~(uint64_t)REFD_HOST_CAPS_V1_0) != 0)
		bad = "required caps";
	else if (l->min_seats < 1 || l->max_seats < l->min_seats ||
	    l->max_seats > REFD_MAX_SEATS)
		bad = "seats";
	else if (l->version[0] == '\0' ||
	    !refd_utf8_ok((const uint8_t *)l->version, strlen(l->version)) ||
	    !refd_utf8_ok((const uint8_t *)l->summary, strlen(l->summary)))
		bad = "version or summary";
	else if (refd_mp_check(l->describe, l->describe_len, 0) != 0)
		bad = "describe";
	free(stem);
	if (bad != NULL) {
		snprintf(why, whylen, "plugin '%s': worker: gave a %s that "
		    "does not hold; the worker is not to be trusted", pl->path,
		    bad);
		return REFD_EDESC;
	}
	pl->name = strdup(l->name);
	pl->version = strdup(l->version);
	pl->summary = strdup(l->summary);
	pl->describe = dup_bytes(l->describe, l->describe_len);
	if (pl->name == NULL || pl->version == NULL || pl->summary == NULL ||
	    pl->describe == NULL)
		return REFD_ENOMEM;
	pl->describe_len = l->describe_len;
	memset(&pl->descbuf, 0, sizeof(pl->descbuf));
	pl->descbuf.magic = REFD_PLUGIN_MAGIC;
	pl->descbuf.abi_major = (uint16_t)l->abi_major;
	pl->descbuf.abi_minor = (uint16_t)l->abi_minor;
	pl->descbuf.size = (uint32_t)sizeof(pl->descbuf);
	pl->descbuf.flags = l->flags;
	pl->descbuf.required_caps = l->caps;
	pl->descbuf.name = pl->name;
	pl->descbuf.version = pl->version;
	pl->descbuf.summary = pl->summary;
	pl->descbuf.min_seats = l->min_seats;
	pl->descbuf.max_seats = l->max_seats;
	pl->desc = &pl->descbuf;
	memset(&pl->ops, 0, sizeof(pl->ops));
	pl->ops.size = sizeof(pl->ops);
	if (l->has_redeal)
		pl->ops.redeal = stub_redeal;
	return REFD_OK;
}

/*
 * Start w's worker: a fresh image of this program that loads the plugin
 * (and its content when w->send_content) under its sandbox.  With fill,
 * the plugin's descriptor and describe go to fill.  REFD_OK; otherwise
 * the worker is gone and why says what happened (a content rejection
 * also in c).
 */
static int
start(struct worker *w, struct plugin *fill, struct call *c, char *why,
    size_t whylen)
{
	const struct plugin *pl = w->pl;
	int with = w->send_content && pl->content != NULL;
	struct loaded l;
	struct enc e;
	struct dec d;
	char err[1024], call[64];
	int64_t deadline;
	uint32_t len;
	int rc, lrc, crc, grc;

	if (spawn(w, why, whylen) != 0)
		return REFD_EPLUGINFAULT;
	buf_init(&e.b);
	e.bad = 0;
	put_u32(&e, 0);
	put_u32(&e, WOP_LOAD);
	put_str(&e, pl->path);
	put_u64(&e, lim_as);
	put_u32(&e, lim_cpu);
	put_u32(&e, (uint32_t)with);
	put_bytes(&e, with ? pl->content : NULL, with ? pl->content_len : 0);
	if (e.bad) {
		buf_release(&e.b);
		reap(w, 1, why, whylen);
		snprintf(why, whylen, "out of memory");
		return REFD_ENOMEM;
	}
	len = (uint32_t)(e.b.len - sizeof(len));
	memcpy(e.b.data, &len, sizeof(len));
	deadline = w->timeout_ms > 0 ? now_ms() + w->timeout_ms +
	    START_SLACK_MS : -1;
	rc = exchange(w, &e.b, deadline);
	buf_release(&e.b);
	if (rc != 0 || denied_call(w, call, sizeof(call))) {
		failed(w, WOP_LOAD, rc, call, c);
		snprintf(why, whylen, "%s", c->fault);
		return REFD_EPLUGINFAULT;
	}
	d.p = w->rep.data + 4;
	d.n = w->rep.len - 4;
	d.bad = 0;
	lrc = get_i32(&d);
	get_str(&d, err, sizeof(err));
	l.abi_major = get_u32(&d);
	l.abi_minor = get_u32(&d);
	l.flags = get_u32(&d);
	l.caps = get_u64(&d);
	l.min_seats = get_u32(&d);
	l.max_seats = get_u32(&d);
	get_str(&d, l.name, sizeof(l.name));
	get_str(&d, l.version, sizeof(l.version));
	get_str(&d, l.summary, sizeof(l.summary));
	l.has_redeal = get_u32(&d);
	l.describe = get_bytes(&d, &l.describe_len);
	crc = get_i32(&d);
	call_reset(c);
	grc = get_call(&d, c);
	if (grc == REFD_ENOMEM) {
		reap(w, 1, why, whylen);
		snprintf(why, whylen, "out of memory");
		return REFD_ENOMEM;
	}
	if (grc != 0 || d.bad || d.n != 0 || lrc > 0 || crc > 0) {
		call_reset(c);
		failed(w, WOP_LOAD, 3, NULL, c);
		snprintf(why, whylen, "%s", c->fault);
		return REFD_EPLUGINFAULT;
	}
	rc = lrc != REFD_OK ? lrc : crc;
	if (rc == REFD_OK && fill != NULL)
		rc = take_desc(fill, &l, why, whylen);
	else if (lrc != REFD_OK) {
		printable(err);
		snprintf(why, whylen, "%s", err);
	} else if (crc != REFD_OK) {
		snprintf(why, whylen, "content: %s", c->fault[0] ? c->fault :
		    c->reject_msg[0] ? c->reject_msg : refd_strerror(crc));
		rc = crc == REFD_EPLUGINFAULT ? crc : REFD_ECONTENT;
	}
	if (rc != REFD_OK) {
		char how[128];

		reap(w, 0, how, sizeof(how));
	}
	return rc;
}

void
worker_set_limits(uint64_t as_bytes, uint32_t cpu_s)
{
	lim_as = as_bytes;
	lim_cpu = cpu_s;
}

int
plugin_open_isolated(const char *path, unsigned timeout_ms,
    struct plugin **out, char *err, size_t errlen)
{
	struct plugin *pl;
	struct call c;
	int rc;

	*out = NULL;
	if ((rc = plugin_check_file(path, err, errlen)) != REFD_OK)
		return rc;
	if ((pl = calloc(1, sizeof(*pl))) == NULL)
		return REFD_ENOMEM;
	pl->desc = &pl->descbuf;
	if ((pl->path = strdup(path)) == NULL ||
	    plugin_isolate(pl, timeout_ms) != REFD_OK) {
		plugin_close(pl);
		return REFD_ENOMEM;
	}
	if (plugin_file_hash(path, pl->file_hash) != 0) {
		plugin_close(pl);
		snprintf(err, errlen, "plugin '%s': file: cannot read it to "
		    "hash it; check the file", path);
		return REFD_EDLOPEN;
	}
	call_init(&c);
	rc = start(pl->worker, pl, &c, err, errlen);
	if (rc != REFD_OK && c.fault[0] != '\0') {
		/* A fault of the worker (denied call, timeout, crash): say
		 * which plugin. */
		char why[1024];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "plugin '%s': %s", path, why);
	}
	call_release(&c);
	if (rc != REFD_OK) {
		plugin_close(pl);
		return rc;
	}
	*out = pl;
	return REFD_OK;
}

int
worker_set_content(struct plugin *pl, struct call *c)
{
	struct worker *w = pl->worker;
	char why[512];
	int rc, was = w->send_content;

	call_reset(c);
	if (w->pid != 0)
		reap(w, 1, why, sizeof(why));
	w->send_content = 1;
	rc = start(w, NULL, c, why, sizeof(why));
	if (rc == REFD_OK) {
		pl->content_set = 1;
		return REFD_OK;
	}
	w->send_content = was;
	if (c->fault[0] == '\0' && c->reject_msg[0] == '\0')
		snprintf(c->fault, sizeof(c->fault), "%s", why);
	return rc == REFD_EPLUGINFAULT || rc == REFD_ENOMEM ? rc :
	    REFD_ECONTENT;
}

/* Send the request built in w->req (its frame length still 0) and take
 * the reply; on failure the worker is gone and c->fault says why. */
static int
roundtrip(struct worker *w, enum worker_op op, struct call *c)
{
	char why[1024], call[64];
	struct call sc;
	int64_t deadline;
	uint32_t len;
	int rc;

	if (w->req.bad)
		return REFD_ENOMEM;
	len = (uint32_t)(w->req.b.len - sizeof(len));
	memcpy(w->req.b.data, &len, sizeof(len));
	if (w->pid == 0) {
		call_init(&sc);
		rc = start(w, NULL, &sc, why, sizeof(why));
		call_release(&sc);
		if (rc != REFD_OK) {
			snprintf(c->fault, sizeof(c->fault), "plugin worker "
			    "cannot start: %s", why);
			c->fault_reason = "crash";
			log_err("plugin '%s': %s", wname(w), c->fault);
			return REFD_EPLUGINFAULT;
		}
	}
	deadline = w->timeout_ms > 0 ? now_ms() + w->timeout_ms : -1;
	rc = exchange(w, &w->req.b, deadline);
	if (rc == 0 && !denied_call(w, call, sizeof(call)))
		return REFD_OK;
	return failed(w, op, rc, call, c);
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
