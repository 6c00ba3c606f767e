// The JavaScript client against a real refd (REFD_BUILD names the build),
// over nanomsg's ws:// transport; and against a fake server's bad replies.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { WebSocketServer } from 'ws';
import { encode, decode } from '@msgpack/msgpack';
import { Client, RefdError, ProtocolError, TimeoutError } from '../src/index.js';

const BUILD = process.env.REFD_BUILD;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

let d = null;
let c = null;

before(async () => {
  if (!BUILD) return;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'refd-js-'));
  const [p1, p2] = [await freePort(), await freePort()];
  const url = `ws://127.0.0.1:${p1}/`;
  const proc = spawn(path.join(BUILD, 'bin/refd'), ['--state-dir', path.join(dir, 'state'),
    '--listen', `ipc://${dir}/r.sock`, '--listen', `ws://127.0.0.1:${p1}`,
    '--publish', `ipc://${dir}/e.sock`, '--publish', `ws://127.0.0.1:${p2}`,
    '--rate-limit', '0'], { stdio: 'ignore' });
  d = { dir, proc, url };
  for (let i = 0; i < 100; i++) {
    try {
      c = await Client.connect(url, { timeout: 3000 });
      await c.hello();
      return;
    } catch (e) {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('refd did not answer on ' + url);
});

after(() => {
  if (c) c.close();
  if (d) { d.proc.kill('SIGTERM'); rmSync(d.dir, { recursive: true, force: true }); }
});

async function start(ruleset, scenario) {
  const m = await c.create(ruleset, { scenario });
  assert.match(m.match, /^[0-9a-f]{16}$/);
  const tokens = {};
  for (let seat = 0; ; seat++) {
    try {
      tokens[seat] = (await c.join(m.match, seat, `js ${seat}`)).token;
    } catch (e) {
      assert.ok(e instanceof RefdError);
      assert.equal(e.errorName, 'ESEAT');
      break;
    }
  }
  return [m.match, tokens];
}

test('hello and rulesets over ws://', { skip: !BUILD && 'REFD_BUILD is not set' }, async () => {
  assert.equal((await c.hello()).server, 'refd');
  const names = (await c.rulesets()).map((r) => r.name);
  for (const n of ['duel', 'dungeon', 'encounter', 'massbattle', 'skirmish', 'warband']) assert.ok(names.includes(n), n);
});

test('every ruleset played to its end, the stream equal to the log', { skip: !BUILD && 'REFD_BUILD is not set' }, async () => {
  for (const r of await c.rulesets()) {
    const [match, tokens] = await start(r.name, (r.scenarios || [])[0]);
    const sub = await c.subscribe(match);
    const steps = await c.playAllRandom(match, tokens, { seed: 7 });
    assert.ok(steps > 0, r.name);
    assert.ok((await c.pending(match)).finished, `${r.name} finished`);
    const seen = [];
    for await (const e of sub) seen.push(e);
    sub.close();
    assert.equal(seen.at(-1)?.type, 'end', `${r.name}: the stream ends with the end event`);
    const log = await c.allEvents(match);
    assert.deepEqual(seen.map((e) => [e.seq, e.i]), log.map((e) => [e.seq, e.i]), `${r.name}: every public event once`);
  }
});

test('one seat per client with playRandom', { skip: !BUILD && 'REFD_BUILD is not set' }, async () => {
  const [match, tokens] = await start('duel', 'first-duel');
  const other = await Client.connect(d.url);
  await Promise.all([c.playRandom(match, 0, tokens[0], { seed: 1 }), other.playRandom(match, 1, tokens[1], { seed: 2 })]);
  other.close();
  assert.ok((await c.pending(match)).finished);
});

test('errors carry code, name and message; the client stays usable', { skip: !BUILD && 'REFD_BUILD is not set' }, async () => {
  await assert.rejects(c.create('no-such-ruleset'), (e) => e instanceof RefdError && e.errorName === 'ENORULESET' && e.code < 0);
  const [match, tokens] = await start('duel', 'first-duel');
  await assert.rejects(c.legal(match, 0, '0'.repeat(32)), (e) => e.errorName === 'ETOKEN');
  assert.equal((await c.hello()).server, 'refd');
});

test('a duplicate cmd_id is applied once; a stale expected_seq is ESTALE', { skip: !BUILD && 'REFD_BUILD is not set' }, async () => {
  const [match, tokens] = await start('duel', 'first-duel');
  const p = await c.pending(match);
  const s = p.seats[0];
  const cmd = (await c.legal(match, s, tokens[s])).legal.find((i) => i.cmd).cmd;
  const a1 = await c.act(match, s, tokens[s], cmd, { cmdId: 'dup-1', expectedSeq: p.seq });
  const a2 = await c.act(match, s, tokens[s], cmd, { cmdId: 'dup-1' });
  assert.equal(a1.replayed, false);
  assert.equal(a2.replayed, true);
  assert.equal(a1.seq, a2.seq);
  const p2 = await c.pending(match);
  const s2 = p2.seats[0];
  const cmd2 = (await c.legal(match, s2, tokens[s2])).legal.find((i) => i.cmd).cmd;
  await assert.rejects(c.act(match, s2, tokens[s2], cmd2, { expectedSeq: p.seq }), (e) => e.errorName === 'ESTALE');
});

test('bad replies raise a clear error and the client stays usable', async () => {
  const port = await freePort();
  const answers = [
    () => new TextEncoder().encode('\xc1 not msgpack'),
    (id) => encode({ v: 1, id, ok: true, result: { server: 'fake' } }),
    (id) => encode({ v: 1, id: id + 100, ok: true, result: {} }),
    (id) => encode({ v: 1, id, ok: true, result: { server: 'fake' } }),
    (id) => encode({ v: 1, id, ok: true, result: { x: 'y'.repeat(5000) } }),
    (id) => encode({ v: 1, id, ok: true, result: { server: 'fake' } }),
  ];
  const wss = new WebSocketServer({ port, host: '127.0.0.1', handleProtocols: (ps) => [...ps][0] });
  wss.on('connection', (ws, req) => {
    assert.equal(req.headers['sec-websocket-protocol'], 'rep.sp.nanomsg.org');
    ws.on('message', (data) => {
      const b = new Uint8Array(data);
      const env = decode(b.subarray(4));
      const body = answers.shift()(env.id);
      const out = new Uint8Array(4 + body.length);
      out.set(b.subarray(0, 4));
      out.set(body, 4);
      ws.send(out);
    });
  });
  const fc = await Client.connect(`ws://127.0.0.1:${port}/`, { timeout: 2000, tries: 1, maxReply: 1000 });
  try {
    await assert.rejects(fc.hello(), ProtocolError);
    assert.equal((await fc.hello()).server, 'fake');
    await assert.rejects(fc.hello(), /request id/);
    assert.equal((await fc.hello()).server, 'fake');
    await assert.rejects(fc.hello(), /over the client's limit/);
    assert.equal((await fc.hello()).server, 'fake');
  } finally {
    fc.close();
    await new Promise((r) => wss.close(r));
  }
});

test('a timeout when nobody answers', async () => {
  const port = await freePort();
  const wss = new WebSocketServer({ port, host: '127.0.0.1', handleProtocols: (ps) => [...ps][0] });
  const fc = await Client.connect(`ws://127.0.0.1:${port}/`, { timeout: 300, tries: 2 });
  await assert.rejects(fc.hello(), TimeoutError);
  fc.close();
  await new Promise((r) => wss.close(r));
});
