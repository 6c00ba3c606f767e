/*
 * verify_rulesets.c - every built ruleset: play each scenario (or the
 * default setup) through match.c choosing from the legal commands, end
 * it, and check that refctl verify accepts the log.  Rulesets are found
 * in $REFD_BUILD/plugins as they land.
 */
#include <dirent.h>

#include "tap.h"
#include "matchlib.h"

static char out[65536];

/*
 * Rewrite the final record of a log with the winners swapped (every seat
 * that did not win wins, and the other way round), its end event to
 * match, and sign it again with the daemon key of dir: what a holder of
 * the key could forge.  0, or -1.
 */
static int
forge_final(const char *dir, const char *log)
{
	struct evlog_scan sc;
	struct evlog_rec fin;
	struct evlog_key k;
	struct evlog l;
	struct commitment *cm = NULL;
	refd_mpdoc *d = NULL;
	refd_mpv win;
	refd_mpw *w = NULL, *res = NULL;
	uint8_t *p = NULL;
	char err[512];
	uint32_t s, nseats;
	size_t i, last, len;
	int created, rc = -1, kok = 0, decoded = 0;

	memset(&fin, 0, sizeof(fin));
	if (evlog_scan_file(log, &sc, err, sizeof(err)) != 0 || sc.n < 2)
		return -1;
	last = sc.n - 1;
	if (evlog_decode(sc.fr[last].p, sc.fr[last].len, &fin, err,
	    sizeof(err)) != 0 || fin.kind != EVK_FINAL)
		goto out;
	decoded = 1;
	{
		struct evlog_rec h;

		if (evlog_decode(sc.fr[0].p, sc.fr[0].len, &h, err,
		    sizeof(err)) != 0)
			goto out;
		nseats = h.nseats;
		evlog_rec_release(&h);
	}
	if (evlog_key_load(dir, &k, &created, err, sizeof(err)) != 0)
		goto out;
	kok = 1;
	d = refd_mp_parse(fin.result, fin.result_len);
	win = refd_mpv_get(refd_mp_root(d), "winners");
	res = refd_mpw_create();
	refd_mpw_map(res);
	refd_mpw_karray(res, "winners");
	for (s = 0; s < nseats; s++) {
		int was = 0;

		for (i = 0; i < refd_mpv_len(win); i++) {
			int64_t x;

			if (refd_mpv_int(refd_mpv_at(win, i), &x) == 0 &&
			    x == (int64_t)s)
				was = 1;
		}
		if (!was)
			refd_mpw_int(res, s);
	}
	refd_mpw_end(res);
	refd_mpw_kstr(res, "reason", "forged");
	refd_mpw_end(res);
	cm = calloc(fin.nopen + 1, sizeof(*cm));
	if (cm == NULL)
		goto out;
	for (i = 0; i < fin.nopen; i++) {
		snprintf(cm[i].zone, sizeof(cm[i].zone), "%s", fin.open[i].zone);
		cm[i].seat = fin.open[i].seat;
		memcpy(cm[i].salt, fin.open[i].salt, sizeof(cm[i].salt));
		cm[i].data = (uint8_t *)(uintptr_t)fin.open[i].data;
		cm[i].len = fin.open[i].len;
	}
	w = refd_mpw_create();
	evlog_enc_final(w, fin.n, fin.seq, fin.prev, fin.why, fin.seat,
	    fin.reason, refd_mpw_data(res), refd_mpw_len(res), fin.server_seed,
	    cm, fin.nopen, fin.time);
	if (refd_mpw_error(w) || refd_mpw_error(res))
		goto out;
	len = refd_mpw_len(w);
	if ((p = malloc(len)) == NULL)
		goto out;
	memcpy(p, refd_mpw_data(w), len);
	if (evlog_sign(&k, p, len) != 0 || truncate(log,
	    (off_t)sc.fr[last].off) != 0 || evlog_reopen(&l, log,
	    sc.fr[last].off, last, sc.fr[last - 1].hash, err,
	    sizeof(err)) != 0)
		goto out;
	rc = evlog_append(&l, p, len, NULL) == 0 ? 0 : -1;
	evlog_release(&l);
out:
	if (rc != 0)
		diag("forge: %s", err);
	free(p);
	free(cm);
	refd_mpw_destroy(w);
	refd_mpw_destroy(res);
	refd_mp_free(d);
	if (decoded)
		evlog_rec_release(&fin);
	if (kok)
		evlog_key_release(&k);
	evlog_scan_release(&sc);
	return rc;
}

/* Play up to n steps choosing among the legal commands; 0 or -1. */
static int
play_legal(struct matchset *ms, struct match *m,
    char tok[][MATCH_TOKEN_LEN + 1], uint32_t nseats, int n)
{
	struct match_err e;
	int step;

	for (step = 0; step < n && !match_finished(m); step++) {
		uint64_t seats = 0;
		uint32_t s;
		struct buf b;
		refd_mpdoc *d;
		refd_mpv arr;
		size_t k, cnt;
		int done = 0;

		if (match_pending(m, &seats, &e) != 0 || seats == 0)
			return 0;
		for (s = 0; s < nseats && !(seats & ((uint64_t)1 << s)); s++)
			;
		buf_init(&b);
		if (match_legal(m, s, tok[s], &b, &e) != 0) {
			buf_release(&b);
			diag("legal: %s", e.message);
			return -1;
		}
		d = refd_mp_parse(b.data, b.len);
		arr = refd_mp_root(d);
		cnt = refd_mpv_len(arr);
		for (k = 0; k < cnt && !done; k++) {
			refd_mpv cmd = refd_mpv_get(refd_mpv_at(arr,
			    (k + (size_t)step * 7) % cnt), "cmd");
			refd_mpw *w;
			struct act_result ar;
			char id[32];

			if (refd_mpv_type(cmd) != REFD_MP_MAP)
				continue;
			w = refd_mpw_create();
			refd_mpw_value(w, cmd);
			snprintf(id, sizeof(id), "s%d-%zu", step, k);
			if (match_act(m, s, tok[s], id, -1, refd_mpw_data(w),
			    refd_mpw_len(w), &ar, &e) == 0)
				done = 1;
			refd_mpw_destroy(w);
		}
		refd_mp_free(d);
		buf_release(&b);
		if (matchset_sync(ms) != 0)
			return -1;
		if (!done)
			return 0;	/* only templates left: stop here */
	}
	return 0;
}

int
main(void)
{
	char *dir = temp_dir();
	char pdir[4200], err[1024], log[4300];
	struct match_config cfg;
	struct plugin *pls[64];
	struct registry reg = { pls, 0 };
	struct matchset *ms;
	struct dirent *de;
	DIR *dd;
	size_t i, k;

	build_dir = getenv("REFD_BUILD");
	if (build_dir == NULL)
		build_dir = "build";
	snprintf(pdir, sizeof(pdir), "%s/plugins", build_dir);
	dd = opendir(pdir);
	while (dd != NULL && (de = readdir(dd)) != NULL && reg.n < 64) {
		size_t l = strlen(de->d_name);
		char p[4400], c[4400];
		struct plugin *pl;

		if (l < 4 || strcmp(de->d_name + l - 3, ".so") != 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", pdir, de->d_name);
		if (!ok(plugin_open(p, &pl, err, sizeof(err)) == 0, "load %s",
		    de->d_name)) {
			diag("%s", err);
			continue;
		}
		snprintf(c, sizeof(c), "%s/rulesets/%s", build_dir, pl->name);
		if (!ok(plugin_load_content(pl, c, err, sizeof(err)) == 0,
		    "content of %s", pl->name)) {
			diag("%s", err);
			plugin_close(pl);
			continue;
		}
		pls[reg.n++] = pl;
	}
	if (dd != NULL)
		closedir(dd);
	ok(reg.n >= 1, "%zu rulesets built", reg.n);
	default_config(&cfg, dir);
	if (matchset_create(&cfg, &reg, collect_report, NULL, &ms, err,
	    sizeof(err)) != 0) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	for (i = 0; i < reg.n; i++) {
		struct plugin *pl = pls[i];
		size_t nsc = pl->nscenarios ? pl->nscenarios : 1;

		for (k = 0; k < nsc; k++) {
			struct match_create_args a;
			struct match_err e;
			struct match *m;
			char tok[REFD_MAX_SEATS][MATCH_TOKEN_LEN + 1];
			const char *what = pl->nscenarios ?
			    pl->scenarios[k].name : "(default setup)";
			uint32_t s;
			int rc = 0;

			memset(&a, 0, sizeof(a));
			a.ruleset = pl->name;
			a.scenario = pl->nscenarios ? what : NULL;
			if (!ok(match_create(ms, &a, &m, &e) == 0, "%s %s: create",
			    pl->name, what)) {
				diag("%s", e.message);
				continue;
			}
			for (s = 0; s < match_nseats(m) && rc == 0; s++)
				rc = match_join(m, s, (const uint8_t *)"t", 1,
				    tok[s], &e);
			if (!ok(rc == 0, "%s %s: join", pl->name, what)) {
				diag("%s", e.message);
				continue;
			}
			rc = play_legal(ms, m, tok, match_nseats(m), 300);
			ok(rc == 0 && match_seq(m) > match_nseats(m) + 2,
			    "%s %s: played to seq %llu", pl->name, what,
			    (unsigned long long)match_seq(m));
			if (!match_finished(m))
				match_abort(m, "test over", &e);
			matchset_sync(ms);
			log_path(m, dir, log, sizeof(log));
			is_int(run(out, sizeof(out), "'%s/bin/refctl' verify "
			    "--pubkey-file '%s/refd.pub' '%s'", build_dir, dir,
			    log), 0, "%s %s: refctl verify accepts the log",
			    pl->name, what);
			if (strstr(out, "VERIFIED") == NULL)
				diag("%s", out);
			if (!ok(forge_final(dir, log) == 0, "%s %s: the final "
			    "record re-signed with the winners swapped",
			    pl->name, what))
				continue;
			is_int(run(out, sizeof(out), "'%s/bin/refctl' verify "
			    "--pubkey-file '%s/refd.pub' '%s'", build_dir, dir,
			    log), 1, "%s %s: refctl verify refuses it", pl->name,
			    what);
			if (strstr(out, ": result: the log says") == NULL ||
			    strstr(out, "the replay says") == NULL)
				diag("%s", out);
		}
	}
	matchset_destroy(ms);
	for (i = 0; i < reg.n; i++)
		plugin_close(pls[i]);
	remove_dir(dir);
	return done_testing();
}
