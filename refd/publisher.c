/*
 * publisher.c - each publish endpoint in a process of its own (see
 * publisher.h).
 *
 * refd writes frames to a publisher over a stream socketpair: a 4-byte
 * big-endian length, then the message (the match id, then the event).
 * Writes never block refd: what the socket does not take waits in a
 * queue, bounded by PUB_BACKLOG, past which messages are dropped as a
 * slow subscriber's would be.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <nanomsg/nn.h>
#include <nanomsg/pubsub.h>

#include "buf.h"
#include "log.h"
#include "publisher.h"

#define PUB_FD 3
#define PUB_BACKLOG ((size_t)64 << 20)	/* bytes queued in refd, at most */
#define PUB_MAXFRAME ((uint32_t)256 << 20)
#define PUB_START_WAIT 20		/* seconds, for the first bind */

struct publisher {
	char *endpoint;
	pid_t pid;		/* 0: down */
	int fd;			/* refd's end of the socketpair, nonblocking */
	int ready;		/* the publisher said "ok" */
	char status[512];	/* its first line, as it arrives */
	size_t nstatus;
	struct buf out;		/* frames not yet written */
	size_t off;
	double started, retry_at;
	unsigned long restarts;
};

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Fork and exec a publisher for p->endpoint.  0, or -1 with errno. */
static int
spawn(struct publisher *p)
{
	char *argv[] = { "refd", "--publisher", p->endpoint, NULL };
	int sv[2], fl;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		/* Only async-signal-safe calls until exec: refd has threads. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (sv[1] == PUB_FD) {
			fl = fcntl(PUB_FD, F_GETFD);
			fcntl(PUB_FD, F_SETFD, fl & ~FD_CLOEXEC);
		} else if (dup2(sv[1], PUB_FD) < 0) {
			_exit(127);
		}
		close_range(PUB_FD + 1, ~0u, 0);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(sv[1]);
	fl = fcntl(sv[0], F_GETFL);
	fcntl(sv[0], F_SETFL, fl | O_NONBLOCK);
	p->pid = pid;
	p->fd = sv[0];
	p->ready = 0;
	p->nstatus = 0;
	p->started = now_mono();
	buf_reset(&p->out);
	p->off = 0;
	return 0;
}

/*
 * Read the publisher's status line without blocking: 1 when it said
 * "ok", 0 while it has not said, -1 when it said why not (in p->status)
 * or closed.
 */
static int
read_status(struct publisher *p)
{
	ssize_t n;
	char *nl;

	while (p->nstatus < sizeof(p->status) - 1) {
		n = read(p->fd, p->status + p->nstatus, sizeof(p->status) - 1 -
		    p->nstatus);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			if (p->nstatus == 0)
				snprintf(p->status, sizeof(p->status),
				    "publish '%s': the publisher ended before "
				    "binding", p->endpoint);
			return -1;
		}
		p->nstatus += (size_t)n;
		p->status[p->nstatus] = '\0';
		if ((nl = strchr(p->status, '\n')) != NULL) {
			*nl = '\0';
			return strcmp(p->status, "ok") == 0 ? 1 : -1;
		}
	}
	return -1;
}

/* Wait for a publisher's end; SIGKILL it after `wait` seconds. */
static void
reap(struct publisher *p, double wait)
{
	double until = now_mono() + wait;
	int st;

	if (p->pid == 0)
		return;
	while (waitpid(p->pid, &st, WNOHANG) == 0) {
		if (now_mono() > until) {
			kill(p->pid, SIGKILL);
			while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
				;
			break;
		}
		usleep(10000);
	}
	p->pid = 0;
}

static void
down(struct publisher *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	p->pid = 0;
	p->ready = 0;
	buf_reset(&p->out);
	p->off = 0;
}

int
publisher_start(const char *endpoint, struct publisher **out, char *err,
    size_t errlen)
{
	struct publisher *p;
	struct pollfd pfd;
	double until;
	int rc = 0;

	*out = NULL;
	if ((p = calloc(1, sizeof(*p))) == NULL ||
	    (p->endpoint = strdup(endpoint)) == NULL) {
		free(p);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	p->fd = -1;
	buf_init(&p->out);
	if (spawn(p) != 0) {
		snprintf(err, errlen, "publish '%s': cannot start the "
		    "publisher: %s", endpoint, strerror(errno));
		publisher_stop(p);
		return -1;
	}
	until = now_mono() + PUB_START_WAIT;
	while (rc == 0 && now_mono() < until) {
		pfd.fd = p->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			break;
		rc = read_status(p);
	}
	if (rc != 1) {
		if (rc == 0)
			snprintf(p->status, sizeof(p->status), "publish '%s': "
			    "the publisher did not bind within %d seconds",
			    endpoint, PUB_START_WAIT);
		snprintf(err, errlen, "%s", p->status);
		publisher_stop(p);
		return -1;
	}
	p->ready = 1;
	*out = p;
	return 0;
}

int
publisher_queue(struct publisher *p, const void *topic, size_t tlen,
    const void *body, size_t blen)
{
	uint8_t hdr[4];
	size_t len = tlen + blen;

	if (p->pid == 0 || len > PUB_MAXFRAME ||
	    p->out.len - p->off + sizeof(hdr) + len > PUB_BACKLOG)
		return -1;
	hdr[0] = (uint8_t)(len >> 24);
	hdr[1] = (uint8_t)(len >> 16);
	hdr[2] = (uint8_t)(len >> 8);
	hdr[3] = (uint8_t)len;
	if (buf_reserve(&p->out, sizeof(hdr) + len) != 0)
		return -1;
	buf_add(&p->out, hdr, sizeof(hdr));
	buf_add(&p->out, topic, tlen);
	buf_add(&p->out, body, blen);
	return 0;
}

static void
ended(struct publisher *p, int st)
{
	double now = now_mono();

	if (WIFSIGNALED(st))
		log_err("publisher of '%s' (pid %ld) killed by signal %d (%s); "
		    "restarting it", p->endpoint, (long)p->pid, WTERMSIG(st),
		    strsignal(WTERMSIG(st)));
	else
		log_err("publisher of '%s' (pid %ld) exited with status %d; "
		    "restarting it", p->endpoint, (long)p->pid,
		    WEXITSTATUS(st));
	down(p);
	/* One that dies at once is started again a second later. */
	p->retry_at = now - p->started < 1 ? p->started + 1 : now;
}

void
publisher_flush(struct publisher *p)
{
	ssize_t n;
	int st, rc;

	if (p->pid != 0 && waitpid(p->pid, &st, WNOHANG) == p->pid)
		ended(p, st);
	if (p->pid == 0) {
		if (now_mono() < p->retry_at)
			return;
		if (spawn(p) != 0) {
			log_err("publish '%s': cannot start the publisher: %s",
			    p->endpoint, strerror(errno));
			p->retry_at = now_mono() + 1;
			return;
		}
		p->restarts++;
	}
	if (!p->ready) {
		rc = read_status(p);
		if (rc == 0)
			return;
		if (rc < 0) {
			/* It exits; the next turns reap and retry it. */
			log_err("%s", p->status);
			kill(p->pid, SIGKILL);
			reap(p, 0);
			down(p);
			p->retry_at = now_mono() + 10;
			return;
		}
		p->ready = 1;
		log_info("events on %s (publisher restarted, pid %ld)",
		    p->endpoint, (long)p->pid);
	}
	while (p->off < p->out.len) {
		n = send(p->fd, p->out.data + p->off, p->out.len - p->off,
		    MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;	/* full, or it died: the next turn sees */
		p->off += (size_t)n;
	}
	if (p->off == p->out.len) {
		buf_reset(&p->out);
		p->off = 0;
	} else if (p->off > p->out.len / 2) {
		memmove(p->out.data, p->out.data + p->off, p->out.len - p->off);
		p->out.len -= p->off;
		p->off = 0;
	}
}

unsigned long
publisher_restarts(const struct publisher *p)
{
	return p->restarts;
}

void
publisher_stop(struct publisher *p)
{
	struct pollfd pfd;
	double until = now_mono() + 1;

	if (p == NULL)
		return;
	/* Hand over what is queued, a second at most. */
	while (p->pid != 0 && p->ready && p->off < p->out.len &&
	    now_mono() < until) {
		publisher_flush(p);
		pfd.fd = p->fd;
		pfd.events = POLLOUT;
		if (p->fd >= 0)
			poll(&pfd, 1, 100);
	}
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	reap(p, 2);
	buf_release(&p->out);
	free(p->endpoint);
	free(p);
}

/* The publisher process. */

static int
read_full(int fd, uint8_t *b, size_t n)
{
	ssize_t r;
	size_t got = 0;

	while (got < n) {
		r = read(fd, b + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

int
publisher_main(const char *endpoint)
{
	struct sigaction sa;
	uint8_t hdr[4], *msg = NULL;
	size_t cap = 0;
	uint32_t len;
	int sock, zero = 0, rc;
	mode_t old;

	/* refd stops it by closing the socketpair, and it dies with refd. */
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	if (fcntl(PUB_FD, F_GETFD) < 0) {
		fprintf(stderr, "refd: --publisher is for refd's own use\n");
		return 2;
	}
	if ((sock = nn_socket(AF_SP, NN_PUB)) < 0) {
		dprintf(PUB_FD, "publish '%s': cannot create a socket: %s\n",
		    endpoint, nn_strerror(nn_errno()));
		return 1;
	}
	/* A subscriber's frame with a body ends its connection here rather
	 * than in nn_xpub_in's assertion; an empty one still aborts. */
	nn_setsockopt(sock, NN_SOL_SOCKET, NN_RCVMAXSIZE, &zero, sizeof(zero));
	/* ipc: a socket file only refd's user may connect to. */
	old = umask(077);
	rc = nn_bind(sock, endpoint);
	umask(old);
	if (rc < 0) {
		dprintf(PUB_FD, "publish '%s': cannot bind: %s%s\n", endpoint,
		    nn_strerror(nn_errno()), nn_errno() == EADDRINUSE ?
		    "; is another refd running?" : "");
		nn_close(sock);
		return 1;
	}
	if (write(PUB_FD, "ok\n", 3) != 3) {
		nn_close(sock);
		return 1;
	}
	for (;;) {
		if (read_full(PUB_FD, hdr, sizeof(hdr)) != 0)
			break;
		len = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 |
		    (uint32_t)hdr[2] << 8 | hdr[3];
		if (len > PUB_MAXFRAME)
			break;
		if (len > cap) {
			uint8_t *n = realloc(msg, len);

			if (n == NULL)
				break;
			msg = n;
			cap = len;
		}
		if (read_full(PUB_FD, msg, len) != 0)
			break;
		(void)nn_send(sock, msg, len, NN_DONTWAIT);
	}
	free(msg);
	nn_close(sock);
	return 0;
}
