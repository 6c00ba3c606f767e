/*
 * refctl_check.c - refctl check-plugin: the conformance checker.
 */
#include <stdio.h>

#include "refctl.h"

int
cmd_check_plugin(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "refctl check-plugin: not yet implemented\n");
	return 1;
}
