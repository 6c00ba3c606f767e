// app.js - refd's spectator page and replay viewer.
//
// Live: connect to a refd ws:// endpoint, list its matches, follow one as a
// spectator (the spectators' view only: no seat, no token is ever sent).
// Replay: open an exported log, verify it here (evlog.js), then step
// through it with the board of every step (the views come from `refctl
// web`, which replays the log through the plugin).
import { Client } from 'refd-client';
import { drawView, drawRoster, pieceNames } from './board.js';
import { eventWords, drawWords } from './words.js';
import { verifyLog, recordName, fromHex, hex } from './evlog.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let sodium = null;

async function getSodium() {
  if (!sodium) {
    sodium = globalThis.sodium;
    if (!sodium) throw new Error('libsodium did not load (vendor/libsodium)');
    await sodium.ready;
  }
  return sodium;
}

// ---- tabs --------------------------------------------------------------

function showTab(name) {
  for (const t of ['live', 'replay']) {
    const on = t === name;
    $(`tab-${t}`).setAttribute('aria-selected', String(on));
    $(`tab-${t}`).tabIndex = on ? 0 : -1;
    $(t).hidden = !on;
  }
  document.body.dataset.tab = name;
}

function setupTabs() {
  $('tab-live').addEventListener('click', () => showTab('live'));
  $('tab-replay').addEventListener('click', () => showTab('replay'));
  for (const t of ['tab-live', 'tab-replay']) {
    $(t).addEventListener('keydown', (e) => {
      if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
        const other = t === 'tab-live' ? 'replay' : 'live';
        showTab(other);
        $(`tab-${other}`).focus();
        e.preventDefault();
      }
    });
  }
}

function feedItem(list, text, cls) {
  const li = document.createElement('li');
  li.textContent = text;
  if (cls) li.className = cls;
  list.appendChild(li);
  while (list.children.length > 400) list.removeChild(list.firstChild);
  list.scrollTop = list.scrollHeight;
  return li;
}

const resultWords = (r) => {
  if (!r || typeof r !== 'object') return '';
  const w = Array.isArray(r.winners) ? r.winners : [];
  const who = w.length === 0 ? 'no winner' : w.length === 1 ? `seat ${w[0]} wins` : `seats ${w.join(', ')} win`;
  return `${who}${r.reason ? ` (${r.reason})` : ''}`;
};

// ---- live ----------------------------------------------------------------

const live = { client: null, eventsUrl: null, timer: null, sub: null, match: null, view: null, refreshing: null, again: false };

function setConn(text, bad) {
  $('conn-status').textContent = text;
  $('conn-status').className = bad ? 'bad' : '';
}

async function connect(e) {
  if (e) e.preventDefault();
  const url = $('refd-url').value.trim(), ev = $('events-url').value.trim();
  stopWatching();
  if (live.client) live.client.close();
  live.client = null;
  setConn(`connecting to ${url}…`);
  try {
    const c = await Client.connect(url, { timeout: 5000, tries: 1 });
    const h = await c.hello();
    live.client = c;
    live.eventsUrl = ev;
    setConn(`connected to refd ${h.version || ''} at ${url}`);
    document.body.dataset.connected = 'yes';
    await listMatches();
    clearInterval(live.timer);
    live.timer = setInterval(() => { if (!live.match) listMatches().catch(() => {}); }, 3000);
    const m = params.get('match');
    if (m) { params.delete('match'); await watch(m); }
  } catch (err) {
    setConn(`cannot connect: ${err.message}`, true);
  }
}

async function listMatches() {
  const ms = await live.client.matches();
  const list = Array.isArray(ms) ? ms : (ms && ms.matches) || [];
  const tb = $('matches').tBodies[0];
  tb.replaceChildren();
  list.sort((a, b) => (b.created || 0) - (a.created || 0));
  for (const m of list) {
    const tr = tb.insertRow();
    tr.dataset.match = m.id;
    tr.insertCell().textContent = m.id;
    tr.insertCell().textContent = m.ruleset;
    tr.insertCell().textContent = m.finished ? `over: ${resultWords(m.result)}` : m.status;
    tr.insertCell().textContent = m.seq;
    const b = document.createElement('button');
    b.textContent = m.finished ? 'Look' : 'Watch';
    b.setAttribute('aria-label', `${b.textContent} match ${m.id} (${m.ruleset})`);
    b.addEventListener('click', () => watch(m.id));
    tr.insertCell().appendChild(b);
  }
  $('no-matches').hidden = list.length > 0;
}

function stopWatching() {
  if (live.sub) live.sub.close();
  live.sub = null;
  live.match = null;
}

async function refreshView() {
  if (live.refreshing) { live.again = true; return live.refreshing; }
  const id = live.match;
  live.refreshing = (async () => {
    do {
      live.again = false;
      let v;
      try {
        v = await live.client.view(id);
      } catch (err) {
        if (err.errorName !== 'ENOTSTARTED') throw err;
        // Seats are still joining: say so, and look again shortly.
        $('watch-status').textContent = `Waiting: ${err.refdMessage.replace(/^match '[0-9a-f]+': /, '')}.`;
        $('watch').dataset.seq = '0';
        setTimeout(() => { if (live.match === id) refreshView().catch(() => {}); }, 1000);
        return;
      }
      if (live.match !== id) return;
      live.view = v.view;
      const box = $('live-board');
      const kind = drawView(box, v.view, { label: `board of match ${id}` });
      box.dataset.seq = v.seq;
      box.dataset.kind = kind;
      drawRoster($('live-roster'), v.view);
      let st;
      if (v.finished) {
        st = 'The match is over.';
      } else {
        const p = await live.client.pending(id);
        st = p.seats && p.seats.length ? `Seat ${p.seats.join(' and seat ')} to act.` : 'Waiting.';
      }
      if (live.result) st = `The match is over: ${resultWords(live.result)}.`;
      $('watch-status').textContent = `${st} (seq ${v.seq})`;
      $('watch').dataset.seq = v.seq;
      $('watch').dataset.finished = v.finished ? 'yes' : 'no';
    } while (live.again && live.match === id);
  })().finally(() => { live.refreshing = null; });
  return live.refreshing;
}

async function watch(id) {
  stopWatching();
  live.match = id;
  live.result = null;
  $('match-list').hidden = true;
  $('watch').hidden = false;
  $('live-feed').replaceChildren();
  const info = ((await live.client.matches()) || []).find?.((m) => m.id === id);
  $('watch-title').textContent = `Match ${id}${info ? ` · ${info.ruleset}` : ''}`;
  $('watch').dataset.match = id;
  if (info && info.finished) live.result = info.result;
  try {
    await refreshView();
  } catch (err) {
    $('watch-status').textContent = `Cannot show match ${id}: ${err.message}`;
    return;
  }
  const since = Math.max(0, Number($('watch').dataset.seq || 0) - 40);
  try {
    live.sub = await live.client.subscribe(id, { url: live.eventsUrl, since });
  } catch (err) {
    $('watch-status').textContent += ` (no live events: ${err.message})`;
    return;
  }
  const sub = live.sub;
  (async () => {
    for (;;) {
      let ev;
      try { ev = await sub.next(60000); } catch (err) { if (live.sub === sub) $('watch-status').textContent += ` (events: ${err.message})`; return; }
      if (live.sub !== sub) return;
      if (ev === null) { if (sub.finished) return; continue; }
      const li = feedItem($('live-feed'), `${ev.seq} · ${eventWords(ev, pieceNames(live.view))}`, ev.type === 'end' ? 'end' : '');
      li.dataset.seq = ev.seq;
      if (ev.type === 'end') live.result = ev.result;
      refreshView().catch(() => {});
      if (ev.type === 'end') return;
    }
  })();
}

function setupLive(cfg) {
  $('refd-url').value = params.get('refd') || cfg.refd || `ws://${location.hostname || '127.0.0.1'}:7413/`;
  $('events-url').value = params.get('events') || cfg.events || `ws://${location.hostname || '127.0.0.1'}:7414/`;
  $('connect').addEventListener('submit', connect);
  $('back').addEventListener('click', () => {
    stopWatching();
    $('watch').hidden = true;
    $('match-list').hidden = false;
    listMatches().catch(() => {});
  });
}

// ---- replay --------------------------------------------------------------

const rp = { res: null, views: null, step: 0 };

function verdictBox(res, header) {
  const box = $('verdict');
  box.dataset.status = res.status;
  const m = header ? `match ${header.match}, ${header.ruleset} ${header.ruleset_version}` : '';
  const text = {
    verified: `VERIFIED${m ? ` – ${m}` : ''}: every record is framed, chained and signed; the revealed seed matches its commitment; every hidden zone opens to its commitment; every die follows from the seeds.`,
    unfinished: `INTACT BUT UNFINISHED${m ? ` – ${m}` : ''}: ${res.why}`,
    tampered: `TAMPERED: ${res.why}`,
  }[res.status];
  box.textContent = text;
  if (res.final) {
    const r = document.createElement('p');
    r.textContent = `Result: ${resultWords(res.final.resultValue)} (${res.final.why}).`;
    box.appendChild(r);
  }
  const ul = $('checks').querySelector('ul');
  ul.replaceChildren();
  for (const c of res.checks) feedItem(ul, c);
}

async function openLog(bytes, name) {
  const s = await getSodium();
  const pkText = $('pubkey').value.trim();
  let pk = null;
  if (pkText) {
    pk = fromHex(pkText);
    if (!pk || pk.length !== 32) {
      $('verdict').dataset.status = 'error';
      $('verdict').textContent = 'The public key is 64 hexadecimal characters (the content of refd.pub).';
      return;
    }
  }
  $('log-name').textContent = name;
  const res = verifyLog(s, bytes, pk);
  rp.res = res;
  rp.views = null;
  verdictBox(res, res.header);
  $('replay-report').textContent = '';
  $('stepper').hidden = res.records.length === 0;
  $('slider').max = String(Math.max(0, res.records.length - 1));
  go(res.status === 'tampered' && res.badRecord !== null ? Math.min(res.badRecord, res.records.length - 1) : 0);
  if (res.status === 'verified') {
    $('replay-report').textContent = 'Replaying the rules for the boards…';
    try {
      const q = pk ? `?pubkey=${hex(pk)}` : '';
      const r = await fetch(`views${q}`, { method: 'POST', body: bytes, headers: { 'Content-Type': 'application/octet-stream' } });
      if (!r.ok) throw new Error(`${r.status} ${r.statusText}`);
      const j = await r.json();
      rp.views = new Map(j.views.map((v) => [v.record, v.view]));
      const exits = { 0: 'the rule replay agrees (refctl verify: VERIFIED)', 1: 'the rule replay does NOT agree (refctl verify: FAILED)', 3: 'incomplete', 4: 'the rule replay could not run here (plugin or content missing or different)' };
      const last = j.report.trim().split('\n').filter((l) => !/^(VERIFIED|FAILED|INCOMPLETE|NOT CHECKED)/.test(l)).slice(-1)[0] || '';
      $('replay-report').textContent = `${exits[j.exit] || `refctl verify exit ${j.exit}`}.${j.exit === 0 ? '' : ` ${last}`}`;
      $('replay-report').dataset.exit = j.exit;
      go(rp.step);
    } catch (err) {
      $('replay-report').textContent = `No boards: the rule replay needs refctl web (${err.message}); the records are listed below.`;
    }
  }
}

function viewAt(i) {
  if (!rp.views) return null;
  for (let k = i; k >= 0; k--) if (rp.views.has(k)) return rp.views.get(k);
  return null;
}

function go(i) {
  const R = rp.res ? rp.res.records : [];
  if (!R.length) return;
  i = Math.max(0, Math.min(R.length - 1, i));
  rp.step = i;
  $('slider').value = String(i);
  const r = R[i];
  $('step-label').textContent = `Record ${i} of ${R.length - 1}: ${recordName(r, i)}`;
  $('stepper').dataset.step = i;
  const v = viewAt(i);
  const box = $('replay-board');
  if (v) {
    box.dataset.kind = drawView(box, v, { label: `board after record ${i}` });
    drawRoster($('replay-roster'), v);
  } else {
    box.replaceChildren();
    box.dataset.kind = '';
    $('replay-roster').replaceChildren();
  }
  const feed = $('replay-feed');
  feed.replaceChildren();
  const names = pieceNames(v);
  if (rp.res.status === 'tampered' && rp.res.badRecord === i) feedItem(feed, `This record fails: ${rp.res.why}`, 'bad');
  if (rp.res.status === 'tampered' && rp.res.badRecord === R.length && i === R.length - 1) feedItem(feed, `The next record cannot be read: ${rp.res.why}`, 'bad');
  if (r.kind === 'header') feedItem(feed, `Header: ${r.ruleset} ${r.ruleset_version}, ${r.seats} seats${r.scenario ? `, scenario ${r.scenario}` : ''}${r.scripted ? ', scripted dice' : ''}; seed commitment ${hex(r.commit).slice(0, 16)}…`);
  if (r.kind === 'join') feedItem(feed, `Seat ${r.seat} joins with a seed of ${(r.seed || []).length} bytes.`);
  if (r.kind === 'checkpoint') feedItem(feed, `Checkpoint: the daemon signs the chain up to seq ${r.at}.`);
  if (r.kind === 'cmd') feedItem(feed, `Seat ${r.seat} commands: ${eventWords(r.command, names)}`, 'cmd');
  for (const d of r.drawList || []) feedItem(feed, `Dice: ${drawWords(d)}`, 'draw');
  for (const e of r.eventList || []) feedItem(feed, `${e.seat >= 0 ? `(to seat ${e.seat} only) ` : ''}${eventWords(e.event, names)}`, e.seat >= 0 ? 'private' : '');
  if (r.kind === 'final') feedItem(feed, `Final: ${r.why}${r.seat >= 0 ? ` by seat ${r.seat}` : ''}; ${resultWords(r.resultValue)}. The server seed is revealed; ${(r.openings || []).length} hidden zones opened.`, 'end');
}

function setupReplay() {
  $('file').addEventListener('change', async () => {
    const f = $('file').files[0];
    if (f) await openLog(new Uint8Array(await f.arrayBuffer()), f.name);
  });
  const drop = $('drop');
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', async (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    const f = e.dataTransfer.files[0];
    if (f) await openLog(new Uint8Array(await f.arrayBuffer()), f.name);
  });
  drop.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); $('file').click(); } });
  $('first').addEventListener('click', () => go(0));
  $('prev').addEventListener('click', () => go(rp.step - 1));
  $('next').addEventListener('click', () => go(rp.step + 1));
  $('last').addEventListener('click', () => go(Infinity));
  $('slider').addEventListener('input', () => go(Number($('slider').value)));
  document.addEventListener('keydown', (e) => {
    if ($('replay').hidden || $('stepper').hidden) return;
    if (e.target instanceof HTMLInputElement && e.target.type !== 'range') return;
    const k = { Home: () => go(0), ArrowLeft: () => go(rp.step - 1), ArrowRight: () => go(rp.step + 1), End: () => go(Infinity) }[e.key];
    if (k) { e.preventDefault(); k(); }
  });
}

// ---- start -------------------------------------------------------------

async function main() {
  setupTabs();
  let cfg = {};
  try {
    const r = await fetch('config.json');
    if (r.ok) cfg = await r.json();
  } catch (e) { /* any static server: no config, the defaults */ }
  setupLive(cfg);
  setupReplay();
  showTab(params.get('tab') === 'replay' ? 'replay' : 'live');
  document.body.dataset.ready = 'yes';
  if (params.get('tab') !== 'replay') await connect();
}

// For tests and scripts: open a log given as bytes.
window.refdViewer = { openLog, go, connect, watch, state: () => ({ step: rp.step, status: rp.res && rp.res.status }) };
main();
