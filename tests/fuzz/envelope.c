/*
 * envelope.c - fuzz target: one request, as bytes off the wire, through
 * refd's protocol layer (envelope decoding, limits, op dispatch and every
 * op's arguments).  The reply must be one msgpack map with "ok".
 */
#include "daemon.h"

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
	fd_init();
	fd_request(data, size);
	return 0;
}
