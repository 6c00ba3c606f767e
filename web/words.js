// words.js - events and draws in words, with the game's own names.
//
// An event is a map with a type; its members are said in order, a member
// that names a piece (unit, model, fig, attacker, target...) by its number
// is said with the piece's name from the board of the view.

const REFS = new Set(['unit', 'model', 'fig', 'attacker', 'target', 'caster', 'actor', 'defender', 'mover',
  'victim', 'source', 'by', 'creature_id', 'leader', 'commander', 'charger', 'shooter']);
const DICE = new Set(['roll', 'rolls', 'dice', 'die', 'd20', 'total', 'natural']);

const human = (k) => String(k).replace(/_/g, ' ');

function say(v, names, key) {
  if (v === null || v === undefined) return '–';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'number' && REFS.has(key) && names && names.has(v)) return names.get(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return 'none';
    if (key === 'dice' || key === 'rolls') return v.map((x) => say(x, names)).join(' + ');
    if (v.length === 2 && v.every((x) => typeof x === 'number') && /^(at|to|from|xy|pos)$/.test(key)) return `(${v[0]}, ${v[1]})`;
    return v.map((x) => say(x, names, key)).join(', ');
  }
  if (v instanceof Uint8Array) return `${v.length} bytes`;
  if (typeof v === 'object') return '{' + Object.entries(v).map(([k, x]) => `${human(k)} ${say(x, names, k)}`).join(', ') + '}';
  return String(v);
}

/** One event in words: "Attack roll: attacker Battle Mage, target ..." */
export function eventWords(ev, names) {
  if (!ev || typeof ev !== 'object') return String(ev);
  const type = ev.type ? human(ev.type) : 'event';
  const skip = new Set(['type', 'seq', 'i', 'match']);
  const parts = [];
  const dice = [];
  for (const [k, v] of Object.entries(ev)) {
    if (skip.has(k)) continue;
    if (k === 'seat' && typeof v === 'number') { parts.push(v >= 0 ? `seat ${v}` : 'nobody'); continue; }
    (DICE.has(k) ? dice : parts).push(`${human(k)} ${say(v, names, k)}`);
  }
  let s = type.charAt(0).toUpperCase() + type.slice(1);
  if (parts.length) s += ': ' + parts.join(', ');
  if (dice.length) s += (parts.length ? '; ' : ': ') + 'dice: ' + dice.join(', ');
  return s;
}

/** A draw of the log: "d20 → 14 (attack)". */
export function drawWords(d) {
  const what = d.kind === 1 ? `d${d.bound}` : `a draw from 0 to ${d.bound - 1}`;
  return `${what} → ${d.value}${d.why ? ` (${d.why})` : ''}`;
}
