/*
 * refctl.c - the command-line client: dispatch.
 */
#include <stdio.h>
#include <string.h>

#include "refctl.h"

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: refctl COMMAND [ARGS]\n"
	    "  check-plugin FILE.so [options]   conformance checker\n"
	    "  verify LOG [--plugin FILE.so] [--pubkey KEY]\n"
	    "  replay LOG [--json]\n");
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "check-plugin") == 0)
		return cmd_check_plugin(argc - 1, argv + 1);
	if (strcmp(argv[1], "verify") == 0)
		return cmd_verify(argc - 1, argv + 1);
	if (strcmp(argv[1], "replay") == 0)
		return cmd_replay(argc - 1, argv + 1);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "refctl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
