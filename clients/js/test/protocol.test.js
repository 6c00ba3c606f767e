// The shared protocol cases (tests/protocol/cases.json) with the
// JavaScript client over ws://: the same cases the Perl and the Python
// suites run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, RefdError } from '../src/index.js';

const BUILD = process.env.REFD_BUILD;
const SRC = process.env.REFD_SRC || path.join(import.meta.dirname, '../../..');
const CASES = JSON.parse(readFileSync(path.join(SRC, 'tests/protocol/cases.json'), 'utf8'));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function subst(v, names) {
  if (typeof v === 'string' && v.startsWith('$')) return names[v.slice(1)];
  if (Array.isArray(v)) return v.map((x) => subst(x, names));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, subst(x, names)]));
  return v;
}

class Daemon {
  async start() {
    this.dir = this.dir || mkdtempSync(path.join(os.tmpdir(), 'refd-jsp-'));
    if (!this.ports) this.ports = [await freePort(), await freePort()];
    this.url = `ws://127.0.0.1:${this.ports[0]}/`;
    this.events = `ws://127.0.0.1:${this.ports[1]}/`;
    this.proc = spawn(path.join(BUILD, 'bin/refd'), ['--state-dir', path.join(this.dir, 'state'),
      '--listen', `ipc://${this.dir}/r.sock`, '--listen', `ws://127.0.0.1:${this.ports[0]}`,
      '--publish', `ipc://${this.dir}/e.sock`, '--publish', `ws://127.0.0.1:${this.ports[1]}`,
      '--rate-limit', '0'], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      try {
        const c = await Client.connect(this.url, { timeout: 1000, tries: 1 });
        await c.hello();
        c.close();
        return;
      } catch (e) {
        await sleep(100);
      }
    }
    throw new Error('refd did not answer on ' + this.url);
  }

  async stop() {
    const p = this.proc;
    const gone = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    await gone;
  }
}

test('the shared protocol cases', { skip: !BUILD && 'REFD_BUILD is not set' }, async (t) => {
  const d = new Daemon();
  await d.start();
  const c = await Client.connect(d.url, { timeout: 3000, tries: 5 });
  try {
    for (const kase of CASES.cases) {
      await t.test(kase.name, async () => {
        const names = {};
        for (const [i, st] of kase.steps.entries()) {
          const where = `${kase.name}, step ${i}`;
          if (st.restart) {
            await d.stop();
            await d.start();
            continue;
          }
          if (st.events_numbered) {
            const evs = await c.allEvents(subst(st.events_numbered, names));
            assert.deepEqual(evs.map((e) => e.n), evs.map((_, k) => k + 1), where);
            continue;
          }
          if (st.follow) {
            const m = subst(st.follow, names);
            const want = await c.allEvents(m, { since: st.since ?? 0 });
            const sub = await c.subscribe(m, { url: d.events, since: st.since ?? 0 });
            const got = [];
            try {
              for await (const e of sub) got.push(e);
            } finally {
              sub.close();
            }
            assert.deepEqual(got.map((e) => [e.seq, e.i]), want.map((e) => [e.seq, e.i]), where);
            assert.equal(got[got.length - 1].type, 'end', where);
            continue;
          }
          const exp = st.expect;
          let res = null;
          let err = null;
          try {
            res = await c.request(st.op, subst(st.args || {}, names));
          } catch (e) {
            if (!(e instanceof RefdError)) throw e;
            err = e;
          }
          if (exp.error) {
            assert.ok(err, `${where}: ${st.op} should fail with ${exp.error}`);
            assert.equal(err.errorName, exp.error, `${where}: ${err.message}`);
            continue;
          }
          assert.equal(err, null, `${where}: ${st.op} failed: ${err && err.message}`);
          for (const k of exp.has || []) assert.ok(k in res, `${where}: ${k}`);
          for (const [k, v] of Object.entries(exp.equal || {})) assert.deepEqual(res[k], v, `${where}: ${k}`);
          for (const [n, k] of Object.entries(st.save || {})) names[n] = res[k];
        }
      });
    }
  } finally {
    c.close();
    await d.stop();
    rmSync(d.dir, { recursive: true, force: true });
  }
});
