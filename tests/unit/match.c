/*
 * match.c - the match layer through its contract (match.h) with the duel
 * plugin: seats and tokens, idempotency, stale seqs, rejections that write
 * nothing, per-seat events, limits, and crash recovery (same seq, tokens,
 * idempotency table and dice stream; torn tails cut; damaged logs
 * quarantined).
 */
#include <sys/stat.h>

#include <dirent.h>

#include "tap.h"
#include "matchlib.h"

#include "jsonmp.h"

static char out[65536];

static char *
json_of(const struct buf *b)
{
	static char s[65536];
	char *j = mp_bytes_to_json_text(b->data, b->len, JSON_COMPACT);

	snprintf(s, sizeof(s), "%s", j != NULL ? j : "(malformed)");
	free(j);
	return s;
}

static off_t
file_size(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 ? st.st_size : -1;
}

static size_t
count_files(const char *d)
{
	DIR *dd = opendir(d);
	struct dirent *de;
	size_t n = 0;

	if (dd == NULL)
		return 0;
	while ((de = readdir(dd)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(dd);
	return n;
}

/* Events of seat (-1: spectators) one page of limit at a time: each page
 * whole seqs, continued from until, together the unpaged list. */
static void
pages(struct match *m, int32_t seat, const char *tok, uint64_t limit,
    size_t max_bytes)
{
	struct ev_page pg = { limit, max_bytes }, all = { 0, 0 };
	struct match_err e;
	struct buf b, full;
	uint64_t since = 0, until = 0;
	int more = 0, np = 0, whole = 1, n = 0, nfull = 0, rc;
	const char *p;
	long prev = -1;

	buf_init(&b);
	buf_init(&full);
	rc = match_events_since(m, 0, seat, tok, &all, &full, &until, &more,
	    &e);
	for (p = json_of(&full); (p = strstr(p, "{\"seq\":")) != NULL; p++)
		nfull++;
	do {
		long first = -1, last = -1, v;

		buf_reset(&b);
		if (match_events_since(m, since, seat, tok, &pg, &b, &until,
		    &more, &e) != 0)
			break;
		for (p = json_of(&b); (p = strstr(p, "{\"seq\":")) != NULL;
		    p++) {
			v = strtol(p + 7, NULL, 10);
			if (first < 0)
				first = v;
			last = v;
			n++;
		}
		/* No seq is split across two pages. */
		if (first < 0 || first == prev || (more && (long)until != last) ||
		    first <= (long)since)
			whole = 0;
		prev = last;
		since = until;
		np++;
	} while (more && np < 100000);
	ok(rc == 0 && whole && !more && until == match_seq(m),
	    "seat %d, limit %d, %d bytes: %d pages of whole seqs, the last says no more",
	    (int)seat, (int)limit, (int)max_bytes, np);
	is_int(n, nfull, "seat %d, limit %d: the %d events of the unpaged list",
	    (int)seat, (int)limit, nfull);
	buf_release(&b);
	buf_release(&full);
}

int
main(void)
{
	struct plugin *pl = open_duel("plugins/duel.so");
	struct registry reg = { &pl, 1 };
	struct match_config cfg;
	struct matchset *ms;
	struct match *m, *m2, *x;
	struct match_create_args a;
	struct match_err e;
	struct act_result ar;
	struct buf b;
	char tok[2][MATCH_TOKEN_LEN + 1], tok2[2][MATCH_TOKEN_LEN + 1];
	char t[MATCH_TOKEN_LEN + 1], err[1024], id[MATCH_ID_LEN + 1];
	char id2[MATCH_ID_LEN + 1], log[4200], path[4200];
	char *dir = temp_dir();
	uint64_t seq, seats, until;
	int more;
	const struct ev_page all = { 0, 0 };
	off_t sz;
	struct stat st;
	int s, i;

	buf_init(&b);
	default_config(&cfg, dir);
	cfg.checkpoint_every = 3;
	if (!ok(matchset_create(&cfg, &reg, collect_report, NULL, &ms, err,
	    sizeof(err)) == 0, "matchset created"))
		return done_testing();
	snprintf(path, sizeof(path), "%s/refd.key", dir);
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600,
	    "refd.key exists with mode 0600");
	ok(strstr(reports, "created the signing key") != NULL,
	    "a new key is reported");
	{
		char hex[65];

		hex_encode(matchset_pubkey(ms), 32, hex);
		snprintf(path, sizeof(path), "%s/refd.pub", dir);
		run(out, sizeof(out), "cat '%s'", path);
		ok(strncmp(out, hex, 64) == 0, "refd.pub holds the public key");
	}

	/* Create: errors. */
	memset(&a, 0, sizeof(a));
	a.ruleset = "chess";
	is_int(match_create(ms, &a, &m, &e), REFD_ENORULESET, "no such ruleset");
	ok(strstr(e.message, "'chess'") != NULL, "named: %s", e.message);
	a.ruleset = "duel";
	a.scenario = "nope";
	is_int(match_create(ms, &a, &m, &e), REFD_ENOSCENARIO,
	    "no such scenario");
	a.scenario = NULL;
	a.nseats = 3;
	is_int(match_create(ms, &a, &m, &e), REFD_ESETUP, "three seats");
	ok(strstr(e.message, "takes 2 to 2 seats") != NULL, "named: %s",
	    e.message);
	a.nseats = 0;
	a.setup = (const uint8_t *)"\x81\xa8" "fighters\x92\xa6" "knight\xa4"
	    "ogre";
	a.setup_len = 1 + 9 + 1 + 7 + 5;
	is_int(match_create(ms, &a, &m, &e), REFD_ESETUP,
	    "a setup the plugin refuses fails at create");
	ok(strstr(e.message, "no fighter named 'ogre'") != NULL, "with the "
	    "plugin's reason: %s", e.message);
	a.setup = NULL;
	a.setup_len = 0;
	is_int(matchset_count(ms), 0, "nothing was created");

	/* Create and join. */
	is_int(match_create(ms, &a, &m, &e), 0, "create with the default "
	    "setup");
	snprintf(id, sizeof(id), "%s", match_id(m));
	ok(strlen(id) == MATCH_ID_LEN && strspn(id, "0123456789abcdef") ==
	    MATCH_ID_LEN, "id is %d hex characters", MATCH_ID_LEN);
	is_int(match_seq(m), 0, "seq 0 after create");
	is_int(match_join(m, 2, NULL, 0, t, &e), REFD_ESEAT, "seat 2 does "
	    "not exist");
	is_int(match_act(m, 0, "x", "c", -1, ATTACK, sizeof(ATTACK), &ar, &e),
	    REFD_ETOKEN, "acting on a free seat");
	is_int(match_join(m, 0, (const uint8_t *)"0123456789", 10, tok[0], &e),
	    0, "seat 0 joins");
	ok(strlen(tok[0]) == MATCH_TOKEN_LEN && strspn(tok[0],
	    "0123456789abcdef") == MATCH_TOKEN_LEN, "token is 32 hex chars");
	is_int(match_join(m, 0, NULL, 0, t, &e), REFD_ESEATTAKEN,
	    "seat 0 again");
	is_int(match_join(m, 1, (const uint8_t *)out, 65, t, &e), REFD_EARG,
	    "a 65-byte seed");
	is_int(match_act(m, 0, tok[0], "c", -1, ATTACK, sizeof(ATTACK), &ar,
	    &e), REFD_ENOTSTARTED, "act before the start");
	is_int(match_view(m, REFD_SEAT_PUBLIC, NULL, &b, &e), REFD_ENOTSTARTED,
	    "view before the start");
	is_int(match_pending(m, &seats, &e), REFD_ENOTSTARTED,
	    "pending before the start");
	is_int(match_join(m, 1, NULL, 0, tok[1], &e), 0, "seat 1 joins");
	is_int(match_seq(m), 3, "seq 3: two joins and the start");
	is_int(matchset_sync(ms), 0, "sync");
	ok(strcmp(tok[0], tok[1]) != 0, "tokens differ");

	/* Events: public for spectators, private ones for their seat. */
	buf_reset(&b);
	is_int(match_events_since(m, 0, REFD_SEAT_PUBLIC, NULL, &all, &b,
	    &until, &more, &e), 0,
	    "public events");
	ok(strstr(json_of(&b), "\"type\":\"start\"") != NULL &&
	    strstr(json_of(&b), "dealt") == NULL, "spectators see the start, "
	    "not the deal: %s", json_of(&b));
	buf_reset(&b);
	is_int(match_events_since(m, 0, 1, tok[1], &all, &b, &until,
	    &more, &e), 0, "seat 1 events");
	ok(strstr(json_of(&b), "{\"seq\":3,\"i\":1,\"seat\":1,\"type\":"
	    "\"dealt\"") != NULL && strstr(json_of(&b), "\"seat\":0,\"type\":"
	    "\"dealt\"") == NULL, "seat 1 sees its own deal only: %s",
	    json_of(&b));
	is_int(match_events_since(m, 0, 1, tok[0], &all, &b, &until,
	    &more, &e), REFD_ETOKEN,
	    "seat 0's token does not open seat 1's events");
	{
		const struct buf *pub;
		size_t np = match_new_public(m, &pub);

		ok(np == 1 && strstr(json_of(&pub[0]), id) != NULL &&
		    strstr(json_of(&pub[0]), "\"seq\":3") != NULL,
		    "one public event to publish, with match and seq");
		match_events_clear(m);
		is_int(match_new_public(m, &pub), 0, "cleared");
	}

	/* Views. */
	buf_reset(&b);
	is_int(match_view(m, 0, tok[0], &b, &e), 0, "seat 0's view");
	ok(strstr(json_of(&b), "\"hand\"") != NULL, "shows its hand");
	buf_reset(&b);
	is_int(match_view(m, REFD_SEAT_PUBLIC, NULL, &b, &e), 0,
	    "spectator view");
	ok(strstr(json_of(&b), "\"hand\"") == NULL, "shows no hand");
	is_int(match_view(m, 0, tok[1], &b, &e), REFD_ETOKEN,
	    "a wrong token for a view");
	is_int(match_legal(m, (uint32_t)REFD_SEAT_PUBLIC, NULL, &b, &e),
	    REFD_ESPECTATOR, "spectators have no legal commands");

	/* Acting. */
	s = turn_of(m);
	ok(s == 0, "seat 0 to act");
	log_path(m, dir, log, sizeof(log));
	sz = file_size(log);
	is_int(match_act(m, 1, tok[1], "x1", -1, ATTACK, sizeof(ATTACK), &ar,
	    &e), REFD_ENOTYOURTURN, "out of turn");
	is_str(e.rule, "DUEL-2", "with the rule");
	is_int(match_act(m, (uint32_t)REFD_SEAT_PUBLIC, NULL, "x1", -1, ATTACK,
	    sizeof(ATTACK), &ar, &e), REFD_ESPECTATOR, "spectators cannot act");
	is_int(match_act(m, 0, tok[1], "x1", -1, ATTACK, sizeof(ATTACK), &ar,
	    &e), REFD_ETOKEN, "seat 1's token for seat 0");
	is_int(match_act(m, 0, tok[0], "x1", 2, ATTACK, sizeof(ATTACK), &ar,
	    &e), REFD_ESTALE, "a stale expected seq");
	ok(strstr(e.message, "expected seq 2, but the match is at seq 3") !=
	    NULL, "named: %s", e.message);
	is_int(match_act(m, 0, tok[0], "", -1, ATTACK, sizeof(ATTACK), &ar,
	    &e), REFD_EARG, "an empty command id");
	is_int(match_act(m, 0, tok[0], "x1", -1,
	    (const uint8_t *)"\x81\xa4type\xa4jump", 11, &ar, &e), REFD_EBADCMD,
	    "an unknown command");
	is_int(match_seq(m), 3, "rejections leave seq alone");
	is_int(file_size(log), sz, "and write nothing");
	is_int(match_act(m, 0, tok[0], "x1", 3, ATTACK, sizeof(ATTACK), &ar,
	    &e), 0, "seat 0 attacks with the right expected seq");
	ok(ar.seq == 4 && !ar.replayed, "seq 4, not replayed");
	ok(file_size(log) > sz, "the log grew");
	is_int(match_act(m, 0, tok[0], "x1", -1, ATTACK, sizeof(ATTACK), &ar,
	    &e), 0, "the same command id again");
	ok(ar.seq == 4 && ar.replayed, "returns the first result, replayed");
	is_int(match_seq(m), 4, "applied once");
	is_int(match_act(m, 0, tok[0], "x1", -1, DEFEND, sizeof(DEFEND), &ar,
	    &e), REFD_EIDEMPOTENCY, "the same id with another command");
	is_int(match_act(m, 1, tok[1], "x1", -1, DEFEND, sizeof(DEFEND), &ar,
	    &e), 0, "ids are per seat: seat 1 may use 'x1'");
	is_int(play(ms, m, tok, "p", 3), 3, "three more commands");
	seq = match_seq(m);
	is_int(matchset_sync(ms), 0, "sync");

	/* A second match, left mid-way; then a restart. */
	ok(new_duel(ms, NULL, 0, &m2, tok2) == 0, "second match");
	snprintf(id2, sizeof(id2), "%s", match_id(m2));
	is_int(matchset_count(ms), 2, "two matches");
	reports[0] = '\0';
	matchset_destroy(ms);
	if (!ok(matchset_create(&cfg, &reg, collect_report, NULL, &ms, err,
	    sizeof(err)) == 0, "restart"))
		return done_testing();
	ok(strstr(reports, "recovered 2 unfinished and 0 finished") != NULL,
	    "both recovered: %s", flat_reports());
	m = matchset_find(ms, id);
	ok(m != NULL && match_seq(m) == seq, "the first resumes at seq %llu",
	    (unsigned long long)seq);
	if (m == NULL)
		return done_testing();
	ok(matchset_find(ms, id2) != NULL, "the second resumes too");
	is_int(match_act(m, 0, tok[0], "x1", -1, ATTACK, sizeof(ATTACK), &ar,
	    &e), 0, "the idempotency table survives the restart");
	ok(ar.replayed && ar.seq == 4, "x1 is still seq 4, replayed");
	is_int(match_act(m, 0, tok[0], "x1", -1, DEFEND, sizeof(DEFEND), &ar,
	    &e), REFD_EIDEMPOTENCY, "and still refuses another command");
	s = turn_of(m);
	is_int(match_act(m, (uint32_t)s, tok[1 - s], "y", -1, ATTACK,
	    sizeof(ATTACK), &ar, &e), REFD_ETOKEN, "tokens still checked");
	ok(play(ms, m, tok, "q", 200) > 0 && match_finished(m),
	    "the old tokens play the match to the end");
	pages(m, REFD_SEAT_PUBLIC, NULL, 1, 0);
	pages(m, 0, tok[0], 1, 0);
	pages(m, 1, tok[1], 3, 0);
	pages(m, 1, tok[1], 0, 200);
	ok(run(out, sizeof(out), "'%s/bin/refctl' verify -q '%s'", build_dir,
	    log) == 0, "its log verifies: the dice stream went on unchanged "
	    "across the restart");

	/* A torn tail: cut off and reported, the match resumes. */
	m2 = matchset_find(ms, id2);
	log_path(m2, dir, path, sizeof(path));
	seq = match_seq(m2);
	matchset_destroy(ms);
	{
		FILE *f = fopen(path, "ab");

		fwrite("\x00\x00\x01\x00\xff\xff\xfe\xffpartial", 1, 15, f);
		fclose(f);
	}
	/* And two logs whose create a crash interrupted. */
	snprintf(path, sizeof(path), "%s/matches/0123456789abcdef.log", dir);
	write_file(path, (const uint8_t *)"", 0);
	snprintf(path, sizeof(path), "%s/matches/fedcba9876543210.log", dir);
	write_file(path, (const uint8_t *)"refd", 4);
	reports[0] = '\0';
	ok(matchset_create(&cfg, &reg, collect_report, NULL, &ms, err,
	    sizeof(err)) == 0, "restart after a torn write");
	ok(strstr(reports, "0123456789abcdef.log': no header record (an "
	    "empty file)") && strstr(reports, "fedcba9876543210.log': no "
	    "header record (the file holds 4 bytes"),
	    "interrupted creates are reported: %s", flat_reports());
	ok(file_size(path) < 0, "the file left the matches directory");
	snprintf(path, sizeof(path), "%s/quarantine/0123456789abcdef.log", dir);
	is_int(file_size(path), 0, "the 0-byte log is in quarantine");
	snprintf(path, sizeof(path), "%s/quarantine/fedcba9876543210.log", dir);
	is_int(file_size(path), 4, "the log cut in its magic too, whole");
	ok(strstr(reports, "truncated a torn final record") != NULL,
	    "the truncation is reported: %s", flat_reports());
	m2 = matchset_find(ms, id2);
	ok(m2 != NULL && match_seq(m2) == seq, "the match resumes at seq %llu",
	    (unsigned long long)seq);
	if (m2 != NULL)
		ok(play(ms, m2, tok2, "r", 2) == 2, "and goes on");

	/* A log damaged in the middle: quarantined, never truncated. */
	log_path(m2, dir, path, sizeof(path));
	matchset_destroy(ms);
	{
		size_t len = 0, off[4096], n;
		uint8_t *bb = read_file(path, &len);

		n = frames(bb, len, off, 4096);
		bb[off[n / 2] + 20] ^= 0x20;
		write_file(path, bb, len);
		free(bb);
	}
	sz = file_size(path);
	reports[0] = '\0';
	ok(matchset_create(&cfg, &reg, collect_report, NULL, &ms, err,
	    sizeof(err)) == 0, "restart with a damaged log");
	ok(strstr(reports, "damaged in the middle") != NULL &&
	    strstr(reports, "moved to") != NULL, "reported: %s", flat_reports());
	ok(matchset_find(ms, id2) == NULL, "the match is not served");
	snprintf(path, sizeof(path), "%s/quarantine/%s.log", dir, id2);
	is_int(file_size(path), sz, "the log is in quarantine, whole");

	/* A crash between the last join and the start record, and one
	 * between the last command and the final record: recovery writes
	 * the missing record. */
	{
		char tok3[2][MATCH_TOKEN_LEN + 1], tok4[2][MATCH_TOKEN_LEN + 1];
		char id3[MATCH_ID_LEN + 1], id4[MATCH_ID_LEN + 1];
		char lastcmd[32];
		struct match *m3, *m4;
		size_t len = 0, off[4096], n;
		uint8_t *bb;
		int k;

		ok(new_duel(ms, NULL, 0, &m3, tok3) == 0, "a duel to cut "
		    "before its start");
		snprintf(id3, sizeof(id3), "%s", match_id(m3));
		ok(new_duel(ms, NULL, 0, &m4, tok4) == 0, "a duel to cut "
		    "before its final record");
		snprintf(id4, sizeof(id4), "%s", match_id(m4));
		k = play(ms, m4, tok4, "f", 500);
		ok(k > 0 && match_finished(m4), "played to the end");
		snprintf(lastcmd, sizeof(lastcmd), "f%d", k - 1);
		matchset_destroy(ms);
		snprintf(path, sizeof(path), "%s/matches/%s.log", dir, id3);
		bb = read_file(path, &len);
		n = frames(bb, len, off, 4096);
		ok(n >= 4, "header, two joins, start");
		write_file(path, bb, off[3]);
		free(bb);
		snprintf(path, sizeof(path), "%s/matches/%s.log", dir, id4);
		bb = read_file(path, &len);
		n = frames(bb, len, off, 4096);
		write_file(path, bb, off[n - 1]);
		free(bb);
		reports[0] = '\0';
		ok(matchset_create(&cfg, &reg, collect_report, NULL, &ms, err,
		    sizeof(err)) == 0, "restart");
		ok(strstr(reports, "wrote the start record a crash interrupted") &&
		    strstr(reports, "wrote the final record a crash interrupted"),
		    "both missing records are written: %s", flat_reports());
		m3 = matchset_find(ms, id3);
		m4 = matchset_find(ms, id4);
		ok(m3 != NULL && match_seq(m3) == 3, "the first is started, seq 3");
		ok(m4 != NULL && match_finished(m4), "the second is finished");
		if (m3 != NULL)
			ok(play(ms, m3, tok3, "g", 3) == 3 &&
			    match_abort(m3, "done", &e) == 0, "the first plays "
			    "on");
		if (m4 != NULL) {
			is_int(match_act(m4, (uint32_t)((k - 1) % 2),
			    tok4[(k - 1) % 2], lastcmd, -1, ATTACK,
			    sizeof(ATTACK), &ar, &e) == 0 ? 0 : -1, 0,
			    "the last command, sent again");
			ok(ar.replayed && ar.finished, "is replayed and says the "
			    "match finished");
			matchset_sync(ms);
			is_int(run(out, sizeof(out), "'%s/bin/refctl' verify -q "
			    "'%s'", build_dir, path), 0, "the log verifies");
		}
	}

	/* Limits. */
	matchset_destroy(ms);
	cfg.max_matches = 1;
	ok(matchset_create(&cfg, &reg, collect_report, NULL, &ms, err,
	    sizeof(err)) == 0, "restart with max_matches 1");
	is_int(matchset_count(ms), 3, "the finished matches are still listed");
	x = matchset_find(ms, id);
	buf_reset(&b);
	ok(x != NULL && match_finished(x), "it was loaded from its records");
	if (x != NULL)
		is_int(match_view(x, REFD_SEAT_PUBLIC, NULL, &b, &e), 0,
		    "its view is built on demand by a replay");
	ok(strstr(json_of(&b), "\"over\":true") != NULL, "and shows the end: "
	    "%s", json_of(&b));
	buf_reset(&b);
	if (x != NULL)
		match_events_since(x, 0, 0, tok[0], &all, &b, &until,
		    &more, &e);
	ok(strstr(json_of(&b), "\"type\":\"dealt\"") != NULL &&
	    strstr(json_of(&b), "\"type\":\"end\"") != NULL,
	    "its events come from the log, private ones to their seat");
	memset(&a, 0, sizeof(a));
	a.ruleset = "duel";
	is_int(match_create(ms, &a, &x, &e), 0, "one live match is allowed");
	snprintf(id2, sizeof(id2), "%s", match_id(x));
	match_join(x, 0, NULL, 0, t, &e);
	match_join(x, 1, NULL, 0, t, &e);
	matchset_sync(ms);
	is_int(match_create(ms, &a, &x, &e), REFD_ETOOMANY, "a second is not");
	ok(strstr(e.message, "max-matches") != NULL, "named: %s", e.message);
	matchset_destroy(ms);
	cfg.max_matches = 100;
	cfg.max_match_memory = 64;
	reports[0] = '\0';
	ok(matchset_create(&cfg, &reg, collect_report, NULL, &ms, err,
	    sizeof(err)) == 0, "restart with 64 bytes of plugin memory");
	ok(strstr(reports, "needs more than max-match-memory (64 bytes); "
	    "raise it and restart") != NULL && matchset_find(ms, id2) == NULL,
	    "a live match that no longer fits is not resumed: %s",
	    flat_reports());
	snprintf(path, sizeof(path), "%s/matches/%s.log", dir, id2);
	ok(file_size(path) > 0, "but its log stays where it is");
	is_int(match_create(ms, &a, &x, &e), REFD_ELIMIT,
	    "the duel does not fit");
	ok(strstr(e.message, "max-match-memory") != NULL, "named: %s",
	    e.message);
	matchset_destroy(ms);
	cfg.max_match_memory = 16 << 20;
	cfg.max_log_bytes = 4096;
	ok(matchset_create(&cfg, &reg, collect_report, NULL, &ms, err,
	    sizeof(err)) == 0, "restart with 4096 log bytes per match");
	ok(matchset_find(ms, id2) != NULL, "with the memory back, it resumes");
	ok(new_duel(ms, NULL, 0, &x, tok2) == 0, "a duel");
	for (i = 0; i < 100 && !match_finished(x); i++) {
		char cid[16];

		snprintf(cid, sizeof(cid), "d%d", i);
		s = turn_of(x);
		if (match_act(x, (uint32_t)s, tok2[s], cid, -1, DEFEND,
		    sizeof(DEFEND), &ar, &e) != 0)
			break;
	}
	is_int(e.code, REFD_ELIMIT, "defending forever hits max-log-bytes");
	ok(strstr(e.message, "max-log-bytes") != NULL, "named: %s", e.message);
	ok(match_finished(x), "and the match was ended");
	log_path(x, dir, path, sizeof(path));
	matchset_sync(ms);
	is_int(run(out, sizeof(out), "'%s/bin/refctl' verify -q '%s'",
	    build_dir, path), 0, "its log verifies");
	is_int(count_files(dir), 5, "state dir: matches, quarantine, key, pub, "
	    "lock");
	{
		struct matchset *ms2 = NULL;
		uint8_t pk[32];

		is_int(matchset_create(&cfg, &reg, collect_report, NULL, &ms2,
		    err, sizeof(err)), REFD_ELOGIO, "a second set on the same "
		    "state directory is refused");
		ok(strstr(err, "in use by another refd (pid ") != NULL, "%s",
		    err);
		is_int(matchset_read_pubkey(dir, pk, err, sizeof(err)), 0,
		    "the public key can still be read");
		ok(memcmp(pk, matchset_pubkey(ms), 32) == 0, "and is the key");
	}

	/* Resign and abort. */
	matchset_destroy(ms);
	cfg.max_log_bytes = 16 << 20;
	ok(matchset_create(&cfg, &reg, collect_report, NULL, &ms, err,
	    sizeof(err)) == 0, "restart");
	ok(new_duel(ms, NULL, 0, &x, tok2) == 0, "a duel");
	is_int(match_resign(x, 0, tok2[1], &e), REFD_ETOKEN,
	    "resign needs the seat's token");
	is_int(match_resign(x, 0, tok2[0], &e), 0, "seat 0 resigns");
	ok(match_finished(x), "finished");
	buf_reset(&b);
	match_info(x, &b);
	ok(strstr(json_of(&b), "\"winners\":[1]") != NULL &&
	    strstr(json_of(&b), "\"status\":\"finished\"") != NULL,
	    "info: %s", json_of(&b));
	is_int(match_act(x, 1, tok2[1], "z", -1, ATTACK, sizeof(ATTACK), &ar,
	    &e), REFD_EFINISHED, "no commands after the end");
	is_int(match_abort(x, "late", &e), REFD_EFINISHED, "no abort either");
	buf_reset(&b);
	is_int(match_legal(x, 1, tok2[1], &b, &e), 0, "legal after the end");
	is_str(json_of(&b), "[]", "is empty");
	buf_reset(&b);
	is_int(match_export(x, &b, &e), 0, "export");
	ok(b.len > 8 && memcmp(b.data, EVLOG_MAGIC, 8) == 0, "gives the log");

	buf_release(&b);
	matchset_destroy(ms);
	plugin_close(pl);
	remove_dir(dir);
	return done_testing();
}
