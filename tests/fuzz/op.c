/*
 * op.c - fuzz target: one op's arguments.  The first byte picks the op;
 * the rest is a msgpack map of arguments, completed with what a client
 * would know (v, id, op, the live match's id and the seat's token, unless
 * the input gives them), so that mutations reach past the envelope into
 * each op and the live match.
 */
#include "daemon.h"

static const char *const opnames[] = {
	"hello", "rulesets", "create", "join", "act", "legal", "pending",
	"view", "events", "export", "resign", "abort", "matches", "stats",
	"pubkey"
};
#define NOPS (sizeof(opnames) / sizeof(opnames[0]))

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd_init();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	refd_mpdoc *d;
	refd_mpv root, seat;
	refd_mpw *w;
	int64_t s = -1;
	size_t i;

	fd_init();
	if (size < 2 || refd_mp_check(data + 1, size - 1, 16) != 0)
		return 0;
	if ((d = refd_mp_parse(data + 1, size - 1)) == NULL)
		return 0;
	root = refd_mp_root(d);
	if (refd_mpv_type(root) != REFD_MP_MAP || (w = refd_mpw_create()) ==
	    NULL) {
		refd_mp_free(d);
		return 0;
	}
	seat = refd_mpv_get(root, "seat");
	if (refd_mpv_int(seat, &s) != 0)
		s = -1;
	refd_mpw_map(w);
	if (!refd_mpv_ok(refd_mpv_get(root, "v")))
		refd_mpw_kint(w, "v", 1);
	if (!refd_mpv_ok(refd_mpv_get(root, "id")))
		refd_mpw_kint(w, "id", 1);
	if (!refd_mpv_ok(refd_mpv_get(root, "op")))
		refd_mpw_kstr(w, "op", opnames[data[0] % NOPS]);
	if (!refd_mpv_ok(refd_mpv_get(root, "match")))
		refd_mpw_kstr(w, "match", match_id(fd.live));
	if (!refd_mpv_ok(refd_mpv_get(root, "token")) && s >= 0 &&
	    s < (int64_t)fd.nseats && s < FD_SEATS)
		refd_mpw_kstr(w, "token", fd.token[s]);
	for (i = 0; i < refd_mpv_len(root); i++) {
		refd_mpw_value(w, refd_mpv_key_at(root, i));
		refd_mpw_value(w, refd_mpv_val_at(root, i));
	}
	refd_mpw_end(w);
	if (!refd_mpw_error(w))
		fd_request(refd_mpw_data(w), refd_mpw_len(w));
	refd_mpw_destroy(w);
	refd_mp_free(d);
	return 0;
}
