/*
 * layout.c - the current SDK headers against the pinned ABI 1.0 layout
 * (pins.h), plus what later minors add and what is target-independent.
 * Most checks are static assertions: a header change that moves a member
 * or renumbers a value does not compile.
 */
#include <stdint.h>
#include <string.h>

#include "refd/errors.h"
#include "refd/mockhost.h"
#include "refd/mp.h"
#include "refd/plugin.h"
#include "abi/pins.h"
#include "tap.h"

/* Append-only: the current structs are at least their 1.0 size. */
PIN(sizeof(struct refd_plugin) >= REFD_PLUGIN_SIZE_1_0);
PIN(sizeof(struct refd_plugin_ops) >= REFD_OPS_SIZE_1_0);
PIN(sizeof(struct refd_host) >= REFD_HOST_SIZE_1_0);
PIN(REFD_ABI_MAJOR == 1);
PIN(REFD_ABI_MINOR >= 0);

/*
 * Error codes appended after the 1.0 freeze (pins.h has the 1.0 ones).
 * Whoever appends a code to errors.h pins it here and bumps
 * PINNED_CODES; the test below fails until they do.
 */
PIN(REFD_EUNFINISHED == -112);
#define PINNED_CODES (55 + 1)

/* mp.h is SDK (linked into the plugin), pinned all the same. */
PIN(REFD_MP_MISSING == 0);
PIN(REFD_MP_NIL == 1);
PIN(REFD_MP_BOOL == 2);
PIN(REFD_MP_INT == 3);
PIN(REFD_MP_FLOAT == 4);
PIN(REFD_MP_STR == 5);
PIN(REFD_MP_BIN == 6);
PIN(REFD_MP_ARRAY == 7);
PIN(REFD_MP_MAP == 8);
PIN(REFD_MP_EXT == 9);
PIN(REFD_MPCHECK_TRUNCATED == -1);
PIN(REFD_MPCHECK_BADBYTE == -2);
PIN(REFD_MPCHECK_DEPTH == -3);
PIN(REFD_MPCHECK_TRAILING == -4);
PIN(REFD_MP_MAX_DEPTH == 32);
PIN(REFD_MOCK_ANY == 0);
PIN(REFD_MOCK_INIT == 1);
PIN(REFD_MOCK_CONTENT == 2);
PIN(REFD_MOCK_CREATE == 3);
PIN(REFD_MOCK_APPLY == 4);
PIN(REFD_MOCK_QUERY == 5);
PIN(REFD_MOCK_REDEAL == 6);
#if defined(__x86_64__) && defined(__LP64__)
PIN(sizeof(refd_mpv) == 16);
PIN(offsetof(refd_mpv, p) == 0);
PIN(offsetof(refd_mpv, doc) == 8);
#endif

#define STR_(x) #x
#define STR(x) STR_(x)

static void *
noalloc(refd_ctx *ctx, size_t n)
{
	(void)ctx;
	(void)n;
	return NULL;
}

int
main(void)
{
	static const struct {
		const char *name;
		int val;
	} tab[] = {
#define X(n, v, m) { #n, v },
		REFD_ERRNO_MAP(X)
#undef X
	};
	size_t n = sizeof(tab) / sizeof(tab[0]), i, j;
	int dup = 0, range = 0;
	struct refd_host h;

	ok(1, "static layout assertions hold (this file compiled)");
	is_str(STR(REFD_PLUGIN_ENTRY), REFD_PLUGIN_ENTRY_STR,
	    "entry symbol name matches its string");
	is_str(REFD_PLUGIN_ENTRY_STR, "refd_plugin_v1",
	    "ABI 1 entry symbol is refd_plugin_v1");
	for (i = 0; i < n; i++) {
		if (tab[i].val >= 0 || tab[i].val <= REFD_ERRNO_MIN_)
			range++;
		for (j = i + 1; j < n; j++)
			if (tab[i].val == tab[j].val ||
			    strcmp(tab[i].name, tab[j].name) == 0)
				dup++;
	}
	is_int(dup, 0, "error codes and names are unique");
	is_int(n, PINNED_CODES, "every error code is pinned (pins.h and "
	    "layout.c)");
	is_int(range, 0, "error codes are negative and above REFD_ERRNO_MIN_");

	/* REFD_HOST_HAS on a host table that stops before a member. */
	memset(&h, 0, sizeof(h));
	h.alloc = noalloc;
	h.commit = NULL;
	h.size = (uint32_t)offsetof(struct refd_host, alloc) +
	    (uint32_t)sizeof(h.alloc);
	ok(REFD_HOST_HAS(&h, alloc), "REFD_HOST_HAS sees a member in size");
	ok(!REFD_HOST_HAS(&h, realloc),
	    "REFD_HOST_HAS refuses a member past size");
	h.size = sizeof(h);
	ok(!REFD_HOST_HAS(&h, commit), "REFD_HOST_HAS refuses a NULL member");
	return done_testing();
}
