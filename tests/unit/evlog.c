/*
 * evlog.c - the event log and the offline verifier: real duel matches are
 * verified; tampered copies are refused, each with the right message.
 */
#include "tap.h"
#include "matchlib.h"

static char *dir;
static char out[65536];

static int
verify(const char *log, const char *extra)
{
	return run(out, sizeof(out), "'%s/bin/refctl' verify '%s' %s",
	    build_dir, log, extra ? extra : "");
}

static int
has(const char *needle)
{
	if (strstr(out, needle) != NULL)
		return 1;
	diag("wanted '%s' in:", needle);
	diag("%s", out);
	return 0;
}

/* Write a copy of the log bytes and verify it. */
static int
verify_bytes(const uint8_t *b, size_t len, const char *name,
    const char *extra)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s/%s.log", dir, name);
	if (write_file(p, b, len) != 0)
		return -1;
	return verify(p, extra);
}

/* The first frame of a command record from index k on. */
static size_t
cmd_frame(const uint8_t *b, size_t len, size_t *off, size_t n, size_t k)
{
	static const uint8_t kind_cmd[] = { 0xa4, 'k', 'i', 'n', 'd', 0xa3,
		'c', 'm', 'd' };
	size_t i;

	(void)len;
	for (i = k; i < n; i++) {
		const uint8_t *p = b + off[i] + EVLOG_FRAME_HEAD;

		if (memcmp(p + 5, kind_cmd, sizeof(kind_cmd)) == 0)
			return i;
	}
	return 0;
}

int
main(void)
{
	struct plugin *pl = open_duel("plugins/duel.so");
	struct registry reg = { &pl, 1 };
	struct match_config cfg;
	struct matchset *ms;
	struct match *m, *m2, *m3, *m4;
	struct match_err e;
	char tok[2][MATCH_TOKEN_LEN + 1], tok2[2][MATCH_TOKEN_LEN + 1];
	char tok3[2][MATCH_TOKEN_LEN + 1], tok4[2][MATCH_TOKEN_LEN + 1];
	char log[4200], log2[4200], log3[4200], log4[4200], pub[4200];
	char err[1024], opt[8400];
	/* Nine for the deck's shuffle, then d20 and damage per hit. */
	static const int64_t dice[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 15, 4, 3,
		20, 8, 1 };
	uint8_t *b, *c;
	size_t len = 0, off[4096], n, k, fl;

	dir = temp_dir();
	default_config(&cfg, dir);
	if (matchset_create(&cfg, &reg, collect_report, NULL, &ms, err,
	    sizeof(err)) != 0) {
		printf("Bail out! %s\n", err);
		return 1;
	}

	/* A ranked match played to the end. */
	if (!ok(new_duel(ms, NULL, 0, &m, tok) == 0, "ranked duel created"))
		return done_testing();
	play(ms, m, tok, "a", 200);
	if (!ok(match_finished(m), "ranked duel played to the end (seq %llu)",
	    (unsigned long long)match_seq(m)))
		return done_testing();
	log_path(m, dir, log, sizeof(log));
	snprintf(pub, sizeof(pub), "%s/refd.pub", dir);
	snprintf(opt, sizeof(opt), "--pubkey-file '%s'", pub);
	is_int(verify(log, opt), 0, "verify accepts the finished log");
	ok(has("VERIFIED\n") && has("(the key you gave)") &&
	    has("every opening matches") && has("every draw, event"),
	    "and says what it checked");
	is_int(verify(log, "--pubkey "
	    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"),
	    1, "a different --pubkey is refused");
	ok(has("pubkey: expected 0011") && has("not signed by the daemon"),
	    "naming the key");

	/* A match that ends by resignation, and a scripted one. */
	if (!ok(new_duel(ms, NULL, 0, &m2, tok2) == 0, "second duel created"))
		return done_testing();
	ok(play(ms, m2, tok2, "b", 3) == 3, "three commands");
	is_int(match_resign(m2, 1, tok2[1], &e), 0, "seat 1 resigns");
	matchset_sync(ms);
	log_path(m2, dir, log2, sizeof(log2));
	is_int(verify(log2, "-q"), 0, "verify accepts a resigned match");
	if (!ok(new_duel(ms, dice, sizeof(dice) / sizeof(dice[0]), &m3,
	    tok3) == 0, "scripted duel created"))
		return done_testing();
	ok(play(ms, m3, tok3, "c", 4) == 4, "four scripted commands");
	is_int(match_abort(m3, "test over", &e), 0, "aborted");
	matchset_sync(ms);
	log_path(m3, dir, log3, sizeof(log3));
	is_int(verify(log3, NULL), 1, "verify refuses scripted dice by "
	    "default");
	ok(has("the dice are scripted") && has("--allow-scripted"),
	    "saying why and how to accept them");
	is_int(verify(log3, "--allow-scripted"), 0, "verify --allow-scripted "
	    "accepts the scripted match");
	ok(has("VERIFIED (scripted dice: not a ranked match)"),
	    "and says it is not ranked");

	/* An unfinished match: structure and signatures only. */
	if (!ok(new_duel(ms, NULL, 0, &m4, tok4) == 0 &&
	    play(ms, m4, tok4, "d", 3) == 3, "unfinished duel"))
		return done_testing();
	log_path(m4, dir, log4, sizeof(log4));
	is_int(verify(log4, opt), 3, "an unfinished log exits 3");
	ok(has("UNFINISHED") && has("cannot be verified before the server "
	    "seed is revealed") && has("INCOMPLETE"), "and says so plainly");

	/* Tampering with the finished ranked log. */
	b = read_file(log, &len);
	ok(b != NULL, "read the log (%zu bytes)", len);
	n = frames(b, len, off, 4096);
	ok(n > 12, "%zu frames", n);
	k = cmd_frame(b, len, off, n, 6);
	ok(k >= 6 && k + 2 < n, "a command record in the middle (%zu)", k);

	c = malloc(len);
	memcpy(c, b, len);
	fl = frame_len(c, off[k]);
	c[off[k] + EVLOG_FRAME_HEAD + (fl - EVLOG_FRAME_OVERHEAD) / 2] ^= 0x01;
	is_int(verify_bytes(c, len, "flipped", NULL), 1, "one flipped byte");
	snprintf(err, sizeof(err), "record %zu at offset %zu: hash: expected",
	    k, off[k]);
	ok(has(err) && has("the record's bytes were changed"),
	    "is named: record, offset, hash");

	/* A record removed. */
	fl = frame_len(b, off[k]);
	memcpy(c, b, off[k]);
	memcpy(c + off[k], b + off[k] + fl, len - off[k] - fl);
	is_int(verify_bytes(c, len - fl, "removed", NULL), 1,
	    "a record removed");
	snprintf(err, sizeof(err), "record %zu is missing", k);
	ok(has("chain: prev: expected") && has(err), "is named: %s", err);

	/* Two records swapped. */
	{
		size_t f1 = frame_len(b, off[k]), f2 = frame_len(b, off[k + 1]);

		memcpy(c, b, len);
		memcpy(c + off[k], b + off[k + 1], f2);
		memcpy(c + off[k] + f2, b + off[k], f1);
	}
	is_int(verify_bytes(c, len, "swapped", NULL), 1, "two records swapped");
	snprintf(err, sizeof(err), "records are out of order (record %zu is "
	    "at position %zu)", k, k + 1);
	ok(has("chain: prev: expected") && has(err), "is named: %s", err);

	/* A forged die, with the chain recomputed after it. */
	{
		struct evlog_rec r;
		uint8_t pat[10] = { 0x01, 0x14, 0, 0xa6, 'a', 't', 't', 'a', 'c',
			'k' }, *p;
		size_t j = k;

		memcpy(c, b, len);
		memset(&r, 0, sizeof(r));
		for (j = k; j < n; j++) {
			evlog_decode(c + off[j] + EVLOG_FRAME_HEAD,
			    frame_len(c, off[j]) - EVLOG_FRAME_OVERHEAD, &r, err,
			    sizeof(err));
			if (r.kind == EVK_CMD && r.ndr > 0 && r.dr[0].bound == 20)
				break;
			evlog_rec_release(&r);
		}
		ok(j < n, "a record with a d20 (%zu, rolled %u)", j,
		    (unsigned)r.dr[0].value);
		pat[2] = (uint8_t)r.dr[0].value;
		p = find_bytes(c + off[j], frame_len(c, off[j]), pat,
		    sizeof(pat));
		ok(p != NULL, "found the draw in the record");
		if (p != NULL)
			p[2] = (uint8_t)(r.dr[0].value % 20 + 1);
		rechain(c, len, j);
		is_int(verify_bytes(c, len, "forged", NULL), 1, "a forged die");
		snprintf(err, sizeof(err), "record %zu (seq %llu, cmd '%s' of "
		    "seat %d): replay diverges: draw 0: the replay gives roll %u "
		    "of d20",
		    j, (unsigned long long)r.seq, r.cmd_id, (int)r.seat,
		    (unsigned)r.dr[0].value);
		ok(has(err), "is named: %s", err);
		snprintf(err, sizeof(err), "the log has roll %u of d20",
		    (unsigned)(r.dr[0].value % 20 + 1));
		ok(has(err), "with the forged value");
		evlog_rec_release(&r);
	}

	/* A wrong revealed seed. */
	{
		static const uint8_t key[] = { 0xab, 's', 'e', 'r', 'v', 'e',
			'r', '_', 's', 'e', 'e', 'd', 0xc4, 0x20 };
		uint8_t *p;

		memcpy(c, b, len);
		p = find_bytes(c + off[n - 1], len - off[n - 1], key,
		    sizeof(key));
		ok(p != NULL, "found the revealed seed");
		if (p != NULL)
			p[sizeof(key) + 5] ^= 0x40;
		rechain(c, len, n - 1);
		is_int(verify_bytes(c, len, "seed", NULL), 1,
		    "a wrong revealed seed");
		ok(has("final): server_seed: the revealed seed does not match "
		    "its commitment"), "is named");
	}

	/* A changed opening of a hidden zone. */
	{
		static const uint8_t key[] = { 0xa4, 'd', 'e', 'c', 'k' };
		uint8_t *p;

		memcpy(c, b, len);
		p = find_bytes(c + off[n - 1], len - off[n - 1], key,
		    sizeof(key));
		ok(p != NULL, "found the deck's opening");
		/* zone, seat (-1), salt (c4 10 + 16), data (c4 0a + 10). */
		if (p != NULL)
			p[sizeof(key) + 1 + 18 + 2] ^= 0x03;
		rechain(c, len, n - 1);
		is_int(verify_bytes(c, len, "opening", NULL), 1,
		    "a changed opening");
		ok(has("opening 0 ('deck', committed in record") &&
		    has("hash of salt and data: expected"), "is named");
	}

	/* A truncated tail. */
	is_int(verify_bytes(b, len - 7, "truncated", NULL), 3,
	    "a truncated tail is incomplete");
	ok(has("cut short after record") && has("incomplete record at "
	    "offset"), "is named as cut, after the last whole record");
	is_int(verify_bytes(b, off[n - 1], "nofinal", NULL), 3,
	    "without its final record the log is unfinished");

	/* An unfinished log edited and re-chained: only the signatures can
	 * tell, and they do. */
	{
		uint8_t *u;
		size_t ulen = 0, uoff[4096], un, j;
		static const uint8_t idkey[] = { 0xa2, 'i', 'd', 0xa2, 'd' };

		u = read_file(log4, &ulen);
		un = frames(u, ulen, uoff, 4096);
		j = cmd_frame(u, ulen, uoff, un, 1);
		ok(u != NULL && j > 0, "a command record of the unfinished log");
		if (u != NULL && j > 0) {
			uint8_t *p = find_bytes(u + uoff[j], frame_len(u, uoff[j]),
			    idkey, sizeof(idkey));

			ok(p != NULL, "its command id");
			if (p != NULL)
				p[4] = 'X';
			rechain(u, ulen, j);
			is_int(verify_bytes(u, ulen, "resigned", NULL), 1,
			    "an edited, re-chained unfinished log");
			ok(has("(checkpoint at seq") && has("signature: invalid "
			    "for the key in the header"), "is caught by the "
			    "next checkpoint's signature");
		}
		free(u);
	}

	/* Framing details: zeros after the last frame are a torn tail, a bad
	 * length with data after it is damage, a foreign file is refused. */
	{
		struct evlog_scan sc;
		uint8_t *z = calloc(1, len + 64);

		memcpy(z, b, len);
		is_int(evlog_scan_bytes(z, len + 64, &sc, err, sizeof(err)), 0,
		    "scan a log with 64 zero bytes after it");
		is_int(sc.tail, EVLOG_TORN, "the zeros are a torn tail");
		is_int(sc.n, n, "every frame before them is good");
		evlog_scan_release(&sc);
		memcpy(z, b, len);
		z[off[3] + 1] ^= 0x10;
		is_int(evlog_scan_bytes(z, len, &sc, err, sizeof(err)), 0,
		    "scan a log with a damaged length field");
		is_int(sc.tail, EVLOG_DAMAGED, "it is damage, not a torn tail");
		ok(strstr(sc.why, "bad frame length at offset") != NULL, "%s",
		    sc.why);
		evlog_scan_release(&sc);
		is_int(evlog_scan_bytes((const uint8_t *)"GIF89a..........", 16,
		    &sc, err, sizeof(err)), REFD_ELOG, "a foreign file");
		ok(strstr(err, "not a refd event log") != NULL, "%s", err);
		free(z);
	}
	is_int(verify_bytes((const uint8_t *)"PK\3\4", 4, "foreign", NULL), 1,
	    "verify refuses a foreign file");
	ok(has("not a refd event log"), "saying so");

	/* A plugin that behaves differently. */
	snprintf(opt, sizeof(opt), "--plugin '%s/tests/plugins/deviant/duel.so'",
	    build_dir);
	is_int(verify(log, opt), 1, "a plugin that behaves differently");
	ok(has("file hash: expected") && has("not the plugin build"),
	    "the plugin hash difference is reported");
	ok(has("replay diverges: event 0: the replay gives {\"type\": \"attack\""),
	    "and the first divergent record is named");

	/* Replay prints the match. */
	is_int(run(out, sizeof(out), "'%s/bin/refctl' replay '%s'", build_dir,
	    log), 0, "replay");
	ok(has("VERIFIED: match") && has("seq 3: the match starts") &&
	    has("dice: d20 -> ") && has("the match ends (result)") &&
	    has("private event"), "verifies, then reads step by step");
	is_int(run(out, sizeof(out), "'%s/bin/refctl' replay --json '%s'",
	    build_dir, log), 0, "replay --json");
	ok(has("\"kind\": \"final\"") && has("\"server_seed\""), "is JSON");

	free(c);
	free(b);
	matchset_destroy(ms);
	plugin_close(pl);
	remove_dir(dir);
	return done_testing();
}
