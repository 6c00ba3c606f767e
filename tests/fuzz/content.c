/*
 * content.c - fuzz target: ruleset content, as JSON text, through the
 * content loader (jansson, JSON to msgpack) and the plugin's content_load;
 * content the plugin accepts is then used: a game is created from the
 * first scenario (or an empty setup) and viewed and listed for each seat.
 *
 * The first input byte picks which content file (stem) of the plugin's
 * real content the rest replaces (one past the last adds a new stem).
 */
#include <jansson.h>

#include "fuzz.h"
#include "jsonmp.h"

static uint8_t *orig;
static size_t orig_len;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct plugin *pl = fuzz_plugin();

	(void)argc;
	(void)argv;
	orig_len = pl->content_len;
	orig = malloc(orig_len ? orig_len : 1);
	if (orig == NULL)
		fuzz_die("%s", "out of memory");
	memcpy(orig, pl->content, orig_len);
	return 0;
}

static void
use(struct plugin *pl)
{
	static const uint8_t empty_map = 0x80;
	struct game *g = NULL;
	struct call c;
	struct rng r;
	uint32_t s;

	call_init(&c);
	fuzz_rng(&r, 1);
	if (game_create(pl, pl->nscenarios ? pl->scenarios[0].setup :
	    &empty_map, pl->nscenarios ? pl->scenarios[0].setup_len : 1,
	    pl->desc->min_seats, &r, 64 << 20, &g, &c) == REFD_OK) {
		for (s = 0; s < g->nseats; s++) {
			(void)game_legal(g, s, &c);
			(void)game_view(g, (int32_t)s, &c);
		}
		(void)game_view(g, REFD_SEAT_PUBLIC, &c);
		game_destroy(g);
	}
	rng_release(&r);
	call_release(&c);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plugin *pl = fuzz_plugin();
	refd_mpdoc *d;
	refd_mpv root;
	refd_mpw *w;
	json_error_t je;
	json_t *j;
	struct call c;
	size_t i, n, pick;

	if (orig == NULL)
		LLVMFuzzerInitialize(NULL, NULL);
	if (size < 1 || (d = refd_mp_parse(orig, orig_len)) == NULL)
		return 0;
	j = json_loadb((const char *)data + 1, size - 1,
	    JSON_REJECT_DUPLICATES, &je);
	if (j == NULL) {
		refd_mp_free(d);
		return 0;
	}
	root = refd_mp_root(d);
	n = refd_mpv_len(root);
	pick = data[0] % (n + 1);
	w = refd_mpw_create();
	refd_mpw_map(w);
	for (i = 0; i < n; i++) {
		refd_mpw_value(w, refd_mpv_key_at(root, i));
		if (i == pick)
			json_to_mp(j, w);
		else
			refd_mpw_value(w, refd_mpv_val_at(root, i));
	}
	if (pick == n) {
		refd_mpw_str(w, "fuzz");
		json_to_mp(j, w);
	}
	refd_mpw_end(w);
	json_decref(j);
	refd_mp_free(d);
	if (refd_mpw_error(w)) {
		refd_mpw_destroy(w);
		return 0;
	}
	free(pl->content);
	pl->content_len = refd_mpw_len(w);
	pl->content = malloc(pl->content_len);
	memcpy(pl->content, refd_mpw_data(w), pl->content_len);
	refd_mpw_destroy(w);
	call_init(&c);
	if (plugin_set_content(pl, &c) == REFD_OK)
		use(pl);
	call_release(&c);
	return 0;
}
