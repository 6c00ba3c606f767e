"""tamper_tail.py IN OUT MODE: rewrite the last command record of a refd
event log (refd-evlog(5)) the way someone without the daemon's key can:
change it, then recompute its frame hash (and the chain after it), so the
framing and the chain still hold.

MODE: illegal  the command becomes {"type": "no_such_command"}
      dice     its first draw's value becomes another one in range
      id       its command id changes
"""
import hashlib
import struct
import sys

import msgpack


def frames(b):
    out, off = [], 8
    while off < len(b):
        n = struct.unpack(">I", b[off:off + 4])[0]
        out.append(b[off + 8:off + 8 + n])
        off += 8 + n + 32
    return out


def frame(p):
    return struct.pack(">II", len(p), len(p) ^ 0xffffffff) + p + \
        hashlib.blake2b(p, digest_size=32).digest()


def main():
    src, dst, mode = sys.argv[1:4]
    b = open(src, "rb").read()
    ps = frames(b)
    recs = [msgpack.unpackb(p, raw=False, strict_map_key=False) for p in ps]
    last = max(i for i, r in enumerate(recs) if r["kind"] == "cmd")
    r = recs[last]
    if mode == "illegal":
        r["cmd"] = msgpack.packb({"type": "no_such_command"})
    elif mode == "dice":
        rec = next((rr for rr in recs[last:] + recs[::-1]
                    if rr["kind"] == "cmd" and rr.get("draws")
                    and rr["draws"][0][2] > 1), None)
        if rec is None:
            sys.exit("no draw to change")
        d = rec["draws"][0]
        d[3] = d[3] % d[2] + 1 if d[1] == 1 else (d[3] + 1) % d[2]
        last = recs.index(rec)
    elif mode == "id":
        r["id"] = r["id"] + "x"
    else:
        sys.exit("mode: illegal, dice or id")
    out = bytearray(b[:8])
    prev = None
    for i, rr in enumerate(recs):
        if i >= last:
            if prev is not None:
                rr["prev"] = prev
            p = msgpack.packb(rr)
        else:
            p = ps[i]
        out += frame(p)
        prev = hashlib.blake2b(p, digest_size=32).digest()
    open(dst, "wb").write(bytes(out))


main()
