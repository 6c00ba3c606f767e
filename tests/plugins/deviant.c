/*
 * deviant.c - a fixture plugin that claims to be "duel" but behaves
 * differently: the example duel with every attack total one higher.  Built
 * as $(B)/tests/plugins/deviant/duel.so so its name matches its file; the
 * verifier must find the first record where it parts from a real log.
 */
#include <string.h>

#include <refd/mp.h>

static void
deviant_kint(refd_mpw *w, const char *k, int64_t i)
{
	if (strcmp(k, "total") == 0)
		i++;
	refd_mpw_kint(w, k, i);
}

#define refd_mpw_kint deviant_kint
#include "../../sdk/examples/duel/duel.c"
