"""The shared protocol cases (tests/protocol/cases.json) with the Python
client: the same cases the Perl and the JavaScript suites run."""
import json
import os
import subprocess
import time
import unittest

import refd

from test_client import BUILD, Daemon

SRC = os.environ.get("REFD_SRC", os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", "..", ".."))
CASES = json.load(open(os.path.join(SRC, "tests", "protocol", "cases.json")))


def subst(v, names):
    if isinstance(v, str) and v.startswith("$"):
        return names[v[1:]]
    if isinstance(v, dict):
        return {k: subst(x, names) for k, x in v.items()}
    if isinstance(v, list):
        return [subst(x, names) for x in v]
    return v


@unittest.skipUnless(BUILD, "REFD_BUILD is not set")
class SharedCases(unittest.TestCase):
    def restart(self, d):
        d.proc.terminate()
        d.proc.wait()
        d.proc = subprocess.Popen(
            [os.path.join(BUILD, "bin/refd"), "--state-dir",
             os.path.join(d.dir, "state"), "--listen", d.cmd, "--publish",
             d.ev, "--rate-limit", "0"], stdout=d.out,
            stderr=subprocess.STDOUT)

    def run_case(self, d, c, case):
        names = {}
        for i, st in enumerate(case["steps"]):
            where = "%s, step %d" % (case["name"], i)
            if st.get("restart"):
                self.restart(d)
                continue
            if "events_numbered" in st:
                evs = c.all_events(subst(st["events_numbered"], names))
                ns = [e.get("n") for e in evs]
                self.assertEqual(ns, list(range(1, len(evs) + 1)), where)
                continue
            if "follow" in st:
                m = subst(st["follow"], names)
                want = c.all_events(m, since=st.get("since", 0))
                sub = c.subscribe(m, since=st.get("since", 0), endpoint=d.ev)
                got = []
                try:
                    for e in sub:
                        got.append(e)
                finally:
                    sub.close()
                key = [(e["seq"], e["i"]) for e in want]
                self.assertEqual([(e["seq"], e["i"]) for e in got], key,
                                 where)
                self.assertEqual(got[-1]["type"], "end", where)
                continue
            args = subst(st.get("args", {}), names)
            exp = st["expect"]
            try:
                res = c.request(st["op"], **args)
                err = None
            except refd.RefdError as e:
                res, err = None, e
            if "error" in exp:
                self.assertIsNotNone(err, "%s: %s should fail with %s" %
                                     (where, st["op"], exp["error"]))
                self.assertEqual(err.name, exp["error"], "%s: %s" %
                                 (where, err))
                continue
            self.assertIsNone(err, "%s: %s failed: %s" % (where, st["op"],
                                                          err))
            for k in exp.get("has", []):
                self.assertIn(k, res, where)
            for k, v in exp.get("equal", {}).items():
                self.assertEqual(res.get(k), v, "%s: %s" % (where, k))
            for name, k in st.get("save", {}).items():
                names[name] = res[k]

    def test_shared_cases(self):
        d = Daemon("--rate-limit", "0")
        c = refd.Client(d.cmd, timeout=2.0, tries=5)
        try:
            for case in CASES["cases"]:
                with self.subTest(case=case["name"]):
                    self.run_case(d, c, case)
        finally:
            c.close()
            d.stop()


if __name__ == "__main__":
    unittest.main()
