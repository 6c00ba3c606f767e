/*
 * refctl_verify.c - refctl verify and replay: offline log checks.
 */
#include <stdio.h>

#include "refctl.h"

int
cmd_verify(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "refctl verify: not yet implemented\n");
	return 1;
}

int
cmd_replay(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "refctl replay: not yet implemented\n");
	return 1;
}
