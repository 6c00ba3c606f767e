// viewer.test.js - the spectator page and the replay viewer in a real
// browser: headless Chromium (Debian's chromium) driven by puppeteer-core,
// against a real refd with ws:// endpoints and `refctl web` on loopback.
//
// Environment: REFD_BUILD (the build tree: bin/refd, bin/refctl, web/),
// CHROMIUM (default /usr/bin/chromium), WEB_SHOTS (where the screenshots
// go; default REFD_BUILD/web-shots).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const puppeteer = require('puppeteer-core');

const BUILD = path.resolve(process.env.REFD_BUILD || path.join(import.meta.dirname, '../../build'));
const REFD = path.join(BUILD, 'bin/refd');
const REFCTL = path.join(BUILD, 'bin/refctl');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOTS = process.env.WEB_SHOTS || path.join(BUILD, 'web-shots');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'refd-web-'));
const CMD = `ipc://${TMP}/cmd.sock`;
const EVT = `ipc://${TMP}/evt.sock`;

const procs = [];
let browser, web, wsCmd, wsEvt;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function refctl(args, opts = {}) {
  return execFileSync(REFCTL, ['-s', CMD, '-e', EVT, ...args], { encoding: opts.encoding ?? 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120000 });
}
const json = (args) => JSON.parse(refctl(args));

function start(cmd, args, name) {
  const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  p.out = '';
  p.stdout.on('data', (d) => { p.out += d; });
  p.stderr.on('data', (d) => { p.out += d; });
  p.name = name;
  procs.push(p);
  return p;
}

async function waitFor(fn, what, ms = 60000) {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

// The pieces on the board of a spectators' view that are on the table.
const onBoard = (view) => ((view.board && view.board.pieces) || []).filter((p) => !p.gone).map((p) => String(p.id)).sort();

async function page(width = 1280, height = 800) {
  const p = await browser.newPage();
  p.errors = [];
  p.on('pageerror', (e) => p.errors.push(e.message));
  p.on('console', (m) => { if (m.type() === 'error') p.errors.push(m.text()); });
  await p.setViewport({ width, height });
  return p;
}

before(async () => {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM}: no Chromium (make deps installs Debian's chromium)`);
  assert.ok(fs.existsSync(path.join(BUILD, 'web/index.html')), 'build/web is missing (make deps, then make)');
  fs.mkdirSync(SHOTS, { recursive: true });
  let ok = false;
  for (let tries = 0; tries < 5 && !ok; tries++) {
    const [a, b, c] = [await freePort(), await freePort(), await freePort()];
    wsCmd = `ws://127.0.0.1:${a}`;
    wsEvt = `ws://127.0.0.1:${b}`;
    const r = start(REFD, ['--state-dir', `${TMP}/state`, '--listen', CMD, '--listen', wsCmd,
      '--publish', EVT, '--publish', wsEvt, '--rate-limit', '0'], 'refd');
    try {
      await waitFor(() => { try { refctl(['hello']); return true; } catch (e) { return r.exitCode !== null ? 'dead' : false; } }, 'refd', 15000)
        .then((v) => { if (v === 'dead') throw new Error(r.out); });
      web = start(REFCTL, ['-s', wsCmd, '-e', wsEvt, 'web', '--port', String(c)], 'refctl web');
      await waitFor(() => /serving .* at (http:\S+)/.test(web.out) || web.exitCode !== null, 'refctl web', 10000);
      ok = web.exitCode === null;
      if (!ok) { r.kill('SIGTERM'); await sleep(300); }
    } catch (e) {
      if (r.exitCode === null) r.kill('SIGTERM');
      await sleep(300);
    }
  }
  assert.ok(ok, 'refd and refctl web started on free loopback ports');
  web.url = web.out.match(/at (http:\S+)/)[1];
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions', '--disable-background-networking'] });
});

after(async () => {
  if (browser) await browser.close();
  for (const p of procs.reverse()) if (p.exitCode === null) p.kill('SIGTERM');
  await sleep(300);
  fs.rmSync(TMP, { recursive: true, force: true });
});

const RULESETS = ['skirmish', 'warband', 'encounter', 'dungeon', 'massbattle', 'duel'];
const logs = {};

for (const rs of RULESETS) {
  test(`live: a ${rs} match followed as a spectator to its end`, async () => {
    const info = json(['rulesets']).find((r) => r.name === rs);
    assert.ok(info, `refd serves ${rs}`);
    const prefer = { dungeon: 'sunken-cellar', encounter: 'brawl-in-the-hall' };
    const names = (info.scenarios || []).map((s) => (typeof s === 'string' ? s : s.name));
    const scen = names.includes(prefer[rs]) ? prefer[rs] : names.find((s) => !/template/.test(s));
    const created = json(['create', rs, ...(scen ? ['--scenario', scen] : [])]);
    const id = created.match;
    const p = await page();
    await p.goto(`${web.url}?match=${id}`, { waitUntil: 'load' });
    await p.waitForSelector('#watch:not([hidden])', { timeout: 20000 });
    // Bots play the match while the page watches.
    const bots = start(REFCTL, ['-s', CMD, '-e', EVT, 'play', id, '--seed', '11', '--rate', { skirmish: '400', duel: '6' }[rs] || '150'], `play ${rs}`);
    const seqs = new Set();
    await waitFor(async () => {
      const s = await p.evaluate(() => document.getElementById('live-board').dataset.seq);
      if (s) seqs.add(s);
      return bots.exitCode !== null;
    }, `the bots to finish ${rs}`, 240000);
    assert.equal(bots.exitCode, 0, `the bots played ${rs} to the end: ${bots.out.slice(-400)}`);
    const final = json(['view', id]);
    assert.ok(final.finished, 'the match is over');
    await waitFor(() => p.evaluate((seq) => document.getElementById('live-board').dataset.seq === String(seq), final.seq), 'the page to show the final view', 20000);
    assert.ok(seqs.size >= 3, `the board was redrawn as the match went on (${seqs.size} distinct seqs seen)`);
    const drawn = await p.evaluate(() => Array.from(document.querySelectorAll('#live-board .piece'), (e) => e.dataset.id).sort());
    if (final.view.board) {
      assert.deepEqual(drawn, onBoard(final.view), 'the board shows exactly the pieces the spectators\' view lists');
      assert.equal(await p.evaluate(() => document.querySelector('#live-board svg.board').getAttribute('class')), `board board-${final.view.board.kind}`);
    } else {
      assert.ok(await p.evaluate(() => !!document.querySelector('#live-board table.viewtable')), 'a view with no board is shown as a table');
    }
    const status = await p.evaluate(() => document.getElementById('watch-status').textContent);
    assert.match(status, /over/, 'the status says the match is over');
    const feed = await p.evaluate(() => Array.from(document.querySelectorAll('#live-feed li'), (l) => l.textContent));
    assert.ok(feed.length > 0, 'the event feed lists events');
    assert.ok(feed.some((l) => /^\d+ · End: /.test(l)), 'the feed ends with the end event');
    assert.deepEqual(p.errors, [], 'no error in the page');
    await p.screenshot({ path: path.join(SHOTS, `live-${rs}.png`) });
    await p.close();
    const out = path.join(TMP, `${rs}.log`);
    refctl(['export', id, '-o', out]);
    logs[rs] = { path: out, id, final };
  });
}

async function openLog(p, file, pubkey) {
  await p.goto(`${web.url}?tab=replay`, { waitUntil: 'load' });
  await p.waitForFunction(() => document.body.dataset.ready === 'yes');
  if (pubkey !== undefined) await p.$eval('#pubkey', (e, v) => { e.value = v; }, pubkey);
  const input = await p.$('#file');
  await input.uploadFile(file);
  await p.waitForFunction(() => document.getElementById('verdict').dataset.status, { timeout: 30000 });
  return p.evaluate(() => ({ status: document.getElementById('verdict').dataset.status, text: document.getElementById('verdict').textContent }));
}

for (const rs of RULESETS) {
  test(`replay: the exported ${rs} log verifies in the browser and steps to its end`, async () => {
    const L = logs[rs];
    assert.ok(L, `the live ${rs} match was exported`);
    const pub = refctl(['pubkey']).match(/[0-9a-f]{64}/)[0];
    const p = await page();
    const v = await openLog(p, L.path, pub);
    assert.equal(v.status, 'verified', v.text);
    await p.waitForFunction(() => document.getElementById('replay-report').dataset.exit !== undefined, { timeout: 60000 });
    assert.equal(await p.$eval('#replay-report', (e) => e.dataset.exit), '0', 'refctl web\'s rule replay agrees');
    const n = Number(await p.$eval('#slider', (e) => e.max));
    assert.ok(n > 3, 'the log has records to step through');
    // Keyboard: End, Home, ArrowRight; buttons: last, previous.
    await p.focus('#replay-feed');
    await p.keyboard.press('End');
    assert.equal(await p.$eval('#stepper', (e) => e.dataset.step), String(n), 'End goes to the last record');
    await p.keyboard.press('Home');
    assert.equal(await p.$eval('#stepper', (e) => e.dataset.step), '0', 'Home goes to the first record');
    await p.keyboard.press('ArrowRight');
    assert.equal(await p.$eval('#stepper', (e) => e.dataset.step), '1', 'ArrowRight goes to the next record');
    await p.click('#last');
    await p.click('#prev');
    assert.equal(await p.$eval('#stepper', (e) => e.dataset.step), String(n - 1), 'Last then Previous');
    await p.click('#next');
    const feed = await p.evaluate(() => Array.from(document.querySelectorAll('#replay-feed li'), (l) => l.textContent));
    assert.ok(feed.some((l) => /^Final: /.test(l)), 'the last record is the final record, in words');
    if (L.final.view.board) {
      const drawn = await p.evaluate(() => Array.from(document.querySelectorAll('#replay-board .piece'), (e) => e.dataset.id).sort());
      assert.deepEqual(drawn, onBoard(L.final.view), 'the last step\'s board shows the pieces of the final view');
    }
    assert.deepEqual(p.errors, [], 'no error in the page');
    await p.screenshot({ path: path.join(SHOTS, `replay-${rs}.png`) });
    await p.close();
  });
}

// Damage a log, and compare the browser's verdict with refctl verify's.
function refctlVerify(file) {
  try {
    return execFileSync(REFCTL, ['verify', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    return `${e.stdout}${e.stderr}`;
  }
}
const firstRecord = (s) => (s.match(/record \d+/) || [null])[0];

function frames(buf) {
  const out = [];
  let off = 8;
  while (off < buf.length) {
    const n = buf.readUInt32BE(off);
    out.push([off, 8 + n + 32]);
    off += 8 + n + 32;
  }
  return out;
}

test('replay: a log with a changed byte is named by its first bad record, as refctl verify names it', async () => {
  const b = fs.readFileSync(logs.warband.path);
  const f = frames(b);
  const [off] = f[Math.floor(f.length / 2)];
  b[off + 20] ^= 0x01;
  const bad = path.join(TMP, 'changed.log');
  fs.writeFileSync(bad, b);
  const p = await page();
  const v = await openLog(p, bad);
  assert.equal(v.status, 'tampered', v.text);
  const cli = refctlVerify(bad);
  assert.ok(firstRecord(cli), `refctl verify names a record: ${cli}`);
  assert.equal(firstRecord(v.text), firstRecord(cli), `browser: ${v.text} / refctl: ${cli}`);
  assert.match(v.text, /the record's bytes were changed/);
  assert.equal(await p.$eval('#stepper', (e) => e.dataset.step), String(Math.floor(f.length / 2) - 1), 'the viewer opens at the last record before the unreadable one');
  assert.ok((await p.$eval('#replay-feed', (e) => e.textContent)).includes('cannot be read'), 'and says the next one cannot be read');
  await p.screenshot({ path: path.join(SHOTS, 'replay-tampered.png') });
  await p.close();
});

test('replay: a log with a record taken out breaks the chain at the same record as refctl verify', async () => {
  const b = fs.readFileSync(logs.encounter.path);
  const f = frames(b);
  const [off, len] = f[Math.floor(f.length / 3)];
  const bad = path.join(TMP, 'cut.log');
  fs.writeFileSync(bad, Buffer.concat([b.subarray(0, off), b.subarray(off + len)]));
  const p = await page();
  const v = await openLog(p, bad);
  assert.equal(v.status, 'tampered', v.text);
  const cli = refctlVerify(bad);
  assert.equal(firstRecord(v.text), firstRecord(cli), `browser: ${v.text} / refctl: ${cli}`);
  assert.match(v.text, /chain: prev/);
  await p.close();
});

test('replay: another daemon\'s key is refused; a bad key text is an error, not a verdict', async () => {
  const p = await page();
  let v = await openLog(p, logs.duel.path, 'ab'.repeat(32));
  assert.equal(v.status, 'tampered');
  assert.match(v.text, /pubkey: expected abab/);
  v = await openLog(p, logs.duel.path, 'not a key');
  assert.equal(v.status, 'error');
  await p.close();
});

test('replay: an unfinished log is intact but unfinished', async () => {
  const b = fs.readFileSync(logs.skirmish.path);
  const f = frames(b);
  const cut = path.join(TMP, 'unfinished.log');
  const [off, len] = f[Math.floor(f.length / 2)];
  fs.writeFileSync(cut, b.subarray(0, off + len));
  const p = await page();
  const v = await openLog(p, cut);
  assert.equal(v.status, 'unfinished', v.text);
  await p.close();
});

test('a phone\'s width: no sideways scrolling, the board fits', async () => {
  const p = await page(390, 844);
  await p.goto(`${web.url}?match=${logs.massbattle.id}`, { waitUntil: 'load' });
  await p.waitForSelector('#live-board svg.board', { timeout: 20000 });
  const w = await p.evaluate(() => [document.documentElement.scrollWidth, document.querySelector('#live-board svg').getBoundingClientRect().width]);
  assert.ok(w[0] <= 390, `page width ${w[0]} fits 390`);
  assert.ok(w[1] <= 390 && w[1] > 200, `board width ${w[1]}`);
  await p.screenshot({ path: path.join(SHOTS, 'phone-massbattle.png'), fullPage: true });
  await p.close();
});

test('keyboard: the tabs, the watch buttons and the pieces are reachable', async () => {
  const p = await page();
  await p.goto(web.url, { waitUntil: 'load' });
  await p.waitForSelector('#matches tbody tr button');
  const stops = [];
  for (let i = 0; i < 12; i++) {
    await p.keyboard.press('Tab');
    stops.push(await p.evaluate(() => document.activeElement.id || document.activeElement.textContent.trim().slice(0, 12)));
  }
  assert.ok(stops.includes('tab-live'), `tab stops: ${stops.join(' | ')}`);
  assert.ok(stops.some((s) => /^(Look|Watch)/.test(s)), `a watch button is reachable: ${stops.join(' | ')}`);
  await p.close();
});

test('a view with no board is shown as a table of its members', async () => {
  const p = await page();
  await p.goto(`${web.url}?tab=replay`, { waitUntil: 'load' });
  const r = await p.evaluate(async () => {
    const m = await import('./board.js');
    const div = document.createElement('div');
    document.body.appendChild(div);
    const kind = m.drawView(div, { round: 3, fighters: [{ name: 'knight', hp: 9 }], over: false });
    return { kind, rows: Array.from(div.querySelectorAll('th'), (t) => t.textContent), svg: !!div.querySelector('svg') };
  });
  assert.equal(r.kind, 'view');
  assert.ok(!r.svg, 'no board drawn');
  for (const k of ['round', 'fighters', 'name', 'hp', 'over']) assert.ok(r.rows.includes(k), `the view's members as rows: ${r.rows}`);
  await p.close();
});
