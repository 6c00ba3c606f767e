/*
 * hostile.c - fixture plugins that attack the machine they run on, for
 * tests/integ/13-hostile.t.  Each is the fixture's race (fixture.c, included
 * below) with one hostile act; the Makefile builds
 * $(B)/tests/plugins/hostile_<act>.so with -DHOSTILE_<act>.
 *
 * The acts of apply run on the command {"type": "attack", "what": W, ...}:
 *
 *   hostile_steal  W "key": open and read the file "path" (refd's signing
 *                  key); W "mem": open /proc/<"pid">/mem (refd's memory);
 *                  W "vm": process_vm_readv from "pid" at "addr"
 *   hostile_dial   W "tcp": connect to 127.0.0.1:"port"; W "unix": connect
 *                  to the unix socket "path" (refd's command socket)
 *   hostile_fork   W "fork": fork a child that lives "secs" seconds;
 *                  W "kill": send SIGKILL to "pid" (refd)
 *   hostile_exec   exec /bin/sh to create the file "path"
 *   hostile_write  W "create": create the file "path"; W "append": append
 *                  to the file "path" (a match log); W "truncate": empty it;
 *                  W "unlink": remove it
 *   hostile_hog    allocate and touch 16 MiB blocks without bound (or up
 *                  to "mb" MiB when given), using each block unchecked
 *
 * and three plugins attack at load: hostile_spin_init spins for ever in
 * init, hostile_spin_load in content_load, and hostile_ctor reads, in a
 * constructor the dynamic loader runs, the file "secret" in the directory
 * above its own (the test links it to refd's signing key); its command
 * {"type": "attack"} then reports what the constructor got, as above.
 *
 * An act that works is a breach: apply accepts the command with a public
 * event {"type": "breach", "what": W, "got": what it obtained}.  An act
 * whose system call fails (a sandbox that answers EPERM, as under
 * SANITIZE=1) is rejected with EILLEGAL, rule "HOSTILE-1", and a message
 * "denied: <call>: <error>".  A sandbox that kills the worker instead
 * leaves refd to say so.
 */
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>

#define FIXTURE_HOSTILE 1
#include "fixture.c"

/* (Helpers for the acts; the load-time plugins have none.) */
#define UNUSED_OK __attribute__((unused))

/* The act worked: say what it obtained, publicly. */
static int UNUSED_OK
breach(refd_ctx *ctx, const char *what, const char *got)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "breach");
	refd_mpw_kstr(w, "what", what);
	refd_mpw_kstr(w, "got", got);
	refd_mpw_end(w);
	return put(ctx, w, REFD_SEAT_PUBLIC, 1);
}

/* The act's system call failed. */
static int UNUSED_OK
denied(refd_ctx *ctx, const char *call)
{
	char msg[200];

	snprintf(msg, sizeof(msg), "denied: %s: %s", call, strerror(errno));
	return H->reject(ctx, REFD_EILLEGAL, "HOSTILE-1", msg);
}

/* Bytes as hex, at most 32 of them. */
static void UNUSED_OK
hex(const uint8_t *p, size_t n, char *out)
{
	size_t i;

	if (n > 32)
		n = 32;
	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = '\0';
}

#ifdef HOSTILE_steal
static int
act(refd_ctx *ctx, refd_mpv root, const char *what)
{
	uint8_t b[32];
	char got[80], path[64];
	struct iovec lo, re;
	ssize_t n;
	int fd;

	if (strcmp(what, "vm") == 0) {
		lo.iov_base = b;
		lo.iov_len = sizeof(b);
		re.iov_base = (void *)(uintptr_t)refd_mpv_get_int(root, "addr",
		    0);
		re.iov_len = sizeof(b);
		n = process_vm_readv((pid_t)refd_mpv_get_int(root, "pid", 1),
		    &lo, 1, &re, 1, 0);
		if (n < 0)
			return denied(ctx, "process_vm_readv");
		hex(b, (size_t)n, got);
		return breach(ctx, what, got);
	}
	if (strcmp(what, "mem") == 0)
		snprintf(path, sizeof(path), "/proc/%lld/mem",
		    (long long)refd_mpv_get_int(root, "pid", 1));
	fd = open(strcmp(what, "mem") == 0 ? path :
	    refd_mpv_get_str(root, "path", "/"), O_RDONLY);
	if (fd < 0)
		return denied(ctx, "open");
	n = read(fd, b, sizeof(b));
	close(fd);
	if (n < 0)
		snprintf(got, sizeof(got), "opened");
	else
		hex(b, (size_t)n, got);
	return breach(ctx, what, got);
}
#endif

#ifdef HOSTILE_dial
static int
act(refd_ctx *ctx, refd_mpv root, const char *what)
{
	struct sockaddr_in in;
	struct sockaddr_un un;
	int fd, tcp = strcmp(what, "tcp") == 0, rc;

	fd = socket(tcp ? AF_INET : AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return denied(ctx, "socket");
	if (tcp) {
		memset(&in, 0, sizeof(in));
		in.sin_family = AF_INET;
		in.sin_port = htons((uint16_t)refd_mpv_get_int(root, "port",
		    1));
		in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		rc = connect(fd, (struct sockaddr *)&in, sizeof(in));
	} else {
		memset(&un, 0, sizeof(un));
		un.sun_family = AF_UNIX;
		snprintf(un.sun_path, sizeof(un.sun_path), "%s",
		    refd_mpv_get_str(root, "path", "/"));
		rc = connect(fd, (struct sockaddr *)&un, sizeof(un));
	}
	if (rc != 0) {
		rc = denied(ctx, "connect");
		close(fd);
		return rc;
	}
	close(fd);
	return breach(ctx, what, "connected");
}
#endif

#ifdef HOSTILE_fork
static int
act(refd_ctx *ctx, refd_mpv root, const char *what)
{
	unsigned secs = (unsigned)refd_mpv_get_int(root, "secs", 5);
	char got[32];
	pid_t pid;

	if (strcmp(what, "kill") == 0) {
		if (kill((pid_t)refd_mpv_get_int(root, "pid", 0), SIGKILL) != 0)
			return denied(ctx, "kill");
		return breach(ctx, what, "sent");
	}
	pid = fork();
	if (pid < 0)
		return denied(ctx, "fork");
	if (pid == 0) {
		sleep(secs);
		_exit(0);
	}
	snprintf(got, sizeof(got), "%ld", (long)pid);
	return breach(ctx, what, got);
}
#endif

#ifdef HOSTILE_exec
static int
act(refd_ctx *ctx, refd_mpv root, const char *what)
{
	char cmd[512];
	char *argv[] = { "sh", "-c", cmd, NULL }, *envp[] = { NULL };

	(void)what;
	snprintf(cmd, sizeof(cmd), "echo breach > '%s'",
	    refd_mpv_get_str(root, "path", "/dev/null"));
	execve("/bin/sh", argv, envp);
	return denied(ctx, "execve");
}
#endif

#ifdef HOSTILE_write
static int
act(refd_ctx *ctx, refd_mpv root, const char *what)
{
	const char *path = refd_mpv_get_str(root, "path", "/");
	static const char junk[] = "\x92\xa6" "breach\xc0";
	int fd;

	if (strcmp(what, "truncate") == 0) {
		if (truncate(path, 0) != 0)
			return denied(ctx, "truncate");
		return breach(ctx, what, path);
	}
	if (strcmp(what, "unlink") == 0) {
		if (unlink(path) != 0)
			return denied(ctx, "unlink");
		return breach(ctx, what, path);
	}
	fd = open(path, strcmp(what, "append") == 0 ? O_WRONLY | O_APPEND :
	    O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return denied(ctx, "open");
	if (write(fd, junk, sizeof(junk) - 1) < 0) {
		close(fd);
		return denied(ctx, "write");
	}
	close(fd);
	return breach(ctx, what, path);
}
#endif

#ifdef HOSTILE_hog
static int
act(refd_ctx *ctx, refd_mpv root, const char *what)
{
	const size_t block = (size_t)16 << 20;
	int64_t cap = refd_mpv_get_int(root, "mb", 0), mb = 0;
	char got[32];
	char *p;

	while (cap <= 0 || mb < cap) {
		/* Hostile code does not check: a refused block is a crash. */
		p = malloc(block);
		memset(p, 0x5a, block);
		mb += 16;
	}
	snprintf(got, sizeof(got), "%lld MiB", (long long)mb);
	return breach(ctx, what, got);
}
#endif

#ifdef HOSTILE_ctor
#include <dlfcn.h>
#include <libgen.h>

static char ctor_got[80];
static int ctor_errno;

/* Before init, before any entry point: while the loader maps the
 * plugin. */
__attribute__((constructor)) static void
steal_early(void)
{
	Dl_info di;
	char self[4096], path[4200];
	uint8_t b[32];
	ssize_t n;
	int fd;

	if (dladdr((void *)steal_early, &di) == 0 || di.dli_fname == NULL) {
		ctor_errno = ENOENT;
		return;
	}
	snprintf(self, sizeof(self), "%s", di.dli_fname);
	snprintf(path, sizeof(path), "%s/../secret", dirname(self));
	if ((fd = open(path, O_RDONLY)) < 0) {
		ctor_errno = errno;
		return;
	}
	n = read(fd, b, sizeof(b));
	close(fd);
	if (n < 0)
		snprintf(ctor_got, sizeof(ctor_got), "opened");
	else
		hex(b, (size_t)n, ctor_got);
}

static int
act(refd_ctx *ctx, refd_mpv root, const char *what)
{
	(void)root;
	if (ctor_got[0] != '\0')
		return breach(ctx, what, ctor_got);
	errno = ctor_errno;
	return denied(ctx, "open");
}
#endif

static int
hostile(refd_ctx *ctx, const char *where, const uint8_t *cmd, size_t len)
{
	refd_mpdoc *d;
	refd_mpv root;
	const char *what;
	int rc = 1;

#if defined(HOSTILE_spin_init) || defined(HOSTILE_spin_load)
	volatile unsigned long spins = 0;

#ifdef HOSTILE_spin_init
	if (strcmp(where, "init") == 0)
#else
	if (strcmp(where, "content_load") == 0)
#endif
		for (;;)
			spins++;
#endif
	if (strcmp(where, "apply") != 0)
		return 1;
	d = refd_mp_parse(cmd, len);
	root = refd_mp_root(d);
	if (d != NULL && refd_mpv_streq(refd_mpv_get(root, "type"),
	    "attack")) {
		what = refd_mpv_get_str(root, "what", "");
#if defined(HOSTILE_spin_init) || defined(HOSTILE_spin_load)
		rc = H->reject(ctx, REFD_EILLEGAL, "HOSTILE-2",
		    "this plugin attacks at load only");
		(void)what;
#else
		rc = act(ctx, root, what);
#endif
	}
	refd_mp_free(d);
	return rc;
}
