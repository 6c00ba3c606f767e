// refd-client: a client of the refd referee daemon (refd-protocol(7)) over
// nanomsg's WebSocket transport, for Node (with the `ws` package) and the
// browser (native WebSocket).
//
//   import { Client } from 'refd-client';
//   const c = await Client.connect('ws://127.0.0.1:7413/');
//   const m = await c.create('duel', { scenario: 'first-duel' });
//
// The wire: a WebSocket with the subprotocol of the daemon's socket
// ('rep.sp.nanomsg.org' for the command endpoint, 'pub.sp.nanomsg.org' for
// the event endpoint, as libnanomsg 1.1 expects), one binary frame per
// message.  A request frame is the 4-byte big-endian request id with its
// top bit set (nanomsg's REQ header), then the msgpack envelope; the reply
// frame starts with the same 4 bytes.  An event frame is the 16-character
// match id, then one msgpack event.  Nothing is ever sent on the event
// socket.
import { encode, decode } from '@msgpack/msgpack';

export const PROTOCOL = 1;
export const REQ_SUBPROTOCOL = 'rep.sp.nanomsg.org';
export const SUB_SUBPROTOCOL = 'pub.sp.nanomsg.org';

/** The daemon refused a request: code, name, message, rule, detail. */
export class RefdError extends Error {
  constructor(e) {
    const err = e || {};
    super(`${err.name || '?'} (${err.code}): ${err.message || ''}`);
    this.code = err.code;
    this.name = 'RefdError';
    this.errorName = err.name;
    this.refdMessage = err.message || '';
    this.detail = err.detail && typeof err.detail === 'object' ? err.detail : {};
    this.rule = this.detail.rule ?? null;
  }
}

/** A reply that is not a valid refd reply; the client stays usable. */
export class ProtocolError extends Error {
  constructor(m) { super(m); this.name = 'ProtocolError'; }
}

/** No reply in time (after every try). */
export class TimeoutError extends Error {
  constructor(m) { super(m); this.name = 'TimeoutError'; }
}

async function webSocketClass(given) {
  if (given) return given;
  if (typeof globalThis.WebSocket === 'function') return globalThis.WebSocket;
  const m = await import('ws');
  return m.default || m.WebSocket;
}

function openSocket(WS, url, proto, timeout) {
  return new Promise((resolve, reject) => {
    const ws = new WS(url, proto);
    ws.binaryType = 'arraybuffer';
    const t = setTimeout(() => {
      try { ws.close(); } catch (e) { /* closing anyway */ }
      reject(new TimeoutError(`${url}: no WebSocket connection in ${timeout} ms`));
    }, timeout);
    ws.onopen = () => { clearTimeout(t); resolve(ws); };
    ws.onerror = (ev) => {
      clearTimeout(t);
      reject(new Error(`${url}: ${ev && ev.message ? ev.message : 'cannot connect'}`));
    };
  });
}

function toBytes(data) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (Array.isArray(data)) {               // ws fragments
    const n = data.reduce((a, b) => a + b.length, 0);
    const out = new Uint8Array(n);
    let o = 0;
    for (const b of data) { out.set(b, o); o += b.length; }
    return out;
  }
  return null;
}

/** A small seeded generator (mulberry32) for the random players. */
export function rng(seed) {
  let a = (seed ?? Date.now()) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Client {
  /**
   * url: the daemon's ws:// command endpoint.  Options: timeout (ms per
   * try), tries (a timed-out request is sent again on a fresh
   * connection), maxReply (bytes), WebSocket (a constructor to use).
   */
  constructor(url, opts = {}) {
    this.url = url;
    this.timeout = opts.timeout ?? 10000;
    this.tries = Math.max(1, opts.tries ?? 3);
    this.maxReply = opts.maxReply ?? 256 * 1024 * 1024;
    this.subprotocol = opts.subprotocol ?? REQ_SUBPROTOCOL;
    this._WS = opts.WebSocket || null;
    this._ws = null;
    this._id = 0;
    this._reqid = (Math.random() * 0x7fffffff) >>> 0;
    this._chain = Promise.resolve();
    this._waiting = null;
  }

  static async connect(url, opts = {}) {
    const c = new Client(url, opts);
    await c._open();
    return c;
  }

  async _open() {
    this._close();
    this._WS = await webSocketClass(this._WS);
    const ws = await openSocket(this._WS, this.url, this.subprotocol, this.timeout);
    ws.onmessage = (ev) => this._onMessage(ev.data);
    ws.onclose = () => { if (this._ws === ws) this._ws = null; };
    ws.onerror = () => {};
    this._ws = ws;
  }

  _close() {
    if (this._ws) {
      const ws = this._ws;
      this._ws = null;
      try { ws.close(); } catch (e) { /* already closed */ }
    }
  }

  close() { this._close(); }

  _onMessage(data) {
    const w = this._waiting;
    const b = toBytes(data);
    if (!w || !b || b.length < 4) return;          // not an answer to us
    const id = new DataView(b.buffer, b.byteOffset, 4).getUint32(0);
    if (id !== w.reqid) return;                    // a late reply to a timed-out try
    w.done(b.subarray(4));
  }

  /** Send op with args (undefined and null left out): the result, or
   * a RefdError.  Requests go one at a time, in order. */
  request(op, args = {}) {
    const p = this._chain.then(() => this._request(op, args));
    this._chain = p.catch(() => {});
    return p;
  }

  async _request(op, args) {
    const id = ++this._id;
    const env = { v: PROTOCOL, id, op };
    for (const [k, v] of Object.entries(args)) if (v !== undefined && v !== null) env[k] = v;
    const body = encode(env);
    let last = null;
    for (let t = 0; t < this.tries; t++) {
      if (!this._ws || this._ws.readyState !== 1) {
        try { await this._open(); } catch (e) { last = e; continue; }
      }
      const reqid = (0x80000000 | (++this._reqid & 0x7fffffff)) >>> 0;
      const frame = new Uint8Array(4 + body.length);
      new DataView(frame.buffer).setUint32(0, reqid);
      frame.set(body, 4);
      let raw;
      try {
        raw = await new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            this._waiting = null;
            reject(new TimeoutError(`refd at ${this.url} did not answer '${op}' in ${this.timeout} ms`));
          }, this.timeout);
          this._waiting = { reqid, done: (b) => { clearTimeout(timer); this._waiting = null; resolve(b); } };
          this._ws.send(frame);
        });
      } catch (e) {
        last = e;
        this._close();          // a fresh connection for the next try
        continue;
      }
      return this._reply(raw, id);
    }
    throw last instanceof TimeoutError ? last
      : new TimeoutError(`refd at ${this.url}: '${op}' failed after ${this.tries} tries: ${last && last.message}`);
  }

  _reply(raw, id) {
    if (raw.length > this.maxReply) {
      throw new ProtocolError(`reply of ${raw.length} bytes is over the client's limit of ${this.maxReply}`);
    }
    let r;
    try {
      r = decode(raw);
    } catch (e) {
      throw new ProtocolError(`malformed reply: ${e.message}`);
    }
    if (!r || typeof r !== 'object' || !('ok' in r)) throw new ProtocolError('malformed reply: not a reply map');
    if (r.id !== id) throw new ProtocolError(`reply for request id ${r.id}, expected ${id}`);
    if (r.ok) return r.result ?? {};
    throw new RefdError(r.error);
  }

  // One method per op ------------------------------------------------
  hello() { return this.request('hello'); }
  rulesets() { return this.request('rulesets'); }
  create(ruleset, o = {}) {
    return this.request('create', { ruleset, scenario: o.scenario, setup: o.setup, seats: o.seats, dice: o.dice });
  }
  join(match, seat, seed) { return this.request('join', { match, seat, seed }); }
  act(match, seat, token, cmd, o = {}) {
    const cmd_id = o.cmdId ?? `js-${Date.now().toString(36)}-${++this._id}`;
    return this.request('act', { match, seat, token, cmd, cmd_id, expected_seq: o.expectedSeq });
  }
  legal(match, seat, token) { return this.request('legal', { match, seat, token }); }
  pending(match) { return this.request('pending', { match }); }
  view(match, seat, token) { return this.request('view', { match, seat, token }); }
  events(match, o = {}) {
    return this.request('events', { match, since: o.since ?? 0, limit: o.limit, seat: o.seat, token: o.token });
  }
  async allEvents(match, o = {}) {
    let since = o.since ?? 0;
    const out = [];
    for (;;) {
      const p = await this.events(match, { ...o, since });
      out.push(...p.events);
      if (!p.more || p.until == null || p.until <= since) return out;
      since = p.until;
    }
  }
  export(match, adminToken) { return this.request('export', { match, admin_token: adminToken }); }
  resign(match, seat, token) { return this.request('resign', { match, seat, token }); }
  abort(match, o = {}) { return this.request('abort', { match, reason: o.reason, admin_token: o.adminToken, seat: o.seat, token: o.token }); }
  matches(o = {}) { return this.request('matches', { after: o.after, limit: o.limit }); }
  stats() { return this.request('stats'); }
  pubkey() { return this.request('pubkey'); }
  /** The match's signed head (protocol 1.1): keep it for refctl verify --head. */
  head(match) { return this.request('head', { match }); }

  // Helpers -------------------------------------------------------------

  /** Follow match's public events (see Subscription). */
  async subscribe(match, o = {}) {
    let url = o.url;
    if (!url) {
      const pubs = (await this.hello()).publish || [];
      url = pubs.find((p) => p.startsWith('ws://') || p.startsWith('wss://'));
      if (!url) throw new ProtocolError('the daemon publishes no ws:// event endpoint');
    }
    const s = new Subscription(this, match, url, o.since ?? 0);
    await s._start();
    return s;
  }

  async _actRandom(match, seat, token, rand, seq) {
    const cmds = (await this.legal(match, seat, token)).legal.filter((i) => i.cmd).map((i) => i.cmd);
    if (cmds.length === 0) return -1;
    try {
      await this.act(match, seat, token, cmds[Math.floor(rand() * cmds.length)], { expectedSeq: seq });
    } catch (e) {
      if (e instanceof RefdError && e.errorName === 'ESTALE') return 0;
      throw e;
    }
    return 1;
  }

  /** Play seat with random legal commands until the match is over. */
  async playRandom(match, seat, token, o = {}) {
    const rand = rng(o.seed);
    let steps = 0;
    while (steps < (o.maxSteps ?? 100000)) {
      const p = await this.pending(match);
      if (p.finished) return steps;
      if (!p.seats.includes(seat) || await this._actRandom(match, seat, token, rand, p.seq) < 0) {
        await new Promise((r) => setTimeout(r, o.poll ?? 10));
        continue;
      }
      steps++;
    }
    throw new Error(`match ${match}: not over after ${steps} commands`);
  }

  /** Play every seat of tokens ({seat: token}) until the end. */
  async playAllRandom(match, tokens, o = {}) {
    const rand = rng(o.seed);
    let steps = 0;
    while (steps < (o.maxSteps ?? 100000)) {
      const p = await this.pending(match);
      if (p.finished) return steps;
      const s = p.seats.find((x) => tokens[x] !== undefined);
      if (s === undefined) throw new Error(`match ${match}: seats ${p.seats} owe a decision, none played here`);
      if (await this._actRandom(match, s, tokens[s], rand, p.seq) < 0) {
        throw new Error(`match ${match}: seat ${s} owes a decision but lists no command`);
      }
      steps++;
    }
    throw new Error(`match ${match}: not over after ${steps} commands`);
  }
}

const key = (e) => [e.seq ?? 0, e.i ?? 0];
const after = (a, b) => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);

/**
 * A match's public events in order, none missing, none twice: first what
 * the log holds since `since` (the events op), then the event channel;
 * whenever an event's number n (protocol 1.1: public events are numbered
 * from 1) is not the next one, the gap is read from the log before going
 * on (with an older refd, a jump in seq or i counts as a gap).  for await (const e of sub) ... ends
 * after the "end" event; next(timeout) gives one event or null.
 */
export class Subscription {
  constructor(client, match, url, since) {
    this.client = client;
    this.match = match;
    this.url = url;
    this.last = [since, Infinity];  // everything through record since seen
    this.gapsFilled = 0;
    this.finished = false;
    this._queue = [];
    this._live = [];
    this._wake = null;
    this._ws = null;
  }

  async _start() {
    const WS = await webSocketClass(this.client._WS);
    this._ws = await openSocket(WS, this.url, SUB_SUBPROTOCOL, this.client.timeout);
    const topic = new TextEncoder().encode(this.match);
    this._ws.onmessage = (ev) => {
      const b = toBytes(ev.data);
      if (!b || b.length < 16) return;
      for (let i = 0; i < 16; i++) if (b[i] !== topic[i]) return;
      let e;
      try { e = decode(b.subarray(16)); } catch (err) { return; }
      if (!e || typeof e !== 'object') return;
      this._live.push(e);
      if (this._wake) this._wake();
    };
    this._ws.onerror = () => {};
    await this._fill();
  }

  close() {
    if (this._ws) { try { this._ws.close(); } catch (e) { /* closed */ } this._ws = null; }
  }

  async _fill() {
    // the rest of the last record too, when only part of it was seen
    const since = this.last[1] === Infinity ? this.last[0] : Math.max(0, this.last[0] - 1);
    const evs = await this.client.allEvents(this.match, { since });
    for (const e of evs) if (after(key(e), this.last) && !this._queue.some((q) => q.seq === e.seq && q.i === e.i)) this._queue.push(e);
    this._queue.sort((a, b) => (after(key(a), key(b)) ? 1 : -1));
  }

  /** The next event, or null when none came within timeout ms. */
  async next(timeout = 10000) {
    const deadline = Date.now() + timeout;
    while (this._queue.length === 0) {
      if (this._live.length === 0) {
        const left = deadline - Date.now();
        if (left <= 0) return null;
        const woke = await new Promise((r) => {
          this._wake = () => r(true);
          setTimeout(() => r(false), Math.min(left, 500));
        });
        this._wake = null;
        if (!woke) { await this._fill(); continue; }  // quiet channel: ask the log
      }
      const e = this._live.shift();
      if (!e || !after(key(e), this.last)) continue;
      let inOrder;
      if (typeof e.n === 'number' && typeof this.lastN === 'number') {
        // protocol 1.1: n numbers the public events, so a gap is exact
        inOrder = e.n === this.lastN + 1;
      } else {
        const next = e.seq === this.last[0] + 1 && (e.i ?? 0) === 0;
        const same = e.seq === this.last[0] && (e.i ?? 0) === this.last[1] + 1;
        inOrder = next || same;
      }
      if (!inOrder) { this.gapsFilled++; await this._fill(); continue; }
      this._queue.push(e);
    }
    const e = this._queue.shift();
    this.last = key(e);
    if (typeof e.n === 'number') this.lastN = e.n;
    if (e.type === 'end') this.finished = true;
    return e;
  }

  async *[Symbol.asyncIterator]() {
    for (;;) {
      const e = await this.next();
      if (e === null) return;
      yield e;
      if (e.type === 'end') return;
    }
  }
}
