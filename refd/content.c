/*
 * content.c - ruleset content: JSON files turned into msgpack for plugins.
 *
 * Layout of a content directory (rulesets/<name>/):
 *   *.json            one content file each, keyed by its stem
 *   scenarios/NAME.json  ready-made setups a client names in "create"
 */
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sodium.h>

#include "engine.h"
#include "jsonmp.h"

struct flist {
	char **v;
	size_t n;
};

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted *.json names in dir; a missing dir is an empty list. */
static int
list_json(const char *dir, struct flist *fl)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	fl->v = NULL;
	fl->n = 0;
	if (d == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		char **nv;

		if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0 ||
		    e->d_name[0] == '.')
			continue;
		nv = realloc(fl->v, (fl->n + 1) * sizeof(*nv));
		if (nv == NULL)
			break;
		fl->v = nv;
		fl->v[fl->n] = strdup(e->d_name);
		if (fl->v[fl->n] != NULL)
			fl->n++;
	}
	closedir(d);
	if (fl->n > 1)
		qsort(fl->v, fl->n, sizeof(*fl->v), cmpstr);
	return 0;
}

static void
flist_free(struct flist *fl)
{
	size_t i;

	for (i = 0; i < fl->n; i++)
		free(fl->v[i]);
	free(fl->v);
}

static json_t *
load_json(const char *path, char *err, size_t errlen)
{
	json_error_t je;
	json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);

	if (j == NULL)
		snprintf(err, errlen, "content '%s': line %d column %d: %s",
		    path, je.line, je.column, je.text);
	return j;
}

int
plugin_load_content(struct plugin *pl, const char *dir, char *err,
    size_t errlen)
{
	struct flist fl;
	refd_mpw *w;
	char path[4096];
	size_t i;
	int rc = REFD_OK;

	if (list_json(dir, &fl) != 0) {
		snprintf(err, errlen, "content '%s': cannot read: %s", dir,
		    strerror(errno));
		return REFD_ECONTENT;
	}
	w = refd_mpw_create();
	if (w == NULL) {
		flist_free(&fl);
		return REFD_ENOMEM;
	}
	refd_mpw_map(w);
	for (i = 0; i < fl.n && rc == REFD_OK; i++) {
		json_t *j;

		snprintf(path, sizeof(path), "%s/%s", dir, fl.v[i]);
		j = load_json(path, err, errlen);
		if (j == NULL) {
			rc = REFD_ECONTENT;
			break;
		}
		refd_mpw_strn(w, fl.v[i], strlen(fl.v[i]) - 5);
		json_to_mp(j, w);
		json_decref(j);
	}
	refd_mpw_end(w);
	flist_free(&fl);
	if (rc == REFD_OK && refd_mpw_error(w))
		rc = REFD_ENOMEM;
	if (rc == REFD_OK) {
		struct call c;

		free(pl->content);
		pl->content_len = refd_mpw_len(w);
		pl->content = malloc(pl->content_len);
		if (pl->content == NULL) {
			rc = REFD_ENOMEM;
		} else {
			memcpy(pl->content, refd_mpw_data(w), pl->content_len);
			crypto_generichash(pl->content_hash, ENG_HASH_LEN,
			    pl->content, pl->content_len, NULL, 0);
			call_init(&c);
			rc = plugin_set_content(pl, &c);
			if (rc != REFD_OK)
				snprintf(err, errlen, "content '%s': %s%s%s",
				    dir, c.reject_msg[0] ? c.reject_msg :
				    c.fault[0] ? c.fault : refd_strerror(rc),
				    c.reject_rule[0] ? " at " : "", c.reject_rule);
			call_release(&c);
		}
	}
	refd_mpw_destroy(w);
	if (rc != REFD_OK)
		return rc;

	/* Scenarios. */
	snprintf(path, sizeof(path), "%s/scenarios", dir);
	if (list_json(path, &fl) != 0) {
		snprintf(err, errlen, "content '%s': cannot read: %s", path,
		    strerror(errno));
		return REFD_ECONTENT;
	}
	for (i = 0; i < fl.n && rc == REFD_OK; i++) {
		char fp[4200];
		json_t *j;
		struct scenario *ns;

		snprintf(fp, sizeof(fp), "%s/%s", path, fl.v[i]);
		j = load_json(fp, err, errlen);
		if (j == NULL) {
			rc = REFD_ECONTENT;
			break;
		}
		if (!json_is_object(j)) {
			snprintf(err, errlen,
			    "content '%s': top level: expected an object", fp);
			json_decref(j);
			rc = REFD_ECONTENT;
			break;
		}
		w = refd_mpw_create();
		ns = realloc(pl->scenarios,
		    (pl->nscenarios + 1) * sizeof(*ns));
		if (w == NULL || ns == NULL) {
			refd_mpw_destroy(w);
			json_decref(j);
			rc = REFD_ENOMEM;
			break;
		}
		pl->scenarios = ns;
		json_to_mp(j, w);
		json_decref(j);
		ns = &pl->scenarios[pl->nscenarios];
		ns->name = strndup(fl.v[i], strlen(fl.v[i]) - 5);
		ns->setup_len = refd_mpw_len(w);
		ns->setup = malloc(ns->setup_len);
		if (ns->name == NULL || ns->setup == NULL) {
			free(ns->name);
			free(ns->setup);
			refd_mpw_destroy(w);
			rc = REFD_ENOMEM;
			break;
		}
		memcpy(ns->setup, refd_mpw_data(w), ns->setup_len);
		refd_mpw_destroy(w);
		pl->nscenarios++;
	}
	flist_free(&fl);
	if (rc == REFD_OK) {
		free(pl->content_dir);
		pl->content_dir = strdup(dir);
	}
	return rc;
}
