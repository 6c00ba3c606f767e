// evlog.js - read and check a refd event log in the browser (refd-evlog(5)).
//
// What is checked here, in refctl verify's order and with its record names:
// the framing and the trailing hash of every frame, the numbering, the hash
// chain and the seq of every record, the header's key against the key the
// user gives, every signature, the revealed server seed against its
// commitment, every opening against its commitment, and every draw against
// the match seed (or the scripted dice).  The rule replay (draws, events and
// state hashes recomputed through the plugin) needs the plugin: it stays in
// `refctl verify`, which `refctl web` runs for the page.
import { decode } from '@msgpack/msgpack';

const MAGIC = 'refdlog1';
const HEAD = 8;
const HASH = 32;
const SIG_PREFIX = new TextEncoder().encode('refd-evlog-v1 signature\n');
const SEED_PREFIX = new TextEncoder().encode('refd match seed v1');
const KINDS = ['header', 'join', 'start', 'cmd', 'checkpoint', 'final'];

export const hex = (b) => Array.from(b || [], (x) => x.toString(16).padStart(2, '0')).join('');
const hex16 = (b) => hex(b).slice(0, 32);

export function fromHex(s) {
  const t = String(s || '').trim().toLowerCase();
  if (!/^([0-9a-f]{2})*$/.test(t)) return null;
  const out = new Uint8Array(t.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(t.substr(i * 2, 2), 16);
  return out;
}

function eq(a, b) {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function be32(b, o) {
  return ((b[o] << 24) >>> 0) + (b[o + 1] << 16) + (b[o + 2] << 8) + b[o + 3];
}

function concat(parts) {
  const n = parts.reduce((a, p) => a + p.length, 0);
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

const num = (v) => (typeof v === 'bigint' ? Number(v) : v);

/** "record 7 (seq 6, cmd 'c3' of seat 1)", as refctl verify names it. */
export function recordName(r, pos) {
  switch (r.kind) {
    case 'cmd': return `record ${pos} (seq ${r.seq}, cmd '${String(r.id ?? '').slice(0, 40)}' of seat ${r.seat})`;
    case 'checkpoint': return `record ${pos} (checkpoint at seq ${r.at})`;
    case 'join': return `record ${pos} (seq ${r.seq}, join of seat ${r.seat})`;
    default: return `record ${pos} (seq ${r.seq}, ${r.kind})`;
  }
}

function decodeBin(b) {
  if (!(b instanceof Uint8Array)) return b;
  try { return decode(b); } catch (e) { return undefined; }
}

/** Split a log into frames; stops at the first bad one (named in `why`). */
export function scan(sodium, bytes) {
  const out = { frames: [], tail: 'clean', why: '' };
  if (bytes.length < HEAD || new TextDecoder().decode(bytes.subarray(0, HEAD)) !== MAGIC) {
    out.tail = 'damaged';
    out.why = 'not a refd event log: the file does not start with \'refdlog1\'';
    return out;
  }
  let off = HEAD;
  while (off < bytes.length) {
    const left = bytes.length - off;
    if (left < 8) {
      out.tail = 'torn';
      out.why = `incomplete frame head at offset ${off} (${left} of 8 bytes)`;
      break;
    }
    const n = be32(bytes, off), x = be32(bytes, off + 4);
    if (x !== (~n >>> 0) || n === 0 || n > 67108864) {
      out.tail = bytes.subarray(off).every((c) => c === 0) ? 'torn' : 'damaged';
      out.why = `bad frame length at offset ${off} (0x${n.toString(16).padStart(8, '0')}, check 0x${x.toString(16).padStart(8, '0')})`;
      break;
    }
    if (n + 8 + HASH > left) {
      out.tail = 'torn';
      out.why = `incomplete record at offset ${off} (${left} of ${n + 8 + HASH} bytes)`;
      break;
    }
    const payload = bytes.subarray(off + 8, off + 8 + n);
    const stored = bytes.subarray(off + 8 + n, off + 8 + n + HASH);
    const h = sodium.crypto_generichash(HASH, payload);
    if (!eq(h, stored)) {
      out.tail = off + 8 + n + HASH === bytes.length ? 'torn' : 'damaged';
      out.why = `record ${out.frames.length} at offset ${off}: hash: expected ${hex16(stored)}..., found ${hex16(h)}... (the record's bytes were changed)`;
      break;
    }
    out.frames.push({ off, payload, hash: h });
    off += n + 8 + HASH;
  }
  return out;
}

function decodeRecord(f) {
  const m = decode(f.payload);
  if (!m || typeof m !== 'object' || !KINDS.includes(m.kind)) throw new Error('not a record: no known kind');
  const r = { ...m };
  for (const k of ['n', 'seq', 'seat', 'at', 'seats', 'time']) if (k in r) r[k] = num(r[k]);
  if (r.kind === 'cmd') r.command = decodeBin(r.cmd);
  if (r.kind === 'header') r.setupValue = decodeBin(r.setup);
  if (r.kind === 'final') r.resultValue = decodeBin(r.result);
  if (Array.isArray(r.events)) {
    r.eventList = r.events.map((e) => (Array.isArray(e) ? { seat: num(e[0]), event: decodeBin(e[1]) } : { seat: -1, event: decodeBin(e) }));
  }
  if (Array.isArray(r.draws)) {
    r.drawList = r.draws.map((d) => ({ index: num(d[0]), kind: num(d[1]), bound: num(d[2]), value: num(d[3]), why: d[4] }));
  }
  return r;
}

function u64le(c) {
  const b = new Uint8Array(8);
  let v = BigInt(c);
  for (let i = 0; i < 8; i++) { b[i] = Number(v & 0xffn); v >>= 8n; }
  return b;
}

/** The value of draw `d` from the match seed, and the counter after it. */
function drawValue(sodium, seed, d) {
  const bound = BigInt(d.bound);
  const limit = (1n << 32n) - ((1n << 32n) % bound);
  let c = d.index;
  for (let tries = 0; tries < 64; tries++, c++) {
    const h = sodium.crypto_generichash(8, u64le(c), seed);
    const r = BigInt((h[0] | (h[1] << 8) | (h[2] << 16) | (h[3] << 24)) >>> 0);
    if (r < limit) return { value: Number(r % bound) + (d.kind === 1 ? 1 : 0), next: c + 1 };
  }
  return { value: null, next: c };
}

/**
 * Verify a log.  Returns { status: 'verified' | 'unfinished' | 'tampered',
 * why, records, frames, header, final, checks: [text...] }.  `pubkey` is a
 * Uint8Array(32) or null (then the header's own key is used, and said so).
 */
export function verifyLog(sodium, bytes, pubkey) {
  const res = { status: 'verified', why: '', records: [], checks: [], header: null, final: null, badRecord: null };
  const bad = (why, rec) => {
    res.status = 'tampered';
    res.why = why;
    res.badRecord = rec ?? null;
    return res;
  };
  const s = scan(sodium, bytes);
  res.frames = s.frames;
  for (let i = 0; i < s.frames.length; i++) {
    try {
      res.records.push(decodeRecord(s.frames[i]));
    } catch (e) {
      return bad(`record ${i} at offset ${s.frames[i].off}: ${e.message}`, i);
    }
  }
  // The records before a damaged frame stay readable; the verdict names it.
  if (s.tail === 'damaged') return bad(s.why, s.frames.length);
  if (s.frames.length === 0) return bad(s.tail === 'torn' ? s.why : 'no records: not even a header', 0);
  res.checks.push(`framing: ${s.frames.length} records, every frame's hash holds`);
  const R = res.records;
  const h = R[0];
  if (h.kind !== 'header') return bad(`record 0: expected the header record, found a ${h.kind} record`, 0);
  res.header = h;
  // Pass 1: numbering, chain, seq, the order of kinds.
  let seq = 0, started = false, final = null;
  const taken = new Set();
  for (let i = 1; i < R.length; i++) {
    const r = R[i], name = recordName(r, i);
    if (r.n !== i || !eq(r.prev, s.frames[i - 1].hash)) {
      const diag = r.n > i ? (r.n === i + 1 ? `record ${i} is missing` : `records ${i} to ${r.n - 1} are missing`)
        : r.n < i ? `records are out of order or repeated (record ${r.n} appears at position ${i})`
          : 'a record before it was changed or replaced';
      return bad(`${name} at offset ${s.frames[i].off}: chain: prev: expected ${hex16(s.frames[i - 1].hash)}... (hash of record ${i - 1}), found ${hex16(r.prev)}...; ${diag}`, i);
    }
    if (final) return bad(`${name}: found after the final record`, i);
    if (r.kind !== 'checkpoint' && r.seq !== seq + 1) return bad(`${name}: seq: expected ${seq + 1}, found ${r.seq}`, i);
    if (r.kind === 'header') return bad(`${name}: a second header`, i);
    if (r.kind === 'join') {
      if (started || r.seat < 0 || r.seat >= h.seats || taken.has(r.seat)) return bad(`${name}: seat: a join of seat ${r.seat} is not possible here`, i);
      taken.add(r.seat);
    }
    if (r.kind === 'start') {
      if (started || taken.size !== h.seats) return bad(`${name}: start: expected only after every seat joined`, i);
      started = true;
    }
    if (r.kind === 'cmd' && !started) return bad(`${name}: a command before the start`, i);
    if (r.kind === 'final') final = r;
    if (r.kind !== 'checkpoint') seq = r.seq;
  }
  res.checks.push('chain: every record chains to the one before it, numbers and seqs in order');
  // The key.
  if (pubkey) {
    if (!eq(pubkey, h.pubkey)) return bad(`record 0 (header): pubkey: expected ${hex(pubkey)}, found ${hex(h.pubkey)}`, 0);
    res.checks.push('key: the header\'s key is the one given');
  } else {
    res.checks.push(`key: none given; checked against the header's own key ${hex(h.pubkey)} (anyone can sign a log with a key of their own)`);
  }
  // Signatures.
  let nsig = 0;
  for (let i = 0; i < R.length; i++) {
    const p = s.frames[i].payload;
    if (!('sig' in R[i])) continue;
    const tail = p.subarray(p.length - 70, p.length - 64);
    if (!eq(tail, Uint8Array.of(0xa3, 0x73, 0x69, 0x67, 0xc4, 0x40))) return bad(`${recordName(R[i], i)}: signature: not the last member`, i);
    const msg = concat([SIG_PREFIX, p.subarray(0, p.length - 64), new Uint8Array(64)]);
    if (!sodium.crypto_sign_verify_detached(p.subarray(p.length - 64), msg, h.pubkey)) {
      return bad(`${recordName(R[i], i)}: signature: invalid for the key in the header; the record, or one before it, was changed after signing`, i);
    }
    nsig++;
  }
  res.checks.push(`signatures: ${nsig} signed records, every signature valid`);
  if (!final) {
    res.status = 'unfinished';
    res.why = s.tail === 'torn'
      ? `cut short after record ${R.length - 1}: ${s.why}`
      : `the match is not finished (last record ${R.length - 1}); its dice and hidden zones can only be checked once the server seed is revealed`;
    return res;
  }
  res.final = final;
  const fi = R.length - 1, fname = recordName(final, fi);
  // The seed.
  const c = sodium.crypto_generichash(32, final.server_seed);
  if (!eq(c, h.commit)) return bad(`${fname}: server_seed: the revealed seed does not match its commitment: expected a seed hashing to ${hex(h.commit)} (header), found one hashing to ${hex(c)}`, fi);
  res.checks.push('seed: the revealed server seed matches the commitment made before the seats chose theirs');
  // Openings.
  const commits = [];
  for (let i = 0; i < R.length; i++) for (const cm of R[i].commits || []) commits.push({ zone: cm[0], seat: num(cm[1]), hash: cm[2], rec: i });
  const op = final.openings || [];
  if (op.length !== commits.length) return bad(`${fname}: openings: expected ${commits.length} (one per commitment), found ${op.length}`, fi);
  for (let k = 0; k < op.length; k++) {
    const [zone, seat, salt, data] = op[k], cm = commits[k];
    if (zone !== cm.zone || num(seat) !== cm.seat) return bad(`${fname}: opening ${k}: zone: expected '${cm.zone}' of seat ${cm.seat}, found '${zone}' of seat ${num(seat)}`, fi);
    if (!eq(sodium.crypto_generichash(32, concat([salt, data])), cm.hash)) {
      return bad(`${fname}: opening ${k} ('${zone}', committed in ${recordName(R[cm.rec], cm.rec)}): the data does not match the commitment`, fi);
    }
  }
  res.checks.push(`hidden zones: ${commits.length} commitments, every opening matches`);
  // Dice.
  let ndraws = 0;
  if (h.scripted) {
    const dice = (h.dice || []).map(num);
    for (let i = 0; i < R.length; i++) {
      for (const d of R[i].drawList || []) {
        if (dice[d.index] !== d.value) return bad(`${recordName(R[i], i)}: draw ${d.index} ('${d.why}'): the scripted dice have ${dice[d.index]}, the log has ${d.value}`, i);
        ndraws++;
      }
    }
    res.checks.push(`dice: ${ndraws} draws, every one the header's scripted die (a scripted match is never ranked)`);
  } else {
    const shares = [];
    for (const r of R) if (r.kind === 'join') shares[r.seat] = r.seed instanceof Uint8Array ? r.seed : new Uint8Array(0);
    const parts = [SEED_PREFIX, final.server_seed];
    for (let k = 0; k < h.seats; k++) {
      const sh = shares[k] || new Uint8Array(0);
      parts.push(Uint8Array.of(sh.length >>> 24 & 255, sh.length >>> 16 & 255, sh.length >>> 8 & 255, sh.length & 255), sh);
    }
    const seed = sodium.crypto_generichash(32, concat(parts));
    for (let i = 0; i < R.length; i++) {
      for (const d of R[i].drawList || []) {
        const v = drawValue(sodium, seed, d);
        if (v.value !== d.value) return bad(`${recordName(R[i], i)}: draw ${d.index} ('${d.why}'): the seeds give ${v.value}, the log has ${d.value}`, i);
        ndraws++;
      }
    }
    res.checks.push(`dice: ${ndraws} draws, every one follows from the seeds`);
  }
  return res;
}
