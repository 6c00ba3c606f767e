/*
 * daemon.h - the protocol layer of refd without sockets, for the envelope
 * and op fuzz targets: a matchset in a private directory, the plugin under
 * test (fuzz.h) as the only ruleset, and one started match with both seats'
 * tokens known, so that fuzzed requests can reach a live game.
 */
#ifndef REFD_FUZZ_DAEMON_H
#define REFD_FUZZ_DAEMON_H

#include "fuzz.h"

#include "config.h"
#include "match.h"
#include "proto.h"

#define FD_SEATS 8

struct fd {
	struct config cfg;
	struct registry reg;
	struct plugin *pl;
	struct matchset *ms;
	struct proto proto;
	struct match *live;
	uint32_t nseats;
	char token[FD_SEATS][MATCH_TOKEN_LEN + 1];
	unsigned long inputs;
};

static struct fd fd;

FUZZ_UNUSED static void
fd_abort_one(struct match *m, void *arg)
{
	struct match_err e;

	(void)arg;
	if (!match_finished(m))
		(void)match_abort(m, "fuzz: make room", &e);
}

/* A started match with known tokens (a new one when the last finished). */
FUZZ_UNUSED static void
fd_live(void)
{
	struct match_create_args a;
	struct match_err e;
	uint32_t s;
	int tries;

	if (fd.live != NULL && !match_finished(fd.live))
		return;
	fd.live = NULL;
	memset(&a, 0, sizeof(a));
	a.ruleset = fd.pl->name;
	if (fd.pl->nscenarios > 0)
		a.scenario = fd.pl->scenarios[0].name;
	for (tries = 0; tries < 2; tries++) {
		if (match_create(fd.ms, &a, &fd.live, &e) == 0)
			break;
		if (e.code != REFD_ETOOMANY)
			fuzz_die("cannot create a match: %s", e.message);
		matchset_foreach(fd.ms, fd_abort_one, NULL);
	}
	if (fd.live == NULL)
		fuzz_die("%s", "cannot create a match");
	fd.nseats = fd.pl->desc->min_seats;
	for (s = 0; s < fd.nseats && s < FD_SEATS; s++)
		if (match_join(fd.live, s, NULL, 0, fd.token[s], &e) != 0)
			fuzz_die("cannot join: %s", e.message);
	(void)matchset_sync(fd.ms);
}

FUZZ_UNUSED static void
fd_open(void)
{
	char err[1024];
	struct match_config mc;

	fd.proto.ms = NULL;
	config_match(&fd.cfg, &mc);
	if (matchset_create(&mc, &fd.reg, NULL, NULL, &fd.ms, err,
	    sizeof(err)) != 0)
		fuzz_die("matchset: %s", err);
	proto_init(&fd.proto, &fd.cfg, &fd.reg, fd.ms);
	fd.live = NULL;
	fd_live();
}

FUZZ_UNUSED static void
fd_close(void)
{
	char cmd[4200];

	proto_release(&fd.proto);
	matchset_destroy(fd.ms);
	fd.ms = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/matches' '%s/quarantine'",
	    fd.cfg.state_dir, fd.cfg.state_dir);
	if (system(cmd) != 0)
		fuzz_die("%s", "cannot clear the state directory");
}

FUZZ_UNUSED static void
fd_init(void)
{
	char err[1024];

	if (fd.pl != NULL)
		return;
	fd.pl = fuzz_plugin();
	fd.reg.pl = &fd.pl;
	fd.reg.n = 1;
	if (config_init(&fd.cfg, err, sizeof(err)) != 0)
		fuzz_die("config: %s", err);
	free(fd.cfg.state_dir);
	fd.cfg.state_dir = strdup(fuzz_dir());
	fd.cfg.fsync = FSYNC_NEVER;
	fd.cfg.max_matches = 32;
	fd.cfg.max_log_bytes = 256 << 10;
	fd.cfg.max_message_size = 64 << 10;
	fd.cfg.allow_scripted = 1;
	fd_open();
}

FUZZ_UNUSED static void
fd_publish(struct match *m, void *arg)
{
	const struct buf *evs;
	size_t i, n = match_new_public(m, &evs);

	(void)arg;
	for (i = 0; i < n; i++)
		if (refd_mp_check(evs[i].data, evs[i].len, REFD_MP_MAX_DEPTH)
		    != 0)
			abort();	/* a public event that is not msgpack */
	match_events_clear(m);
}

/* One request through proto_handle, then the rest of a loop turn. */
FUZZ_UNUSED static void
fd_request(const uint8_t *req, size_t len)
{
	struct buf reply;
	refd_mpdoc *d;

	buf_init(&reply);
	(void)proto_handle(&fd.proto, req, len, &reply);
	/* Always exactly one reply, a map with "ok", that a strict
	 * decoder reads. */
	if (reply.len == 0 || refd_mp_check(reply.data, reply.len,
	    REFD_MP_MAX_DEPTH) != 0)
		abort();
	d = refd_mp_parse(reply.data, reply.len);
	if (d == NULL || refd_mpv_type(refd_mpv_get(refd_mp_root(d), "ok")) !=
	    REFD_MP_BOOL)
		abort();
	/* A strict decoder reads it: every str (keys too) is UTF-8. */
	if (!mpv_utf8_ok(refd_mp_root(d)))
		abort();
	refd_mp_free(d);
	buf_release(&reply);
	(void)matchset_sync(fd.ms);
	matchset_foreach(fd.ms, fd_publish, NULL);
	proto_turn_done(&fd.proto);
	/* Start afresh now and then: bounded memory and descriptors. */
	if (++fd.inputs % 2000 == 0) {
		fd_close();
		fd_open();
	} else {
		fd_live();
	}
}

/*
 * Play up to `steps` commands of match m with the given tokens: each time
 * the k-th listed command ("cmd" items, k cycling) of the lowest pending
 * seat.  Returns the number of accepted commands.  Used to make seeds.
 */
FUZZ_UNUSED static int
fd_play(struct match *m, char tok[][MATCH_TOKEN_LEN + 1], uint32_t nseats,
    int steps, unsigned k)
{
	struct match_err e;
	struct act_result ar;
	struct buf b;
	uint64_t pend;
	int done = 0, i;
	char cid[32];

	buf_init(&b);
	for (i = 0; i < steps && !match_finished(m); i++) {
		refd_mpdoc *d;
		refd_mpv arr, cmd = { NULL, NULL };
		uint32_t s;
		size_t n, j;
		refd_mpw *w;

		if (match_pending(m, &pend, &e) != 0 || pend == 0)
			break;
		for (s = 0; s < nseats && !(pend & ((uint64_t)1 << s)); s++)
			;
		if (s == nseats)
			break;
		buf_reset(&b);
		if (match_legal(m, s, tok[s], &b, &e) != 0 ||
		    (d = refd_mp_parse(b.data, b.len)) == NULL)
			break;
		arr = refd_mp_root(d);
		n = refd_mpv_len(arr);
		for (j = 0; j < n; j++) {
			cmd = refd_mpv_get(refd_mpv_at(arr, (j + k + i) % n),
			    "cmd");
			if (refd_mpv_type(cmd) == REFD_MP_MAP)
				break;
		}
		if (j == n || (w = refd_mpw_create()) == NULL) {
			refd_mp_free(d);
			break;
		}
		refd_mpw_value(w, cmd);
		snprintf(cid, sizeof(cid), "c%d", i);
		if (match_act(m, s, tok[s], cid, -1, refd_mpw_data(w),
		    refd_mpw_len(w), &ar, &e) == 0)
			done++;
		refd_mpw_destroy(w);
		refd_mp_free(d);
	}
	buf_release(&b);
	return done;
}

#endif
