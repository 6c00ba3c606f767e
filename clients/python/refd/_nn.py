"""libnanomsg through ctypes: the few calls a refd client needs.

Debian ships libnanomsg (libnanomsg5) but no Python binding for it; this
module binds the C library directly.
"""
import ctypes
import ctypes.util
import errno as _errno

AF_SP = 1
NN_REQ = 3 * 16 + 0
NN_REP = 3 * 16 + 1
NN_SUB = 2 * 16 + 1
NN_SUB_SUBSCRIBE = 1
NN_SOL_SOCKET = 0
NN_SNDTIMEO = 4
NN_RCVTIMEO = 5
NN_RCVMAXSIZE = 16
NN_MSG = ctypes.c_size_t(-1).value


def _load():
    names = [ctypes.util.find_library("nanomsg"), "libnanomsg.so.5",
             "libnanomsg.so"]
    for n in names:
        if not n:
            continue
        try:
            return ctypes.CDLL(n, use_errno=True)
        except OSError:
            continue
    raise ImportError("libnanomsg not found: install libnanomsg5 "
                      "(apt-get install libnanomsg5)")


_lib = _load()
_lib.nn_socket.argtypes = [ctypes.c_int, ctypes.c_int]
_lib.nn_socket.restype = ctypes.c_int
_lib.nn_close.argtypes = [ctypes.c_int]
_lib.nn_close.restype = ctypes.c_int
_lib.nn_connect.argtypes = [ctypes.c_int, ctypes.c_char_p]
_lib.nn_connect.restype = ctypes.c_int
_lib.nn_bind.argtypes = [ctypes.c_int, ctypes.c_char_p]
_lib.nn_bind.restype = ctypes.c_int
_lib.nn_setsockopt.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int,
                               ctypes.c_void_p, ctypes.c_size_t]
_lib.nn_setsockopt.restype = ctypes.c_int
_lib.nn_send.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
                         ctypes.c_int]
_lib.nn_send.restype = ctypes.c_int
_lib.nn_recv.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
                         ctypes.c_int]
_lib.nn_recv.restype = ctypes.c_int
_lib.nn_freemsg.argtypes = [ctypes.c_void_p]
_lib.nn_freemsg.restype = ctypes.c_int
_lib.nn_errno.argtypes = []
_lib.nn_errno.restype = ctypes.c_int
_lib.nn_strerror.argtypes = [ctypes.c_int]
_lib.nn_strerror.restype = ctypes.c_char_p


class NanomsgError(OSError):
    """A libnanomsg call failed; errno is the library's error number."""


def _check(rc, what):
    if rc < 0:
        e = _lib.nn_errno()
        msg = _lib.nn_strerror(e).decode("utf-8", "replace")
        if e in (_errno.EAGAIN, _errno.ETIMEDOUT):
            raise TimeoutError(e, "%s: %s" % (what, msg))
        raise NanomsgError(e, "%s: %s" % (what, msg))
    return rc


class Socket:
    """One nanomsg socket (REQ or SUB), closed by close() or on exit."""

    def __init__(self, proto):
        self.fd = _check(_lib.nn_socket(AF_SP, proto), "nn_socket")

    def setopt_int(self, level, option, value):
        v = ctypes.c_int(value)
        _check(_lib.nn_setsockopt(self.fd, level, option, ctypes.byref(v),
                                  ctypes.sizeof(v)), "nn_setsockopt")

    def setopt_bytes(self, level, option, value):
        buf = ctypes.create_string_buffer(value, len(value))
        _check(_lib.nn_setsockopt(self.fd, level, option, buf, len(value)),
               "nn_setsockopt")

    def connect(self, endpoint):
        _check(_lib.nn_connect(self.fd, endpoint.encode()),
               "connect '%s'" % endpoint)

    def bind(self, endpoint):
        _check(_lib.nn_bind(self.fd, endpoint.encode()),
               "bind '%s'" % endpoint)

    def send(self, data):
        _check(_lib.nn_send(self.fd, data, len(data), 0), "nn_send")

    def recv(self):
        p = ctypes.c_void_p()
        n = _check(_lib.nn_recv(self.fd, ctypes.byref(p), NN_MSG, 0),
                   "nn_recv")
        try:
            return ctypes.string_at(p, n)
        finally:
            _lib.nn_freemsg(p)

    def close(self):
        if self.fd >= 0:
            _lib.nn_close(self.fd)
            self.fd = -1

    def __del__(self):
        self.close()
