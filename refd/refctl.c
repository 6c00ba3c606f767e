/*
 * refctl.c - the command-line client: dispatch, client ops over protocol
 * v1 (JSON in and out on the terminal), watch and play.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <nanomsg/nn.h>
#include <nanomsg/pubsub.h>
#include <nanomsg/reqrep.h>
#include <sodium.h>

#include "refd/errors.h"
#include "refd/mp.h"

#include "buf.h"
#include "config.h"
#include "jsonmp.h"
#include "refctl.h"

#define EXIT_REFUSED 1	/* the server answered with an error */
#define EXIT_USAGE 2
#define EXIT_TRANSPORT 3	/* no server, no reply */

static const char *endpoint;
static const char *events_ep;
static int timeout_ms = 10000;
static int compact;
static int sock = -1;
static int64_t next_id = 1;

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: refctl [-c] [-s ENDPOINT] [-e EVENTS] [-T MS] COMMAND [ARGS]\n"
	    "  hello | rulesets | stats | pubkey\n"
	    "  matches [--after MATCH] [--limit N]\n"
	    "  create RULESET [--scenario NAME | --setup JSON] [--seats N] [--dice JSON]\n"
	    "  join MATCH SEAT [--seed TEXT]\n"
	    "  act MATCH SEAT TOKEN CMD-JSON [--id CMD-ID] [--expect SEQ]\n"
	    "  legal MATCH SEAT TOKEN\n"
	    "  pending MATCH\n"
	    "  head MATCH                     (save it: refctl verify --head FILE)\n"
	    "  view MATCH [SEAT TOKEN]\n"
	    "  events MATCH [SEAT TOKEN] [--since SEQ] [--limit N]\n"
	    "  watch MATCH [SEAT TOKEN] [--since SEQ]\n"
	    "  export MATCH [-o FILE] [--admin-token TOKEN]\n"
	    "  resign MATCH SEAT TOKEN\n"
	    "  abort MATCH [SEAT TOKEN] [--reason TEXT] [--admin-token TOKEN]\n"
	    "  play RULESET|MATCH [--scenario NAME | --setup JSON] [--seed N]\n"
	    "       [--max-steps N] [--rate N] [--engage] [--story] [-v]\n"
	    "  play --all [--seed N] [--rate N] [--engage] [-v]\n"
	    "  raw REQUEST-JSON\n"
	    "  check-plugin FILE.so [--content DIR] [--setup FILE.json | --scenario NAME]\n"
	    "       [--seats N] [--games N] [--seed S] [--max-steps N] [--max-legal N] [-v]\n"
	    "  verify [--plugin FILE.so] [--content DIR] [--pubkey HEX | --pubkey-file FILE]\n"
	    "       [--require-plugin NAME=VERSION[:HASH]] [--allow-scripted] [--views FILE]\n"
	    "       [-q] LOG|DIR...\n"
	    "  log-info LOG...\n"
	    "  replay LOG [--json]\n"
	    "  web [--port N] [--root DIR] [--refd WS-URL] [--events WS-URL]\n"
	    "See refctl(1).\n");
}

/* Arguments: positionals and --name value options. */
struct args {
	char *pos[8];
	int npos;
	const char *opt_name[16];
	const char *opt_val[16];
	int nopt;
	int verbose, all, engage, story;
};

static int
parse_args(int argc, char **argv, struct args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-v") == 0) {
			a->verbose = 1;
		} else if (strcmp(argv[i], "--all") == 0) {
			a->all = 1;
		} else if (strcmp(argv[i], "--engage") == 0) {
			a->engage = 1;
		} else if (strcmp(argv[i], "--story") == 0) {
			a->story = 1;
		} else if ((strncmp(argv[i], "--", 2) == 0 && argv[i][2]) ||
		    strcmp(argv[i], "-o") == 0) {
			if (i + 1 == argc || a->nopt == 16) {
				fprintf(stderr, "refctl: option '%s': missing "
				    "value\n", argv[i]);
				return -1;
			}
			a->opt_name[a->nopt] = argv[i][1] == '-' ? argv[i] + 2 :
			    argv[i] + 1;
			a->opt_val[a->nopt++] = argv[++i];
		} else {
			if (a->npos == 8) {
				fprintf(stderr, "refctl: too many arguments\n");
				return -1;
			}
			a->pos[a->npos++] = argv[i];
		}
	}
	return 0;
}

static const char *
opt(const struct args *a, const char *name)
{
	int i;

	for (i = 0; i < a->nopt; i++)
		if (strcmp(a->opt_name[i], name) == 0)
			return a->opt_val[i];
	return NULL;
}

static int
parse_i64(const char *s, const char *what, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0') {
		fprintf(stderr, "refctl: %s '%s': expected an integer\n", what,
		    s);
		return -1;
	}
	*out = v;
	return 0;
}

static json_t *
parse_json(const char *text, const char *what)
{
	json_error_t je;
	json_t *j = json_loads(text, JSON_DECODE_ANY, &je);

	if (j == NULL)
		fprintf(stderr, "refctl: %s: invalid JSON at column %d: %s\n",
		    what, je.column, je.text);
	return j;
}

/* Transport. */

static int
connect_cmd(void)
{
	char def[PATH_MAX + 16];

	if (sock >= 0)
		return 0;
	if (endpoint == NULL)
		endpoint = getenv("REFD_SOCKET");
	if (endpoint == NULL) {
		config_default_listen(def, sizeof(def));
		endpoint = strdup(def);
	}
	sock = nn_socket(AF_SP, NN_REQ);
	if (sock < 0 || nn_connect(sock, endpoint) < 0) {
		fprintf(stderr, "refctl: endpoint '%s': %s\n", endpoint,
		    nn_strerror(nn_errno()));
		return -1;
	}
	nn_setsockopt(sock, NN_SOL_SOCKET, NN_RCVTIMEO, &timeout_ms,
	    sizeof(timeout_ms));
	nn_setsockopt(sock, NN_SOL_SOCKET, NN_SNDTIMEO, &timeout_ms,
	    sizeof(timeout_ms));
	return 0;
}

struct reply {
	refd_mpdoc *doc;
	refd_mpv result;
	int ok;
	int code;
	char name[32];
	char message[512];
	char rule[32];
};

static void
reply_free(struct reply *r)
{
	refd_mp_free(r->doc);
	memset(r, 0, sizeof(*r));
}

static int request_once(const char *op, json_t *args, struct reply *r);
static void pace(void);

/*
 * Send {v, id, op, ...args} (args: a JSON object, borrowed) and wait for
 * the reply.  Returns 0 with r filled (ok or not), or -1 on a transport
 * failure (already reported).  A request refused with ERATE (refd did not
 * run it) is sent again after a pause, for up to about ten seconds.
 */
static int
request(const char *op, json_t *args, struct reply *r)
{
	struct timespec ts;
	long ms = 20, waited = 0;
	int rc;

	pace();
	for (;;) {
		rc = request_once(op, args, r);
		if (rc != 0 || r->ok || r->code != REFD_ERATE || waited >= 10000)
			return rc;
		reply_free(r);
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (ms % 1000) * 1000000L;
		nanosleep(&ts, NULL);
		waited += ms;
		if (ms < 500)
			ms *= 2;
	}
}

/*
 * Pacing: at most one request per pace_ns nanoseconds (0: unpaced), so a
 * bot stays under the rate limit it is given rather than being refused.
 */
static int64_t pace_ns, pace_last;

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
pace(void)
{
	int64_t now, wait;
	struct timespec ts;

	if (pace_ns <= 0)
		return;
	now = mono_ns();
	wait = pace_last + pace_ns - now;
	if (wait > 0) {
		ts.tv_sec = (time_t)(wait / 1000000000);
		ts.tv_nsec = (long)(wait % 1000000000);
		nanosleep(&ts, NULL);
		now += wait;
	}
	pace_last = now;
}

static int
request_once(const char *op, json_t *args, struct reply *r)
{
	refd_mpw *w;
	const char *k;
	json_t *v;
	void *msg = NULL;
	int n;
	refd_mpv root, err;

	memset(r, 0, sizeof(*r));
	if (connect_cmd() != 0)
		return -1;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kint(w, "v", 1);
	refd_mpw_kint(w, "id", next_id++);
	refd_mpw_kstr(w, "op", op);
	if (args != NULL) {
		json_object_foreach(args, k, v) {
			refd_mpw_str(w, k);
			json_to_mp(v, w);
		}
	}
	refd_mpw_end(w);
	if (refd_mpw_error(w) || nn_send(sock, refd_mpw_data(w),
	    refd_mpw_len(w), 0) < 0) {
		fprintf(stderr, "refctl: endpoint '%s': cannot send: %s\n",
		    endpoint, nn_strerror(nn_errno()));
		refd_mpw_destroy(w);
		return -1;
	}
	refd_mpw_destroy(w);
	n = nn_recv(sock, &msg, NN_MSG, 0);
	if (n < 0) {
		fprintf(stderr, "refctl: endpoint '%s': no reply%s: %s\n",
		    endpoint, nn_errno() == ETIMEDOUT ? " in time; is refd "
		    "running" : "", nn_strerror(nn_errno()));
		return -1;
	}
	r->doc = refd_mp_parse(msg, (size_t)n);
	nn_freemsg(msg);
	root = refd_mp_root(r->doc);
	if (r->doc == NULL || refd_mpv_type(root) != REFD_MP_MAP) {
		fprintf(stderr, "refctl: endpoint '%s': malformed reply\n",
		    endpoint);
		reply_free(r);
		return -1;
	}
	r->ok = refd_mpv_get_bool(root, "ok", 0);
	r->result = refd_mpv_get(root, "result");
	if (!r->ok) {
		err = refd_mpv_get(root, "error");
		r->code = (int)refd_mpv_get_int(err, "code", REFD_EINTERNAL);
		snprintf(r->name, sizeof(r->name), "%s",
		    refd_mpv_get_str(err, "name", "E?"));
		snprintf(r->message, sizeof(r->message), "%s",
		    refd_mpv_get_str(err, "message", ""));
		snprintf(r->rule, sizeof(r->rule), "%s",
		    refd_mpv_get_str(refd_mpv_get(err, "detail"), "rule", ""));
	}
	return 0;
}

static void
print_error(const struct reply *r)
{
	fprintf(stderr, "refctl: %s (%d): %s%s%s\n", r->name, r->code,
	    r->message, r->rule[0] ? " [rule " : "", r->rule[0] ? r->rule : "");
	if (r->rule[0])
		fputs("]\n", stderr);
}

static void
print_value(refd_mpv v)
{
	json_t *j = mp_to_json(v);
	char *s;

	if (j == NULL)
		return;
	s = json_dumps(j, JSON_ENCODE_ANY | (compact ? JSON_COMPACT :
	    JSON_INDENT(2)));
	json_decref(j);
	if (s != NULL) {
		puts(s);
		free(s);
	}
}

/* Send, print the result (or the error), return the exit status.  Takes
 * the reference to args. */
static int
simple(const char *op, json_t *args)
{
	struct reply r;
	int rc;

	rc = request(op, args, &r);
	json_decref(args);
	if (rc != 0)
		return EXIT_TRANSPORT;
	if (!r.ok) {
		print_error(&r);
		reply_free(&r);
		return EXIT_REFUSED;
	}
	print_value(r.result);
	reply_free(&r);
	return 0;
}

static int
need(const struct args *a, int n, const char *what)
{
	if (a->npos < n) {
		fprintf(stderr, "refctl: missing %s\n", what);
		return -1;
	}
	return 0;
}

/* MATCH [SEAT TOKEN] from positionals at i. */
static int
add_seat(json_t *o, const struct args *a, int i)
{
	int64_t seat;

	if (a->npos <= i)
		return 0;
	if (parse_i64(a->pos[i], "seat", &seat) != 0)
		return -1;
	json_object_set_new(o, "seat", json_integer(seat));
	if (a->npos > i + 1)
		json_object_set_new(o, "token", json_string(a->pos[i + 1]));
	return 0;
}

static int
cmd_create(const struct args *a)
{
	json_t *o;
	const char *v;
	int64_t n;

	if (need(a, 1, "RULESET") != 0)
		return EXIT_USAGE;
	o = json_pack("{ss}", "ruleset", a->pos[0]);
	if ((v = opt(a, "scenario")) != NULL)
		json_object_set_new(o, "scenario", json_string(v));
	if ((v = opt(a, "setup")) != NULL) {
		json_t *j = parse_json(v, "--setup");

		if (j == NULL) {
			json_decref(o);
			return EXIT_USAGE;
		}
		json_object_set_new(o, "setup", j);
	}
	if ((v = opt(a, "dice")) != NULL) {
		json_t *j = parse_json(v, "--dice");

		if (j == NULL) {
			json_decref(o);
			return EXIT_USAGE;
		}
		json_object_set_new(o, "dice", j);
	}
	if ((v = opt(a, "seats")) != NULL) {
		if (parse_i64(v, "--seats", &n) != 0) {
			json_decref(o);
			return EXIT_USAGE;
		}
		json_object_set_new(o, "seats", json_integer(n));
	}
	return simple("create", o);
}

static int
cmd_join(const struct args *a)
{
	json_t *o;
	int64_t seat;
	const char *seed = opt(a, "seed");

	if (need(a, 2, "MATCH SEAT") != 0 ||
	    parse_i64(a->pos[1], "seat", &seat) != 0)
		return EXIT_USAGE;
	o = json_pack("{sssI}", "match", a->pos[0], "seat", (json_int_t)seat);
	if (seed != NULL)
		json_object_set_new(o, "seed", json_string(seed));
	return simple("join", o);
}

static void
random_id(char *out, size_t len)
{
	uint8_t b[8];

	randombytes_buf(b, sizeof(b));
	if (len >= 17)
		hex_encode(b, sizeof(b), out);
}

static int
cmd_act(const struct args *a)
{
	json_t *o, *cmd;
	const char *id = opt(a, "id"), *exp = opt(a, "expect");
	char rid[17];
	int64_t seat, e;

	if (need(a, 4, "MATCH SEAT TOKEN CMD-JSON") != 0 ||
	    parse_i64(a->pos[1], "seat", &seat) != 0)
		return EXIT_USAGE;
	if ((cmd = parse_json(a->pos[3], "CMD-JSON")) == NULL)
		return EXIT_USAGE;
	if (id == NULL) {
		random_id(rid, sizeof(rid));
		id = rid;
	}
	o = json_pack("{sssIsssssO}", "match", a->pos[0], "seat",
	    (json_int_t)seat, "token", a->pos[2], "cmd_id", id, "cmd", cmd);
	json_decref(cmd);
	if (exp != NULL) {
		if (parse_i64(exp, "--expect", &e) != 0) {
			json_decref(o);
			return EXIT_USAGE;
		}
		json_object_set_new(o, "expected_seq", json_integer(e));
	}
	return simple("act", o);
}

static int
cmd_match_op(const char *op, const struct args *a, int seat_at)
{
	json_t *o;
	const char *v;
	int64_t n;

	if (need(a, 1, "MATCH") != 0)
		return EXIT_USAGE;
	o = json_pack("{ss}", "match", a->pos[0]);
	if (seat_at > 0 && add_seat(o, a, seat_at) != 0) {
		json_decref(o);
		return EXIT_USAGE;
	}
	if ((v = opt(a, "since")) != NULL) {
		if (parse_i64(v, "--since", &n) != 0) {
			json_decref(o);
			return EXIT_USAGE;
		}
		json_object_set_new(o, "since", json_integer(n));
	}
	if ((v = opt(a, "limit")) != NULL) {
		if (parse_i64(v, "--limit", &n) != 0) {
			json_decref(o);
			return EXIT_USAGE;
		}
		json_object_set_new(o, "limit", json_integer(n));
	}
	if ((v = opt(a, "reason")) != NULL)
		json_object_set_new(o, "reason", json_string(v));
	if ((v = opt(a, "admin-token")) != NULL)
		json_object_set_new(o, "admin_token", json_string(v));
	return simple(op, o);
}

static int
cmd_matches(const struct args *a)
{
	json_t *o = json_object();
	const char *v;
	int64_t n;

	if ((v = opt(a, "after")) != NULL)
		json_object_set_new(o, "after", json_string(v));
	if ((v = opt(a, "limit")) != NULL) {
		if (parse_i64(v, "--limit", &n) != 0) {
			json_decref(o);
			return EXIT_USAGE;
		}
		json_object_set_new(o, "limit", json_integer(n));
	}
	return simple("matches", o);
}

static int
cmd_pubkey(void)
{
	struct reply r;

	if (request("pubkey", NULL, &r) != 0)
		return EXIT_TRANSPORT;
	if (!r.ok) {
		print_error(&r);
		reply_free(&r);
		return EXIT_REFUSED;
	}
	printf("%s\n", refd_mpv_get_str(r.result, "pubkey", ""));
	reply_free(&r);
	return 0;
}

static int
cmd_export(const struct args *a)
{
	struct reply r;
	json_t *o;
	const uint8_t *b;
	size_t n;
	const char *out = opt(a, "o"), *adm = opt(a, "admin-token");
	FILE *f;
	int rc;

	if (need(a, 1, "MATCH") != 0)
		return EXIT_USAGE;
	if (out == NULL && isatty(1)) {
		fprintf(stderr, "refctl: export: the log is binary; give -o "
		    "FILE or redirect standard output\n");
		return EXIT_USAGE;
	}
	o = json_pack("{ss}", "match", a->pos[0]);
	if (adm != NULL)
		json_object_set_new(o, "admin_token", json_string(adm));
	rc = request("export", o, &r);
	json_decref(o);
	if (rc != 0)
		return EXIT_TRANSPORT;
	if (!r.ok) {
		print_error(&r);
		reply_free(&r);
		return EXIT_REFUSED;
	}
	if (refd_mpv_bin(refd_mpv_get(r.result, "log"), &b, &n) != 0) {
		fprintf(stderr, "refctl: export: reply has no log\n");
		reply_free(&r);
		return EXIT_TRANSPORT;
	}
	f = out != NULL ? fopen(out, "wb") : stdout;
	if (f == NULL || fwrite(b, 1, n, f) != n ||
	    (f != stdout ? fclose(f) : fflush(f)) != 0) {
		fprintf(stderr, "refctl: export: cannot write '%s': %s\n",
		    out ? out : "(stdout)", strerror(errno));
		reply_free(&r);
		return EXIT_REFUSED;
	}
	if (out != NULL)
		fprintf(stderr, "refctl: wrote %zu bytes to '%s'\n", n, out);
	reply_free(&r);
	return 0;
}

static int
cmd_raw(const struct args *a)
{
	json_t *j, *op;
	char *s;
	struct reply r;
	int rc;

	if (need(a, 1, "REQUEST-JSON") != 0)
		return EXIT_USAGE;
	if ((j = parse_json(a->pos[0], "REQUEST-JSON")) == NULL)
		return EXIT_USAGE;
	op = json_object_get(j, "op");
	if (!json_is_string(op)) {
		fprintf(stderr, "refctl: raw: the request needs an \"op\"\n");
		json_decref(j);
		return EXIT_USAGE;
	}
	s = strdup(json_string_value(op));
	json_object_del(j, "op");
	json_object_del(j, "v");
	json_object_del(j, "id");
	rc = request(s, j, &r);
	free(s);
	json_decref(j);
	if (rc != 0)
		return EXIT_TRANSPORT;
	/* Print the whole reply so scripts see the error map too. */
	print_value(refd_mp_root(r.doc));
	rc = r.ok ? 0 : EXIT_REFUSED;
	reply_free(&r);
	return rc;
}

/* watch: the PUB stream tells us when; events-since fills in (and gives a
 * seat its private events). */
static int
events_endpoint(char *out, size_t len)
{
	struct reply r;
	refd_mpv pubs;
	size_t i;
	const char *want;

	if (events_ep == NULL)
		events_ep = getenv("REFD_EVENTS");
	if (events_ep != NULL) {
		snprintf(out, len, "%s", events_ep);
		return 0;
	}
	if (request("hello", NULL, &r) != 0)
		return -1;
	pubs = refd_mpv_get(r.result, "publish");
	want = strncmp(endpoint, "tcp://", 6) == 0 ? "tcp://" : "ipc://";
	out[0] = '\0';
	for (i = 0; i < refd_mpv_len(pubs); i++) {
		const char *p = refd_mpv_cstr(refd_mpv_at(pubs, i), "");

		if (strncmp(p, want, 6) == 0 || (out[0] == '\0' && *p)) {
			snprintf(out, len, "%s", p);
			if (strncmp(p, want, 6) == 0)
				break;
		}
	}
	reply_free(&r);
	if (out[0] == '\0') {
		fprintf(stderr, "refctl: the server publishes no events\n");
		return -1;
	}
	return 0;
}

/* Print events after *last, page after page; update *last and
 * *finished. */
static int
catch_up(json_t *base, int64_t *last, int *finished)
{
	struct reply r;
	refd_mpv evs;
	size_t i;
	int more;

again:
	json_object_set_new(base, "since", json_integer(*last));
	if (request("events", base, &r) != 0)
		return EXIT_TRANSPORT;
	if (!r.ok) {
		print_error(&r);
		reply_free(&r);
		return EXIT_REFUSED;
	}
	evs = refd_mpv_get(r.result, "events");
	for (i = 0; i < refd_mpv_len(evs); i++) {
		json_t *j = mp_to_json(refd_mpv_at(evs, i));
		char *s = json_dumps(j, JSON_COMPACT);
		int64_t seq = refd_mpv_get_int(refd_mpv_at(evs, i), "seq", 0);

		if (s != NULL)
			puts(s);
		free(s);
		json_decref(j);
		if (seq > *last)
			*last = seq;
	}
	fflush(stdout);
	/* Complete through "until" (through "seq" for an older server). */
	if (refd_mpv_get_int(r.result, "until", refd_mpv_get_int(r.result,
	    "seq", *last)) > *last)
		*last = refd_mpv_get_int(r.result, "until",
		    refd_mpv_get_int(r.result, "seq", *last));
	more = refd_mpv_get_bool(r.result, "more", 0);
	*finished = refd_mpv_get_bool(r.result, "finished", 0);
	reply_free(&r);
	if (more)
		goto again;
	return 0;
}

static int
cmd_watch(const struct args *a)
{
	char ep[PATH_MAX + 16];
	json_t *base;
	int64_t last = 0;
	int finished = 0, sub, rc = 0, t = 1000;
	const char *v = opt(a, "since");

	if (need(a, 1, "MATCH") != 0)
		return EXIT_USAGE;
	if (strlen(a->pos[0]) != 16) {
		fprintf(stderr, "refctl: match '%s': expected 16 hex "
		    "characters\n", a->pos[0]);
		return EXIT_USAGE;
	}
	if (v != NULL && parse_i64(v, "--since", &last) != 0)
		return EXIT_USAGE;
	if (connect_cmd() != 0 || events_endpoint(ep, sizeof(ep)) != 0)
		return EXIT_TRANSPORT;
	sub = nn_socket(AF_SP, NN_SUB);
	if (sub < 0 || nn_setsockopt(sub, NN_SUB, NN_SUB_SUBSCRIBE, a->pos[0],
	    16) < 0 || nn_connect(sub, ep) < 0) {
		fprintf(stderr, "refctl: events '%s': %s\n", ep,
		    nn_strerror(nn_errno()));
		return EXIT_TRANSPORT;
	}
	nn_setsockopt(sub, NN_SOL_SOCKET, NN_RCVTIMEO, &t, sizeof(t));
	base = json_pack("{ss}", "match", a->pos[0]);
	if (add_seat(base, a, 1) != 0) {
		json_decref(base);
		nn_close(sub);
		return EXIT_USAGE;
	}
	rc = catch_up(base, &last, &finished);
	while (rc == 0 && !finished) {
		void *msg = NULL;
		int n = nn_recv(sub, &msg, NN_MSG, 0);
		int64_t seq = -1;

		if (n > 16) {
			refd_mpdoc *d = refd_mp_parse((uint8_t *)msg + 16,
			    (size_t)n - 16);

			seq = refd_mpv_get_int(refd_mp_root(d), "seq", -1);
			refd_mp_free(d);
		}
		if (msg != NULL)
			nn_freemsg(msg);
		/* A new seq (or a quiet second): fill in from the log. */
		if (n < 0 || seq > last)
			rc = catch_up(base, &last, &finished);
	}
	json_decref(base);
	nn_close(sub);
	return rc;
}

/* play: seeded random legal commands for every seat until the end. */
static uint64_t rng_state;

static uint64_t
rnd(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

struct seatinfo {
	char token[64];
};

/* One JSON line {match, commands, seq, info}; with summary, also a line
 * for people. */
/*
 * The page of the matches op that lists match `mid` (or the last page)
 * into r (the caller frees it).  0, or -1 when refd cannot be reached.
 */
static int
find_match_info(const char *mid, struct reply *r)
{
	char after[64] = "";
	json_t *o;
	size_t k, n;
	int rc, found;

	for (;;) {
		o = after[0] ? json_pack("{ss}", "after", after) : NULL;
		rc = request("matches", o, r);
		json_decref(o);
		if (rc != 0)
			return -1;
		if (!r->ok)
			return 0;
		n = refd_mpv_len(r->result);
		found = 0;
		for (k = 0; k < n && !found; k++)
			found = refd_mpv_streq(refd_mpv_get(refd_mpv_at(
			    r->result, k), "id"), mid);
		if (found || n < 1000 || n == 0)
			return 0;
		snprintf(after, sizeof(after), "%s", refd_mpv_get_str(
		    refd_mpv_at(r->result, n - 1), "id", ""));
		reply_free(r);
		if (after[0] == '\0')
			return 0;
	}
}

static void
print_play_result(refd_mpv matches, const char *mid, int64_t steps,
    int64_t seq, int summary)
{
	size_t k;
	json_t *out, *res;
	char *s, *t;

	for (k = 0; k < refd_mpv_len(matches); k++) {
		refd_mpv m = refd_mpv_at(matches, k);

		if (!refd_mpv_streq(refd_mpv_get(m, "id"), mid))
			continue;
		out = json_object();
		json_object_set_new(out, "match", json_string(mid));
		json_object_set_new(out, "commands", json_integer(steps));
		json_object_set_new(out, "seq", json_integer(seq));
		json_object_set_new(out, "info", mp_to_json(m));
		s = json_dumps(out, JSON_COMPACT | JSON_ENCODE_ANY);
		if (s != NULL)
			puts(s);
		free(s);
		json_decref(out);
		if (!summary)
			continue;
		res = mp_to_json(refd_mpv_get(m, "result"));
		t = res != NULL ? json_dumps(res, JSON_COMPACT |
		    JSON_ENCODE_ANY) : NULL;
		printf("   %s: match %s over after %" PRId64 " commands: %s\n",
		    refd_mpv_get_str(m, "ruleset", "?"), mid, steps,
		    t != NULL ? t : "(no result)");
		free(t);
		json_decref(res);
	}
}

/* Where a command moves to, from its "to" [x, y], its "x" and "y", or the
 * last point of its "path"; 0 when it names no place. */
static int
cmd_place(refd_mpv c, double *x, double *y)
{
	refd_mpv t = refd_mpv_get(c, "to"), p = refd_mpv_get(c, "path");
	int64_t a, b;

	if (refd_mpv_len(p) > 0 && refd_mpv_type(p) == REFD_MP_ARRAY)
		t = refd_mpv_at(p, refd_mpv_len(p) - 1);
	if (refd_mpv_type(t) == REFD_MP_ARRAY && refd_mpv_len(t) == 2 &&
	    refd_mpv_int(refd_mpv_at(t, 0), &a) == 0 &&
	    refd_mpv_int(refd_mpv_at(t, 1), &b) == 0) {
		*x = (double)a;
		*y = (double)b;
		return 1;
	}
	if (refd_mpv_int(refd_mpv_get(c, "x"), &a) == 0 &&
	    refd_mpv_int(refd_mpv_get(c, "y"), &b) == 0) {
		*x = (double)a;
		*y = (double)b;
		return 1;
	}
	return 0;
}

/*
 * --engage with nothing to fight: the move that ends nearest a piece of
 * another side, on the board of the seat's own view (refd-plugin(3)); so
 * the bots come to blows.  0 and *pick set, or -1.
 */
static int
approach_cmd(refd_mpv lg, refd_mpv view, int seat, refd_mpv *pick)
{
	refd_mpv pcs = refd_mpv_get(refd_mpv_get(view, "board"), "pieces");
	size_t i, j, n = refd_mpv_len(lg), best = (size_t)-1;
	double bd = 0;

	for (i = 0; i < n; i++) {
		refd_mpv c = refd_mpv_get(refd_mpv_at(lg, i), "cmd");
		double x, y, d = -1;

		if (refd_mpv_type(c) != REFD_MP_MAP || !cmd_place(c, &x, &y))
			continue;
		for (j = 0; j < refd_mpv_len(pcs); j++) {
			refd_mpv q = refd_mpv_at(pcs, j);
			double dx, dy;

			if (refd_mpv_get_int(q, "side", seat) == seat ||
			    refd_mpv_get_bool(q, "gone", 0))
				continue;
			dx = (double)refd_mpv_get_int(q, "x", 0) - x;
			dy = (double)refd_mpv_get_int(q, "y", 0) - y;
			if (d < 0 || dx * dx + dy * dy < d)
				d = dx * dx + dy * dy;
		}
		if (d >= 0 && (best == (size_t)-1 || d < bd)) {
			best = i;
			bd = d;
		}
	}
	if (best == (size_t)-1)
		return -1;
	*pick = refd_mpv_at(lg, best);
	return 0;
}

/* A command type that fights: what --engage prefers. */
static int
engaging(const char *type)
{
	static const char *const w[] = { "attack", "melee", "shoot", "charge",
		"cast", "strike", "smite", "full", "slam", "headbutt", "trample",
		"throw", "assault", "fire", NULL };
	int i;

	for (i = 0; type != NULL && w[i] != NULL; i++)
		if (strstr(type, w[i]) != NULL)
			return 1;
	return 0;
}

/*
 * A random item of the legal list lg that is a command (templates, which
 * the client must fill in, are left out); with engage, one that fights
 * whenever there is one.  0, or -1 when the list holds no command.
 */
static int
pick_cmd(refd_mpv lg, int engage, refd_mpv *pick)
{
	size_t n = refd_mpv_len(lg), i, ncmd = 0, nfight = 0, k;

	for (i = 0; i < n; i++) {
		refd_mpv c = refd_mpv_get(refd_mpv_at(lg, i), "cmd");

		if (refd_mpv_type(c) != REFD_MP_MAP)
			continue;
		ncmd++;
		nfight += engaging(refd_mpv_get_str(c, "type", NULL));
	}
	if (ncmd == 0)
		return -1;
	if (engage && nfight > 0) {
		k = (size_t)(rnd() % nfight);
		for (i = 0; i < n; i++) {
			refd_mpv c = refd_mpv_get(refd_mpv_at(lg, i), "cmd");

			if (refd_mpv_type(c) == REFD_MP_MAP &&
			    engaging(refd_mpv_get_str(c, "type", NULL)) &&
			    k-- == 0)
				break;
		}
	} else {
		k = (size_t)(rnd() % ncmd);
		for (i = 0; i < n; i++)
			if (refd_mpv_type(refd_mpv_get(refd_mpv_at(lg, i),
			    "cmd")) == REFD_MP_MAP && k-- == 0)
				break;
	}
	*pick = refd_mpv_at(lg, i);
	return 0;
}

/* Pace requests to 90% of the server's rate limit (hello's limits), or
 * to --rate N per second when given (0: unpaced). */
static int
set_pace(const struct args *a)
{
	const char *v = opt(a, "rate");
	int64_t rate = -1;
	struct reply r;

	if (v != NULL && parse_i64(v, "--rate", &rate) != 0)
		return EXIT_USAGE;
	if (rate < 0) {
		if (request("hello", NULL, &r) != 0)
			return EXIT_TRANSPORT;
		if (r.ok)
			rate = refd_mpv_get_int(refd_mpv_get(r.result,
			    "limits"), "rate_limit", 0) * 9 / 10;
		reply_free(&r);
	}
	pace_ns = rate > 0 ? 1000000000 / rate : 0;
	return 0;
}

/*
 * What happened in match mid, for people: its public events counted by
 * type, the most frequent first ("attack x 23, damage x 12, ...").
 */
static void
print_play_story(const char *mid)
{
	struct { char type[40]; int n; } t[64];
	int nt = 0, i, j, more = 1;
	int64_t since = 0;
	struct reply r;
	json_t *o;

	while (more) {
		refd_mpv ev;
		size_t k;

		o = json_pack("{sssI}", "match", mid, "since",
		    (json_int_t)since);
		if (request("events", o, &r) != 0) {
			json_decref(o);
			return;
		}
		json_decref(o);
		if (!r.ok) {
			reply_free(&r);
			return;
		}
		ev = refd_mpv_get(r.result, "events");
		for (k = 0; k < refd_mpv_len(ev); k++) {
			const char *ty = refd_mpv_get_str(refd_mpv_at(ev, k),
			    "type", "?");

			for (i = 0; i < nt && strcmp(t[i].type, ty) != 0; i++)
				;
			if (i == nt && nt < 64) {
				snprintf(t[nt].type, sizeof(t[nt].type), "%s",
				    ty);
				t[nt++].n = 0;
			}
			if (i < nt)
				t[i].n++;
		}
		more = refd_mpv_get_bool(r.result, "more", 0);
		since = refd_mpv_get_int(r.result, "until", since);
		reply_free(&r);
	}
	for (i = 1; i < nt; i++)	/* most frequent first, stable */
		for (j = i; j > 0 && t[j].n > t[j - 1].n; j--) {
			char ty[40];
			int n = t[j].n;

			memcpy(ty, t[j].type, sizeof(ty));
			t[j] = t[j - 1];
			memcpy(t[j - 1].type, ty, sizeof(ty));
			t[j - 1].n = n;
		}
	printf("   what happened:");
	for (i = 0; i < nt && i < 8; i++)
		printf("%s %s x %d", i ? "," : "", t[i].type, t[i].n);
	printf("%s\n", nt > 8 ? ", ..." : "");
}

static int
play_one(const char *what, const struct args *a, int64_t seed,
    const char *scenario)
{
	struct reply r;
	struct seatinfo seats[32];
	char mid[32];
	int nseats = 0, finished = 0, i, rc = 0;
	int64_t steps = 0, max_steps = 100000, seq = 0;
	const char *v;
	json_t *o;
	int engage = a->engage;

	memset(seats, 0, sizeof(seats));
	if ((v = opt(a, "max-steps")) != NULL &&
	    parse_i64(v, "--max-steps", &max_steps) != 0)
		return EXIT_USAGE;
	rng_state = (uint64_t)seed * 0x9E3779B97F4A7C15ULL + 1;
	if (strlen(what) == 16 && strspn(what, "0123456789abcdef") == 16) {
		snprintf(mid, sizeof(mid), "%s", what);
	} else {
		o = json_pack("{ss}", "ruleset", what);
		if (scenario != NULL)
			json_object_set_new(o, "scenario", json_string(scenario));
		if ((v = opt(a, "setup")) != NULL) {
			json_t *j = parse_json(v, "--setup");

			if (j == NULL) {
				json_decref(o);
				return EXIT_USAGE;
			}
			json_object_set_new(o, "setup", j);
		}
		rc = request("create", o, &r);
		json_decref(o);
		if (rc != 0)
			return EXIT_TRANSPORT;
		if (!r.ok) {
			print_error(&r);
			reply_free(&r);
			return EXIT_REFUSED;
		}
		snprintf(mid, sizeof(mid), "%s",
		    refd_mpv_get_str(r.result, "match", ""));
		reply_free(&r);
	}
	/* Join every seat until the server says there is no such seat. */
	for (i = 0; i < 32; i++) {
		char sd[64];

		snprintf(sd, sizeof(sd), "refctl-play-%" PRId64 "-%d", seed, i);
		o = json_pack("{sssiss}", "match", mid, "seat", i, "seed", sd);
		rc = request("join", o, &r);
		json_decref(o);
		if (rc != 0)
			return EXIT_TRANSPORT;
		if (!r.ok) {
			int code = r.code;

			if (code == REFD_ESEAT && i > 0) {
				reply_free(&r);
				break;
			}
			print_error(&r);
			reply_free(&r);
			return EXIT_REFUSED;
		}
		snprintf(seats[i].token, sizeof(seats[i].token), "%s",
		    refd_mpv_get_str(r.result, "token", ""));
		seq = refd_mpv_get_int(r.result, "seq", seq);
		reply_free(&r);
		nseats++;
	}
	if (a->verbose)
		fprintf(stderr, "refctl: play: match %s, %d seats\n", mid,
		    nseats);
	while (!finished && steps < max_steps) {
		refd_mpv ps;
		int owe[32], nowe = 0, k, acted, stale = 0;

		o = json_pack("{ss}", "match", mid);
		rc = request("pending", o, &r);
		json_decref(o);
		if (rc != 0)
			return EXIT_TRANSPORT;
		if (!r.ok) {
			print_error(&r);
			reply_free(&r);
			return EXIT_REFUSED;
		}
		finished = refd_mpv_get_bool(r.result, "finished", 0);
		seq = refd_mpv_get_int(r.result, "seq", seq);
		ps = refd_mpv_get(r.result, "seats");
		for (i = 0; i < (int)refd_mpv_len(ps) && nowe < 32; i++) {
			int64_t s = -1;

			refd_mpv_int(refd_mpv_at(ps, (size_t)i), &s);
			if (s >= 0 && s < nseats)
				owe[nowe++] = (int)s;
		}
		reply_free(&r);
		if (finished)
			break;
		if (nowe == 0) {
			fprintf(stderr, "refctl: play: match %s: nobody owes a "
			    "decision but the match is not over\n", mid);
			return EXIT_REFUSED;
		}
		acted = 0;
		for (k = 0; k < nowe && !finished; k++) {
			int s = owe[k];
			refd_mpv lg, pick;
			size_t n;
			char cid[64];
			json_t *cmd;

			o = json_pack("{sssiss}", "match", mid, "seat", s,
			    "token", seats[s].token);
			rc = request("legal", o, &r);
			json_decref(o);
			if (rc != 0)
				return EXIT_TRANSPORT;
			if (!r.ok) {
				print_error(&r);
				reply_free(&r);
				return EXIT_REFUSED;
			}
			lg = refd_mpv_get(r.result, "legal");
			n = refd_mpv_len(lg);
			if (pick_cmd(lg, engage, &pick) != 0) {
				reply_free(&r);
				continue;
			}
			(void)n;
			cmd = mp_to_json(refd_mpv_get(pick, "cmd"));
			if (engage && !engaging(json_string_value(json_object_get(
			    cmd, "type"))) && rnd() % 4 != 0) {
				struct reply rv;
				refd_mpv ap;

				/* Nothing to fight: close in, mostly. */
				o = json_pack("{sssiss}", "match", mid, "seat", s,
				    "token", seats[s].token);
				memset(&rv, 0, sizeof(rv));
				if (request("view", o, &rv) == 0 && rv.ok &&
				    approach_cmd(lg, refd_mpv_get(rv.result,
				    "view"), s, &ap) == 0) {
					json_decref(cmd);
					cmd = mp_to_json(refd_mpv_get(ap, "cmd"));
					pick = ap;
				}
				json_decref(o);
				reply_free(&rv);
			}
			if (a->verbose) {
				char *t = json_dumps(cmd, JSON_COMPACT);

				fprintf(stderr, "refctl: play: seat %d: %s (%s)\n",
				    s, t ? t : "?", refd_mpv_get_str(pick,
				    "label", ""));
				free(t);
			}
			reply_free(&r);
			snprintf(cid, sizeof(cid), "play-%" PRId64 "-%" PRId64,
			    seed, steps);
			o = json_pack("{sssisssssIso}", "match", mid, "seat", s,
			    "token", seats[s].token, "cmd_id", cid,
			    "expected_seq", (json_int_t)seq, "cmd", cmd);
			rc = request("act", o, &r);
			json_decref(o);
			if (rc != 0)
				return EXIT_TRANSPORT;
			steps++;
			if (!r.ok) {
				if (r.code == REFD_ESTALE) {
					reply_free(&r);
					stale = 1;
					break;
				}
				print_error(&r);
				reply_free(&r);
				return EXIT_REFUSED;
			}
			seq = refd_mpv_get_int(r.result, "seq", seq);
			finished = refd_mpv_get_bool(r.result, "finished", 0);
			reply_free(&r);
			acted = 1;
		}
		if (!acted && !stale) {
			fprintf(stderr, "refctl: play: match %s: seat %d owes a "
			    "decision but has no legal command\n", mid, owe[0]);
			return EXIT_REFUSED;
		}
	}
	if (!finished) {
		fprintf(stderr, "refctl: play: match %s: not over after %" PRId64
		    " commands (--max-steps)\n", mid, steps);
		return EXIT_REFUSED;
	}
	/* The result, from the match list (page by page). */
	if (find_match_info(mid, &r) != 0)
		return EXIT_TRANSPORT;
	if (r.ok)
		print_play_result(r.result, mid, steps, seq,
		    a->all || a->story);
	reply_free(&r);
	if (a->all || a->story)
		print_play_story(mid);
	fflush(stdout);
	return 0;
}

/* A ruleset's first ready-made scenario (an item of the rulesets op),
 * or NULL. */
static const char *
first_scenario(refd_mpv one)
{
	refd_mpv sc = refd_mpv_get(one, "scenarios");

	return refd_mpv_len(sc) > 0 ? refd_mpv_cstr(refd_mpv_at(sc, 0), NULL) :
	    NULL;
}

static int
cmd_play(const struct args *a)
{
	int64_t seed = 1;
	const char *v = opt(a, "seed");
	struct reply r;
	refd_mpv rs;
	size_t i;
	int rc = 0;

	if (v != NULL && parse_i64(v, "--seed", &seed) != 0)
		return EXIT_USAGE;
	if ((rc = set_pace(a)) != 0)
		return rc;
	if (!a->all) {
		const char *what, *scen = opt(a, "scenario");
		char first[128] = "";

		if (need(a, 1, "RULESET or MATCH (or --all)") != 0)
			return EXIT_USAGE;
		what = a->pos[0];
		/* A ruleset with neither a scenario nor a setup: its first
		 * ready-made scenario, as play --all does. */
		if (scen == NULL && opt(a, "setup") == NULL &&
		    !(strlen(what) == 16 &&
		    strspn(what, "0123456789abcdef") == 16)) {
			if (request("rulesets", NULL, &r) != 0)
				return EXIT_TRANSPORT;
			for (i = 0; r.ok && i < refd_mpv_len(r.result); i++) {
				refd_mpv one = refd_mpv_at(r.result, i);

				if (strcmp(refd_mpv_get_str(one, "name", ""),
				    what) == 0 && first_scenario(one) != NULL)
					snprintf(first, sizeof(first), "%s",
					    first_scenario(one));
			}
			reply_free(&r);
			if (first[0] != '\0') {
				if (a->verbose)
					fprintf(stderr, "refctl: play: %s, "
					    "scenario %s\n", what, first);
				scen = first;
			}
		}
		return play_one(what, a, seed, scen);
	}
	if (request("rulesets", NULL, &r) != 0)
		return EXIT_TRANSPORT;
	if (!r.ok) {
		print_error(&r);
		reply_free(&r);
		return EXIT_REFUSED;
	}
	rs = r.result;
	if (refd_mpv_len(rs) == 0)
		fprintf(stderr, "refctl: play: the server has no rulesets\n");
	for (i = 0; i < refd_mpv_len(rs); i++) {
		refd_mpv one = refd_mpv_at(rs, i);
		const char *name = refd_mpv_get_str(one, "name", "?");
		const char *scen = first_scenario(one);
		int one_rc;

		printf("== %s%s%s\n", name, scen ? ", scenario " : "",
		    scen ? scen : "");
		fflush(stdout);
		one_rc = play_one(name, a, seed, scen);
		if (one_rc != 0)
			rc = one_rc;
	}
	reply_free(&r);
	return rc;
}

int
main(int argc, char **argv)
{
	struct args a;
	const char *cmd;
	int i = 1, rc;

	while (i < argc && argv[i][0] == '-' && argv[i][1] != '-') {
		if (strcmp(argv[i], "-c") == 0) {
			compact = 1;
			i++;
		} else if ((strcmp(argv[i], "-s") == 0 ||
		    strcmp(argv[i], "-e") == 0 || strcmp(argv[i], "-T") == 0) &&
		    i + 1 < argc) {
			if (argv[i][1] == 's')
				endpoint = argv[i + 1];
			else if (argv[i][1] == 'e')
				events_ep = argv[i + 1];
			else
				timeout_ms = atoi(argv[i + 1]);
			i += 2;
		} else if (strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "refctl: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[i];
	argc -= i;
	argv += i;
	if (strcmp(cmd, "check-plugin") == 0)
		return cmd_check_plugin(argc, argv);
	if (strcmp(cmd, "verify") == 0)
		return cmd_verify(argc, argv);
	if (strcmp(cmd, "replay") == 0)
		return cmd_replay(argc, argv);
	if (strcmp(cmd, "log-info") == 0)
		return cmd_log_info(argc, argv);
	if (strcmp(cmd, "web") == 0)
		return cmd_web(argc, argv, endpoint, events_ep);
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (sodium_init() < 0)
		return EXIT_TRANSPORT;
	if (parse_args(argc, argv, &a) != 0)
		return EXIT_USAGE;
	if (strcmp(cmd, "hello") == 0 || strcmp(cmd, "rulesets") == 0 ||
	    strcmp(cmd, "stats") == 0)
		rc = simple(cmd, NULL);
	else if (strcmp(cmd, "matches") == 0)
		rc = cmd_matches(&a);
	else if (strcmp(cmd, "pubkey") == 0)
		rc = cmd_pubkey();
	else if (strcmp(cmd, "create") == 0)
		rc = cmd_create(&a);
	else if (strcmp(cmd, "join") == 0)
		rc = cmd_join(&a);
	else if (strcmp(cmd, "act") == 0)
		rc = cmd_act(&a);
	else if (strcmp(cmd, "legal") == 0 || strcmp(cmd, "resign") == 0) {
		if (need(&a, 3, "MATCH SEAT TOKEN") != 0)
			return EXIT_USAGE;
		rc = cmd_match_op(cmd, &a, 1);
	} else if (strcmp(cmd, "view") == 0 || strcmp(cmd, "events") == 0 ||
	    strcmp(cmd, "abort") == 0)
		rc = cmd_match_op(cmd, &a, 1);
	else if (strcmp(cmd, "pending") == 0 || strcmp(cmd, "head") == 0)
		rc = cmd_match_op(cmd, &a, 0);
	else if (strcmp(cmd, "watch") == 0)
		rc = cmd_watch(&a);
	else if (strcmp(cmd, "export") == 0)
		rc = cmd_export(&a);
	else if (strcmp(cmd, "play") == 0)
		rc = cmd_play(&a);
	else if (strcmp(cmd, "raw") == 0)
		rc = cmd_raw(&a);
	else {
		fprintf(stderr, "refctl: unknown command '%s'\n", cmd);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (sock >= 0)
		nn_close(sock);
	return rc;
}
