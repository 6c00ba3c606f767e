/*
 * bench.c - refd-bench: speed, memory and scale figures for refd.
 *
 *	refd-bench [--build DIR] [--work DIR] [--json FILE] [--only LIST]
 *	    [--ruleset NAME] [--setup JSON] [--seed N] [--rt N]
 *	    [--tp-secs S] [--tp-clients A,B,C] [--games N]
 *	    [--verify-records N] [--scale A,B,C] [--recover-matches N]
 *	    [--recover-cmds N] [--stall TYPES]
 *	refd-bench echo ENDPOINT	(the bare REQ/REP echo server)
 *
 * Sections (--only takes a comma list; default all):
 *   rules    in-process commands/s and legal cost of every built plugin
 *   rt       one client's act round trip against a bare nanomsg echo of
 *            the same bytes, interleaved, fsync never and always
 *   tp       acts/s with 1, 8, 64 clients in separate matches, per fsync
 *   verify   refctl verify records/s on logs played at full speed
 *   mem      refd's resident memory per idle match, 1, 1000, 10000
 *   recover  restart time over N unfinished matches of M commands (the
 *            state directory is written in-process through match.c, the
 *            same code the daemon runs)
 *   busy     one client's moves (legal, then act) while another client's
 *            plugin op spins until plugin-timeout (the loops test
 *            fixture), vs the same client on an idle refd
 *
 * Prints figures and ratios, never a verdict on speed: it exits 0 when
 * everything worked, 1 when something is broken (a refused command, a
 * daemon that does not start, a log that does not verify) and 2 on bad
 * usage.  The results, with the command lines used, go to --json.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <nanomsg/nn.h>
#include <nanomsg/reqrep.h>
#include <sodium.h>

#include "refd/errors.h"
#include "refd/mp.h"

#include "config.h"
#include "engine.h"
#include "evlog.h"
#include "jsonmp.h"
#include "match.h"

extern char **environ;

#define MAXSEATS 64
#define MAXCONC 8

struct opts {
	const char *build;
	const char *work;
	const char *json;
	const char *only;
	const char *ruleset;
	const char *setup_json;
	const char *stall;
	uint64_t seed;
	long rt;
	double tp_secs;
	long tp_clients[MAXCONC];
	size_t ntp;
	long games;
	long verify_records;
	long scale[MAXCONC];
	size_t nscale;
	long rec_matches, rec_cmds;
};

static struct opts O;
/* When set, daemon_start's plugin and ruleset directories and its
 * plugin-timeout (the busy section's). */
static const char *Dplugins, *Drulesets, *Dtimeout;
static json_t *J;		/* results */
static json_t *Jcmds;		/* command lines */
static char **Argv;
static int Argc;
static uint8_t *Setup;		/* msgpack, or NULL: scenario */
static size_t Setup_len;
static char Scenario[128];
static uint32_t Nseats;		/* of a match with Setup or Scenario */

/* The summary: one line per target. */
static char Summary[16][200];
static size_t Nsummary;

static void __attribute__((format(printf, 2, 3)))
summary(int holds, const char *fmt, ...)
{
	va_list ap;
	char line[180];

	if (Nsummary >= sizeof(Summary) / sizeof(Summary[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	snprintf(Summary[Nsummary++], sizeof(Summary[0]), "  %-5s %s",
	    holds ? "holds" : "MISS", line);
}

/* Utilities. */

/* Daemons and helpers running now: die() stops them. */
static pid_t Kids[8];

static void
kid_add(pid_t pid)
{
	size_t i;

	for (i = 0; i < sizeof(Kids) / sizeof(Kids[0]); i++)
		if (Kids[i] == 0) {
			Kids[i] = pid;
			return;
		}
}

static void
kid_del(pid_t pid)
{
	size_t i;

	for (i = 0; i < sizeof(Kids) / sizeof(Kids[0]); i++)
		if (Kids[i] == pid)
			Kids[i] = 0;
}

static void
die(const char *fmt, ...)
{
	va_list ap;
	size_t i;

	fprintf(stderr, "refd-bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	for (i = 0; i < sizeof(Kids) / sizeof(Kids[0]); i++)
		if (Kids[i] > 0)
			kill(Kids[i], SIGTERM);
	exit(1);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds of this thread: the in-process figures do not count the
 * time other processes on a shared machine take from us. */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds a running process has used, all its threads (nanosecond
 * schedstat; live threads only, so read it while they run). */
static double
cpu_one(pid_t pid)
{
	char path[PATH_MAX];
	unsigned long long ns, sum = 0;
	struct dirent *de;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%s/schedstat",
		    (long)pid, de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fscanf(f, "%llu", &ns) == 1)
			sum += ns;
		fclose(f);
	}
	closedir(d);
	return (double)sum / 1e9;
}

static uint64_t
next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int
on(const char *section)
{
	const char *p = O.only;
	size_t n = strlen(section);

	if (p == NULL)
		return 1;
	while (*p) {
		if (strncmp(p, section, n) == 0 && (p[n] == ',' || p[n] == 0))
			return 1;
		p = strchr(p, ',');
		if (p == NULL)
			break;
		p++;
	}
	return 0;
}

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
pct(double *v, size_t n, double p)
{
	size_t i;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmpd);
	i = (size_t)(p * (double)(n - 1) + 0.5);
	return v[i];
}

static void
rm_rf(const char *path)
{
	pid_t pid;
	char *av[] = { "rm", "-rf", (char *)path, NULL };
	int st;

	if (posix_spawnp(&pid, "rm", NULL, NULL, av, environ) == 0)
		waitpid(pid, &st, 0);
}

static void
mkdirs(const char *path)
{
	char tmp[PATH_MAX];
	char *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = 0;
			mkdir(tmp, 0700);
			*p = '/';
		}
	}
	mkdir(tmp, 0700);
}

/* The command line that re-runs one section with the same options. */
static void
record_cmd(const char *what, char *const *av)
{
	char line[8192];
	size_t off = 0;
	int i;

	for (i = 0; av[i] != NULL && off < sizeof(line) - 1; i++)
		off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%s",
		    i ? " " : "", av[i]);
	json_array_append_new(Jcmds, json_pack("{s:s, s:s}", "what", what,
	    "command", line));
}

static void
record_section(const char *section)
{
	char *av[128];
	char only[64], what[80];
	int i, n = 0;

	av[n++] = Argv[0];
	for (i = 1; i < Argc && n < 120; i++) {
		if (strcmp(Argv[i], "--only") == 0 && i + 1 < Argc) {
			i++;
			continue;
		}
		av[n++] = Argv[i];
	}
	snprintf(only, sizeof(only), "%s", section);
	av[n++] = "--only";
	av[n++] = only;
	av[n] = NULL;
	snprintf(what, sizeof(what), "re-run the %s section", section);
	record_cmd(what, av);
}

static long
pss_one(pid_t pid)
{
	char path[64], line[256];
	FILE *f;
	long kb = -1;

	snprintf(path, sizeof(path), "/proc/%ld/smaps_rollup", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Pss: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* The children of pid (a daemon's plugin workers), up to max. */
static size_t
children(pid_t pid, pid_t *out, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	while (d != NULL && (de = readdir(d)) != NULL) {
		char path[300], buf[512], *p;
		long ppid;
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		if (p == NULL || (p = strrchr(buf, ')')) == NULL ||
		    sscanf(p + 2, "%*c %ld", &ppid) != 1 || ppid != (long)pid)
			continue;
		if (n < max)
			out[n++] = (pid_t)atol(de->d_name);
	}
	if (d != NULL)
		closedir(d);
	return n;
}

/*
 * Memory of a daemon and its plugin workers (its children): the sum of
 * their proportional set sizes, so pages a fork shares count once.
 */
static long
mem_kib(pid_t pid)
{
	pid_t kid[64];
	size_t i, n = children(pid, kid, 64);
	long sum = pss_one(pid), k;

	for (i = 0; i < n; i++)
		if ((k = pss_one(kid[i])) > 0)
			sum += k;
	return sum;
}

/* CPU seconds of a daemon and its plugin workers. */
static double
cpu_of(pid_t pid)
{
	pid_t kid[64];
	size_t i, n = children(pid, kid, 64);
	double sum = cpu_one(pid), k;

	for (i = 0; i < n; i++)
		if ((k = cpu_one(kid[i])) > 0)
			sum += k;
	return sum;
}

/* Client over the command channel. */

struct cli {
	int s;
	uint64_t id;
};

static void
cli_open(struct cli *c, const char *ep, int timeout_ms)
{
	int big = 600000, ri = 10;

	c->id = 1;
	if ((c->s = nn_socket(AF_SP, NN_REQ)) < 0)
		die("nn_socket: %s", nn_strerror(nn_errno()));
	nn_setsockopt(c->s, NN_REQ, NN_REQ_RESEND_IVL, &big, sizeof(big));
	nn_setsockopt(c->s, NN_SOL_SOCKET, NN_RECONNECT_IVL, &ri, sizeof(ri));
	nn_setsockopt(c->s, NN_SOL_SOCKET, NN_RCVTIMEO, &timeout_ms,
	    sizeof(timeout_ms));
	nn_setsockopt(c->s, NN_SOL_SOCKET, NN_SNDTIMEO, &timeout_ms,
	    sizeof(timeout_ms));
	if (nn_connect(c->s, ep) < 0)
		die("connect '%s': %s", ep, nn_strerror(nn_errno()));
}

static void
cli_close(struct cli *c)
{
	if (c->s >= 0)
		nn_close(c->s);
	c->s = -1;
}

/* Send bytes, get the reply (nn_freemsg it).  -1 on a timeout. */
static int
cli_raw(struct cli *c, const uint8_t *req, size_t len, void **rep,
    size_t *replen)
{
	int n;

	if (nn_send(c->s, req, len, 0) < 0)
		return -1;
	n = nn_recv(c->s, rep, NN_MSG, 0);
	if (n < 0)
		return -1;
	*replen = (size_t)n;
	return 0;
}

static refd_mpw *
req_begin(struct cli *c, const char *op)
{
	refd_mpw *w = refd_mpw_create();

	if (w == NULL)
		die("out of memory");
	refd_mpw_map(w);
	refd_mpw_kint(w, "v", 1);
	refd_mpw_kint(w, "id", (int64_t)c->id++);
	refd_mpw_kstr(w, "op", op);
	return w;
}

/* Finish the request, send it, parse the reply: the result, or die with
 * the error unless soft (then NULL result and *doc set anyway). */
static refd_mpv
req_call(struct cli *c, refd_mpw *w, refd_mpdoc **doc, int soft, int *code)
{
	void *rep;
	size_t n;
	refd_mpv r, e;

	refd_mpw_end(w);
	if (refd_mpw_error(w))
		die("out of memory");
	if (cli_raw(c, refd_mpw_data(w), refd_mpw_len(w), &rep, &n) != 0)
		die("no answer from refd: %s", nn_strerror(nn_errno()));
	refd_mpw_destroy(w);
	*doc = refd_mp_parse(rep, n);
	nn_freemsg(rep);
	r = refd_mp_root(*doc);
	if (*doc == NULL)
		die("malformed reply from refd");
	if (code != NULL)
		*code = 0;
	if (!refd_mpv_get_bool(r, "ok", 0)) {
		e = refd_mpv_get(r, "error");
		if (code != NULL)
			*code = (int)refd_mpv_get_int(e, "code", -1);
		if (!soft)
			die("refd: %s: %s", refd_mpv_get_str(e, "name", "?"),
			    refd_mpv_get_str(e, "message", "?"));
		return refd_mpv_get(r, "nothing-here");
	}
	return refd_mpv_get(r, "result");
}

/* refd processes. */

struct daemon {
	pid_t pid;
	char dir[PATH_MAX];
	char state[PATH_MAX];
	char cmd[PATH_MAX + 16];
	char ev[PATH_MAX + 16];
	double ready_s;		/* from spawn to the first answer */
};

static void
daemon_start(struct daemon *d, const char *name, const char *fsync,
    const char *state_dir, const char *workers)
{
	char plugins[PATH_MAX], rulesets[PATH_MAX], refd[PATH_MAX],
	    logf[PATH_MAX + 16];
	char *av[40];
	int n = 0;
	posix_spawn_file_actions_t fa;
	struct cli c;
	refd_mpdoc *doc;
	double t0;

	memset(d, 0, sizeof(*d));
	snprintf(d->dir, sizeof(d->dir), "%s/%s", O.work, name);
	if (state_dir == NULL) {
		rm_rf(d->dir);
		snprintf(d->state, sizeof(d->state), "%s/state", d->dir);
	} else {
		snprintf(d->state, sizeof(d->state), "%s", state_dir);
	}
	mkdirs(d->dir);
	mkdirs(d->state);
	snprintf(d->cmd, sizeof(d->cmd), "ipc://%s/cmd.sock", d->dir);
	snprintf(d->ev, sizeof(d->ev), "ipc://%s/ev.sock", d->dir);
	snprintf(plugins, sizeof(plugins), "%s/plugins", O.build);
	snprintf(rulesets, sizeof(rulesets), "%s/rulesets", O.build);
	if (Dplugins != NULL)
		snprintf(plugins, sizeof(plugins), "%s", Dplugins);
	if (Drulesets != NULL)
		snprintf(rulesets, sizeof(rulesets), "%s", Drulesets);
	snprintf(refd, sizeof(refd), "%s/bin/refd", O.build);
	snprintf(logf, sizeof(logf), "%s/refd.log", d->dir);
	av[n++] = refd;
	av[n++] = "--listen";
	av[n++] = d->cmd;
	av[n++] = "--publish";
	av[n++] = d->ev;
	av[n++] = "--state-dir";
	av[n++] = d->state;
	av[n++] = "--plugin-dir";
	av[n++] = plugins;
	av[n++] = "--ruleset-dir";
	av[n++] = rulesets;
	av[n++] = "--fsync";
	av[n++] = (char *)fsync;
	av[n++] = "--rate-limit";
	av[n++] = "0";
	av[n++] = "--max-matches";
	av[n++] = "10000000";
	if (workers != NULL) {
		av[n++] = "--plugin-workers";
		av[n++] = (char *)workers;
	}
	if (Dtimeout != NULL) {
		av[n++] = "--plugin-timeout";
		av[n++] = (char *)Dtimeout;
	}
	av[n] = NULL;
	record_cmd(name, av);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, logf, O_WRONLY | O_CREAT |
	    O_APPEND, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	t0 = now();
	if (posix_spawn(&d->pid, refd, &fa, NULL, av, environ) != 0)
		die("cannot start '%s': %s", refd, strerror(errno));
	kid_add(d->pid);
	posix_spawn_file_actions_destroy(&fa);
	/* Ready when it answers hello. */
	cli_open(&c, d->cmd, 600000);
	{
		refd_mpw *w = req_begin(&c, "hello");
		int st;

		(void)req_call(&c, w, &doc, 0, NULL);
		refd_mp_free(doc);
		if (waitpid(d->pid, &st, WNOHANG) == d->pid)
			die("refd exited at start; see %s", logf);
	}
	d->ready_s = now() - t0;
	cli_close(&c);
}

static void
daemon_stop(struct daemon *d)
{
	int st;

	if (d->pid <= 0)
		return;
	kill(d->pid, SIGTERM);
	kid_del(d->pid);
	if (waitpid(d->pid, &st, 0) == d->pid && (!WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0))
		die("refd (%s) did not stop cleanly (status %d); see "
		    "%s/refd.log", d->dir, st, d->dir);
	d->pid = 0;
}

/* Choosing commands from a legal list. */

static int
is_stall(refd_mpv cmd)
{
	const char *t = refd_mpv_get_str(cmd, "type", NULL), *p;
	size_t n;

	if (t == NULL || O.stall == NULL)
		return 0;
	n = strlen(t);
	for (p = O.stall; p != NULL && *p; p = strchr(p, ',') ? strchr(p,
	    ',') + 1 : NULL)
		if (strncmp(p, t, n) == 0 && (p[n] == ',' || p[n] == 0))
			return 1;
	return 0;
}

static void
instantiate(refd_mpw *w, refd_mpv v, uint64_t *rng, int depth)
{
	size_t i, n;
	int64_t lo, hi;

	if (refd_mpv_type(v) == REFD_MP_MAP && depth < 8) {
		refd_mpv mn = refd_mpv_get(v, "min"), mx = refd_mpv_get(v,
		    "max"), one = refd_mpv_get(v, "one_of");

		n = refd_mpv_len(v);
		if (n == 2 && refd_mpv_int(mn, &lo) == 0 &&
		    refd_mpv_int(mx, &hi) == 0 && lo <= hi) {
			refd_mpw_int(w, lo + (int64_t)(next_u64(rng) %
			    (uint64_t)(hi - lo + 1)));
			return;
		}
		if (n == 1 && refd_mpv_type(one) == REFD_MP_ARRAY &&
		    refd_mpv_len(one) > 0) {
			instantiate(w, refd_mpv_at(one, next_u64(rng) %
			    refd_mpv_len(one)), rng, depth + 1);
			return;
		}
		refd_mpw_map(w);
		for (i = 0; i < n; i++) {
			refd_mpw_value(w, refd_mpv_key_at(v, i));
			instantiate(w, refd_mpv_val_at(v, i), rng, depth + 1);
		}
		refd_mpw_end(w);
		return;
	}
	refd_mpw_value(w, v);
}

/*
 * Pick one command from a legal array into w (reset first): uniformly
 * among the concrete commands (among the stall types with probability
 * stall_p), else an instance of a template.  0, or -1 for an empty list.
 */
static int
choose(refd_mpv legal, uint64_t *rng, double stall_p, refd_mpw *w)
{
	size_t i, n = refd_mpv_len(legal), nconc = 0, nstall = 0, j;
	int stall;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		refd_mpv c = refd_mpv_get(refd_mpv_at(legal, i), "cmd");

		if (refd_mpv_type(c) == REFD_MP_MAP) {
			nconc++;
			nstall += is_stall(c);
		}
	}
	refd_mpw_reset(w);
	stall = nstall > 0 && (double)(next_u64(rng) % 1000000) / 1e6 <
	    stall_p;
	if (nconc == 0) {
		refd_mpv t = refd_mpv_get(refd_mpv_at(legal, next_u64(rng) %
		    n), "template");

		instantiate(w, t, rng, 0);
		return 0;
	}
	j = next_u64(rng) % (stall ? nstall : nconc);
	for (i = 0; i < n; i++) {
		refd_mpv c = refd_mpv_get(refd_mpv_at(legal, i), "cmd");

		if (refd_mpv_type(c) != REFD_MP_MAP || (stall && !is_stall(c)))
			continue;
		if (j-- == 0) {
			refd_mpw_value(w, c);
			return 0;
		}
	}
	return -1;
}

/* A match played through the wire. */

struct wmatch {
	char id[MATCH_ID_LEN + 1];
	uint32_t nseats;
	char tok[MAXSEATS][MATCH_TOKEN_LEN + 1];
	uint32_t last;		/* seat that acted last */
	uint64_t ncmd;
	uint64_t rng;
	refd_mpw *cmd;		/* the chosen command */
	uint32_t seat;
};

static void
wm_create(struct cli *c, struct wmatch *m, uint64_t seed)
{
	refd_mpdoc *doc;
	refd_mpv r;
	refd_mpw *w = req_begin(c, "create");
	uint32_t s;
	char seedtxt[64];

	refd_mpw_kstr(w, "ruleset", O.ruleset);
	if (Setup != NULL) {
		refd_mpw_str(w, "setup");
		refd_mpw_raw(w, Setup, Setup_len);
	} else if (Scenario[0]) {
		refd_mpw_kstr(w, "scenario", Scenario);
	}
	r = req_call(c, w, &doc, 0, NULL);
	snprintf(m->id, sizeof(m->id), "%s", refd_mpv_get_str(r, "match",
	    ""));
	refd_mp_free(doc);
	/* Seats: from the match's info, once (the setup is always the
	 * same; the list grows with every match). */
	if (Nseats == 0) {
		size_t i;

		w = req_begin(c, "matches");
		r = req_call(c, w, &doc, 0, NULL);
		for (i = 0; i < refd_mpv_len(r); i++) {
			refd_mpv info = refd_mpv_at(r, i);

			if (refd_mpv_streq(refd_mpv_get(info, "id"), m->id))
				Nseats = (uint32_t)refd_mpv_len(
				    refd_mpv_get(info, "seats"));
		}
		refd_mp_free(doc);
	}
	m->nseats = Nseats;
	if (m->nseats == 0 || m->nseats > MAXSEATS)
		die("match '%s': cannot tell its seat count", m->id);
	for (s = 0; s < m->nseats; s++) {
		w = req_begin(c, "join");
		refd_mpw_kstr(w, "match", m->id);
		refd_mpw_kint(w, "seat", s);
		snprintf(seedtxt, sizeof(seedtxt), "bench-%" PRIu64 "-%u", seed,
		    s);
		refd_mpw_kstr(w, "seed", seedtxt);
		r = req_call(c, w, &doc, 0, NULL);
		snprintf(m->tok[s], sizeof(m->tok[s]), "%s",
		    refd_mpv_get_str(r, "token", ""));
		refd_mp_free(doc);
	}
	m->last = m->nseats - 1;
	m->ncmd = 0;
	m->rng = seed * 0x2545f4914f6cdd1dull + 1;
	if (m->cmd == NULL && (m->cmd = refd_mpw_create()) == NULL)
		die("out of memory");
}

/* Ask for legal commands, starting after the seat that acted last, until
 * one seat has some; choose one into m->cmd / m->seat.  0, or -1 when no
 * seat has any.  *nlegal counts the requests. */
static int
wm_next(struct cli *c, struct wmatch *m, double stall_p, uint64_t *nlegal)
{
	uint32_t k;

	for (k = 1; k <= m->nseats; k++) {
		uint32_t s = (m->last + k) % m->nseats;
		refd_mpdoc *doc;
		refd_mpw *w = req_begin(c, "legal");
		refd_mpv r;
		int rc;

		refd_mpw_kstr(w, "match", m->id);
		refd_mpw_kint(w, "seat", s);
		refd_mpw_kstr(w, "token", m->tok[s]);
		r = req_call(c, w, &doc, 0, NULL);
		if (nlegal != NULL)
			(*nlegal)++;
		rc = choose(refd_mpv_get(r, "legal"), &m->rng, stall_p, m->cmd);
		refd_mp_free(doc);
		if (rc == 0) {
			m->seat = s;
			return 0;
		}
	}
	return -1;
}

/* The act request for the chosen command. */
static refd_mpw *
wm_act_req(struct cli *c, struct wmatch *m)
{
	refd_mpw *w = req_begin(c, "act");
	char cid[32];

	snprintf(cid, sizeof(cid), "c%" PRIu64, m->ncmd);
	refd_mpw_kstr(w, "match", m->id);
	refd_mpw_kint(w, "seat", m->seat);
	refd_mpw_kstr(w, "token", m->tok[m->seat]);
	refd_mpw_kstr(w, "cmd_id", cid);
	refd_mpw_str(w, "cmd");
	refd_mpw_raw(w, refd_mpw_data(m->cmd), refd_mpw_len(m->cmd));
	refd_mpw_end(w);
	if (refd_mpw_error(w))
		die("out of memory");
	return w;
}

/*
 * The act's reply: 1 when the match is over, 0 when it goes on, -1 when
 * the command was rejected (a template's instance may be).
 */
static int
act_reply(const void *rep, size_t n, struct wmatch *m)
{
	refd_mpdoc *doc = refd_mp_parse(rep, n);
	refd_mpv r = refd_mp_root(doc), res;
	int fin;

	if (doc == NULL)
		die("malformed act reply");
	if (!refd_mpv_get_bool(r, "ok", 0)) {
		refd_mpv e = refd_mpv_get(r, "error");
		int code = (int)refd_mpv_get_int(e, "code", 0);

		if (code != REFD_EILLEGAL && code != REFD_EARG)
			die("act in match '%s': %s: %s", m->id,
			    refd_mpv_get_str(e, "name", "?"),
			    refd_mpv_get_str(e, "message", "?"));
		refd_mp_free(doc);
		return -1;
	}
	res = refd_mpv_get(r, "result");
	fin = refd_mpv_get_bool(res, "finished", 0);
	refd_mp_free(doc);
	m->last = m->seat;
	m->ncmd++;
	return fin;
}

/* Play one act through the wire; returns as act_reply, *dt its time. */
static int
wm_act(struct cli *c, struct wmatch *m, double *dt)
{
	refd_mpw *w = wm_act_req(c, m);
	void *rep;
	size_t n;
	double t0 = now();
	int rc;

	if (cli_raw(c, refd_mpw_data(w), refd_mpw_len(w), &rep, &n) != 0)
		die("act: no answer from refd: %s", nn_strerror(nn_errno()));
	if (dt != NULL)
		*dt = now() - t0;
	refd_mpw_destroy(w);
	rc = act_reply(rep, n, m);
	nn_freemsg(rep);
	return rc;
}

/* One step: legal, then act.  Returns 1 when the match ended. */
static int
wm_step(struct cli *c, struct wmatch *m, double stall_p, uint64_t *nlegal,
    double *dt, int *rejected)
{
	int rc;

	*rejected = 0;
	if (wm_next(c, m, stall_p, nlegal) != 0)
		return 1;
	rc = wm_act(c, m, dt);
	if (rc < 0) {
		*rejected = 1;
		return 0;
	}
	return rc;
}

/* Echo server. */

static int
echo_main(const char *ep)
{
	int s;
	void *msg;
	int n;

	/* Never outlive the benchmark. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		return 0;
	s = nn_socket(AF_SP, NN_REP);

	if (s < 0 || nn_bind(s, ep) < 0) {
		fprintf(stderr, "refd-bench echo: cannot bind '%s': %s\n", ep,
		    nn_strerror(nn_errno()));
		return 1;
	}
	for (;;) {
		n = nn_recv(s, &msg, NN_MSG, 0);
		if (n < 0) {
			if (nn_errno() == EINTR)
				continue;
			break;
		}
		if (nn_send(s, &msg, NN_MSG, 0) < 0)
			nn_freemsg(msg);
	}
	nn_close(s);
	return 0;
}

/* Section: rules speed (in-process, every built plugin). */

struct trace {
	uint32_t *seat;
	uint8_t **cmd;
	size_t *len;
	size_t n, cap;
};

static void
trace_add(struct trace *t, uint32_t seat, const uint8_t *b, size_t n)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->seat = realloc(t->seat, t->cap * sizeof(*t->seat));
		t->cmd = realloc(t->cmd, t->cap * sizeof(*t->cmd));
		t->len = realloc(t->len, t->cap * sizeof(*t->len));
		if (t->seat == NULL || t->cmd == NULL || t->len == NULL)
			die("out of memory");
	}
	t->seat[t->n] = seat;
	t->len[t->n] = n;
	if ((t->cmd[t->n] = malloc(n)) == NULL)
		die("out of memory");
	memcpy(t->cmd[t->n], b, n);
	t->n++;
}

static void
trace_free(struct trace *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->cmd[i]);
	free(t->cmd);
	free(t->seat);
	free(t->len);
	memset(t, 0, sizeof(*t));
}

static void
game_key(uint64_t seed, long game, uint8_t key[32])
{
	uint8_t in[16];
	int i;

	/* As refctl check-plugin keys its games. */
	for (i = 0; i < 8; i++) {
		in[i] = (uint8_t)(seed >> (8 * i));
		in[8 + i] = (uint8_t)((uint64_t)game >> (8 * i));
	}
	crypto_generichash(key, 32, in, sizeof(in),
	    (const uint8_t *)"refd check-plugin seed key 0001", 32);
}

static int
plugin_load(const char *name, struct plugin **out)
{
	char path[PATH_MAX], cdir[PATH_MAX], err[1024];
	struct plugin *pl;
	struct stat st;

	snprintf(path, sizeof(path), "%s/plugins/%s.so", O.build, name);
	snprintf(cdir, sizeof(cdir), "%s/rulesets/%s", O.build, name);
	if (plugin_open(path, &pl, err, sizeof(err)) != REFD_OK)
		die("%s", err);
	if (stat(cdir, &st) == 0) {
		if (plugin_load_content(pl, cdir, err, sizeof(err)) != REFD_OK)
			die("plugin '%s': %s", name, err);
	} else {
		struct call c;

		call_init(&c);
		pl->content = malloc(1);
		pl->content[0] = 0x80;
		pl->content_len = 1;
		if (plugin_set_content(pl, &c) != REFD_OK)
			die("plugin '%s': refuses empty content", name);
		call_release(&c);
	}
	*out = pl;
	return 0;
}

/* Create game g the way check-plugin does (scenario cycle, seat count). */
static struct game *
rules_create(struct plugin *pl, long g, struct rng *r, struct call *c)
{
	const uint8_t *su = (const uint8_t *)"\x80";
	size_t sl = 1;
	uint32_t nseats, n;
	struct game *gm = NULL;
	uint8_t key[32];
	int64_t want;
	refd_mpdoc *d;
	int rc;

	if (pl->nscenarios > 0) {
		su = pl->scenarios[g % (long)pl->nscenarios].setup;
		sl = pl->scenarios[g % (long)pl->nscenarios].setup_len;
	}
	d = refd_mp_parse(su, sl);
	want = refd_mpv_get_int(refd_mp_root(d), "seats", 0);
	refd_mp_free(d);
	if (want >= pl->desc->min_seats && want <= pl->desc->max_seats)
		nseats = (uint32_t)want;
	else
		nseats = pl->desc->min_seats + (uint32_t)(g %
		    (long)(pl->desc->max_seats - pl->desc->min_seats + 1));
	game_key(O.seed, g, key);
	rng_init_seed(r, key);
	rc = game_create(pl, su, sl, nseats, r, 0, &gm, c);
	for (n = pl->desc->min_seats; rc == REFD_ESETUP &&
	    n <= pl->desc->max_seats; n++)
		rc = game_create(pl, su, sl, n, r, 0, &gm, c);
	if (rc != REFD_OK)
		die("plugin '%s': game %ld: create: %s %s", pl->name, g,
		    refd_errname(rc), c->reject_msg);
	return gm;
}

static void
rules_plugin(const char *name, json_t *arr)
{
	struct plugin *pl;
	struct trace *tr;
	struct call c;
	long g, steps = 0, legal_calls = 0, legal_items = 0, unfinished = 0;
	double t_apply = 0, t_legal = 0, t_create = 0, t0, t_hash = 0;
	double state_bytes = 0, *ta, *th, *tl;	/* per-call CPU seconds */
	size_t nsamp = 0;
	uint64_t rng = O.seed;
	refd_mpw *w = refd_mpw_create();
	size_t i;

	plugin_load(name, &pl);
	tr = calloc((size_t)O.games, sizeof(*tr));
	call_init(&c);
	/* Play: random legal choices; record the commands. */
	for (g = 0; g < O.games; g++) {
		struct rng r;
		struct game *gm = rules_create(pl, g, &r, &c);
		long step;

		for (step = 0; step < 10000; step++) {
			uint64_t pending = 0;
			uint32_t s;
			int done = 0;

			if (game_result(gm, &c) == REFD_OK && c.out.len > 0 &&
			    c.out.data[0] != 0xc0)
				break;
			if (game_pending(gm, &pending, &c) != REFD_OK ||
			    pending == 0)
				break;
			for (s = 0; s < gm->nseats && !done; s++) {
				refd_mpdoc *d;

				if (!((pending >> s) & 1))
					continue;
				if (game_legal(gm, s, &c) != REFD_OK)
					die("plugin '%s': legal failed", name);
				d = refd_mp_parse(c.out.data, c.out.len);
				if (choose(refd_mp_root(d), &rng, 0, w) == 0) {
					int rc = game_apply(gm, s,
					    refd_mpw_data(w), refd_mpw_len(w),
					    &c);

					if (rc == REFD_OK)
						trace_add(&tr[g], s,
						    refd_mpw_data(w),
						    refd_mpw_len(w));
					done = 1;
				}
				refd_mp_free(d);
			}
			if (!done)
				break;
		}
		if (step == 10000)
			unfinished++;
		game_destroy(gm);
		rng_release(&r);
	}
	/*
	 * Replay, timing each apply and the state digest recorded after it
	 * (what the log path pays per command) on their own.
	 */
	for (g = 0; g < O.games; g++)
		nsamp += tr[g].n;
	ta = calloc(nsamp ? nsamp : 1, sizeof(*ta));
	th = calloc(nsamp ? nsamp : 1, sizeof(*th));
	tl = calloc(nsamp ? nsamp : 1, sizeof(*tl));
	if (ta == NULL || th == NULL || tl == NULL)
		die("out of memory");
	for (g = 0; g < O.games; g++) {
		struct rng r;
		struct game *gm;

		t0 = cpu_now();
		gm = rules_create(pl, g, &r, &c);
		t_create += cpu_now() - t0;
		for (i = 0; i < tr[g].n; i++) {
			uint8_t h[ENG_HASH_LEN];
			double t1, t2;

			t0 = cpu_now();
			if (game_apply(gm, tr[g].seat[i], tr[g].cmd[i],
			    tr[g].len[i], &c) != REFD_OK)
				die("plugin '%s': game %ld: replay step %zu "
				    "rejected", name, g, i);
			t1 = cpu_now();
			if (game_state_hash(gm, h) != REFD_OK)
				die("plugin '%s': state hash failed", name);
			t2 = cpu_now();
			ta[steps] = t1 - t0;
			th[steps] = t2 - t1;
			t_apply += t1 - t0;
			t_hash += t2 - t1;
			steps++;
		}
		if (game_serialize(gm, &c) != REFD_OK)
			die("plugin '%s': serialize failed", name);
		state_bytes += (double)c.out.len;
		game_destroy(gm);
		rng_release(&r);
	}
	/* Replay again, timing legal for the seat about to act. */
	for (g = 0; g < O.games; g++) {
		struct rng r;
		struct game *gm = rules_create(pl, g, &r, &c);

		for (i = 0; i < tr[g].n; i++) {
			t0 = cpu_now();
			if (game_legal(gm, tr[g].seat[i], &c) != REFD_OK)
				die("plugin '%s': legal failed", name);
			tl[legal_calls] = cpu_now() - t0;
			t_legal += tl[legal_calls];
			legal_calls++;
			{
				refd_mpdoc *d = refd_mp_parse(c.out.data,
				    c.out.len);

				legal_items += (long)refd_mpv_len(
				    refd_mp_root(d));
				refd_mp_free(d);
			}
			if (game_apply(gm, tr[g].seat[i], tr[g].cmd[i],
			    tr[g].len[i], &c) != REFD_OK)
				die("plugin '%s': replay rejected", name);
		}
		game_destroy(gm);
		rng_release(&r);
		trace_free(&tr[g]);
	}
	free(tr);
	call_release(&c);
	refd_mpw_destroy(w);
	if (steps == 0)
		die("plugin '%s': no command was applied in %ld games", name,
		    O.games);
	{
		double a50 = pct(ta, (size_t)steps, 0.5) * 1e6;
		double a99 = pct(ta, (size_t)steps, 0.99) * 1e6;
		double l50 = pct(tl, (size_t)legal_calls, 0.5) * 1e6;
		double l99 = pct(tl, (size_t)legal_calls, 0.99) * 1e6;
		double h50 = pct(th, (size_t)steps, 0.5) * 1e6;
		double items = (double)legal_items / legal_calls;

		printf("  %-11s %4ld games %7ld cmds  legal p50 %7.2f p99 %8.2f "
		    "us (%5.1f items)  apply p50 %6.2f p99 %7.2f us  digest p50 "
		    "%6.2f us  state %6.0f B  create %6.1f us%s\n", name,
		    O.games, steps, l50, l99, items, a50, a99, h50,
		    state_bytes / O.games, t_create * 1e6 / O.games,
		    unfinished ? "  (some games cut at 10000 steps)" : "");
		json_array_append_new(arr, json_pack("{s:s, s:I, s:I, s:f, "
		    "s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}",
		    "ruleset", name, "games", (json_int_t)O.games,
		    "commands", (json_int_t)steps,
		    "apply_per_s", steps / t_apply,
		    "apply_us", t_apply * 1e6 / steps, "apply_p50_us", a50,
		    "apply_p99_us", a99,
		    "legal_us", t_legal * 1e6 / legal_calls,
		    "legal_p50_us", l50, "legal_p99_us", l99,
		    "legal_items", items,
		    "digest_us", t_hash * 1e6 / steps, "digest_p50_us", h50,
		    "state_bytes", state_bytes / O.games,
		    "create_us", t_create * 1e6 / O.games));
	}
	free(ta);
	free(th);
	free(tl);
	plugin_close(pl);
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
sec_rules(void)
{
	char dir[PATH_MAX];
	char *names[256];
	size_t n = 0, i;
	DIR *d;
	struct dirent *de;
	json_t *arr = json_array();

	printf("\n== rules speed (in-process, check-plugin's seeded games, "
	    "%ld per ruleset; CPU time)\n", O.games);
	snprintf(dir, sizeof(dir), "%s/plugins", O.build);
	if ((d = opendir(dir)) == NULL)
		die("cannot read '%s'", dir);
	while ((de = readdir(d)) != NULL && n < 256) {
		size_t l = strlen(de->d_name);

		if (l > 3 && strcmp(de->d_name + l - 3, ".so") == 0)
			names[n++] = strndup(de->d_name, l - 3);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmpstr);
	for (i = 0; i < n; i++) {
		rules_plugin(names[i], arr);
		free(names[i]);
	}
	json_object_set_new(J, "rules", arr);
	record_section("rules");
}

/* Section: round trip against a bare echo. */

/* The floor under fsync always: append a record-sized frame and
 * fdatasync it, on the file system of the state directory. */
static void
fsync_floor(const char *dir, size_t bytes, json_t *obj)
{
	char path[PATH_MAX + 16];
	uint8_t buf[4096];
	double v[400], t0;
	int fd, i;

	snprintf(path, sizeof(path), "%s/fsync-probe", dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND,
	    0600)) < 0)
		die("cannot create '%s'", path);
	memset(buf, 0x5a, sizeof(buf));
	if (bytes > sizeof(buf))
		bytes = sizeof(buf);
	for (i = 0; i < 400; i++) {
		t0 = now();
		if (write(fd, buf, bytes) != (ssize_t)bytes || fdatasync(fd) != 0)
			die("cannot write '%s'", path);
		v[i] = (now() - t0) * 1e6;
	}
	close(fd);
	unlink(path);
	printf("               the file system's floor: append %zu bytes + "
	    "fdatasync p50 %.1f us  p99 %.1f us\n", bytes, pct(v, 400, 0.5),
	    pct(v, 400, 0.99));
	json_object_set_new(obj, "fdatasync_p50_us", json_real(pct(v, 400,
	    0.5)));
	json_object_set_new(obj, "fdatasync_p99_us", json_real(pct(v, 400,
	    0.99)));
}

static void
rt_policy(const char *fsync, const char *workers, const char *echo_ep,
    pid_t echo, json_t *obj)
{
	struct daemon d;
	struct cli c, e;
	struct wmatch m;
	double *tr, *te, ratio50, ratio99, p50r, p99r, p50e, p99e;
	long n = 0, warm = 50, rej = 0, total = O.rt + warm;
	uint64_t seed = O.seed;
	char name[32];
	size_t bytes = 0;
	double cpu_r, cpu_e;
	uint64_t nreq = 0;

	snprintf(name, sizeof(name), "rt-%s%s", fsync, workers ?
	    "-inprocess" : "");
	daemon_start(&d, name, fsync, NULL, workers);
	cli_open(&c, d.cmd, 60000);
	cli_open(&e, echo_ep, 60000);
	memset(&m, 0, sizeof(m));
	tr = calloc((size_t)total, sizeof(double));
	te = calloc((size_t)total, sizeof(double));
	wm_create(&c, &m, seed++);
	cpu_r = cpu_of(d.pid);
	cpu_e = cpu_of(echo);
	while (n < total) {
		refd_mpw *w;
		void *rep;
		size_t rl;
		double t0, t1;
		int rc;

		if (wm_next(&c, &m, 0, &nreq) != 0) {
			wm_create(&c, &m, seed++);
			continue;
		}
		w = wm_act_req(&c, &m);
		bytes += refd_mpw_len(w);
		/* Alternate which goes first. */
		if (n & 1) {
			t0 = now();
			if (cli_raw(&e, refd_mpw_data(w), refd_mpw_len(w),
			    &rep, &rl) != 0)
				die("echo: no answer");
			te[n] = now() - t0;
			nn_freemsg(rep);
		}
		t0 = now();
		if (cli_raw(&c, refd_mpw_data(w), refd_mpw_len(w), &rep,
		    &rl) != 0)
			die("act: no answer from refd");
		t1 = now();
		tr[n] = t1 - t0;
		rc = act_reply(rep, rl, &m);
		nn_freemsg(rep);
		if (!(n & 1)) {
			t0 = now();
			if (cli_raw(&e, refd_mpw_data(w), refd_mpw_len(w),
			    &rep, &rl) != 0)
				die("echo: no answer");
			te[n] = now() - t0;
			nn_freemsg(rep);
		}
		refd_mpw_destroy(w);
		if (rc < 0) {
			if (++rej > 1000)
				die("round trip: too many rejected commands");
			continue;
		}
		n++;
		if (rc == 1)
			wm_create(&c, &m, seed++);
	}
	/* CPU per request, the daemon's and the echo's (all threads):
	 * robust where latencies are not on a shared machine. */
	cpu_r = (cpu_of(d.pid) - cpu_r) * 1e6 / (double)(nreq + (uint64_t)
	    n + (uint64_t)rej);
	cpu_e = (cpu_of(echo) - cpu_e) * 1e6 / (double)(n + rej);
	cli_close(&c);
	cli_close(&e);
	daemon_stop(&d);
	p50r = pct(tr + warm, (size_t)O.rt, 0.5) * 1e6;
	p99r = pct(tr + warm, (size_t)O.rt, 0.99) * 1e6;
	p50e = pct(te + warm, (size_t)O.rt, 0.5) * 1e6;
	p99e = pct(te + warm, (size_t)O.rt, 0.99) * 1e6;
	ratio50 = p50r / p50e;
	summary(ratio50 <= (strcmp(fsync, "never") == 0 ? 1.15 : 1.5),
	    "round trip, %s: %.2fx the bare echo at p50 (target %s)", name + 3,
	    ratio50, strcmp(fsync, "never") == 0 ? "1.15x" : "1.5x");
	ratio99 = p99r / p99e;
	printf("  %-12s refd p50 %8.1f us  p99 %8.1f us | echo p50 %6.1f "
	    "us  p99 %6.1f us | ratio p50 %5.2fx  p99 %5.2fx  (target %s)\n",
	    name + 3, p50r, p99r, p50e, p99e, ratio50, ratio99,
	    strcmp(fsync, "never") == 0 ? "1.15x" : "1.5x");
	printf("               CPU per request: refd %.1f us (legal and act "
	    "requests), echo %.1f us\n", cpu_r, cpu_e);
	json_object_set_new(obj, name + 3, json_pack("{s:f, s:f, s:I, s:f, s:f, "
	    "s:f, s:f, s:f, s:f, s:f, s:f}", "refd_cpu_us_per_request", cpu_r,
	    "echo_cpu_us_per_request", cpu_e, "samples", (json_int_t)O.rt, "refd_p50_us",
	    p50r, "refd_p99_us", p99r, "echo_p50_us", p50e, "echo_p99_us",
	    p99e, "ratio_p50", ratio50, "ratio_p99", ratio99, "target",
	    strcmp(fsync, "never") == 0 ? 1.15 : 1.5, "mean_request_bytes",
	    (double)bytes / (double)n));
	free(tr);
	free(te);
	if (strcmp(fsync, "always") == 0)
		fsync_floor(d.state, 300, json_object_get(obj, name + 3));
}

static void
sec_rt(void)
{
	char ep[PATH_MAX + 16], self[PATH_MAX], dir[PATH_MAX];
	char *av[4];
	pid_t echo;
	json_t *obj = json_object();

	printf("\n== round trip: one client, a typical '%s' act over ipc://, "
	    "against a bare REQ/REP echo of the same bytes (%ld each, "
	    "interleaved)\n", O.ruleset, O.rt);
	snprintf(dir, sizeof(dir), "%s/echo", O.work);
	rm_rf(dir);
	mkdirs(dir);
	snprintf(ep, sizeof(ep), "ipc://%s/echo.sock", dir);
	{
		ssize_t l = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (l <= 0)
			die("readlink /proc/self/exe");
		self[l] = 0;
	}
	av[0] = self;
	av[1] = "echo";
	av[2] = ep;
	av[3] = NULL;
	record_cmd("echo", av);
	if (posix_spawn(&echo, self, NULL, NULL, av, environ) != 0)
		die("cannot start the echo server");
	kid_add(echo);
	json_object_set_new(obj, "ruleset", json_string(O.ruleset));
	rt_policy("never", NULL, ep, echo, obj);
	rt_policy("always", NULL, ep, echo, obj);
	/* The same without worker processes (plugin-workers no). */
	rt_policy("never", "no", ep, echo, obj);
	kill(echo, SIGTERM);
	kid_del(echo);
	waitpid(echo, NULL, 0);
	json_object_set_new(J, "round_trip", obj);
	record_section("rt");
}

/* Section: throughput under concurrency. */

struct tpw {
	const char *ep;
	uint64_t seed;
	pthread_barrier_t *bar;
	volatile int *stop;
	uint64_t acts, legal, matches;
	struct wmatch m;
	struct cli c;
};

static void *
tp_thread(void *arg)
{
	struct tpw *t = arg;
	int rej;

	pthread_barrier_wait(t->bar);
	while (!*t->stop) {
		if (wm_step(&t->c, &t->m, 0, &t->legal, NULL, &rej) == 1) {
			wm_create(&t->c, &t->m, t->seed++);
			t->matches++;
		}
		if (!rej)
			t->acts++;
	}
	return NULL;
}

static double
tp_run(const struct daemon *d, long nclients, uint64_t seed)
{
	struct tpw *t = calloc((size_t)nclients, sizeof(*t));
	pthread_t *th = calloc((size_t)nclients, sizeof(*th));
	pthread_barrier_t bar;
	volatile int stop = 0;
	double t0, el;
	uint64_t acts = 0;
	long i;

	pthread_barrier_init(&bar, NULL, (unsigned)nclients + 1);
	for (i = 0; i < nclients; i++) {
		t[i].ep = d->cmd;
		t[i].seed = seed + (uint64_t)i * 1000003;
		t[i].bar = &bar;
		t[i].stop = &stop;
		cli_open(&t[i].c, d->cmd, 60000);
		wm_create(&t[i].c, &t[i].m, t[i].seed++);
		if (pthread_create(&th[i], NULL, tp_thread, &t[i]) != 0)
			die("pthread_create");
	}
	pthread_barrier_wait(&bar);
	t0 = now();
	while (now() - t0 < O.tp_secs)
		usleep(10000);
	stop = 1;
	for (i = 0; i < nclients; i++) {
		pthread_join(th[i], NULL);
		acts += t[i].acts;
		cli_close(&t[i].c);
		refd_mpw_destroy(t[i].m.cmd);
	}
	el = now() - t0;
	pthread_barrier_destroy(&bar);
	free(t);
	free(th);
	return (double)acts / el;
}

static void
sec_tp(void)
{
	static const char *const pol[] = { "never", "batch", "always" };
	double rate[3][MAXCONC];
	json_t *obj = json_object(), *arr;
	size_t p, k;

	printf("\n== throughput: acts/s (each step also asks legal), clients "
	    "in separate '%s' matches, %.1f s each\n", O.ruleset, O.tp_secs);
	for (p = 0; p < 3; p++) {
		struct daemon d;
		char name[32];

		snprintf(name, sizeof(name), "tp-%s", pol[p]);
		daemon_start(&d, name, pol[p], NULL, NULL);
		printf("  fsync %-6s", pol[p]);
		arr = json_array();
		for (k = 0; k < O.ntp; k++) {
			rate[p][k] = tp_run(&d, O.tp_clients[k], O.seed + 7 *
			    k);
			printf("  %3ld clients %8.0f/s", O.tp_clients[k],
			    rate[p][k]);
			fflush(stdout);
			json_array_append_new(arr, json_pack("{s:I, s:f}",
			    "clients", (json_int_t)O.tp_clients[k],
			    "acts_per_s", rate[p][k]));
		}
		printf("\n");
		daemon_stop(&d);
		json_object_set_new(obj, pol[p], arr);
	}
	k = O.ntp - 1;
	summary(rate[2][k] / rate[0][k] >= 0.5, "throughput, %ld clients: "
	    "always at %.0f%% of never (target >= 50%%)", O.tp_clients[k],
	    100 * rate[2][k] / rate[0][k]);
	printf("  always/never with %ld clients: %.0f%% (target >= 50%%); "
	    "with 1 client: %.0f%%\n", O.tp_clients[k],
	    100 * rate[2][k] / rate[0][k], 100 * rate[2][0] / rate[0][0]);
	json_object_set_new(obj, "always_over_never", json_real(rate[2][k] /
	    rate[0][k]));
	json_object_set_new(obj, "ratio_clients", json_integer(
	    O.tp_clients[k]));
	json_object_set_new(obj, "target", json_real(0.5));
	json_object_set_new(obj, "ruleset", json_string(O.ruleset));
	json_object_set_new(J, "throughput", obj);
	record_section("tp");
}

/* Section: verification speed. */

static int
run_wait(char *const *av, const char *out, double *cpu)
{
	pid_t pid;
	int st;
	struct rusage ru;
	posix_spawn_file_actions_t fa;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT |
	    O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	if (posix_spawn(&pid, av[0], &fa, NULL, av, environ) != 0)
		die("cannot run '%s'", av[0]);
	posix_spawn_file_actions_destroy(&fa);
	if (wait4(pid, &st, 0, &ru) != pid)
		return -1;
	*cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void
sec_verify(void)
{
	struct daemon d;
	struct cli c;
	struct wmatch m;
	uint64_t seed = O.seed + 99, recs = 0, nlegal = 0;
	double live_act = 0, live_wall = 0, vt = 0, vcpu = 0, rcpu0, rcpu;
	long nmatches = 0, cmds = 0;
	char refctl[PATH_MAX], pkhex[2 * EVLOG_PK_LEN + 1], err[256];
	uint8_t pk[EVLOG_PK_LEN];
	json_t *obj = json_object();
	char *lastav[8] = { NULL };
	static char lastlog[PATH_MAX + 64];

	printf("\n== verification: refctl verify on '%s' logs played at full "
	    "speed by one client (fsync never), >= %ld records\n", O.ruleset,
	    O.verify_records);
	daemon_start(&d, "verify", "never", NULL, NULL);
	cli_open(&c, d.cmd, 60000);
	memset(&m, 0, sizeof(m));
	snprintf(refctl, sizeof(refctl), "%s/bin/refctl", O.build);
	if (matchset_read_pubkey(d.state, pk, err, sizeof(err)) != 0)
		die("cannot read the daemon's key: %s", err);
	sodium_bin2hex(pkhex, sizeof(pkhex), pk, sizeof(pk));
	rcpu0 = cpu_of(d.pid);
	while (recs < (uint64_t)O.verify_records) {
		double t0 = now(), dt, tv, cpu = 0;
		int rc, rej;
		refd_mpdoc *doc;
		refd_mpw *w;
		refd_mpv r;
		const uint8_t *lb;
		size_t ll;
		char logp[PATH_MAX + 64], outp[PATH_MAX + 64];
		char *av[8];
		FILE *f;
		struct evlog_scan sc;

		wm_create(&c, &m, seed++);
		for (;;) {
			rc = wm_step(&c, &m, 0.9, &nlegal, &dt, &rej);
			if (!rej) {
				live_act += dt;
				cmds++;
			}
			if (rc == 1)
				break;
			if (m.ncmd >= 5000) {
				/* Long enough: end it. */
				w = req_begin(&c, "resign");
				refd_mpw_kstr(w, "match", m.id);
				refd_mpw_kint(w, "seat", 0);
				refd_mpw_kstr(w, "token", m.tok[0]);
				(void)req_call(&c, w, &doc, 0, NULL);
				refd_mp_free(doc);
				break;
			}
		}
		live_wall += now() - t0;
		w = req_begin(&c, "export");
		refd_mpw_kstr(w, "match", m.id);
		r = req_call(&c, w, &doc, 0, NULL);
		if (refd_mpv_bin(refd_mpv_get(r, "log"), &lb, &ll) != 0)
			die("export: no log");
		snprintf(logp, sizeof(logp), "%s/logs", d.dir);
		(void)mkdir(logp, 0755);
		snprintf(logp, sizeof(logp), "%s/logs/%s.log", d.dir, m.id);
		snprintf(outp, sizeof(outp), "%s/%s.verify", d.dir, m.id);
		if ((f = fopen(logp, "wb")) == NULL || fwrite(lb, 1, ll, f) !=
		    ll || fclose(f) != 0)
			die("cannot write '%s'", logp);
		refd_mp_free(doc);
		if (evlog_scan_file(logp, &sc, err, sizeof(err)) != 0 ||
		    sc.tail != EVLOG_CLEAN)
			die("exported log '%s' does not scan: %s", logp, err);
		recs += sc.n;
		evlog_scan_release(&sc);
		av[0] = refctl;
		av[1] = "verify";
		av[2] = logp;
		av[3] = "--pubkey";
		av[4] = pkhex;
		av[5] = NULL;
		tv = now();
		rc = run_wait(av, outp, &cpu);
		vt += now() - tv;
		vcpu += cpu;
		if (rc != 0)
			die("refctl verify '%s' failed (exit %d); see %s", logp,
			    rc, outp);
		nmatches++;
		snprintf(lastlog, sizeof(lastlog), "%s", logp);
		memcpy(lastav, av, sizeof(av));
		lastav[2] = lastlog;
	}
	rcpu = cpu_of(d.pid) - rcpu0;
	refd_mpw_destroy(m.cmd);
	cli_close(&c);
	daemon_stop(&d);
	record_cmd("verify (last log; kept until the next run)", lastav);
	{
		/* The organiser's batch: every log at once, one per core. */
		char jn[16], bout[PATH_MAX + 64], bdir[PATH_MAX + 64], *bav[10];
		double tb, bcpu = 0;
		long nj = sysconf(_SC_NPROCESSORS_ONLN);
		int brc;

		snprintf(jn, sizeof(jn), "%ld", nj > 0 ? nj : 1);
		snprintf(bout, sizeof(bout), "%s/batch.verify", d.dir);
		snprintf(bdir, sizeof(bdir), "%s/logs", d.dir);
		bav[0] = refctl;
		bav[1] = "verify";
		bav[2] = "-q";
		bav[3] = "-j";
		bav[4] = jn;
		bav[5] = "--pubkey";
		bav[6] = pkhex;
		bav[7] = bdir;
		bav[8] = NULL;
		tb = now();
		brc = run_wait(bav, bout, &bcpu);
		tb = now() - tb;
		if (brc != 0)
			die("refctl verify of the batch failed (exit %d); see %s",
			    brc, bout);
		record_cmd("verify (the batch: every log at once)", bav);
		printf("  batch: %ld logs verified in %.3f s with -j %s (%.3f s "
		    "one by one): %.1f%% of the time the acts took, %.1f%% of "
		    "wall (target < 5%%)\n", nmatches, tb, jn, vt, 100 * tb /
		    live_act, 100 * tb / live_wall);
		summary(tb / live_act < 0.05, "verification of a batch: %.1f%% "
		    "of the time the acts took (target < 5%%)",
		    100 * tb / live_act);
		json_object_set_new(obj, "batch_s", json_real(tb));
		json_object_set_new(obj, "batch_jobs", json_integer(nj));
		json_object_set_new(obj, "batch_over_play", json_real(tb /
		    live_act));
	}
	printf("  %ld matches, %" PRIu64 " records, %ld commands: played in "
	    "%.2f s of act round trips (%.2f s wall with legal queries), "
	    "verified in %.3f s\n", nmatches, recs, cmds, live_act, live_wall,
	    vt);
	summary(vt / live_act < 0.02, "verification: %.1f%% of the time the "
	    "acts took (target < 2%%)", 100 * vt / live_act);
	printf("  verify %.0f records/s vs live %.0f commands/s: verifying "
	    "takes %.1f%% of playing (acts only), %.1f%% of wall (target "
	    "< 2%%)\n", recs / vt, cmds / live_act, 100 * vt / live_act,
	    100 * vt / live_wall);
	printf("  CPU: refctl verify %.3f s (%.1f us per record), refd %.3f s "
	    "while playing (%.1f us per request): %.1f%%\n", vcpu,
	    vcpu * 1e6 / (double)recs, rcpu, rcpu * 1e6 / (double)(cmds +
	    nlegal), 100 * vcpu / rcpu);
	json_object_set_new(obj, "ruleset", json_string(O.ruleset));
	json_object_set_new(obj, "matches", json_integer(nmatches));
	json_object_set_new(obj, "records", json_integer((json_int_t)recs));
	json_object_set_new(obj, "commands", json_integer(cmds));
	json_object_set_new(obj, "verify_s", json_real(vt));
	json_object_set_new(obj, "verify_cpu_s", json_real(vcpu));
	json_object_set_new(obj, "refd_play_cpu_s", json_real(rcpu));
	json_object_set_new(obj, "play_acts_s", json_real(live_act));
	json_object_set_new(obj, "play_wall_s", json_real(live_wall));
	json_object_set_new(obj, "verify_records_per_s", json_real(recs / vt));
	json_object_set_new(obj, "live_commands_per_s", json_real(cmds /
	    live_act));
	json_object_set_new(obj, "verify_over_play", json_real(vt /
	    live_act));
	json_object_set_new(obj, "verify_over_play_wall", json_real(vt /
	    live_wall));
	json_object_set_new(obj, "target", json_real(0.02));
	json_object_set_new(J, "verify", obj);
	record_section("verify");
}

/* Section: memory per idle match. */

static void
sec_mem(void)
{
	struct daemon d;
	struct cli c;
	struct wmatch m;
	long base, have = 0;
	size_t k;
	json_t *arr = json_array();

	printf("\n== memory: refd's and its plugin workers' memory (PSS) per "
	    "idle '%s' match (created, every seat joined, started)\n",
	    O.ruleset);
	daemon_start(&d, "mem", "never", NULL, NULL);
	cli_open(&c, d.cmd, 60000);
	memset(&m, 0, sizeof(m));
	base = mem_kib(d.pid);
	printf("  no match: %ld KiB\n", base);
	for (k = 0; k < O.nscale; k++) {
		long rss;
		double per;

		while (have < O.scale[k])
			wm_create(&c, &m, O.seed + (uint64_t)have++);
		rss = mem_kib(d.pid);
		per = (double)(rss - base) / (double)have;
		if (k == O.nscale - 1)
			summary(per < 64, "memory: %.1f KiB per idle match at "
			    "%ld matches (target < 64 KiB)", per, have);
		printf("  %6ld matches: %8ld KiB, %6.1f KiB per match (target "
		    "< 64)\n", have, rss, per);
		json_array_append_new(arr, json_pack("{s:I, s:I, s:f}",
		    "matches", (json_int_t)have, "rss_kib", (json_int_t)rss,
		    "kib_per_match", per));
	}
	refd_mpw_destroy(m.cmd);
	cli_close(&c);
	daemon_stop(&d);
	json_object_set_new(J, "memory", json_pack("{s:s, s:I, s:o, s:f}",
	    "ruleset", O.ruleset, "base_rss_kib", (json_int_t)base, "points",
	    arr, "target_kib", 64.0));
	record_section("mem");
}

/* Section: recovery. */

static void
gen_report(void *arg, const char *line)
{
	(void)arg;
	if (strstr(line, "created the signing key") == NULL)
		fprintf(stderr, "refd-bench: recovery generator: %s\n", line);
}

/*
 * The recovery's setup: the round trip's, with the ruleset's game-length
 * options (when describe lists them) raised so that a match lasts the
 * commands asked for.  Owned bytes in *out.
 */
static void
long_setup(struct plugin *pl, uint8_t **out, size_t *len, char *what,
    size_t whatlen)
{
	static const struct {
		const char *name;
		int v;
	} stretch[] = { { "round_limit", 200 }, { "stalemate_rounds", 200 },
	    { "max_rounds", 1000 } };
	const uint8_t *b = Setup;
	size_t n = Setup_len, i, off = 0;
	refd_mpdoc *dd, *desc;
	refd_mpv opts;
	json_t *j;
	refd_mpw *w = refd_mpw_create();

	if (b == NULL && Scenario[0]) {
		const struct scenario *sc = plugin_scenario(pl, Scenario);

		b = sc->setup;
		n = sc->setup_len;
	}
	dd = refd_mp_parse(b != NULL ? b : (const uint8_t *)"\x80", b ? n : 1);
	j = mp_to_json(refd_mp_root(dd));
	refd_mp_free(dd);
	desc = refd_mp_parse(pl->describe, pl->describe_len);
	opts = refd_mpv_get(refd_mp_root(desc), "options");
	what[0] = 0;
	for (i = 0; i < sizeof(stretch) / sizeof(stretch[0]); i++) {
		if (!refd_mpv_ok(refd_mpv_get(opts, stretch[i].name)))
			continue;
		json_object_set_new(j, stretch[i].name,
		    json_integer(stretch[i].v));
		off += (size_t)snprintf(what + off, off < whatlen ? whatlen -
		    off : 0, " %s %d", stretch[i].name, stretch[i].v);
	}
	refd_mp_free(desc);
	if (json_to_mp(j, w) != 0)
		die("out of memory");
	json_decref(j);
	*len = refd_mpw_len(w);
	*out = malloc(*len);
	memcpy(*out, refd_mpw_data(w), *len);
	refd_mpw_destroy(w);
}

/* The draws of a log (start and command records), in order. */
static int64_t *
draws_of(const char *path, size_t *n)
{
	struct evlog_scan sc;
	struct evlog_rec r;
	char err[512];
	int64_t *v = NULL;
	size_t i, k, cap = 0;

	*n = 0;
	if (evlog_scan_file(path, &sc, err, sizeof(err)) != 0)
		die("'%s': %s", path, err);
	memset(&r, 0, sizeof(r));
	for (i = 1; i < sc.n; i++) {
		evlog_rec_release(&r);
		if (evlog_decode(sc.fr[i].p, sc.fr[i].len, &r, err,
		    sizeof(err)) != 0)
			die("'%s': record %zu: %s", path, i, err);
		for (k = 0; k < r.ndr; k++) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 256;
				if ((v = realloc(v, cap * sizeof(*v))) == NULL)
					die("out of memory");
			}
			v[(*n)++] = r.dr[k].value;
		}
	}
	evlog_rec_release(&r);
	evlog_scan_release(&sc);
	return v;
}

/* A refused command is fine while generating; a broken daemon is not. */
static void
gen_fatal(const struct match_err *me)
{
	if (me->code == REFD_ELOGIO || me->code == REFD_ENOMEM ||
	    me->code == REFD_EINTERNAL || me->code == REFD_EPLUGINFAULT ||
	    me->code == REFD_ELIMIT)
		die("recovery generator: act: %s", me->message);
}

static void
sec_recover(void)
{
	char state[PATH_MAX], err[1024];
	struct config cfg;
	struct match_config mc;
	struct registry reg;
	struct plugin *pl;
	struct matchset *ms;
	struct daemon d;
	struct cli c;
	refd_mpdoc *doc;
	refd_mpv r;
	refd_mpw *w = refd_mpw_create();
	long unfinished = 0, finished = 0, cmds = 0;
	uint64_t rng = O.seed;
	double t0, gen;
	long rss;
	double rcpu;
	int k, rc, replay;
	long nreplayed = 0, nfallback = 0;
	struct trace tpl, rec;
	int64_t *script = NULL;
	size_t nscript = 0;
	uint8_t *setup;
	size_t setup_len;
	char what[256];
	json_t *obj = json_object();

	printf("\n== recovery: restart over %ld unfinished '%s' matches of %ld "
	    "commands\n", O.rec_matches, O.ruleset, O.rec_cmds);
	snprintf(state, sizeof(state), "%s/recover/state", O.work);
	{
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s/recover", O.work);
		rm_rf(dir);
	}
	mkdirs(state);
	if (config_init(&cfg, err, sizeof(err)) != 0)
		die("%s", err);
	free(cfg.state_dir);
	cfg.state_dir = strdup(state);
	cfg.fsync = FSYNC_NEVER;
	cfg.max_matches = 10000000;
	cfg.plugin_workers = 0;		/* same logs, written faster */
	cfg.allow_scripted = 1;
	config_match(&cfg, &mc);
	plugin_load(O.ruleset, &pl);
	reg.pl = &pl;
	reg.n = 1;
	long_setup(pl, &setup, &setup_len, what, sizeof(what));
	if (what[0])
		printf("  setup: the round trip's, with%s\n", what);
	memset(&tpl, 0, sizeof(tpl));
	memset(&rec, 0, sizeof(rec));
	t0 = now();
	if (matchset_create(&mc, &reg, gen_report, NULL, &ms, err,
	    sizeof(err)) != 0)
		die("%s", err);
	while (unfinished < O.rec_matches) {
		struct match_create_args ca;
		struct match_err me;
		struct match *m;
		char tok[MAXSEATS][MATCH_TOKEN_LEN + 1];
		uint32_t s, nseats, last;
		long k;
		int over = 0;

		memset(&ca, 0, sizeof(ca));
		ca.ruleset = O.ruleset;
		ca.setup = setup;
		ca.setup_len = setup_len;
		if (tpl.n > 0) {
			/* The first match's draws, scripted: every match
			 * then takes the same commands. */
			ca.scripted = 1;
			ca.dice = script;
			ca.ndice = nscript;
		}
		if (match_create(ms, &ca, &m, &me) != 0)
			die("create: %s", me.message);
		{
			struct buf b;
			refd_mpdoc *dd;

			buf_init(&b);
			match_info(m, &b);
			dd = refd_mp_parse(b.data, b.len);
			r = refd_mpv_get(refd_mp_root(dd), "seats");
			nseats = refd_mpv_type(r) == REFD_MP_ARRAY ?
			    (uint32_t)refd_mpv_len(r) : (uint32_t)
			    refd_mpv_get_int(refd_mp_root(dd), "seats", 2);
			refd_mp_free(dd);
			buf_release(&b);
		}
		for (s = 0; s < nseats; s++) {
			char sd[32];

			snprintf(sd, sizeof(sd), "gen-%ld-%u", unfinished, s);
			if (match_join(m, s, (const uint8_t *)sd, strlen(sd),
			    tok[s], &me) != 0)
				die("join: %s", me.message);
		}
		last = nseats - 1;
		rec.n = 0;
		replay = tpl.n > 0;
		for (k = 0; k < O.rec_cmds && !over; k++) {
			struct act_result ar;
			char cid[32];
			uint64_t pend = 0;
			uint32_t j;

			snprintf(cid, sizeof(cid), "g%ld", k);
			/* The first match's commands again: same setup, so
			 * mostly legal, and no costly legal lists. */
			if (replay && (size_t)k < tpl.n) {
				s = tpl.seat[k];
				if (match_act(m, s, tok[s], cid, -1, tpl.cmd[k],
				    tpl.len[k], &ar, &me) == 0) {
					cmds++;
					nreplayed++;
					over = ar.finished;
					last = s;
					continue;
				}
				gen_fatal(&me);
				replay = 0;
				nfallback++;
			}
			if (match_pending(m, &pend, &me) != 0)
				die("pending: %s", me.message);
			for (j = 1; j <= nseats; j++)
				if ((pend >> ((last + j) % nseats)) & 1)
					break;
			if (j > nseats) {
				over = 1;
				break;
			}
			s = (last + j) % nseats;
			{
				struct buf b;

				buf_init(&b);
				if (match_legal(m, s, tok[s], &b, &me) != 0)
					die("legal: %s", me.message);
				doc = refd_mp_parse(b.data, b.len);
				rc = choose(refd_mp_root(doc), &rng, 1.0, w);
				refd_mp_free(doc);
				buf_release(&b);
			}
			if (rc != 0) {
				over = 1;
				break;
			}
			if (match_act(m, s, tok[s], cid, -1, refd_mpw_data(w),
			    refd_mpw_len(w), &ar, &me) != 0) {
				gen_fatal(&me);
				continue;
			}
			cmds++;
			over = ar.finished;
			last = s;
			if (tpl.n == 0)
				trace_add(&rec, s, refd_mpw_data(w),
				    refd_mpw_len(w));
		}
		if (!over && tpl.n == 0 && rec.n > 0) {
			char lp[PATH_MAX + 64];

			tpl = rec;
			memset(&rec, 0, sizeof(rec));
			snprintf(lp, sizeof(lp), "%s/matches/%s.log", state,
			    match_id(m));
			script = draws_of(lp, &nscript);
		}
		if (over)
			finished++;
		else
			unfinished++;
		if (finished > O.rec_matches + 100)
			die("recovery: '%s' matches end before %ld commands; "
			    "give --stall with a command type that does not "
			    "end them", O.ruleset, O.rec_cmds);
		if (matchset_sync(ms) != 0)
			die("sync failed");
	}
	matchset_destroy(ms);
	plugin_close(pl);
	free(setup);
	trace_free(&tpl);
	trace_free(&rec);
	free(script);
	config_release(&cfg);
	refd_mpw_destroy(w);
	gen = now() - t0;
	printf("  written in %.1f s (%ld commands in-process; every match after "
	    "the first plays its commands with its %zu draws scripted: %ld "
	    "commands so, %ld matches diverged, %ld ended early)\n", gen,
	    cmds, nscript, nreplayed, nfallback, finished);
	for (k = 0; k < 2; k++) {
		/* The default (plugin workers), then in-process. */
		const char *wk = k ? "no" : NULL;

		daemon_start(&d, k ? "recover-inprocess" : "recover", "never",
		    state, wk);
		rcpu = cpu_of(d.pid);
		cli_open(&c, d.cmd, 60000);
		w = req_begin(&c, "stats");
		r = req_call(&c, w, &doc, 0, NULL);
		if (refd_mpv_get_int(r, "matches", 0) < O.rec_matches)
			die("recovery: refd has %" PRId64 " matches, want >= "
			    "%ld", refd_mpv_get_int(r, "matches", 0),
			    O.rec_matches);
		refd_mp_free(doc);
		rss = mem_kib(d.pid);
		cli_close(&c);
		daemon_stop(&d);
		summary(d.ready_s < 10, "restart over %ld unfinished matches, "
		    "%s: %.1f s (target < 10 s)", O.rec_matches, k ?
		    "in-process" : "plugin workers", d.ready_s);
		printf("  %-13s refd ready after %.2f s (target < 10 s; CPU of "
		    "refd and its workers %.2f s); memory %ld KiB, %.1f KiB per "
		    "recovered match\n", k ? "in-process:" : "workers:",
		    d.ready_s, rcpu, rss, (double)rss /
		    (double)(O.rec_matches + finished));
		json_object_set_new(obj, k ? "inprocess" : "workers",
		    json_pack("{s:f, s:f, s:I}", "ready_s", d.ready_s,
		    "ready_cpu_s", rcpu, "mem_kib", (json_int_t)rss));
	}
	json_object_set_new(obj, "ruleset", json_string(O.ruleset));
	json_object_set_new(obj, "unfinished", json_integer(O.rec_matches));
	json_object_set_new(obj, "finished", json_integer(finished));
	json_object_set_new(obj, "commands_each", json_integer(O.rec_cmds));
	json_object_set_new(obj, "generate_s", json_real(gen));
	json_object_set_new(obj, "target_s", json_real(10));
	json_object_set_new(J, "recovery", obj);
	record_section("recover");
	(void)cmds;
}

/* Options. */

static size_t
parse_list(const char *s, long *out)
{
	size_t n = 0;
	char *end;

	while (*s && n < MAXCONC) {
		out[n++] = strtol(s, &end, 10);
		if (out[n - 1] <= 0 || (*end != ',' && *end != 0)) {
			fprintf(stderr, "refd-bench: bad list '%s'\n", s);
			exit(2);
		}
		s = *end ? end + 1 : end;
	}
	return n;
}

static void
pick_ruleset(void)
{
	char p[PATH_MAX];
	struct stat st;
	json_error_t je;

	if (O.ruleset == NULL) {
		snprintf(p, sizeof(p), "%s/plugins/skirmish.so", O.build);
		O.ruleset = stat(p, &st) == 0 ? "skirmish" : "duel";
	}
	if (O.setup_json == NULL && strcmp(O.ruleset, "duel") == 0)
		O.setup_json = "{\"fighters\": [\"knight\", \"rogue\"], "
		    "\"max_rounds\": 1000, \"cards\": true}";
	if (O.setup_json != NULL) {
		json_t *j = json_loads(O.setup_json, 0, &je);
		refd_mpw *w = refd_mpw_create();

		if (j == NULL || json_to_mp(j, w) != 0) {
			fprintf(stderr, "refd-bench: --setup: %s\n", je.text);
			exit(2);
		}
		Setup_len = refd_mpw_len(w);
		Setup = malloc(Setup_len);
		memcpy(Setup, refd_mpw_data(w), Setup_len);
		refd_mpw_destroy(w);
		json_decref(j);
	} else {
		struct plugin *pl;

		plugin_load(O.ruleset, &pl);
		if (pl->nscenarios > 0)
			snprintf(Scenario, sizeof(Scenario), "%s",
			    pl->scenarios[0].name);
		plugin_close(pl);
	}
}

static void
machine(void)
{
	struct utsname u;
	char line[512], model[256] = "?";
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (strncmp(line, "model name", 10) == 0) {
				char *c = strchr(line, ':');

				snprintf(model, sizeof(model), "%s", c ? c + 2 :
				    line);
				model[strcspn(model, "\n")] = 0;
				break;
			}
		fclose(f);
	}
	uname(&u);
	printf("machine: %s, %ld cpu(s), %s %s %s\n", model,
	    sysconf(_SC_NPROCESSORS_ONLN), u.sysname, u.release, u.machine);
	json_object_set_new(J, "machine", json_pack("{s:s, s:I, s:s, s:s}",
	    "cpu", model, "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
	    "kernel", u.release, "arch", u.machine));
}

/* Section: no stall.  A well-behaved client's round trip while another
 * client's plugin op spins. */

#define BUSY_TIMEOUT_MS 1000
#define BUSY_SECS 6.0

struct busy {
	const char *ep;
	volatile int *stop;
	volatile int started;
	uint64_t spins, timeouts;
};

/* Spin the loops fixture's plugin, over and over: a fresh match each time
 * (three timeouts in a row would suspend a match). */
static void *
busy_thread(void *arg)
{
	struct busy *b = arg;
	struct cli c;
	refd_mpdoc *doc;
	refd_mpv r;
	refd_mpw *w;
	char id[MATCH_ID_LEN + 1], tok[MATCH_TOKEN_LEN + 1];
	int code, seat;

	cli_open(&c, b->ep, 60000);
	while (!*b->stop) {
		w = req_begin(&c, "create");
		refd_mpw_kstr(w, "ruleset", "loops");
		refd_mpw_kint(w, "seats", 2);
		refd_mpw_str(w, "setup");
		refd_mpw_map(w);
		refd_mpw_end(w);
		r = req_call(&c, w, &doc, 0, NULL);
		snprintf(id, sizeof(id), "%s", refd_mpv_get_str(r, "match", ""));
		refd_mp_free(doc);
		for (seat = 1; seat >= 0; seat--) {
			w = req_begin(&c, "join");
			refd_mpw_kstr(w, "match", id);
			refd_mpw_kint(w, "seat", seat);
			refd_mpw_kstr(w, "seed", "busy");
			r = req_call(&c, w, &doc, 0, NULL);
			snprintf(tok, sizeof(tok), "%s",
			    refd_mpv_get_str(r, "token", ""));
			refd_mp_free(doc);
		}
		w = req_begin(&c, "act");
		refd_mpw_kstr(w, "match", id);
		refd_mpw_kint(w, "seat", 0);
		refd_mpw_kstr(w, "token", tok);
		refd_mpw_kstr(w, "cmd_id", "spin");
		refd_mpw_str(w, "cmd");
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "spin");
		refd_mpw_end(w);
		b->started = 1;
		(void)req_call(&c, w, &doc, 1, &code);
		refd_mp_free(doc);
		b->spins++;
		if (code == REFD_EPLUGINFAULT)
			b->timeouts++;
		else if (!*b->stop)
			die("busy: the spin was not an EPLUGINFAULT (%d)", code);
	}
	cli_close(&c);
	return NULL;
}

/* Moves of O.ruleset (legal, then act) for at most secs seconds or n
 * moves: their times go to t, their number is returned. */
static long
busy_acts(struct cli *c, struct wmatch *m, uint64_t *seed, double *t,
    long n, double secs)
{
	double t0 = now(), t1;
	long k = 0, rej = 0;
	int rc;

	while (k < n && now() - t0 < secs) {
		t1 = now();
		if (wm_next(c, m, 0, NULL) != 0) {
			wm_create(c, m, (*seed)++);
			continue;
		}
		rc = wm_act(c, m, NULL);
		if (rc < 0) {
			if (++rej > 1000)
				die("busy: too many rejected commands");
			continue;
		}
		t[k++] = now() - t1;
		if (rc == 1)
			wm_create(c, m, (*seed)++);
	}
	return k;
}

static void
sec_busy(void)
{
	char dir[PATH_MAX], pdir[PATH_MAX], rdir[PATH_MAX], a[PATH_MAX * 2],
	    b_[PATH_MAX * 2], tmo[16];
	struct daemon d;
	struct cli c;
	struct wmatch m;
	struct busy b;
	pthread_t th;
	volatile int stop = 0;
	double *ti, *tb, p50i, p99i, p50b, p99b, secs, meani = 0, meanb = 0;
	long n = O.rt < 200 ? O.rt : 200, ni, nb, k;
	uint64_t seed = O.seed;
	json_t *obj = json_object();

	printf("\n== no stall: one client's '%s' moves (legal and act round "
	    "trips) while another client's 'loops' op spins until plugin-timeout (%d ms), against "
	    "the same on an idle refd\n", O.ruleset, BUSY_TIMEOUT_MS);
	/* A plugin directory with the round-trip ruleset and the loops
	 * fixture. */
	snprintf(dir, sizeof(dir), "%s/busy", O.work);
	rm_rf(dir);
	snprintf(pdir, sizeof(pdir), "%s/plugins", dir);
	snprintf(rdir, sizeof(rdir), "%s/rulesets", dir);
	mkdirs(pdir);
	mkdirs(rdir);
	snprintf(a, sizeof(a), "%s/plugins/%s.so", O.build, O.ruleset);
	snprintf(b_, sizeof(b_), "%s/%s.so", pdir, O.ruleset);
	if (symlink(a, b_) != 0)
		die("symlink '%s': %s", b_, strerror(errno));
	snprintf(a, sizeof(a), "%s/tests/plugins/loops.so", O.build);
	snprintf(b_, sizeof(b_), "%s/loops.so", pdir);
	if (symlink(a, b_) != 0)
		die("symlink '%s': %s", b_, strerror(errno));
	snprintf(a, sizeof(a), "%s/rulesets/%s", O.build, O.ruleset);
	snprintf(b_, sizeof(b_), "%s/%s", rdir, O.ruleset);
	if (symlink(a, b_) != 0)
		die("symlink '%s': %s", b_, strerror(errno));
	snprintf(b_, sizeof(b_), "%s/loops", rdir);
	mkdirs(b_);
	snprintf(tmo, sizeof(tmo), "%d", BUSY_TIMEOUT_MS);
	Dplugins = pdir;
	Drulesets = rdir;
	Dtimeout = tmo;
	daemon_start(&d, "busy/refd", "never", NULL, NULL);
	Dplugins = Drulesets = Dtimeout = NULL;
	ti = calloc((size_t)n, sizeof(double));
	tb = calloc((size_t)n, sizeof(double));
	if (ti == NULL || tb == NULL)
		die("out of memory");
	cli_open(&c, d.cmd, 60000);
	memset(&m, 0, sizeof(m));
	wm_create(&c, &m, seed++);
	/* Warm up, then idle. */
	(void)busy_acts(&c, &m, &seed, ti, n < 20 ? n : 20, BUSY_SECS);
	ni = busy_acts(&c, &m, &seed, ti, n, BUSY_SECS);
	/* Busy: the spinning client starts first. */
	memset(&b, 0, sizeof(b));
	b.ep = d.cmd;
	b.stop = &stop;
	if (pthread_create(&th, NULL, busy_thread, &b) != 0)
		die("pthread_create");
	while (!b.started)
		usleep(1000);
	usleep(50000);
	secs = now();
	nb = busy_acts(&c, &m, &seed, tb, n, BUSY_SECS);
	secs = now() - secs;
	stop = 1;
	pthread_join(th, NULL);
	cli_close(&c);
	daemon_stop(&d);
	if (ni < 1 || nb < 1)
		die("busy: no act was timed");
	p50i = pct(ti, (size_t)ni, 0.5) * 1e6;
	p99i = pct(ti, (size_t)ni, 0.99) * 1e6;
	p50b = pct(tb, (size_t)nb, 0.5) * 1e6;
	p99b = pct(tb, (size_t)nb, 0.99) * 1e6;
	for (k = 0; k < ni; k++)
		meani += ti[k];
	for (k = 0; k < nb; k++)
		meanb += tb[k];
	meani = meani * 1e6 / (double)ni;
	meanb = meanb * 1e6 / (double)nb;
	/* The mean is the figure: the moves that slip in between two spins
	 * (while the spinning client creates its next match) are quick, so
	 * the median alone hides the waits. */
	printf("  idle         mean %10.1f us  p50 %10.1f us  p99 %10.1f us  "
	    "(%ld moves)\n", meani, p50i, p99i, ni);
	printf("  busy         mean %10.1f us  p50 %10.1f us  p99 %10.1f us  "
	    "(%ld moves in %.1f s; %llu spins, %llu timed out)\n", meanb, p50b,
	    p99b, nb, secs, (unsigned long long)b.spins,
	    (unsigned long long)b.timeouts);
	printf("  busy / idle  mean %9.1fx   p50 %9.1fx   p99 %9.1fx   "
	    "(target 2x)\n", meanb / meani, p50b / p50i, p99b / p99i);
	summary(meanb / meani <= 2, "no stall: a move while another "
	    "plugin spins %.1fx idle (mean; target 2x)", meanb / meani);
	json_object_set_new(obj, "ruleset", json_string(O.ruleset));
	json_object_set_new(obj, "plugin_timeout_ms",
	    json_integer(BUSY_TIMEOUT_MS));
	json_object_set_new(obj, "idle", json_pack("{s:f, s:f, s:f, s:I}",
	    "mean_us", meani, "p50_us", p50i, "p99_us", p99i, "moves",
	    (json_int_t)ni));
	json_object_set_new(obj, "busy", json_pack("{s:f, s:f, s:f, s:I, s:f, "
	    "s:I}", "mean_us", meanb, "p50_us", p50b, "p99_us", p99b, "moves",
	    (json_int_t)nb, "secs", secs, "spins", (json_int_t)b.spins));
	json_object_set_new(obj, "ratio_mean", json_real(meanb / meani));
	json_object_set_new(obj, "ratio_p50", json_real(p50b / p50i));
	json_object_set_new(obj, "ratio_p99", json_real(p99b / p99i));
	json_object_set_new(J, "no_stall", obj);
	free(ti);
	free(tb);
	record_section("busy");
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: refd-bench [--build DIR] [--work DIR] [--json FILE] "
	    "[--only rules,rt,tp,verify,mem,recover,busy]\n"
	    "    [--ruleset NAME] [--setup JSON] [--seed N] [--rt N] "
	    "[--tp-secs S] [--tp-clients A,B,C]\n"
	    "    [--games N] [--verify-records N] [--scale A,B,C] "
	    "[--recover-matches N] [--recover-cmds N]\n"
	    "    [--stall TYPE,...]\n"
	    "       refd-bench echo ENDPOINT\n");
}

int
main(int argc, char **argv)
{
	int i;
	char *end;
	double t0 = now();
	char tm[64];
	time_t tt = time(NULL);

	if (argc == 3 && strcmp(argv[1], "echo") == 0)
		return echo_main(argv[2]);
	Argc = argc;
	Argv = argv;
	O.build = "build";
	O.work = NULL;
	O.json = NULL;
	O.stall = "defend,pass,wait,hold,end_turn,end,decline,activate,move,"
	    "deploy,first,setup_first,submit";
	O.seed = 1;
	O.rt = 2000;
	O.tp_secs = 2;
	O.ntp = parse_list("1,8,64", O.tp_clients);
	O.games = 20;
	O.verify_records = 20000;
	O.nscale = parse_list("1,1000,10000", O.scale);
	O.rec_matches = 10000;
	O.rec_cmds = 200;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		}
		if (v == NULL) {
			usage(stderr);
			return 2;
		}
		i++;
		if (strcmp(a, "--build") == 0)
			O.build = v;
		else if (strcmp(a, "--work") == 0)
			O.work = v;
		else if (strcmp(a, "--json") == 0)
			O.json = v;
		else if (strcmp(a, "--only") == 0)
			O.only = v;
		else if (strcmp(a, "--ruleset") == 0)
			O.ruleset = v;
		else if (strcmp(a, "--setup") == 0)
			O.setup_json = v;
		else if (strcmp(a, "--stall") == 0)
			O.stall = v;
		else if (strcmp(a, "--seed") == 0)
			O.seed = strtoull(v, &end, 10);
		else if (strcmp(a, "--rt") == 0)
			O.rt = strtol(v, &end, 10);
		else if (strcmp(a, "--tp-secs") == 0)
			O.tp_secs = strtod(v, &end);
		else if (strcmp(a, "--tp-clients") == 0)
			O.ntp = parse_list(v, O.tp_clients);
		else if (strcmp(a, "--games") == 0)
			O.games = strtol(v, &end, 10);
		else if (strcmp(a, "--verify-records") == 0)
			O.verify_records = strtol(v, &end, 10);
		else if (strcmp(a, "--scale") == 0)
			O.nscale = parse_list(v, O.scale);
		else if (strcmp(a, "--recover-matches") == 0)
			O.rec_matches = strtol(v, &end, 10);
		else if (strcmp(a, "--recover-cmds") == 0)
			O.rec_cmds = strtol(v, &end, 10);
		else {
			fprintf(stderr, "refd-bench: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (O.rt < 1 || O.games < 1 || O.tp_secs <= 0 || O.ntp == 0 ||
	    O.nscale == 0 || O.rec_matches < 1 || O.rec_cmds < 1 ||
	    O.verify_records < 1) {
		usage(stderr);
		return 2;
	}
	{
		static char w[PATH_MAX], jf[PATH_MAX];

		if (O.work == NULL) {
			snprintf(w, sizeof(w), "%s/bench/work", O.build);
			O.work = w;
		}
		if (O.json == NULL) {
			snprintf(jf, sizeof(jf), "%s/bench/results.json",
			    O.build);
			O.json = jf;
		}
	}
	if (O.work[0] != '/' || O.build[0] != '/') {
		fprintf(stderr, "refd-bench: --build and --work must be "
		    "absolute paths\n");
		return 2;
	}
	if (sodium_init() < 0)
		die("libsodium failed to start");
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	mkdirs(O.work);
	J = json_object();
	Jcmds = json_array();
	strftime(tm, sizeof(tm), "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
	json_object_set_new(J, "date", json_string(tm));
	machine();
	pick_ruleset();
	printf("round-trip ruleset: %s%s\n", O.ruleset, strcmp(O.ruleset,
	    "duel") == 0 ? " (skirmish is not built: the example duel "
	    "stands in)" : "");
	{
		int k;
		char line[8192];
		size_t off = 0;

		for (k = 0; k < argc && off < sizeof(line) - 1; k++)
			off += (size_t)snprintf(line + off, sizeof(line) - off,
			    "%s%s", k ? " " : "", argv[k]);
		json_object_set_new(J, "command", json_string(line));
	}
	if (on("rules"))
		sec_rules();
	if (on("rt"))
		sec_rt();
	if (on("tp"))
		sec_tp();
	if (on("verify"))
		sec_verify();
	if (on("mem"))
		sec_mem();
	if (on("recover"))
		sec_recover();
	if (on("busy"))
		sec_busy();
	if (Nsummary > 0) {
		size_t i;

		printf("\n== targets (figures, not a pass or fail)\n");
		for (i = 0; i < Nsummary; i++)
			printf("%s\n", Summary[i]);
	}
	{
		size_t i;

		printf("\n== command lines used (also in the JSON file)\n");
		for (i = 0; i < json_array_size(Jcmds); i++) {
			json_t *c = json_array_get(Jcmds, i);

			printf("  %s: %s\n", json_string_value(json_object_get(c,
			    "what")), json_string_value(json_object_get(c,
			    "command")));
		}
	}
	json_object_set_new(J, "commands", Jcmds);
	json_object_set_new(J, "elapsed_s", json_real(now() - t0));
	if (json_dump_file(J, O.json, JSON_INDENT(2) | JSON_SORT_KEYS) != 0)
		die("cannot write '%s'", O.json);
	printf("\nresults in %s (%.0f s)\n", O.json, now() - t0);
	json_decref(J);
	free(Setup);
	return 0;
}
