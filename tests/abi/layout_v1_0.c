/*
 * layout_v1_0.c - the frozen ABI 1.0 headers (tests/abi/v1.0) against the
 * pinned 1.0 layout: the copy a good_old_minor plugin is built with must
 * stay exactly 1.0, so that fixture keeps proving old builds load.
 */
#include "v1.0/refd/plugin.h"
#include "pins.h"
#include "tap.h"

#if defined(__x86_64__) && defined(__LP64__)
PIN(sizeof(struct refd_plugin) == 64);
PIN(sizeof(struct refd_plugin_ops) == 128);
PIN(sizeof(struct refd_host) == 104);
#endif
PIN(REFD_ABI_MAJOR == 1);
PIN(REFD_ABI_MINOR == 0);

int
main(void)
{
	is_int(REFD_ABI_MAJOR, 1, "frozen header is ABI 1");
	is_int(REFD_ABI_MINOR, 0, "frozen header is minor 0");
	is_int(sizeof(struct refd_plugin), REFD_PLUGIN_SIZE_1_0,
	    "frozen descriptor is exactly the 1.0 size");
	is_int(sizeof(struct refd_plugin_ops), REFD_OPS_SIZE_1_0,
	    "frozen ops table is exactly the 1.0 size");
	is_int(sizeof(struct refd_host), REFD_HOST_SIZE_1_0,
	    "frozen host table is exactly the 1.0 size");
	return done_testing();
}
