/*
 * recover.c - group commit over many logs and what a restart checks:
 * several matches written in one turn are all durable after one
 * matchset_sync (the parallel fdatasync path); a restart rebuilds matches
 * longer than the state-hash interval; a log whose last command carries
 * a wrong state hash (chain recomputed, as a forger would) is refused even
 * though the state hash is only compared every 64 commands and at the
 * last one.
 */
#include "tap.h"
#include "matchlib.h"

#define NMATCH 6

static int
long_duel(struct matchset *ms, struct match **m,
    char tok[][MATCH_TOKEN_LEN + 1])
{
	struct match_create_args a;
	struct match_err e;
	refd_mpw *w = refd_mpw_create();
	int rc;

	refd_mpw_map(w);
	refd_mpw_karray(w, "fighters");
	refd_mpw_str(w, "knight");
	refd_mpw_str(w, "rogue");
	refd_mpw_end(w);
	refd_mpw_kint(w, "max_rounds", 1000);
	refd_mpw_end(w);
	memset(&a, 0, sizeof(a));
	a.ruleset = "duel";
	a.setup = refd_mpw_data(w);
	a.setup_len = refd_mpw_len(w);
	rc = match_create(ms, &a, m, &e) != 0 ||
	    match_join(*m, 0, (const uint8_t *)"a", 1, tok[0], &e) != 0 ||
	    match_join(*m, 1, (const uint8_t *)"b", 1, tok[1], &e) != 0;
	if (rc)
		printf("# long_duel: %s\n", e.message);
	refd_mpw_destroy(w);
	return rc ? -1 : 0;
}

/* n defends (the game goes on), without syncing. */
static int
defend(struct match *m, char tok[][MATCH_TOKEN_LEN + 1], int n)
{
	struct act_result ar;
	struct match_err e;
	int k, s;

	for (k = 0; k < n; k++) {
		char id[32];

		s = turn_of(m);
		snprintf(id, sizeof(id), "d%llu",
		    (unsigned long long)match_seq(m));
		if (s < 0 || match_act(m, (uint32_t)s, tok[s], id, -1, DEFEND,
		    sizeof(DEFEND), &ar, &e) != 0)
			return -1;
	}
	return 0;
}

/* 1 when the log's last frame is a command record (has a state hash). */
static int
last_is_cmd(const char *path, uint8_t **b, size_t *len, uint8_t **state)
{
	static const uint8_t key[] = { 0xa5, 's', 't', 'a', 't', 'e', 0xc4,
		0x20 };
	size_t off[4096], n;
	uint8_t *p;

	*b = read_file(path, len);
	if (*b == NULL)
		return 0;
	n = frames(*b, *len, off, 4096);
	p = find_bytes(*b + off[n - 1], frame_len(*b, off[n - 1]), key,
	    sizeof(key));
	*state = p != NULL ? p + sizeof(key) : NULL;
	return p != NULL;
}

int
main(void)
{
	struct plugin *pl = open_duel("plugins/duel.so");
	struct registry reg = { &pl, 1 };
	struct match_config cfg;
	struct matchset *ms;
	struct match *m[NMATCH];
	char tok[NMATCH][2][MATCH_TOKEN_LEN + 1], id[NMATCH][MATCH_ID_LEN + 1];
	uint64_t seq[NMATCH];
	char err[1024], path[4200];
	char *dir = temp_dir();
	uint8_t *b, *st;
	size_t len;
	int i, n;

	default_config(&cfg, dir);
	cfg.checkpoint_every = 16;
	if (!ok(matchset_create(&cfg, &reg, collect_report, NULL, &ms, err,
	    sizeof(err)) == 0, "matchset created (fsync always)"))
		return done_testing();
	for (i = 0, n = 0; i < NMATCH; i++)
		n += long_duel(ms, &m[i], tok[i]) == 0;
	is_int(n, NMATCH, "%d matches created and joined in one turn", NMATCH);
	is_int(matchset_sync(ms), 0, "one sync makes them all durable");
	for (i = 0, n = 0; i < NMATCH; i++)
		n += defend(m[i], tok[i], 10 + 30 * i) == 0;
	is_int(n, NMATCH, "commands in every match, then one sync");
	is_int(matchset_sync(ms), 0, "which succeeds");
	/* Match 0's log must end in a command record for the last test. */
	log_path(m[0], dir, path, sizeof(path));
	while (!last_is_cmd(path, &b, &len, &st) && defend(m[0], tok[0],
	    1) == 0 && matchset_sync(ms) == 0)
		free(b);
	free(b);
	for (i = 0; i < NMATCH; i++) {
		snprintf(id[i], sizeof(id[i]), "%s", match_id(m[i]));
		seq[i] = match_seq(m[i]);
	}
	ok(seq[NMATCH - 1] > 140, "the longest match is past two state-hash "
	    "intervals (seq %llu)", (unsigned long long)seq[NMATCH - 1]);
	matchset_destroy(ms);

	reports[0] = 0;
	if (!ok(matchset_create(&cfg, &reg, collect_report, NULL, &ms, err,
	    sizeof(err)) == 0, "restart"))
		return done_testing();
	is_int(matchset_count(ms), NMATCH, "every match recovered");
	for (i = 0, n = 0; i < NMATCH; i++) {
		struct match *x = matchset_find(ms, id[i]);

		n += x != NULL && match_seq(x) == seq[i] && !match_finished(x);
	}
	is_int(n, NMATCH, "each at its seq, unfinished");
	{
		struct match *x = matchset_find(ms, id[NMATCH - 1]);

		ok(x != NULL && defend(x, tok[NMATCH - 1], 2) == 0 &&
		    matchset_sync(ms) == 0, "and the longest goes on");
	}
	matchset_destroy(ms);

	/* A wrong state hash in the last command record. */
	ok(last_is_cmd(path, &b, &len, &st) && st != NULL,
	    "match 0's log ends in a command record");
	if (st != NULL) {
		st[0] ^= 0x01;
		rechain(b, len, 0);
		ok(write_file(path, b, len) == 0, "its state hash edited, the "
		    "chain recomputed");
	}
	free(b);
	reports[0] = 0;
	if (!ok(matchset_create(&cfg, &reg, collect_report, NULL, &ms, err,
	    sizeof(err)) == 0, "restart"))
		return done_testing();
	ok(matchset_find(ms, id[0]) == NULL, "the edited match is not "
	    "resumed");
	ok(strstr(reports, "state hash") != NULL, "the report names the state "
	    "hash: %s", flat_reports());
	is_int(matchset_count(ms), NMATCH - 1, "the others are");
	matchset_destroy(ms);
	plugin_close(pl);
	remove_dir(dir);
	return done_testing();
}
