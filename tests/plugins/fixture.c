/* fixture.c - loader test plugins, one source with -D variants (stub). */
#include <refd/plugin.h>
