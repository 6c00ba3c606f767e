/*
 * refd/errors.h - the one error table shared by the plugin ABI and the wire.
 *
 * Every error refd reports, over the protocol or through the plugin ABI, is
 * a negative integer from this table.  The table is append-only: a value,
 * once published, keeps its number and its name forever.  New codes are
 * added at the end of their group with the next free number, and pinned
 * in tests/abi/layout.c (its test fails until they are).
 *
 * This header is part of the stable SDK.  It compiles alone as C99 and C++.
 */
#ifndef REFD_ERRORS_H
#define REFD_ERRORS_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * X(NAME, value, "sentence")
 *
 * Groups: 1-99 protocol and envelope, 100-199 match and seat, 200-299
 * rules (rejections by a ruleset plugin), 300-399 plugin and loader,
 * 400-499 log and verification, 500-599 resources and limits.
 */
#define REFD_ERRNO_MAP(X)                                                     \
	X(EPROTO, -1, "malformed request")                                     \
	X(EVERSION, -2, "unsupported protocol version")                        \
	X(EOP, -3, "unknown op")                                               \
	X(EARG, -4, "missing or invalid argument")                             \
	X(ETOOBIG, -5, "message too large")                                    \
	X(EDEPTH, -6, "message nested too deeply")                             \
	X(ERATE, -7, "request rate limit exceeded")                            \
	X(EINTERNAL, -8, "internal error")                                     \
	X(ESHUTDOWN, -9, "server is shutting down")                            \
	X(ENOMATCH, -100, "no such match")                                     \
	X(ENORULESET, -101, "no such ruleset")                                 \
	X(ENOSCENARIO, -102, "no such scenario")                               \
	X(ESEAT, -103, "no such seat")                                         \
	X(ESEATTAKEN, -104, "seat already taken")                              \
	X(ETOKEN, -105, "seat token does not match")                           \
	X(ESPECTATOR, -106, "spectators cannot act")                           \
	X(ESTALE, -107, "expected seq is stale")                               \
	X(EIDEMPOTENCY, -108, "command id reused with a different command")    \
	X(EFINISHED, -109, "match is finished")                                \
	X(ENOTSTARTED, -110, "match has not started")                          \
	X(ESETUP, -111, "invalid setup")                                       \
	X(EUNFINISHED, -112, "match is not finished")                          \
	X(ENOTYOURTURN, -200, "not your decision now")                         \
	X(EILLEGAL, -201, "illegal command")                                   \
	X(EBADCMD, -202, "malformed command")                                  \
	X(ENOTARGET, -203, "invalid target")                                   \
	X(ERANGE, -204, "out of range")                                        \
	X(ENOPATH, -205, "path is not legal")                                  \
	X(EPHASE, -206, "command not allowed in this phase")                   \
	X(ERESOURCE, -207, "not enough resources")                             \
	X(EBUILD, -208, "army or warband list is not legal")                   \
	X(EPLUGIN, -300, "plugin failed")                                      \
	X(EMAGIC, -301, "plugin magic number is wrong")                        \
	X(EABIMAJOR, -302, "plugin ABI major version mismatch")                \
	X(EABISIZE, -303, "plugin descriptor size mismatch")                   \
	X(EABIMINOR, -304, "plugin ABI minor version is newer than refd's")    \
	X(ECAPS, -305, "plugin requires unknown capabilities")                 \
	X(ENAME, -306, "plugin name does not match its file name")             \
	X(EOPS, -307, "plugin lacks a required op")                            \
	X(ENOENTRY, -308, "plugin has no entry symbol")                        \
	X(EINIT, -309, "plugin init failed")                                   \
	X(EPERM, -310, "plugin file permissions are unsafe")                   \
	X(EDLOPEN, -311, "plugin could not be opened")                         \
	X(EPLUGINFAULT, -312, "plugin misbehaved")                             \
	X(ECONTENT, -313, "ruleset content is invalid")                        \
	X(ESCRIPT, -314, "scripted dice exhausted or out of range")            \
	X(EDESC, -315, "plugin descriptor field is invalid")                   \
	X(ELOG, -400, "event log is damaged")                                  \
	X(ELOGIO, -401, "event log input/output error")                        \
	X(ECHAIN, -402, "event log hash chain is broken")                      \
	X(ESIG, -403, "event log signature is invalid")                        \
	X(EDIVERGE, -404, "replay diverges from the log")                      \
	X(ESEEDREVEAL, -405, "revealed seed does not match its commitment")    \
	X(ENOMEM, -500, "out of memory")                                       \
	X(ELIMIT, -501, "resource limit reached")                              \
	X(ETOOMANY, -502, "too many matches")

enum refd_errno {
	REFD_OK = 0,
#define REFD_ERRNO_ENUM_(name, val, msg) REFD_##name = (val),
	REFD_ERRNO_MAP(REFD_ERRNO_ENUM_)
#undef REFD_ERRNO_ENUM_
	REFD_ERRNO_MIN_ = -1000
};

#ifdef __cplusplus
}
#endif

#endif /* REFD_ERRORS_H */
