// asl counters drawn in SVG (and, at the end, vv's): one function that turns a unit as the server
// shows it (a melee.asl.v1.Unit, with `hidden` for the other side's concealed "?" and its
// presence or fate) into a focusable button holding the counter, labelled for screen readers. It
// knows nothing of the connection: the match page wires the buttons to its declaring panel.

const SVG = 'http://www.w3.org/2000/svg';

const kKindShort = {
  UNIT_KIND_SQUAD: '', UNIT_KIND_HALF_SQUAD: 'HS', UNIT_KIND_CREW: 'Crew',
  UNIT_KIND_LEADER: 'Ldr', UNIT_KIND_HERO: 'Hero', UNIT_KIND_OTHER_SMC: 'SMC',
  UNIT_KIND_DUMMY: 'Dummy', UNIT_KIND_VEHICLE: 'AFV',
};
const kKindWords = {
  UNIT_KIND_SQUAD: 'squad', UNIT_KIND_HALF_SQUAD: 'half squad', UNIT_KIND_CREW: 'crew',
  UNIT_KIND_LEADER: 'leader', UNIT_KIND_HERO: 'hero', UNIT_KIND_OTHER_SMC: 'SMC',
  UNIT_KIND_DUMMY: 'dummy', UNIT_KIND_VEHICLE: 'vehicle',
};

// The counter's colour: the nationality's usual counter colour, else the side's.
const kColours = {
  NATIONALITY_GERMAN: '#9fb8c8', NATIONALITY_RUSSIAN: '#d9b77e', NATIONALITY_AMERICAN: '#a9b56b',
  NATIONALITY_BRITISH: '#d8c79a', NATIONALITY_ITALIAN: '#c8c0a0', NATIONALITY_FINNISH: '#d0d4d8',
  NATIONALITY_JAPANESE: '#e6d35a', NATIONALITY_CHINESE: '#a8c49a',
};
const kSideColours = { SEAT_SIDE_A: '#a9bfd0', SEAT_SIDE_B: '#dcbf8c' };

/** Whether `u` is a SMC (A11.14): a leader, hero or other SMC. */
export function isSmc(u) {
  return ['UNIT_KIND_LEADER', 'UNIT_KIND_HERO', 'UNIT_KIND_OTHER_SMC'].includes(u.kind);
}

/** "4-6-7", "2-6-7" (a HS of it), "8-1": the numbers printed on the counter as it is now. */
export function counterNumbers(u) {
  if (u.kind === 'UNIT_KIND_LEADER') {
    const printed = /^\d+[+-]\d/.exec(u.name || '');
    if (printed) return printed[0];
    const l = u.leadership || 0;
    return `${u.morale ?? 7}${l <= 0 ? '-' : '+'}${Math.abs(l)}`;
  }
  if (u.kind === 'UNIT_KIND_DUMMY' || u.kind === 'UNIT_KIND_VEHICLE') return u.name || '';
  const printed = /^(\d+)-(\d+|\?)-(\d+)/.exec(u.name || '');
  const range = printed ? printed[2] : '?';
  const fp = isSmc(u) ? (printed ? printed[1] : '1') : String(u.firepower || 0);
  return `${fp}-${range}-${u.morale ?? 7}`;
}

/** The status marks on a unit, as short labels and words: [{mark, words, tone}]. */
export function statusMarks(u) {
  const marks = [];
  if (u.kind === 'UNIT_KIND_HALF_SQUAD') marks.push({ mark: 'HS', words: 'half squad', tone: 'info' });
  if (u.broken) marks.push({ mark: 'BRK', words: 'broken', tone: 'bad' });
  if (u.pinned) marks.push({ mark: 'PIN', words: 'pinned', tone: 'warn' });
  if (u.cx) marks.push({ mark: 'CX', words: 'CX (exhausted)', tone: 'warn' });
  if (u.wounds) marks.push({ mark: 'WND', words: 'wounded', tone: 'bad' });
  if (u.berserk) marks.push({ mark: 'BSK', words: 'berserk', tone: 'bad' });
  if (u.concealed) marks.push({ mark: '?', words: 'concealed', tone: 'info' });
  return marks;
}

const kFates = {
  PRESENCE_ELIMINATED: 'eliminated', PRESENCE_CAPTURED: 'captured', PRESENCE_WITHDRAWN: 'withdrawn',
  FORCE_FATE_ELIMINATED: 'eliminated', FORCE_FATE_CAPTURED: 'captured',
  FORCE_FATE_WITHDRAWN: 'withdrawn', FORCE_FATE_RECOMBINED: 'recombined',
};

/** The fate word of a presence or force fate that is not "present", else ''. */
export function fateWord(fate) {
  return kFates[fate] || '';
}

/** Words for a unit, for a screen reader and a tooltip. */
export function unitWords(u, { hidden = false, fate = '' } = {}) {
  const side = u.owner === 'SEAT_SIDE_A' ? 'side A' : 'side B';
  if (hidden) {
    const sf = u.firepower ? `, Strength Factor ${u.firepower} (A11.19)` : '';
    return `${u.id}: ${side}, concealed unit "?" — not known${sf}${fate ? `, ${fate}` : ''}`;
  }
  const nation = (u.nationality || '').replace('NATIONALITY_', '').toLowerCase();
  const kind = kKindWords[u.kind] || 'unit';
  const parts = [`${u.id}: ${side}${nation && nation !== 'other' ? `, ${nation}` : ''} ${kind} ${counterNumbers(u)}`];
  if (u.kind !== 'UNIT_KIND_LEADER' && u.kind !== 'UNIT_KIND_DUMMY') {
    parts.push(`firepower ${isSmc(u) ? 1 : u.firepower || 0}`);
  }
  parts.push(`morale ${u.morale ?? 7}`);
  if (u.leadership) parts.push(`leadership ${u.leadership > 0 ? '+' : ''}${u.leadership}`);
  for (const m of statusMarks(u)) if (m.mark !== 'HS') parts.push(m.words);
  if (u.stacked_on) parts.push(`stacked on ${u.stacked_on}`);
  if (u.support_weapons?.length) parts.push(`with ${u.support_weapons.join(', ')}`);
  if (fate) parts.push(fate);
  return parts.join(', ');
}

function el(name, attributes = {}, text = '') {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
  if (text) node.textContent = text;
  return node;
}

/**
 * A counter for `u` (a melee.asl.v1.Unit): a <button> holding an SVG, labelled with the unit's
 * words. `hidden`: the other side's concealed unit, drawn as "?" (the view carries nothing else).
 * `fate`: a word ("eliminated", "captured", "withdrawn") that greys it and says so.
 */
export function counterButton(u, { hidden = false, fate = '', size = 72 } = {}) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'counter';
  button.dataset.unit = u.id;
  button.dataset.owner = u.owner || '';
  if (hidden) button.dataset.hidden = 'true';
  if (fate) button.dataset.fate = fate;
  const words = unitWords(u, { hidden, fate });
  button.setAttribute('aria-label', words);
  button.title = words;

  const svg = el('svg', { viewBox: '0 0 72 72', width: size, height: size, 'aria-hidden': 'true',
    focusable: 'false' });
  const fill = hidden ? '#3b3f45' : kColours[u.nationality] || kSideColours[u.owner] || '#ccc';
  svg.append(el('rect', { x: 1, y: 1, width: 70, height: 70, rx: 5, fill,
    stroke: u.broken && !hidden ? '#a32020' : '#222', 'stroke-width': u.broken && !hidden ? 3 : 1.5 }));
  const ink = hidden ? '#fff' : '#111';
  svg.append(el('text', { x: 5, y: 13, 'font-size': 11, 'font-weight': 700, fill: ink }, u.id));
  if (hidden) {
    svg.append(el('text', { x: 36, y: 52, 'font-size': 40, 'font-weight': 700, fill: '#fff',
      'text-anchor': 'middle' }, '?'));
    if (u.firepower) {
      svg.append(el('text', { x: 67, y: 13, 'font-size': 10, fill: '#fff', 'text-anchor': 'end' },
        `SF ${u.firepower}`));
    }
  } else {
    const short = kKindShort[u.kind] || '';
    if (short && short !== 'HS') {
      svg.append(el('text', { x: 67, y: 13, 'font-size': 10, 'font-weight': 600, fill: ink,
        'text-anchor': 'end' }, short));
    }
    // A figure where the artwork would be: a helmet for MMC, a star for SMC.
    if (isSmc(u)) {
      svg.append(el('path', { d: 'M36 19 l3 6 6 1 -4.5 4 1 6 -5.5 -3 -5.5 3 1 -6 -4.5 -4 6 -1z',
        fill: '#333', opacity: 0.55 }));
    } else if (u.kind !== 'UNIT_KIND_DUMMY') {
      svg.append(el('path', { d: 'M26 34 a10 9 0 0 1 20 0 z M24 34 h24 v2 h-24z', fill: '#333',
        opacity: 0.5 }));
    }
    const numbers = counterNumbers(u);
    svg.append(el('text', { x: 36, y: 52, 'font-size': numbers.length > 6 ? 13 : 16,
      'font-weight': 700, fill: ink, 'text-anchor': 'middle' }, numbers));
    if (u.support_weapons?.length) {
      svg.append(el('text', { x: 36, y: 64, 'font-size': 8.5, fill: ink, 'text-anchor': 'middle' },
        u.support_weapons.join(' ').slice(0, 16)));
    }
    // Status marks: small chips down the left edge, as markers on top of a counter.
    let y = 18;
    for (const m of statusMarks(u)) {
      const colour = { bad: '#a32020', warn: '#c77800', info: '#1d2126' }[m.tone];
      const w = m.mark.length * 6.5 + 5;
      svg.append(el('rect', { x: 2, y, width: w, height: 11, rx: 2, fill: colour }));
      svg.append(el('text', { x: 4.5, y: y + 8.8, 'font-size': 9, 'font-weight': 700,
        fill: '#fff' }, m.mark));
      y += 12.5;
    }
  }
  if (fate) {
    // Struck through, its fate on a band below the numbers (which stay readable).
    svg.append(el('line', { x1: 8, y1: 8, x2: 64, y2: 56, stroke: '#a32020', 'stroke-width': 2.5,
      opacity: 0.7 }));
    svg.append(el('rect', { x: 1, y: 56, width: 70, height: 15, fill: '#fff', opacity: 0.92 }));
    svg.append(el('text', { x: 36, y: 67.5, 'font-size': fate.length > 10 ? 8 : 10,
      'font-weight': 700, fill: '#a32020', 'text-anchor': 'middle' }, fate.toUpperCase()));
  }
  button.append(svg);
  return button;
}

// ---- Valor & Victory (rule 15) --------------------------------------------------------------
//
// A V&V counter prints APFP-range-Casualty Rating (a leader adds his Leadership Modifier); a unit
// as the server shows it is a melee.vv.v1.Unit. Nothing in a V&V close assault is concealed:
// every unit on the map is seen by both sides (only a sealed declaration or allocation is
// secret, and it is never drawn on a counter).

const kVvKindShort = {
  UNIT_KIND_SQUAD: '', UNIT_KIND_HALF_SQUAD: 'HS', UNIT_KIND_LEADER: 'Ldr',
  UNIT_KIND_AFV: 'AFV', UNIT_KIND_VEHICLE: 'Veh', UNIT_KIND_GUN: 'Gun',
};
const kVvKindWords = {
  UNIT_KIND_SQUAD: 'squad', UNIT_KIND_HALF_SQUAD: 'half squad', UNIT_KIND_LEADER: 'leader',
  UNIT_KIND_AFV: 'AFV', UNIT_KIND_VEHICLE: 'unarmored vehicle', UNIT_KIND_GUN: 'Gun',
};

/** Whether a vv unit is infantry (a squad, half squad or leader): only infantry assault (15.1). */
export function vvInfantry(u) {
  return ['UNIT_KIND_SQUAD', 'UNIT_KIND_HALF_SQUAD', 'UNIT_KIND_LEADER'].includes(u.kind);
}

// The counter as printed in its name ("4-6-5 Rifle" -> 4, 6, 5, "Rifle"), if it is there.
function printedVv(u) {
  const m = /^(\d+)-(\d+)-(\d+)(?:\s*\((-?\d+)\))?\s*(.*)$/.exec(u.name || '');
  return m ? { apfp: Number(m[1]), range: m[2], cr: Number(m[3]), label: m[5] } : null;
}

/**
 * The numbers on a vv counter as it is now: "4-6-5"; "2-6-2" for a squad reduced to its half
 * squad (14.61: the name keeps the squad's counter, the values are the half squad's); "1-3-1" for
 * a leader; "MG 4" for an AFV or vehicle, "Gun" for a Gun.
 */
export function vvCounterNumbers(u) {
  if (!vvInfantry(u)) {
    if (u.kind === 'UNIT_KIND_GUN') return `CR ${u.casualty_rating || 0}`;
    return `MG ${u.apfp || 0}`;
  }
  const printed = printedVv(u);
  const range = printed ? printed.range : '?';
  return `${u.apfp || 0}-${range}-${u.casualty_rating || 0}`;
}

/** Whether the unit is a squad reduced to its half squad since it was entered (14.61). */
export function vvReduced(u) {
  const printed = printedVv(u);
  return u.kind === 'UNIT_KIND_HALF_SQUAD' && printed !== null &&
    (printed.apfp !== (u.apfp || 0) || printed.cr !== (u.casualty_rating || 0));
}

/** A vv unit's status marks: [{mark, words, tone}]. */
export function vvStatusMarks(u) {
  const marks = [];
  if (u.kind === 'UNIT_KIND_HALF_SQUAD') {
    marks.push({ mark: 'HS', words: vvReduced(u) ? 'reduced to a half squad (14.61)' : 'half squad', tone: 'info' });
  }
  if (u.pinned) marks.push({ mark: 'PIN', words: 'pinned (14.7)', tone: 'warn' });
  if (u.valorous) marks.push({ mark: 'VAL', words: 'valorous (16.3)', tone: 'good' });
  if (u.advanced) marks.push({ mark: 'ADV', words: 'advanced this phase: cannot assault (15.1)', tone: 'info' });
  if (u.immobile) marks.push({ mark: 'IMM', words: 'Immobile (15.10)', tone: 'bad' });
  if (u.gun_shield_faces_assault) marks.push({ mark: 'SHD', words: 'its Gun Shield faces the assault (14.63)', tone: 'info' });
  return marks;
}

/** Words for a vv unit, for a screen reader and a tooltip. */
export function vvUnitWords(u, { fate = '', where = '' } = {}) {
  const side = u.owner === 'SEAT_SIDE_A' ? 'side A' : 'side B';
  const kind = kVvKindWords[u.kind] || 'unit';
  const hero = u.kind === 'UNIT_KIND_LEADER' && u.valorous ? 'hero (a valorous leader, 16.5)' : kind;
  const printed = printedVv(u);
  const parts = [`${u.id}: ${side} ${hero} ${vvInfantry(u) ? vvCounterNumbers(u) : ''}`.trim()];
  if (printed?.label) parts.push(printed.label);
  if (vvInfantry(u)) {
    parts.push(`APFP ${u.apfp || 0}`, `Casualty Rating ${u.casualty_rating || 0}`);
  } else if (u.kind === 'UNIT_KIND_GUN') {
    parts.push(`defends with APFP 2 (15.5)`, `Casualty Rating ${u.casualty_rating || 0}`);
  } else {
    parts.push(u.apfp ? `machine guns APFP ${u.apfp} (15.4)` : 'no machine gun: defends with APFP 2 (15.5)');
    if (u.main_gun_apfp) parts.push(`main Gun APFP ${u.main_gun_apfp}, never used in a close assault (15.4)`);
    if (u.casualty_rating) parts.push(`Casualty Rating ${u.casualty_rating}`);
  }
  if (u.leadership) parts.push(`Leadership Modifier −${u.leadership}`);
  if (u.kind === 'UNIT_KIND_SQUAD' && u.reduced_apfp) {
    parts.push(`reduces to a half squad of APFP ${u.reduced_apfp}, CR ${u.reduced_casualty_rating}`);
  }
  if (vvReduced(u)) parts.push(`reduced from ${printed.apfp}-${printed.range}-${printed.cr} (14.61)`);
  for (const m of vvStatusMarks(u)) if (m.mark !== 'HS') parts.push(m.words);
  if (u.carrier) parts.push(`a passenger of ${u.carrier}`);
  for (const w of u.weapons || []) {
    parts.push(`with ${w.id}${w.name ? ` (${w.name})` : ''}, APFP ${w.apfp || 0}, ${w.heavy ? 'Heavy' : 'Light'}${w.machine_gun ? ' machine gun' : ''}`);
  }
  if (where) parts.push(where);
  if (fate) parts.push(fate);
  return parts.join(', ');
}

/**
 * A vv counter for `u` (a melee.vv.v1.Unit): a <button> holding an SVG, labelled with the unit's
 * words. `fate` ("eliminated") greys it and strikes it through; `where` ("in C1") only words it.
 */
export function vvCounterButton(u, { fate = '', where = '', size = 72 } = {}) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'counter vv-counter';
  button.dataset.unit = u.id;
  button.dataset.owner = u.owner || '';
  if (fate) button.dataset.fate = fate;
  const words = vvUnitWords(u, { fate, where });
  button.setAttribute('aria-label', words);
  button.title = words;

  const svg = el('svg', { viewBox: '0 0 72 72', width: size, height: size, 'aria-hidden': 'true',
    focusable: 'false' });
  const fill = kSideColours[u.owner] || '#ccc';
  svg.append(el('rect', { x: 1, y: 1, width: 70, height: 70, rx: 5, fill,
    stroke: u.pinned ? '#c77800' : '#222', 'stroke-width': u.pinned ? 3 : 1.5 }));
  const ink = '#111';
  svg.append(el('text', { x: 5, y: 13, 'font-size': u.id.length > 7 ? 8.5 : 11, 'font-weight': 700,
    fill: ink }, u.id.slice(0, 10)));
  const short = u.kind === 'UNIT_KIND_LEADER' && u.valorous ? 'Hero' : kVvKindShort[u.kind] || '';
  if (short && short !== 'HS') {
    svg.append(el('text', { x: 67, y: 24, 'font-size': 9, 'font-weight': 600, fill: ink,
      'text-anchor': 'end' }, short));
  }
  // A figure where the artwork would be: a helmet, a star (leader), a hull, a barrel.
  const figure = {
    UNIT_KIND_LEADER: 'M36 19 l3 6 6 1 -4.5 4 1 6 -5.5 -3 -5.5 3 1 -6 -4.5 -4 6 -1z',
    UNIT_KIND_AFV: 'M22 30 h28 v7 h-28z M30 25 h12 v5 h-12z M42 27 h12 v2 h-12z',
    UNIT_KIND_VEHICLE: 'M22 27 h20 v10 h-20z M42 30 h8 v7 h-8z',
    UNIT_KIND_GUN: 'M26 36 l10 -6 l18 -6 v2 l-17 6 l-9 6z M28 36 h10 v2 h-10z',
  }[u.kind] || 'M26 34 a10 9 0 0 1 20 0 z M24 34 h24 v2 h-24z';
  svg.append(el('path', { d: figure, fill: '#333', opacity: 0.55 }));
  const numbers = vvCounterNumbers(u);
  svg.append(el('text', { x: 36, y: 52, 'font-size': numbers.length > 6 ? 13 : 16,
    'font-weight': 700, fill: ink, 'text-anchor': 'middle' }, numbers));
  const foot = [];
  if (u.leadership) foot.push(`LM −${u.leadership}`);
  for (const w of u.weapons || []) foot.push(`${w.id} ${w.apfp || 0}`);
  if (u.carrier) foot.push(`on ${u.carrier}`);
  if (foot.length) {
    svg.append(el('text', { x: 36, y: 64, 'font-size': 8.5, fill: ink, 'text-anchor': 'middle' },
      foot.join(' ').slice(0, 18)));
  }
  let y = 18;
  for (const m of vvStatusMarks(u)) {
    const colour = { bad: '#a32020', warn: '#c77800', info: '#1d2126', good: '#1f7a3a' }[m.tone];
    const w = m.mark.length * 6.5 + 5;
    svg.append(el('rect', { x: 2, y, width: w, height: 11, rx: 2, fill: colour }));
    svg.append(el('text', { x: 4.5, y: y + 8.8, 'font-size': 9, 'font-weight': 700, fill: '#fff' },
      m.mark));
    y += 12.5;
  }
  if (fate) {
    svg.append(el('line', { x1: 8, y1: 8, x2: 64, y2: 56, stroke: '#a32020', 'stroke-width': 2.5,
      opacity: 0.7 }));
    svg.append(el('rect', { x: 1, y: 56, width: 70, height: 15, fill: '#fff', opacity: 0.92 }));
    svg.append(el('text', { x: 36, y: 67.5, 'font-size': fate.length > 10 ? 8 : 10,
      'font-weight': 700, fill: '#a32020', 'text-anchor': 'middle' }, fate.toUpperCase()));
  }
  button.append(svg);
  return button;
}
