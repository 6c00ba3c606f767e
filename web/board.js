// board.js - draw the "board" member of a view in SVG (refd-plugin(3), BOARD).
//
// Nothing here knows a ruleset: a plugin describes its board (kind grid, hex
// or table; cells, areas, marks, pieces, info) and this draws it.  A view
// with no board is shown as a table of its members.

const NS = 'http://www.w3.org/2000/svg';

// Side colours (Okabe-Ito, safe for the common colour blindnesses) and a
// shape per side, so that no side is told by colour alone.
export const SIDES = [
  { colour: '#0072B2', shape: 'circle', name: 'blue circle' },
  { colour: '#E69F00', shape: 'square', name: 'orange square' },
  { colour: '#009E73', shape: 'triangle', name: 'green triangle' },
  { colour: '#CC79A7', shape: 'diamond', name: 'pink diamond' },
  { colour: '#D55E00', shape: 'pentagon', name: 'red pentagon' },
  { colour: '#56B4E9', shape: 'star', name: 'sky star' },
];
export const NEUTRAL = { colour: '#6b6b6b', shape: 'hexagon', name: 'grey hexagon' };
export const side = (s) => (s >= 0 ? SIDES[s % SIDES.length] : NEUTRAL);

// Terrain words: a fill, and a pattern id for the ones told by texture.
const TERRAIN = {
  wall: { fill: '#3b3b3b' },
  door: { fill: '#8a5a2b' },
  floor: { fill: '#efe9dc' },
  difficult: { fill: '#d9cfa8', pattern: 'hatch' },
  obstacle: { fill: '#a08a6a', pattern: 'cross' },
  hazard: { fill: '#f2c38b', pattern: 'warn' },
  trap: { fill: '#e8a0a0', pattern: 'warn' },
  water: { fill: '#9cc7e8' },
  darkness: { fill: '#2a2a40', opacity: 0.55 },
  fog: { fill: '#c9c9c9', opacity: 0.7 },
  statue: { fill: '#9a9a9a' },
  blood: { fill: '#d8a0a0', pattern: 'dots' },
  sacred: { fill: '#f4e7a1' },
  sharp: { fill: '#d0b090', pattern: 'cross' },
  pit: { fill: '#1a1a1a' },
  magic: { fill: '#d9c2f0', pattern: 'dots' },
  treasure: { fill: '#f3d36b' },
  deploy: { fill: '#e3eef7' },
  cover: { fill: '#7fa36b' },
  concealment: { fill: '#b9d89e', pattern: 'dots' },
  obstruction: { fill: '#6d6d6d' },
  cloud: { fill: '#cfd8dc', opacity: 0.6 },
  narrow: { fill: '#d6d0c4', pattern: 'hatch' },
  crevice: { fill: '#b5ab98', pattern: 'hatch' },
  plate: { fill: '#c0c8d0' },
};

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  if (parent) parent.appendChild(e);
  return e;
}

function title(parent, text) {
  const t = el('title', {}, parent);
  t.textContent = text;
  return t;
}

function defs(svg) {
  const d = el('defs', {}, svg);
  const pat = (id, draw) => {
    const p = el('pattern', { id, width: 8, height: 8, patternUnits: 'userSpaceOnUse' }, d);
    draw(p);
  };
  pat('hatch', (p) => el('path', { d: 'M0,8 L8,0', stroke: '#0005', 'stroke-width': 1.2 }, p));
  pat('cross', (p) => el('path', { d: 'M0,0 L8,8 M8,0 L0,8', stroke: '#0004', 'stroke-width': 1 }, p));
  pat('dots', (p) => el('circle', { cx: 4, cy: 4, r: 1.4, fill: '#0005' }, p));
  pat('warn', (p) => el('path', { d: 'M0,4 L8,4', stroke: '#a0400099', 'stroke-width': 2 }, p));
}

/** The terrain of a cell: its words, the fill of the first known one. */
function terrainStyle(words) {
  const list = String(words || '').split(/\s+/).filter(Boolean);
  const known = list.map((w) => TERRAIN[w]).filter(Boolean);
  const base = known[0] || { fill: '#cfcfcf' };
  const pattern = known.find((t) => t.pattern);
  return { list, base, pattern: pattern ? pattern.pattern : null };
}

function paintCell(g, shape, attrs, words) {
  const st = terrainStyle(words);
  const main = el(shape, { ...attrs, fill: st.base.fill, 'fill-opacity': st.base.opacity ?? 1 }, g);
  title(main, st.list.join(', '));
  if (st.pattern) el(shape, { ...attrs, fill: `url(#${st.pattern})`, 'pointer-events': 'none' }, g);
  // A door's state is written on it (open, closed, locked).
  return main;
}

/** A side's marker centred on (x, y), of radius r. */
function marker(g, shape, x, y, r, attrs) {
  const poly = (n, rot, rr = r) => {
    const pts = [];
    for (let i = 0; i < n; i++) {
      const a = rot + (i * 2 * Math.PI) / n;
      pts.push(`${(x + rr * Math.cos(a)).toFixed(2)},${(y + rr * Math.sin(a)).toFixed(2)}`);
    }
    return el('polygon', { points: pts.join(' '), ...attrs }, g);
  };
  switch (shape) {
    case 'square': return el('rect', { x: x - r * 0.86, y: y - r * 0.86, width: r * 1.72, height: r * 1.72, ...attrs }, g);
    case 'triangle': return poly(3, -Math.PI / 2, r * 1.1);
    case 'diamond': return poly(4, 0, r * 1.05);
    case 'pentagon': return poly(5, -Math.PI / 2);
    case 'hexagon': return poly(6, 0);
    case 'star': {
      const pts = [];
      for (let i = 0; i < 10; i++) {
        const a = -Math.PI / 2 + (i * Math.PI) / 5, rr = i % 2 ? r * 0.5 : r * 1.05;
        pts.push(`${(x + rr * Math.cos(a)).toFixed(2)},${(y + rr * Math.sin(a)).toFixed(2)}`);
      }
      return el('polygon', { points: pts.join(' '), ...attrs }, g);
    }
    default: return el('circle', { cx: x, cy: y, r, ...attrs }, g);
  }
}

function label(p) {
  if (p.label) return String(p.label).slice(0, 3);
  const name = String(p.name || '?');
  const n = name.match(/(\d+)\s*$/);
  const w = name.split(/\s+/).filter((x) => /^\p{L}/u.test(x));
  if (n) return ((w[0] || '?')[0] + n[1]).toUpperCase().slice(0, 3);
  return (w.length > 1 ? w[0][0] + w[1][0] : (w[0] || name).slice(0, 2)).toUpperCase();
}

export function pieceText(p) {
  const bits = [p.name || `#${p.id}`];
  if (p.side >= 0) bits.push(`seat ${p.side} (${side(p.side).name})`);
  else bits.push('nobody\'s');
  if (p.rank) bits.push(p.rank);
  if (p.role) bits.push(p.role);
  if (p.hp !== undefined) bits.push(`HP ${p.hp}${p.hp_max !== undefined ? '/' + p.hp_max : ''}`);
  if (p.tags && p.tags.length) bits.push(p.tags.join(', '));
  if (p.gone) bits.push('off the board');
  return bits.join(' · ');
}

/** Draw a piece whose centre is (cx, cy) and radius r (board units). */
function drawPiece(g, p, cx, cy, r, active, u) {
  const s = side(p.side);
  const grp = el('g', { class: 'piece', 'data-id': p.id, 'data-side': p.side, tabindex: 0, role: 'img', 'aria-label': pieceText(p) }, g);
  title(grp, pieceText(p));
  const dim = (p.tags || []).some((t) => /^(dead|routed|unconscious|dying|fled|fleeing)$/.test(t));
  if (active) el('circle', { cx, cy, r: r * 1.32, fill: 'none', stroke: '#111', 'stroke-width': u * 0.12, 'stroke-dasharray': `${u * 0.25} ${u * 0.12}` }, grp);
  if (p.rank === 'elite' || p.rank === 'boss') {
    el('circle', { cx, cy, r: r * 1.16, fill: 'none', stroke: p.rank === 'boss' ? '#b00020' : '#c9a000', 'stroke-width': u * (p.rank === 'boss' ? 0.16 : 0.1) }, grp);
  }
  marker(grp, s.shape, cx, cy, r, { fill: s.colour, stroke: '#111', 'stroke-width': u * 0.05, opacity: dim ? 0.45 : 1 });
  const t = el('text', { x: cx, y: cy + r * 0.12, 'text-anchor': 'middle', 'dominant-baseline': 'middle', 'font-size': r * 0.8, fill: '#fff', stroke: '#000', 'stroke-width': r * 0.06, 'paint-order': 'stroke', 'font-weight': 700 }, grp);
  t.textContent = label(p);
  if (p.hp !== undefined && p.hp_max > 0) {
    const w = r * 1.8, frac = Math.max(0, Math.min(1, p.hp / p.hp_max));
    el('rect', { x: cx - w / 2, y: cy + r * 1.02, width: w, height: r * 0.22, fill: '#fff', stroke: '#333', 'stroke-width': u * 0.02 }, grp);
    el('rect', { x: cx - w / 2, y: cy + r * 1.02, width: w * frac, height: r * 0.22, fill: frac > 0.5 ? '#2e7d32' : frac > 0.25 ? '#f9a825' : '#c62828' }, grp);
  }
  if (p.tags && p.tags.length) {
    const tg = el('g', { class: 'tags' }, grp);
    el('circle', { cx: cx + r * 0.8, cy: cy - r * 0.8, r: r * 0.34, fill: '#fff', stroke: '#111', 'stroke-width': u * 0.03 }, tg);
    const n = el('text', { x: cx + r * 0.8, y: cy - r * 0.78, 'text-anchor': 'middle', 'dominant-baseline': 'middle', 'font-size': r * 0.42, fill: '#111' }, tg);
    n.textContent = String(p.tags.length);
  }
  return grp;
}

function drawMarks(g, marks, at, u) {
  for (const [x, y, text] of marks || []) {
    const [cx, cy] = at(x, y);
    const m = el('g', { class: 'mark' }, g);
    title(m, String(text));
    marker(m, 'diamond', cx, cy + u * 0.3, u * 0.16, { fill: '#f3d36b', stroke: '#5a4500', 'stroke-width': u * 0.03 });
    const t = el('text', { x: cx, y: cy - u * 0.18, 'text-anchor': 'middle', 'font-size': u * 0.22, fill: '#222' }, m);
    t.textContent = String(text).slice(0, 10);
  }
}

function gridBoard(svg, b) {
  const U = 32, w = b.w || 1, h = b.h || 1;
  svg.setAttribute('viewBox', `-2 -2 ${w * U + 4} ${h * U + 4}`);
  const g = el('g', {}, svg);
  el('rect', { x: 0, y: 0, width: w * U, height: h * U, fill: '#f7f4ec', stroke: '#555', 'stroke-width': 1 }, g);
  for (const [x, y, t] of b.cells || []) paintCell(g, 'rect', { x: x * U, y: y * U, width: U, height: U }, t);
  const lines = [];
  for (let x = 1; x < w; x++) lines.push(`M${x * U},0V${h * U}`);
  for (let y = 1; y < h; y++) lines.push(`M0,${y * U}H${w * U}`);
  el('path', { d: lines.join(''), stroke: '#0002', 'stroke-width': 1, fill: 'none' }, g);
  drawMarks(g, b.marks, (x, y) => [(x + 0.5) * U, (y + 0.5) * U], U);
  for (const p of b.pieces || []) {
    if (p.gone) continue;
    const n = p.size || 1;
    drawPiece(g, p, (p.x + n / 2) * U, (p.y + n / 2) * U, n * U * 0.4, p.id === b.active, U);
  }
}

function hexBoard(svg, b) {
  const S = 18, W = Math.sqrt(3) * S;
  const at = (q, r) => [W * (q + r / 2), 1.5 * S * r];
  const pts = [];
  for (const [q, r] of b.cells || []) pts.push(at(q, r));
  for (const p of b.pieces || []) if (!p.gone) pts.push(at(p.x, p.y));
  if (pts.length === 0) pts.push([0, 0]);
  const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
  const x0 = Math.min(...xs) - W, y0 = Math.min(...ys) - 2 * S;
  svg.setAttribute('viewBox', `${x0} ${y0} ${Math.max(...xs) - x0 + W} ${Math.max(...ys) - y0 + 2 * S}`);
  const g = el('g', {}, svg);
  const corners = (cx, cy) => {
    const c = [];
    for (let k = 0; k < 6; k++) {
      const a = Math.PI / 180 * (60 * k - 30);
      c.push(`${(cx + S * Math.cos(a)).toFixed(2)},${(cy + S * Math.sin(a)).toFixed(2)}`);
    }
    return c.join(' ');
  };
  for (const [q, r, t] of b.cells || []) {
    const [cx, cy] = at(q, r);
    paintCell(g, 'polygon', { points: corners(cx, cy), stroke: '#8a8170', 'stroke-width': 0.8 }, t);
  }
  drawMarks(g, b.marks, at, S * 1.6);
  for (const p of b.pieces || []) {
    if (p.gone) continue;
    const [cx, cy] = at(p.x, p.y);
    drawPiece(g, p, cx, cy, S * 0.62, p.id === b.active, S * 1.6);
  }
}

function tableBoard(svg, b) {
  const x0 = b.x0 || 0, y0 = b.y0 || 0, w = b.w || 1, h = b.h || 1, inch = b.scale || Math.max(w, h) / 48;
  const m = inch * 0.5;
  svg.setAttribute('viewBox', `${x0 - m} ${y0 - m} ${w + 2 * m} ${h + 2.6 * m}`);
  const g = el('g', {}, svg);
  el('rect', { x: x0, y: y0, width: w, height: h, fill: '#e6efd8', stroke: '#555', 'stroke-width': inch * 0.06 }, g);
  const lines = [];
  for (let x = x0 + 6 * inch; x < x0 + w; x += 6 * inch) lines.push(`M${x},${y0}V${y0 + h}`);
  for (let y = y0 + 6 * inch; y < y0 + h; y += 6 * inch) lines.push(`M${x0},${y}H${x0 + w}`);
  el('path', { d: lines.join(''), stroke: '#0001', 'stroke-width': inch * 0.05, fill: 'none' }, g);
  for (const [x, y, r, t] of b.areas || []) paintCell(g, 'circle', { cx: x, cy: y, r, stroke: '#0004', 'stroke-width': inch * 0.05 }, t);
  drawMarks(g, b.marks, (x, y) => [x, y], inch * 2);
  for (const p of b.pieces || []) {
    if (p.gone) continue;
    const r = p.size || inch * 0.5;
    if (p.facing && (p.facing[0] || p.facing[1])) {
      const a = Math.atan2(p.facing[1], p.facing[0]), half = ((p.arc || 180) / 2) * Math.PI / 180, R = r * 1.5;
      const x1 = p.x + R * Math.cos(a - half), y1 = p.y + R * Math.sin(a - half);
      const x2 = p.x + R * Math.cos(a + half), y2 = p.y + R * Math.sin(a + half);
      const arc = el('path', { d: `M${p.x},${p.y} L${x1},${y1} A${R},${R} 0 ${half > Math.PI / 2 ? 1 : 0} 1 ${x2},${y2} Z`, fill: side(p.side).colour, 'fill-opacity': 0.22, stroke: side(p.side).colour, 'stroke-width': inch * 0.04, class: 'arc' }, g);
      title(arc, `${p.name}: front arc`);
    }
    drawPiece(g, p, p.x, p.y, r, p.id === b.active, inch * 1.5);
  }
  // Scale bar: 6 inches.
  const sb = el('g', { class: 'scale' }, g), yb = y0 + h + m * 1.1;
  el('rect', { x: x0, y: yb, width: 6 * inch, height: inch * 0.25, fill: '#333' }, sb);
  const t = el('text', { x: x0 + 6.4 * inch, y: yb + inch * 0.25, 'font-size': inch * 0.8, fill: '#333' }, sb);
  t.textContent = '6 inches';
}

/** The ids and names of the pieces of a view's board, for the event feed. */
export function pieceNames(view) {
  const names = new Map();
  for (const p of (view && view.board && view.board.pieces) || []) names.set(p.id, p.name);
  return names;
}

/** Draw a view into container; returns the board kind or 'table'. */
export function drawView(container, view, opts = {}) {
  container.replaceChildren();
  const b = view && typeof view === 'object' ? view.board : null;
  if (!b || !['grid', 'hex', 'table'].includes(b.kind)) {
    container.appendChild(viewTable(view));
    return 'view';
  }
  const svg = el('svg', { class: `board board-${b.kind}`, role: 'img', 'aria-label': opts.label || `${b.kind} board` });
  svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
  defs(svg);
  if (b.kind === 'grid') gridBoard(svg, b);
  else if (b.kind === 'hex') hexBoard(svg, b);
  else tableBoard(svg, b);
  container.appendChild(svg);
  if (b.kind === 'hex' && !(b.cells || []).length && !(b.pieces || []).length) {
    const p = document.createElement('p');
    p.className = 'note';
    p.textContent = 'No map on the table now.';
    container.appendChild(p);
  }
  return b.kind;
}

/** The roster beside the board: every piece, in words. */
export function drawRoster(container, view) {
  container.replaceChildren();
  const b = view && view.board;
  if (!b) return;
  const info = b.info || {};
  if (Object.keys(info).length) {
    const dl = document.createElement('dl');
    dl.className = 'info';
    for (const [k, v] of Object.entries(info)) {
      const dt = document.createElement('dt');
      dt.textContent = k;
      const dd = document.createElement('dd');
      dd.textContent = Array.isArray(v) ? v.join(' – ') : String(v);
      dl.append(dt, dd);
    }
    container.appendChild(dl);
  }
  const ul = document.createElement('ul');
  ul.className = 'roster';
  for (const p of b.pieces || []) {
    const li = document.createElement('li');
    li.dataset.id = p.id;
    if (p.gone) li.className = 'gone';
    if (p.id === b.active) li.classList.add('active');
    const key = document.createElementNS(NS, 'svg');
    key.setAttribute('viewBox', '-10 -10 20 20');
    key.setAttribute('class', 'key');
    key.setAttribute('aria-hidden', 'true');
    marker(key, side(p.side).shape, 0, 0, 7, { fill: side(p.side).colour, stroke: '#111', 'stroke-width': 1 });
    const span = document.createElement('span');
    span.textContent = pieceText(p);
    li.append(key, span);
    ul.appendChild(li);
  }
  container.appendChild(ul);
}

/** A view with no board: its members as a nested table. */
export function viewTable(v) {
  if (v === null || typeof v !== 'object') {
    const s = document.createElement('span');
    s.textContent = v === null || v === undefined ? '–' : String(v);
    return s;
  }
  if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) {
    const s = document.createElement('span');
    s.textContent = v.length ? v.join(', ') : '–';
    return s;
  }
  const t = document.createElement('table');
  t.className = 'viewtable';
  for (const [k, x] of Object.entries(v)) {
    if (k === 'board') continue;
    const tr = t.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = k;
    tr.appendChild(th);
    tr.insertCell().appendChild(viewTable(x));
  }
  return t;
}
