/*
 * refctl_web.c - refctl web: the viewer's pages over loopback HTTP.
 *
 * A small static file server for the spectator page and the replay viewer
 * (web/, installed as share/refd/web), bound to 127.0.0.1 only, one request
 * at a time.  Two paths are not files:
 *
 *   GET /config.json   the refd endpoints the page connects to first
 *   POST /views        an exported log in the body: runs `refctl verify
 *                      --views` on it and answers {exit, report, views},
 *                      the spectators' view after every record, which the
 *                      replay viewer draws (the rule replay needs the
 *                      plugin, so it runs here, never in the browser)
 *
 * Any other web server can serve the same directory; the replay viewer
 * then verifies logs without boards.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "paths.h"
#include "refctl.h"

#define WEB_HEAD_MAX	16384
#define WEB_BODY_MAX	(64u << 20)	/* the largest log POSTed */
#define WEB_IO_MS	10000
#define WEB_VERIFY_S	120

struct req {
	char method[8];
	char path[1024];
	char query[1024];
	size_t clen;
	int has_clen;
};

static int
send_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static void
respond(int fd, int code, const char *status, const char *type,
    const void *body, size_t len, int head_only)
{
	char h[512];
	int n;

	n = snprintf(h, sizeof(h), "HTTP/1.0 %d %s\r\nContent-Type: %s\r\n"
	    "Content-Length: %zu\r\nCache-Control: no-cache\r\n"
	    "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
	    code, status, type, len);
	if (send_all(fd, h, (size_t)n) == 0 && !head_only && len > 0)
		send_all(fd, body, len);
}

static void
fail(int fd, int code, const char *status, const char *why)
{
	char b[600];
	int n = snprintf(b, sizeof(b), "%d %s: %s\n", code, status, why);

	respond(fd, code, status, "text/plain; charset=utf-8", b, (size_t)n, 0);
}

static const char *
mime(const char *path)
{
	static const char *const t[][2] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".mjs", "text/javascript; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
		{ ".json", "application/json" },
		{ ".svg", "image/svg+xml" },
		{ ".png", "image/png" },
		{ ".wasm", "application/wasm" },
		{ ".map", "application/json" },
		{ ".txt", "text/plain; charset=utf-8" },
		{ ".log", "application/octet-stream" },
	};
	const char *dot = strrchr(path, '.');
	size_t i;

	for (i = 0; dot != NULL && i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(dot, t[i][0]) == 0)
			return t[i][1];
	return "application/octet-stream";
}

/* Read until the blank line; what follows it stays in buf (*extra). */
static int
read_head(int fd, char *buf, size_t cap, size_t *got, size_t *headlen)
{
	*got = 0;
	while (*got < cap - 1) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t n;
		char *end;

		if (poll(&p, 1, WEB_IO_MS) <= 0)
			return -1;
		n = recv(fd, buf + *got, cap - 1 - *got, 0);
		if (n <= 0)
			return -1;
		*got += (size_t)n;
		buf[*got] = '\0';
		if ((end = strstr(buf, "\r\n\r\n")) != NULL) {
			*headlen = (size_t)(end - buf) + 4;
			return 0;
		}
	}
	return -1;
}

static int
parse_head(char *buf, struct req *r)
{
	char *line = buf, *sp, *sp2, *q, *h;

	memset(r, 0, sizeof(*r));
	if ((sp = strchr(line, ' ')) == NULL ||
	    (size_t)(sp - line) >= sizeof(r->method))
		return -1;
	memcpy(r->method, line, (size_t)(sp - line));
	if ((sp2 = strchr(sp + 1, ' ')) == NULL ||
	    (size_t)(sp2 - sp - 1) >= sizeof(r->path))
		return -1;
	memcpy(r->path, sp + 1, (size_t)(sp2 - sp - 1));
	if ((q = strchr(r->path, '?')) != NULL) {
		snprintf(r->query, sizeof(r->query), "%s", q + 1);
		*q = '\0';
	}
	for (h = strstr(buf, "\r\n"); h != NULL; h = strstr(h + 2, "\r\n"))
		if (strncasecmp(h + 2, "Content-Length:", 15) == 0) {
			char *e;
			unsigned long long v = strtoull(h + 17, &e, 10);

			if (v > WEB_BODY_MAX)
				v = WEB_BODY_MAX + 1ull;
			r->clen = (size_t)v;
			r->has_clen = 1;
		}
	return 0;
}

/* A request path is safe to map under the root: no "..", no odd bytes. */
static int
safe_path(const char *p)
{
	const char *c;

	if (p[0] != '/' || strstr(p, "..") != NULL || strstr(p, "//") != NULL)
		return 0;
	for (c = p; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || *c == '/' || *c == '.' ||
		    *c == '-' || *c == '_'))
			return 0;
	return 1;
}

static void
serve_file(int fd, const char *root, const struct req *r)
{
	char path[PATH_MAX];
	struct stat st;
	char *data;
	int f, head = strcmp(r->method, "HEAD") == 0;
	size_t got = 0;

	if (!safe_path(r->path)) {
		fail(fd, 404, "Not Found", "no such page");
		return;
	}
	snprintf(path, sizeof(path), "%s%s%s", root, r->path,
	    r->path[strlen(r->path) - 1] == '/' ? "index.html" : "");
	f = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (f < 0 || fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (f >= 0)
			close(f);
		fail(fd, 404, "Not Found", "no such page");
		return;
	}
	data = malloc(st.st_size > 0 ? (size_t)st.st_size : 1);
	while (data != NULL && got < (size_t)st.st_size) {
		ssize_t n = read(f, data + got, (size_t)st.st_size - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(f);
	if (data == NULL || got != (size_t)st.st_size)
		fail(fd, 500, "Internal Server Error", "cannot read the file");
	else
		respond(fd, 200, "OK", mime(path), data, got, head);
	free(data);
}

static void
serve_config(int fd, const char *cmd_ep, const char *ev_ep)
{
	json_t *j = json_pack("{s:s?,s:s?}", "refd", cmd_ep, "events", ev_ep);
	char *t = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;

	if (t != NULL)
		respond(fd, 200, "OK", "application/json", t, strlen(t), 0);
	else
		fail(fd, 500, "Internal Server Error", "out of memory");
	free(t);
	json_decref(j);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	long n;

	*len = 0;
	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)n + 1)) != NULL) {
		*len = fread(b, 1, (size_t)n, f);
		b[*len] = '\0';
	}
	fclose(f);
	return b;
}

/* A pubkey=HEX query parameter: 64 hexadecimal characters, else none. */
static int
query_pubkey(const char *q, char out[65])
{
	const char *p = strstr(q, "pubkey=");
	size_t i;

	if (p == NULL || (p != q && p[-1] != '&'))
		return 0;
	p += 7;
	for (i = 0; i < 64; i++) {
		char c = p[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
		    (c >= 'A' && c <= 'F')))
			return 0;
		out[i] = c;
	}
	out[64] = '\0';
	return p[64] == '\0' || p[64] == '&';
}

/* Run `refctl verify --views VIEWS [--pubkey K] LOG`; its report in out. */
static int
run_verify(const char *log, const char *views, const char *pk, char *report,
    size_t rn)
{
	char exe[PATH_MAX];
	int pfd[2], st = 0;
	size_t got = 0;
	ssize_t n;
	pid_t pid;
	time_t t0 = time(NULL);

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || pipe(pfd) != 0)
		return -1;
	exe[n] = '\0';
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		if (pk != NULL)
			execl(exe, "refctl", "verify", "--views", views,
			    "--pubkey", pk, log, (char *)NULL);
		else
			execl(exe, "refctl", "verify", "--views", views, log,
			    (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd p = { pfd[0], POLLIN, 0 };

		if (time(NULL) - t0 > WEB_VERIFY_S) {
			kill(pid, SIGKILL);
			break;
		}
		if (poll(&p, 1, 1000) < 0 && errno != EINTR)
			break;
		if (!(p.revents & (POLLIN | POLLHUP)))
			continue;
		{
			/* Past the buffer, read and drop: the child must not
			 * block on a full pipe. */
			char sink[4096];
			int full = got + 1 >= rn;

			n = read(pfd[0], full ? sink : report + got, full ?
			    sizeof(sink) : rn - 1 - got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			if (!full)
				got += (size_t)n;
		}
	}
	report[got] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
serve_views(int fd, const struct req *r, const char *already, size_t alen)
{
	char dir[] = "/tmp/refd-web-XXXXXX", log[64], views[64], pk[65];
	char *body = NULL, *vj = NULL, *out = NULL, report[16384];
	size_t got, vlen = 0, olen = 0, i;
	json_t *rep;
	char *rs;
	FILE *m, *f;
	int rc;

	if (!r->has_clen || r->clen == 0) {
		fail(fd, 411, "Length Required", "POST the log with a "
		    "Content-Length");
		return;
	}
	if (r->clen > WEB_BODY_MAX) {
		fail(fd, 413, "Payload Too Large", "a log over 64 MiB");
		return;
	}
	if ((body = malloc(r->clen)) == NULL) {
		fail(fd, 500, "Internal Server Error", "out of memory");
		return;
	}
	got = alen < r->clen ? alen : r->clen;
	memcpy(body, already, got);
	while (got < r->clen) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&p, 1, WEB_IO_MS) <= 0 ||
		    (n = recv(fd, body + got, r->clen - got, 0)) <= 0) {
			free(body);
			return;
		}
		got += (size_t)n;
	}
	if (mkdtemp(dir) == NULL) {
		free(body);
		fail(fd, 500, "Internal Server Error", "no temporary directory");
		return;
	}
	snprintf(log, sizeof(log), "%s/match.log", dir);
	snprintf(views, sizeof(views), "%s/views.jsonl", dir);
	f = fopen(log, "wb");
	if (f == NULL || fwrite(body, 1, got, f) != got) {
		if (f != NULL)
			fclose(f);
		free(body);
		unlink(log);
		rmdir(dir);
		fail(fd, 500, "Internal Server Error", "cannot write the log");
		return;
	}
	fclose(f);
	free(body);
	rc = run_verify(log, views, query_pubkey(r->query, pk) ? pk : NULL,
	    report, sizeof(report));
	vj = slurp(views, &vlen);
	unlink(log);
	unlink(views);
	rmdir(dir);
	rep = json_string(report);
	if (rep == NULL)	/* not UTF-8: keep it ASCII */
		rep = json_string("(the report is not valid UTF-8)");
	rs = json_dumps(rep, JSON_ENCODE_ANY);
	json_decref(rep);
	m = open_memstream(&out, &olen);
	if (m == NULL || rs == NULL) {
		free(rs);
		free(vj);
		fail(fd, 500, "Internal Server Error", "out of memory");
		return;
	}
	fprintf(m, "{\"exit\":%d,\"report\":%s,\"views\":[", rc, rs);
	for (i = 0; vj != NULL && i < vlen; i++) {
		if (vj[i] == '\n') {
			if (i + 1 < vlen)
				fputc(',', m);
		} else {
			fputc(vj[i], m);
		}
	}
	fputs("]}", m);
	fclose(m);
	respond(fd, 200, "OK", "application/json", out, olen, 0);
	free(out);
	free(rs);
	free(vj);
}

static void
web_usage(FILE *f)
{
	fprintf(f, "usage: refctl web [--port N] [--root DIR] [--refd WS-URL] "
	    "[--events WS-URL]\n");
}

static void
on_term(int sig)
{
	(void)sig;
	_exit(0);
}

int
cmd_web(int argc, char **argv, const char *cmd_ep, const char *ev_ep)
{
	char root[PATH_MAX], head[WEB_HEAD_MAX + 1];
	const char *refd_url = "ws://127.0.0.1:7413/";
	const char *events_url = "ws://127.0.0.1:7414/";
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	int i, port = 7415, s, one = 1;

	if (cmd_ep != NULL && strncmp(cmd_ep, "ws://", 5) == 0)
		refd_url = cmd_ep;
	if (ev_ep != NULL && strncmp(ev_ep, "ws://", 5) == 0)
		events_url = ev_ep;
	paths_web(root, sizeof(root));
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0) {
			web_usage(stdout);
			return 0;
		} else if (i + 1 < argc && strcmp(argv[i], "--port") == 0) {
			char *e;
			long v = strtol(argv[++i], &e, 10);

			if (*e != '\0' || v < 0 || v > 65535) {
				fprintf(stderr, "refctl web: --port: expected "
				    "0 to 65535, found '%s'\n", argv[i]);
				return 2;
			}
			port = (int)v;
		} else if (i + 1 < argc && strcmp(argv[i], "--root") == 0) {
			snprintf(root, sizeof(root), "%s", argv[++i]);
		} else if (i + 1 < argc && strcmp(argv[i], "--refd") == 0) {
			refd_url = argv[++i];
		} else if (i + 1 < argc && strcmp(argv[i], "--events") == 0) {
			events_url = argv[++i];
		} else {
			fprintf(stderr, "refctl web: unexpected argument "
			    "'%s'\n", argv[i]);
			web_usage(stderr);
			return 2;
		}
	}
	snprintf(head, sizeof(head), "%s/index.html", root);
	if (access(head, R_OK) != 0) {
		fprintf(stderr, "refctl web: no viewer in '%s' (index.html is "
		    "missing); build it with make, or give --root DIR\n", root);
		return 4;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one,
	    sizeof(one)) != 0 || bind(s, (struct sockaddr *)&a,
	    sizeof(a)) != 0 || listen(s, 16) != 0 ||
	    getsockname(s, (struct sockaddr *)&a, &al) != 0) {
		fprintf(stderr, "refctl web: 127.0.0.1:%d: %s\n", port,
		    strerror(errno));
		return 1;
	}
	printf("refctl web: serving %s at http://127.0.0.1:%d/ (refd %s, "
	    "events %s)\n", root, ntohs(a.sin_port), refd_url, events_url);
	fflush(stdout);
	for (;;) {
		struct req r;
		size_t got, hl;
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EMFILE || errno == ENFILE)
				continue;
			fprintf(stderr, "refctl web: accept: %s\n",
			    strerror(errno));
			return 1;
		}
		if (read_head(c, head, sizeof(head), &got, &hl) != 0 ||
		    parse_head(head, &r) != 0)
			fail(c, 400, "Bad Request", "not an HTTP request");
		else if (strcmp(r.method, "POST") == 0 &&
		    strcmp(r.path, "/views") == 0)
			serve_views(c, &r, head + hl, got - hl);
		else if (strcmp(r.method, "GET") != 0 &&
		    strcmp(r.method, "HEAD") != 0)
			fail(c, 405, "Method Not Allowed", "GET, HEAD, or "
			    "POST /views");
		else if (strcmp(r.path, "/config.json") == 0)
			serve_config(c, refd_url, events_url);
		else
			serve_file(c, root, &r);
		close(c);
	}
}
