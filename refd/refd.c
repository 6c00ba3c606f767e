/*
 * refd.c - the referee daemon (entry point).
 */
#include <stdio.h>

int
main(void)
{
	fprintf(stderr, "refd: not yet implemented\n");
	return 1;
}
