/*
 * pins.h - the ABI 1.0 layout, pinned: included by layout.c (against the
 * current SDK headers) and by layout_v1_0.c (against the frozen 1.0 copy in
 * tests/abi/v1.0).  Every struct member and every enum value published in
 * 1.0 is here; a build that moves one fails to compile.  Only x86_64 (LP64)
 * numbers are pinned; other targets check what is target-independent.
 *
 * Never edit a line of this file: a later minor adds its members and values
 * to layout.c, which sees the current headers.
 */
#ifndef REFD_ABI_PINS_H
#define REFD_ABI_PINS_H

#include <stddef.h>

#define PIN(x) _Static_assert(x, #x)
#define OFF(s, m, o) PIN(offsetof(struct s, m) == (o))

/* The frozen descriptor head: the same in every major. */
PIN(REFD_PLUGIN_MAGIC == 0x52454644u);
PIN(REFD_SEAT_PUBLIC == -1);
PIN(REFD_MAX_SEATS == 32);
OFF(refd_plugin, magic, 0);
OFF(refd_plugin, abi_major, 4);
OFF(refd_plugin, abi_minor, 6);
OFF(refd_plugin, size, 8);
PIN(sizeof(((struct refd_plugin *)0)->magic) == 4);
PIN(sizeof(((struct refd_plugin *)0)->abi_major) == 2);
PIN(sizeof(((struct refd_plugin *)0)->abi_minor) == 2);
PIN(sizeof(((struct refd_plugin *)0)->size) == 4);

PIN(REFD_LOG_ERROR == 0);
PIN(REFD_LOG_WARN == 1);
PIN(REFD_LOG_INFO == 2);
PIN(REFD_LOG_DEBUG == 3);
PIN(REFD_PF_ROLLBACK == 1);
PIN(REFD_PF_HIDDEN == 2);
PIN(REFD_PF_SEALED_SETUP == 4);
PIN(REFD_CAP_DRAWS == 1);
PIN(REFD_CAP_EVENTS == 2);
PIN(REFD_CAP_COMMIT == 4);
PIN(REFD_HOST_CAPS_V1_0 == 7);
PIN(REFD_OK == 0);
/* Every error code of ABI 1.0 keeps its number. */
PIN(REFD_EPROTO == -1);
PIN(REFD_EVERSION == -2);
PIN(REFD_EOP == -3);
PIN(REFD_EARG == -4);
PIN(REFD_ETOOBIG == -5);
PIN(REFD_EDEPTH == -6);
PIN(REFD_ERATE == -7);
PIN(REFD_EINTERNAL == -8);
PIN(REFD_ESHUTDOWN == -9);
PIN(REFD_ENOMATCH == -100);
PIN(REFD_ENORULESET == -101);
PIN(REFD_ENOSCENARIO == -102);
PIN(REFD_ESEAT == -103);
PIN(REFD_ESEATTAKEN == -104);
PIN(REFD_ETOKEN == -105);
PIN(REFD_ESPECTATOR == -106);
PIN(REFD_ESTALE == -107);
PIN(REFD_EIDEMPOTENCY == -108);
PIN(REFD_EFINISHED == -109);
PIN(REFD_ENOTSTARTED == -110);
PIN(REFD_ESETUP == -111);
PIN(REFD_ENOTYOURTURN == -200);
PIN(REFD_EILLEGAL == -201);
PIN(REFD_EBADCMD == -202);
PIN(REFD_ENOTARGET == -203);
PIN(REFD_ERANGE == -204);
PIN(REFD_ENOPATH == -205);
PIN(REFD_EPHASE == -206);
PIN(REFD_ERESOURCE == -207);
PIN(REFD_EBUILD == -208);
PIN(REFD_EPLUGIN == -300);
PIN(REFD_EMAGIC == -301);
PIN(REFD_EABIMAJOR == -302);
PIN(REFD_EABISIZE == -303);
PIN(REFD_EABIMINOR == -304);
PIN(REFD_ECAPS == -305);
PIN(REFD_ENAME == -306);
PIN(REFD_EOPS == -307);
PIN(REFD_ENOENTRY == -308);
PIN(REFD_EINIT == -309);
PIN(REFD_EPERM == -310);
PIN(REFD_EDLOPEN == -311);
PIN(REFD_EPLUGINFAULT == -312);
PIN(REFD_ECONTENT == -313);
PIN(REFD_ESCRIPT == -314);
PIN(REFD_EDESC == -315);
PIN(REFD_ELOG == -400);
PIN(REFD_ELOGIO == -401);
PIN(REFD_ECHAIN == -402);
PIN(REFD_ESIG == -403);
PIN(REFD_EDIVERGE == -404);
PIN(REFD_ESEEDREVEAL == -405);
PIN(REFD_ENOMEM == -500);
PIN(REFD_ELIMIT == -501);
PIN(REFD_ETOOMANY == -502);

#if defined(__x86_64__) && defined(__LP64__)
OFF(refd_plugin, flags, 12);
OFF(refd_plugin, required_caps, 16);
OFF(refd_plugin, name, 24);
OFF(refd_plugin, version, 32);
OFF(refd_plugin, summary, 40);
OFF(refd_plugin, min_seats, 48);
OFF(refd_plugin, max_seats, 52);
OFF(refd_plugin, ops, 56);
PIN(REFD_PLUGIN_SIZE_1_0 == 64);

OFF(refd_plugin_ops, size, 0);
OFF(refd_plugin_ops, init, 8);
OFF(refd_plugin_ops, fini, 16);
OFF(refd_plugin_ops, describe, 24);
OFF(refd_plugin_ops, content_load, 32);
OFF(refd_plugin_ops, content_free, 40);
OFF(refd_plugin_ops, create, 48);
OFF(refd_plugin_ops, apply, 56);
OFF(refd_plugin_ops, legal, 64);
OFF(refd_plugin_ops, pending, 72);
OFF(refd_plugin_ops, view, 80);
OFF(refd_plugin_ops, result, 88);
OFF(refd_plugin_ops, serialize, 96);
OFF(refd_plugin_ops, restore, 104);
OFF(refd_plugin_ops, destroy, 112);
OFF(refd_plugin_ops, redeal, 120);
PIN(REFD_OPS_SIZE_1_0 == 128);

OFF(refd_host, size, 0);
OFF(refd_host, abi_major, 4);
OFF(refd_host, abi_minor, 6);
OFF(refd_host, caps, 8);
OFF(refd_host, alloc, 16);
OFF(refd_host, realloc, 24);
OFF(refd_host, free, 32);
OFF(refd_host, log, 40);
OFF(refd_host, reject, 48);
OFF(refd_host, roll, 56);
OFF(refd_host, uniform, 64);
OFF(refd_host, shuffle, 72);
OFF(refd_host, emit, 80);
OFF(refd_host, output, 88);
OFF(refd_host, commit, 96);
PIN(REFD_HOST_SIZE_1_0 == 104);
#endif

#endif
