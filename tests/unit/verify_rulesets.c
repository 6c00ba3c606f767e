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
		}
	}
	matchset_destroy(ms);
	for (i = 0; i < reg.n; i++)
		plugin_close(pls[i]);
	remove_dir(dir);
	return done_testing();
}
