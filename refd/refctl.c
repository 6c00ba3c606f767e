/*
 * refctl.c - the command-line client (entry point).
 */
#include <stdio.h>

int
main(void)
{
	fprintf(stderr, "refctl: not yet implemented\n");
	return 1;
}
