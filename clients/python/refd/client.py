"""A client of refd, the deterministic referee daemon (refd-protocol(7)).

    from refd import Client
    with Client() as c:                      # refd's default ipc endpoint
        m = c.create("duel", scenario="first-duel")
        t0 = c.join(m.match, 0).token
        ...

Every op is one method; a refusal raises RefdError with the daemon's code,
name, message and the rule a command broke.  subscribe() follows a match's
public events and fills any gap from the log with the events op.
"""
import itertools
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional

import msgpack

from . import _nn

PROTOCOL = 1


def default_endpoint(events=False):
    """refd's embedded default ipc endpoint for this user (refd.conf(5))."""
    x = os.environ.get("XDG_RUNTIME_DIR")
    d = x + "/refd" if x and x.startswith("/") else "/tmp/refd-%d" % os.getuid()
    return "ipc://%s/%s" % (d, "refd-events.sock" if events else "refd.sock")


class RefdError(Exception):
    """The daemon refused a request.

    code is the negative number of the shared error table, name its stable
    name (ETOKEN, EILLEGAL, ...), message the daemon's sentence, rule the
    ruleset rule a rejected command violates (or None), detail the whole
    detail map."""

    def __init__(self, code, name, message, detail=None):
        self.code = code
        self.name = name
        self.message = message
        self.detail = detail if isinstance(detail, dict) else {}
        self.rule = self.detail.get("rule")
        super().__init__("%s (%d): %s" % (name, code, message))


class ProtocolError(Exception):
    """A reply that is not a valid refd reply (malformed, for another
    request, or larger than the client accepts).  The client stays usable."""


def _obj(cls, d):
    """cls built from the fields of reply map d it names; .raw keeps d."""
    kw = {f: d.get(f) for f in cls.__dataclass_fields__ if f != "raw"}
    o = cls(**kw)
    o.raw = d
    return o


@dataclass
class Created:
    match: str
    ruleset: str
    scripted: bool
    seq: int
    seats: Optional[int] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Joined:
    match: str
    seat: int
    token: str
    seq: int
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Acted:
    seq: int
    replayed: bool
    finished: bool
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class LegalItem:
    """One legal command (cmd) or a template to fill in (template)."""
    label: str
    cmd: Optional[Dict[str, Any]] = None
    template: Optional[Dict[str, Any]] = None


@dataclass
class Legal:
    seq: int
    legal: List[LegalItem]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Pending:
    seq: int
    finished: bool
    seats: List[int]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class View:
    seq: int
    seat: Any
    finished: bool
    view: Any
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class EventsPage:
    seq: int
    until: int
    more: bool
    finished: bool
    events: List[Dict[str, Any]]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)


class Client:
    """A connection to refd's command channel (nanomsg REQ).

    endpoint: the daemon's command endpoint (ipc://, tcp://); default
    refd's embedded one.  timeout: seconds to wait for a reply before
    TimeoutError; tries: how often a request is sent again on a timeout
    (on a fresh socket: the reconnect); max_reply: the largest reply
    accepted, in bytes."""

    def __init__(self, endpoint=None, timeout=10.0, tries=3,
                 max_reply=256 << 20):
        self.endpoint = endpoint or default_endpoint()
        self.timeout = timeout
        self.tries = max(1, tries)
        self.max_reply = max_reply
        self._ids = itertools.count(1)
        self._sock = None
        self._open()

    def _open(self):
        if self._sock is not None:
            self._sock.close()
        s = _nn.Socket(_nn.NN_REQ)
        ms = int(self.timeout * 1000)
        s.setopt_int(_nn.NN_SOL_SOCKET, _nn.NN_RCVTIMEO, ms)
        s.setopt_int(_nn.NN_SOL_SOCKET, _nn.NN_SNDTIMEO, ms)
        s.setopt_int(_nn.NN_SOL_SOCKET, _nn.NN_RCVMAXSIZE,
                     min(self.max_reply, 0x7fffffff))
        s.connect(self.endpoint)
        self._sock = s

    def close(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # The envelope ------------------------------------------------------

    def request(self, op, **args):
        """Send op with args (None values left out); the result map, or
        RefdError."""
        rid = next(self._ids)
        env = {"v": PROTOCOL, "id": rid, "op": op}
        env.update({k: v for k, v in args.items() if v is not None})
        data = msgpack.packb(env, use_bin_type=True)
        last = None
        for _ in range(self.tries):
            if self._sock is None:
                self._open()
            try:
                self._sock.send(data)
                raw = self._sock.recv()
            except TimeoutError as e:
                last = e
                self._open()    # a fresh connection for the next try
                continue
            return self._reply(raw, rid)
        raise TimeoutError("refd at '%s' did not answer '%s' in %gs (%d tries)"
                           % (self.endpoint, op, self.timeout,
                              self.tries)) from last

    def _reply(self, raw, rid):
        if len(raw) > self.max_reply:
            raise ProtocolError("reply of %d bytes is over the client's "
                                "limit of %d" % (len(raw), self.max_reply))
        try:
            r = msgpack.unpackb(raw, raw=False, strict_map_key=False)
        except Exception as e:
            raise ProtocolError("malformed reply: %s" % e) from None
        if not isinstance(r, dict) or "ok" not in r:
            raise ProtocolError("malformed reply: not a reply map")
        if r.get("id") != rid:
            raise ProtocolError("reply for request id %r, expected %d"
                                % (r.get("id"), rid))
        if r["ok"]:
            res = r.get("result")
            return res if res is not None else {}
        e = r.get("error") or {}
        raise RefdError(e.get("code", 0), e.get("name", "?"),
                        e.get("message", ""), e.get("detail"))

    # One method per op -------------------------------------------------

    def hello(self):
        return self.request("hello")

    def rulesets(self):
        return self.request("rulesets")

    def create(self, ruleset, scenario=None, setup=None, seats=None,
               dice=None):
        return _obj(Created, self.request("create", ruleset=ruleset,
                                          scenario=scenario, setup=setup,
                                          seats=seats, dice=dice))

    def join(self, match, seat, seed=None):
        return _obj(Joined, self.request("join", match=match, seat=seat,
                                         seed=seed))

    def act(self, match, seat, token, cmd, cmd_id=None, expected_seq=None):
        if cmd_id is None:
            cmd_id = "py-%d-%d" % (os.getpid(), next(self._ids))
        return _obj(Acted, self.request("act", match=match, seat=seat,
                                        token=token, cmd_id=cmd_id, cmd=cmd,
                                        expected_seq=expected_seq))

    def legal(self, match, seat, token):
        r = self.request("legal", match=match, seat=seat, token=token)
        items = [LegalItem(label=i.get("label", ""), cmd=i.get("cmd"),
                           template=i.get("template"))
                 for i in r.get("legal", [])]
        o = Legal(seq=r.get("seq"), legal=items)
        o.raw = r
        return o

    def pending(self, match):
        return _obj(Pending, self.request("pending", match=match))

    def view(self, match, seat=None, token=None):
        return _obj(View, self.request("view", match=match, seat=seat,
                                       token=token))

    def events(self, match, since=0, limit=None, seat=None, token=None):
        return _obj(EventsPage, self.request("events", match=match,
                                             since=since, limit=limit,
                                             seat=seat, token=token))

    def all_events(self, match, since=0, seat=None, token=None):
        """Every event after since, following the events op's pages."""
        out = []
        while True:
            p = self.events(match, since=since, seat=seat, token=token)
            out.extend(p.events)
            if not p.more or p.until is None or p.until <= since:
                return out
            since = p.until

    def export(self, match, admin_token=None):
        return self.request("export", match=match, admin_token=admin_token)

    def resign(self, match, seat, token):
        return self.request("resign", match=match, seat=seat, token=token)

    def abort(self, match, reason=None, admin_token=None, seat=None,
              token=None):
        """End a match: with the operator's admin_token, or as one seated
        player's consent (seat and token); it ends when every seated
        player has asked."""
        return self.request("abort", match=match, reason=reason,
                            admin_token=admin_token, seat=seat, token=token)

    def matches(self, after=None, limit=None):
        """A page of match summaries (at most limit, those after the
        match id after)."""
        return self.request("matches", after=after, limit=limit)

    def stats(self):
        return self.request("stats")

    def pubkey(self):
        return self.request("pubkey")

    def head(self, match):
        """The match's signed head (protocol 1.1): keep it as JSON for
        refctl verify --head (refd-evlog(5), Heads)."""
        return self.request("head", match=match)

    # Helpers -------------------------------------------------------------

    def subscribe(self, match, since=0, endpoint=None):
        """Follow match's public events (see Subscription)."""
        if endpoint is None:
            pubs = self.hello().get("publish") or []
            if not pubs:
                raise ProtocolError("the daemon publishes no event endpoint")
            endpoint = pubs[0]
        return Subscription(self, match, endpoint, since)

    def _act_random(self, match, seat, token, rng, seq):
        """One random legal command (templates left out) for seat at seq:
        1 sent, 0 stale (someone acted first), -1 nothing listed."""
        cmds = [i.cmd for i in self.legal(match, seat, token).legal
                if i.cmd is not None]
        if not cmds:
            return -1
        try:
            self.act(match, seat, token, rng.choice(cmds), expected_seq=seq)
        except RefdError as e:
            if e.name != "ESTALE":
                raise
            return 0
        return 1

    def play_random(self, match, seat, token, seed=None, max_steps=100000,
                    poll=0.01):
        """Play seat with uniformly random legal commands (templates left
        out) until the match is over; other seats are someone else's.
        Returns the number of commands sent."""
        rng = random.Random(seed)
        steps = 0
        while steps < max_steps:
            p = self.pending(match)
            if p.finished:
                return steps
            if seat not in p.seats or \
                    self._act_random(match, seat, token, rng, p.seq) < 0:
                time.sleep(poll)
                continue
            steps += 1
        raise RuntimeError("match %s: not over after %d commands"
                           % (match, max_steps))

    def play_all_random(self, match, tokens, seed=None, max_steps=100000):
        """Play every seat of tokens ({seat: token}) until the end."""
        rng = random.Random(seed)
        steps = 0
        while steps < max_steps:
            p = self.pending(match)
            if p.finished:
                return steps
            owe = [s for s in p.seats if s in tokens]
            if not owe:
                raise RuntimeError("match %s: seats %s owe a decision but "
                                   "none is played here" % (match, p.seats))
            if self._act_random(match, owe[0], tokens[owe[0]], rng,
                                p.seq) < 0:
                raise RuntimeError("match %s: seat %d owes a decision but "
                                   "lists no command" % (match, owe[0]))
            steps += 1
        raise RuntimeError("match %s: not over after %d commands"
                           % (match, max_steps))


class Subscription:
    """A match's public events in order, none missing, none twice.

    The event channel (nanomsg SUB) may drop messages; the log is the
    truth.  The subscription first reads what happened since `since` with
    the events op, then follows the channel; whenever an event's number n
    (protocol 1.1 numbers the public events from 1) is not the next one, it
    asks the events op for the gap before going on (refd-protocol(7); with
    an older refd, a jump in seq or i counts as a gap).  Iterate, or call next_event(timeout)."""

    def __init__(self, client, match, endpoint, since=0):
        self.client = client
        self.match = match
        self.endpoint = endpoint
        # (seq, i) of the last event given; at first everything through
        # record `since`
        self.last = (since, float("inf"))
        self.gaps_filled = 0
        self.last_n = None      # n of the last event given (protocol 1.1)
        self._queue = []
        self.finished = False
        self._sock = _nn.Socket(_nn.NN_SUB)
        self._sock.setopt_bytes(_nn.NN_SUB, _nn.NN_SUB_SUBSCRIBE,
                                match.encode())
        self._sock.connect(endpoint)
        self._fill()

    def close(self):
        self._sock.close()

    def _key(self, e):
        return (e.get("seq", 0), e.get("i", 0))

    def _fill(self):
        """Everything after the last event given, from the log."""
        # the rest of the last record too, when only part of it was seen
        since = self.last[0] if self.last[1] == float("inf") else \
            max(0, self.last[0] - 1)
        evs = self.client.all_events(self.match, since=since)
        self._queue.extend(e for e in evs if self._key(e) > self.last)
        self._queue.sort(key=self._key)
        if self._queue and self._queue[-1].get("type") == "end":
            self.finished = True

    def next_event(self, timeout=10.0):
        """The next event, or None when none came within timeout."""
        deadline = time.monotonic() + timeout
        while not self._queue:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self._sock.setopt_int(_nn.NN_SOL_SOCKET, _nn.NN_RCVTIMEO,
                                  max(1, int(min(left, 0.5) * 1000)))
            try:
                raw = self._sock.recv()
            except TimeoutError:
                # Nothing on the channel: the log may still have news.
                self._fill()
                continue
            if len(raw) < 16 or raw[:16] != self.match.encode():
                continue
            try:
                e = msgpack.unpackb(raw[16:], raw=False,
                                    strict_map_key=False)
            except Exception:
                continue
            if not isinstance(e, dict) or self._key(e) <= self.last:
                continue
            if isinstance(e.get("n"), int) and self.last_n is not None:
                # protocol 1.1: n numbers the public events from 1
                in_order = e["n"] == self.last_n + 1
            else:
                nxt = e.get("seq") == self.last[0] + 1 and \
                    e.get("i", 0) == 0
                same = e.get("seq") == self.last[0] and \
                    e.get("i", 0) == self.last[1] + 1
                in_order = nxt or same
            if not in_order:
                self.gaps_filled += 1
                self._fill()
                continue
            self._queue.append(e)
        e = self._queue.pop(0)
        self.last = self._key(e)
        if isinstance(e.get("n"), int):
            self.last_n = e["n"]
        if e.get("type") == "end":
            self.finished = True
        return e

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        while True:
            e = self.next_event()
            if e is None:
                return
            yield e
            if e.get("type") == "end":
                return
