"""The events each ruleset emits, and their fields, against the manual.

    python3 tests/events/fields.py check     TAP: every event type and field
                                             the games below emit is in the
                                             ruleset's manual table, with
                                             its type
    python3 tests/events/fields.py write     rewrite those tables in
                                             man/refd-<ruleset>.7 from the
                                             games (keeps the descriptions)

The games: check-plugin's seeded games (refctl check-plugin --events) of
every scenario of every ruleset, templates aside, in the build REFD_BUILD:
the same games on every run, every event of every audience.  The table of a ruleset sits in its manual between the lines
`.\\" events-table-begin` and `.\\" events-table-end`:

    .It Li attack_roll Pq public
    attacker (int), target (int), dice (array), total (int), hit (bool)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("REFD_SRC", os.path.join(HERE, "..", ".."))
BUILD = os.environ.get("REFD_BUILD", os.path.join(SRC, "build"))
RULESETS = ["skirmish", "warband", "encounter", "dungeon", "massbattle"]
GAMES = 4
MAX_STEPS = 2000
HOST_KEYS = {"seq", "i", "n", "match"}
BEGIN = '.\\" events-table-begin'
END = '.\\" events-table-end'


def kind(v):
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, str):
        return "str"
    if isinstance(v, (list, tuple)):
        return "array"
    if isinstance(v, dict):
        return "map"
    return "bytes"


def collect():
    """Every ruleset's events in check-plugin's seeded games (the same
    games on every run): {ruleset: {type: {audience, fields}}}."""
    seen = {}
    tmp = tempfile.mkdtemp(prefix="refd-events-")
    try:
        for r in RULESETS:
            ev = seen.setdefault(r, {})
            content = os.path.join(BUILD, "rulesets", r)
            scen = sorted(f[:-5] for f in os.listdir(
                os.path.join(content, "scenarios")) if f.endswith(".json")
                and "template" not in f)
            for sc in scen:
                out = os.path.join(tmp, "%s-%s.jsonl" % (r, sc))
                p = subprocess.run(
                    [os.path.join(BUILD, "bin", "refctl"), "check-plugin",
                     os.path.join(BUILD, "plugins", r + ".so"), "--content",
                     content, "--scenario", sc, "--games", str(GAMES),
                     "--seed", "1", "--max-steps", str(MAX_STEPS),
                     "--events", out], stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE, text=True)
                if not os.path.exists(out):
                    raise SystemExit("check-plugin %s %s: %s" %
                                     (r, sc, p.stderr.strip()))
                with open(out) as f:
                    for line in f:
                        x = json.loads(line)
                        e = x["event"]
                        if not isinstance(e, dict):
                            continue
                        t = e.get("type", "?")
                        d = ev.setdefault(t, {"audience": set(),
                                              "fields": {}})
                        d["audience"].add("public" if x["seat"] < 0
                                          else "private")
                        for k, v in e.items():
                            if k in HOST_KEYS or k == "type":
                                continue
                            d["fields"].setdefault(k, set()).add(kind(v))
        return seen
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def man_path(ruleset):
    return os.path.join(SRC, "man", "refd-%s.7" % ruleset)


def parse_table(text):
    """{type: {"audience": str, "fields": {name: set(types)}}}."""
    out = {}
    if BEGIN not in text:
        return None
    body = text.split(BEGIN, 1)[1].split(END, 1)[0]
    cur = None
    for line in body.splitlines():
        m = re.match(r"^\.It Li (\S+) Pq (public|private|public, private)",
                     line)
        if m:
            cur = out.setdefault(m.group(1), {"audience": m.group(2),
                                              "fields": {}})
            continue
        if cur is None or line.startswith("."):
            continue
        for f in re.finditer(r"\\fB([^\\]+)\\fP \(([^)]*)\)", line):
            cur["fields"][f.group(1)] = set(
                x.strip() for x in f.group(2).split(" or "))
    return out


def render(ruleset, ev, old):
    lines = [BEGIN, ".Bl -tag -width Ds"]
    for t in sorted(ev):
        aud = ", ".join(sorted(ev[t]["audience"], key=lambda a: a != "public"))
        lines.append(".It Li %s Pq %s" % (t, aud))
        fields = ev[t]["fields"]
        keep = (old or {}).get(t, {}).get("fields", {})
        parts = []
        for k in sorted(set(fields) | set(keep)):
            types = set(fields.get(k, set())) | set(keep.get(k, set()))
            types.discard("nil") if len(types) > 1 else None
            parts.append("\\fB%s\\fP (%s)" % (k, " or ".join(sorted(types))))
        lines.append(", ".join(parts) if parts else "no fields")
    lines.append(".El")
    lines.append(END)
    return "\n".join(lines)


def write(seen):
    for r in RULESETS:
        p = man_path(r)
        text = open(p).read()
        old = parse_table(text)
        table = render(r, seen.get(r, {}), old)
        if old is None:
            # after the EVENTS section's prose, before the next section
            m = re.search(r"^\.Sh EVENTS\n(.*?)(?=^\.Sh )", text,
                          re.S | re.M)
            intro = (".Pp\nEvery event and its fields, with their types "
                     "(public: every audience sees it; private: only the "
                     "seat it is for):\n")
            if m is not None:
                ins = m.end()
                text = text[:ins] + intro + table + "\n" + text[ins:]
            else:
                m = re.search(r"^\.Sh COMMANDS\n(.*?)(?=^\.Sh )", text,
                              re.S | re.M)
                if m is None:
                    raise SystemExit("%s: no COMMANDS section" % p)
                ins = m.end()
                text = text[:ins] + ".Sh EVENTS\n" + intro[4:] + \
                    table + "\n" + text[ins:]
        else:
            text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END),
                          lambda _: table, text, flags=re.S)
        open(p, "w").write(text)
        print("wrote %s (%d events)" % (p, len(seen.get(r, {}))))


def check(seen):
    n = 0
    bad = 0
    out = []
    for r in RULESETS:
        doc = parse_table(open(man_path(r)).read())
        n += 1
        if doc is None:
            out.append("not ok %d - %s: the manual has an events table" %
                       (n, r))
            bad += 1
            continue
        out.append("ok %d - %s: the manual has an events table" % (n, r))
        for t in sorted(seen.get(r, {})):
            n += 1
            ev = seen[r][t]
            missing = []
            if t not in doc:
                missing.append("the event is not in the table")
            else:
                for k, types in sorted(ev["fields"].items()):
                    want = doc[t]["fields"].get(k)
                    if want is None:
                        missing.append("field '%s' is not documented" % k)
                    elif not (types - {"nil"}) <= want:
                        missing.append("field '%s': emitted as %s, "
                                       "documented as %s" %
                                       (k, "/".join(sorted(types)),
                                        "/".join(sorted(want))))
            if missing:
                bad += 1
                out.append("not ok %d - %s: event %s as emitted is "
                           "documented" % (n, r, t))
                out.extend("# " + m for m in missing)
            else:
                out.append("ok %d - %s: event %s as emitted is documented"
                           % (n, r, t))
    print("1..%d" % n)
    print("\n".join(out))
    if bad:
        print("# %d events drifted from the manual: run "
              "'python3 tests/events/fields.py write' and describe them"
              % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "check"
    seen = collect()
    if mode == "write":
        write(seen)
    else:
        sys.exit(check(seen))
