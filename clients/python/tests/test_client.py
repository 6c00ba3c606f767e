"""The Python client against a real refd (REFD_BUILD names the build)."""
import os
import shutil
import subprocess
import tempfile
import threading
import time
import unittest

import msgpack

import refd
from refd import _nn

BUILD = os.environ.get("REFD_BUILD", "")


class Daemon:
    """A refd of its own in a temporary directory, ipc endpoints only."""

    def __init__(self, *extra):
        self.dir = tempfile.mkdtemp(prefix="refd-py-")
        self.cmd = "ipc://%s/r.sock" % self.dir
        self.ev = "ipc://%s/e.sock" % self.dir
        self.out = open(os.path.join(self.dir, "refd.out"), "w")
        self.proc = subprocess.Popen(
            [os.path.join(BUILD, "bin/refd"), "--state-dir",
             os.path.join(self.dir, "state"), "--listen", self.cmd,
             "--publish", self.ev] + list(extra),
            stdout=self.out, stderr=subprocess.STDOUT)
        c = refd.Client(self.cmd, timeout=0.3, tries=1)
        for _ in range(100):
            try:
                c.hello()
                break
            except (TimeoutError, refd.NanomsgError):
                time.sleep(0.1)
        c.close()

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        self.out.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@unittest.skipUnless(BUILD, "REFD_BUILD is not set")
class AgainstRefd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = Daemon("--rate-limit", "0")
        cls.c = refd.Client(cls.d.cmd)

    @classmethod
    def tearDownClass(cls):
        cls.c.close()
        cls.d.stop()

    def test_hello_and_rulesets(self):
        h = self.c.hello()
        self.assertEqual(h["server"], "refd")
        names = [r["name"] for r in self.c.rulesets()]
        for n in ("duel", "dungeon", "encounter", "massbattle", "skirmish",
                  "warband"):
            self.assertIn(n, names)

    def _start(self, ruleset, scenario):
        m = self.c.create(ruleset, scenario=scenario)
        self.assertRegex(m.match, "^[0-9a-f]{16}$")
        tokens = {}
        seat = 0
        while True:
            try:
                j = self.c.join(m.match, seat, seed="py %d" % seat)
            except refd.RefdError as e:
                self.assertEqual(e.name, "ESEAT")
                break
            tokens[seat] = j.token
            seat += 1
        return m.match, tokens

    def test_every_ruleset_to_the_end(self):
        for r in self.c.rulesets():
            name = r["name"]
            scen = (r.get("scenarios") or [None])[0]
            with self.subTest(ruleset=name):
                match, tokens = self._start(name, scen)
                sub = self.c.subscribe(match)
                steps = self.c.play_all_random(match, tokens, seed=7)
                self.assertGreater(steps, 0)
                p = self.c.pending(match)
                self.assertTrue(p.finished, "%s finished" % name)
                seen = []
                for e in sub:
                    seen.append(e)
                sub.close()
                self.assertTrue(seen and seen[-1]["type"] == "end",
                                "%s: the stream ends with the end event"
                                % name)
                log = self.c.all_events(match)
                self.assertEqual([(e["seq"], e["i"]) for e in seen],
                                 [(e["seq"], e["i"]) for e in log],
                                 "%s: every public event once, in order"
                                 % name)
                v = self.c.view(match)
                self.assertTrue(v.finished)

    def test_play_random_one_seat_each(self):
        match, tokens = self._start("duel", "first-duel")
        other = refd.Client(self.d.cmd)
        t = threading.Thread(target=other.play_random,
                             args=(match, 1, tokens[1]), kwargs={"seed": 2})
        t.start()
        self.c.play_random(match, 0, tokens[0], seed=1)
        t.join(30)
        other.close()
        self.assertTrue(self.c.pending(match).finished)

    def test_errors_carry_code_name_and_rule(self):
        with self.assertRaises(refd.RefdError) as cm:
            self.c.create("no-such-ruleset")
        self.assertEqual(cm.exception.name, "ENORULESET")
        self.assertLess(cm.exception.code, 0)
        match, tokens = self._start("duel", "first-duel")
        with self.assertRaises(refd.RefdError) as cm:
            self.c.legal(match, 0, "0" * 32)
        self.assertEqual(cm.exception.name, "ETOKEN")
        p = self.c.pending(match)
        s = p.seats[0]
        with self.assertRaises(refd.RefdError) as cm:
            self.c.act(match, s, tokens[s], {"type": "no-such-command"})
        self.assertIsInstance(cm.exception.message, str)
        # the client stays usable after a refusal
        self.assertEqual(self.c.hello()["server"], "refd")

    def test_duplicate_cmd_id_and_expected_seq(self):
        match, tokens = self._start("duel", "first-duel")
        p = self.c.pending(match)
        s = p.seats[0]
        cmd = next(i.cmd for i in self.c.legal(match, s, tokens[s]).legal
                   if i.cmd is not None)
        a1 = self.c.act(match, s, tokens[s], cmd, cmd_id="dup-1",
                        expected_seq=p.seq)
        a2 = self.c.act(match, s, tokens[s], cmd, cmd_id="dup-1")
        self.assertFalse(a1.replayed)
        self.assertTrue(a2.replayed)
        self.assertEqual(a1.seq, a2.seq)
        p2 = self.c.pending(match)
        s2 = p2.seats[0]
        cmd2 = next(i.cmd for i in self.c.legal(match, s2, tokens[s2]).legal
                    if i.cmd is not None)
        with self.assertRaises(refd.RefdError) as cm:
            self.c.act(match, s2, tokens[s2], cmd2, expected_seq=p.seq)
        self.assertEqual(cm.exception.name, "ESTALE")


class FakeServer:
    """A REP socket that answers each request with the next canned bytes
    (a function of the request's id)."""

    def __init__(self, answers):
        self.dir = tempfile.mkdtemp(prefix="refd-py-fake-")
        self.endpoint = "ipc://%s/fake.sock" % self.dir
        self.sock = _nn.Socket(_nn.NN_REP)
        self.sock.setopt_int(_nn.NN_SOL_SOCKET, _nn.NN_RCVTIMEO, 5000)
        self.sock.bind(self.endpoint)
        self.answers = answers
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def run(self):
        for make in self.answers:
            try:
                req = msgpack.unpackb(self.sock.recv(), raw=False)
            except TimeoutError:
                return
            self.sock.send(make(req["id"]))

    def stop(self):
        self.thread.join(10)
        self.sock.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def ok_reply(rid):
    return msgpack.packb({"v": 1, "id": rid, "ok": True,
                          "result": {"server": "fake"}})


class BadReplies(unittest.TestCase):
    def test_malformed_other_id_and_oversized(self):
        srv = FakeServer([
            lambda rid: b"\xc1 not msgpack",
            ok_reply,
            lambda rid: msgpack.packb({"v": 1, "id": rid + 100, "ok": True,
                                       "result": {}}),
            ok_reply,
            lambda rid: msgpack.packb({"v": 1, "id": rid, "ok": True,
                                       "result": {"x": "y" * 5000}}),
            ok_reply,
        ])
        c = refd.Client(srv.endpoint, timeout=2, tries=1, max_reply=1000)
        try:
            with self.assertRaises(refd.ProtocolError):
                c.hello()
            self.assertEqual(c.hello()["server"], "fake")
            with self.assertRaisesRegex(refd.ProtocolError, "request id"):
                c.hello()
            self.assertEqual(c.hello()["server"], "fake")
            with self.assertRaises((refd.ProtocolError, TimeoutError)):
                c.hello()
            self.assertEqual(c.hello()["server"], "fake")
        finally:
            c.close()
            srv.stop()

    def test_timeout_when_nobody_answers(self):
        d = tempfile.mkdtemp(prefix="refd-py-none-")
        c = refd.Client("ipc://%s/none.sock" % d, timeout=0.2, tries=2)
        t0 = time.monotonic()
        with self.assertRaises(TimeoutError):
            c.hello()
        self.assertLess(time.monotonic() - t0, 5)
        c.close()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
