// Reads an asl roster in counter notation (docs/counter-notation.md) into the melee.asl.v1
// SideSetup the server takes in SubmitSetup. The server accepts only the protobuf JSON, so the
// page converts in the browser; it understands the common counters (squads, HS, crews, leaders,
// heroes, SMC, dummies, nationality, class and status words, "on G1", support weapons) and
// refuses anything else by name, pointing at the command line `melee submit --setup`, which
// reads the whole notation. A text starting with "{" is taken as the SideSetup JSON itself.

const kSides = { side_a: 'SEAT_SIDE_A', side_b: 'SEAT_SIDE_B' };

const kKinds = {
  squad: 'UNIT_KIND_SQUAD', hs: 'UNIT_KIND_HALF_SQUAD', 'half-squad': 'UNIT_KIND_HALF_SQUAD',
  crew: 'UNIT_KIND_CREW', leader: 'UNIT_KIND_LEADER', hero: 'UNIT_KIND_HERO',
  smc: 'UNIT_KIND_OTHER_SMC', dummy: 'UNIT_KIND_DUMMY',
};

const kNationalities = {
  german: 'NATIONALITY_GERMAN', american: 'NATIONALITY_AMERICAN', us: 'NATIONALITY_AMERICAN',
  british: 'NATIONALITY_BRITISH', russian: 'NATIONALITY_RUSSIAN', soviet: 'NATIONALITY_RUSSIAN',
  italian: 'NATIONALITY_ITALIAN', finnish: 'NATIONALITY_FINNISH', finn: 'NATIONALITY_FINNISH',
  japanese: 'NATIONALITY_JAPANESE', chinese: 'NATIONALITY_CHINESE', other: 'NATIONALITY_OTHER',
};

// Class and status words -> the Unit field they set.
const kFlags = {
  inexperienced: 'inexperienced', green: 'inexperienced', conscript: 'inexperienced',
  'assault-engineer': 'assault_engineer', 'assault-engineers': 'assault_engineer',
  engineer: 'assault_engineer', engineers: 'assault_engineer',
  stealthy: 'stealthy', lax: 'lax', commando: 'commando', commandos: 'commando',
  gurkha: 'gurkha', gurkhas: 'gurkha', partisan: 'partisan', partisans: 'partisan',
  'dare-death': 'dare_death', fanatic: 'fanatic', broken: 'broken', pinned: 'pinned', cx: 'cx',
  ti: 'ti', guarding: 'guarding', berserk: 'berserk', disrupted: 'disrupted',
  'in-wire': 'in_wire', wire: 'in_wire', 'on-crest': 'on_crest', crest: 'on_crest',
  'in-bank-or-panji': 'in_bank_or_panji', panji: 'in_bank_or_panji', bank: 'in_bank_or_panji',
  advanced: 'advanced', atmm: 'atmm', concealed: 'concealed', '?': 'concealed',
};

const kSmc = new Set(['UNIT_KIND_LEADER', 'UNIT_KIND_HERO', 'UNIT_KIND_OTHER_SMC']);

/** A roster line the page cannot read: `line` is 1-based. */
export class RosterError extends Error {
  constructor(line, message) {
    super(line ? `line ${line}: ${message}` : message);
    this.line = line;
  }
}

// Splits into words: spaces separate, "..." is one word (a name), ',' is a word of its own.
function words(text) {
  const out = [];
  const re = /"([^"]*)"|,|[^\s",]+/g;
  let m;
  while ((m = re.exec(text))) {
    if (m[1] !== undefined) out.push({ text: m[1], quoted: true });
    else out.push({ text: m[0], word: m[0].toLowerCase() });
  }
  return out;
}

/** Reads one unit's notation (e.g. "4-6-7 german", "8-1 leader on G1") into a Unit. */
export function aslUnit(id, owner, notation) {
  const unit = { id, owner };
  let kind = null;
  let printed = null;    // [FP, range, ML] of "A-B-C"
  let leader = null;     // [ML, leadership] of "8-1"
  let halfSquadOf = false;
  let wounded = false;
  let label = '';
  const t = words(notation);
  if (!t.length) throw new Error('no counter: write FP-range-ML like 4-6-7, or 8-1 leader');
  for (let i = 0; i < t.length; i++) {
    const { text, word, quoted } = t[i];
    if (quoted) { label = text; continue; }
    let m;
    if ((m = /^(\d+)-(\d+|\?)-(\d+)$/.exec(word))) {
      if (printed || leader) throw new Error(`two counters: '${text}'`);
      printed = [Number(m[1]), m[2], Number(m[3])];
      if (printed[2] < 1 || printed[2] > 12) throw new Error(`'${text}': ML is 1..12`);
      continue;
    }
    if ((m = /^(\d+)([+-]\d)$/.exec(word)) && Number(m[2]) >= -5 && Number(m[2]) <= 3) {
      if (printed || leader) throw new Error(`two counters: '${text}'`);
      leader = [Number(m[1]), Number(m[2])];
      continue;
    }
    if (/^\d/.test(word)) {
      throw new Error(`'${text}' is not a counter: expected FP-range-ML like 4-6-7, or a ` +
        'leader\'s ML-leadership like 8-1 leader');
    }
    if (word === 'of' && kind === 'UNIT_KIND_HALF_SQUAD') { halfSquadOf = true; continue; }
    if (kKinds[word]) {
      if (kind && kind !== kKinds[word]) throw new Error(`two kinds of unit: '${text}'`);
      kind = kKinds[word];
      continue;
    }
    if (kNationalities[word]) { unit.nationality = kNationalities[word]; continue; }
    if (kFlags[word]) { unit[kFlags[word]] = true; continue; }
    if (word === 'assault' && t[i + 1]?.word?.startsWith('engineer')) {
      unit.assault_engineer = true;
      i++;
      continue;
    }
    if (word === 'wounded') { wounded = true; continue; }
    if (word === 'on') {
      const target = t[++i];
      if (!target || target.text === ',') throw new Error("'on' needs a unit id, e.g. on G1");
      unit.stacked_on = target.text;
      continue;
    }
    if (word === 'with' || word.startsWith('+')) {
      const weapons = unit.support_weapons || (unit.support_weapons = []);
      if (word !== 'with') { weapons.push(text.slice(1)); continue; }
      do {  // "with LMG" or "with LMG, MMG"
        const weapon = t[++i];
        if (!weapon || weapon.text === ',') throw new Error("'with' needs a support weapon, e.g. with LMG");
        weapons.push(weapon.text);
      } while (t[i + 1]?.text === ',' && ++i);
      continue;
    }
    if ((m = /^bpv=(\d{1,3})$/.exec(word))) { unit.bpv = Number(m[1]); continue; }
    if (word === 'elite') {
      throw new Error("'elite': the CC rules have no elite class; the printed 4-6-8 says it all");
    }
    throw new Error(`the page does not read '${text}' (vehicles, hs-fp=, street fighting and ` +
      'the rest of the notation: enter them with `melee submit --setup`)');
  }
  if (leader) {
    if (kind !== 'UNIT_KIND_LEADER') throw new Error(`'${leader[0]}${leader[1] < 0 ? '' : '+'}${leader[1]}' is a leader's ML-leadership: add the word leader`);
    unit.kind = kind;
    unit.morale = leader[0];
    if (leader[1]) unit.leadership = leader[1];
    unit.name = `${leader[0]}${leader[1] <= 0 ? '-' : '+'}${Math.abs(leader[1])}`;
  } else if (printed) {
    if (kind === 'UNIT_KIND_LEADER') throw new Error("a leader's counter is ML-leadership like 8-1");
    if (kind === 'UNIT_KIND_DUMMY') throw new Error('a dummy has no counter numbers');
    unit.kind = kind || 'UNIT_KIND_SQUAD';
    unit.morale = printed[2];
    unit.firepower = halfSquadOf ? Math.max(1, Math.floor(printed[0] / 2)) : printed[0];
    unit.name = `${printed[0]}-${printed[1]}-${printed[2]}`;  // as printed (a HS of it too)
  } else if (kind === 'UNIT_KIND_DUMMY') {
    unit.kind = kind;
    unit.concealed = true;
  } else {
    throw new Error('no counter: write FP-range-ML like 4-6-7, a leader\'s 8-1 leader, or dummy');
  }
  if (label) unit.name = unit.name ? `${unit.name} ${label}` : label;
  if (wounded) {
    if (!kSmc.has(unit.kind)) throw new Error("A17.11: 'wounded': only a SMC is wounded");
    unit.wounds = 1;
    if (unit.kind === 'UNIT_KIND_LEADER') {  // A17.11: ML one less, leadership one worse
      unit.morale -= 1;
      unit.leadership = (unit.leadership || 0) + 1;
      if (!unit.leadership) delete unit.leadership;
    }
  }
  if (unit.stacked_on && !kSmc.has(unit.kind)) {
    throw new Error(`A11.14: 'on ${unit.stacked_on}': only a SMC is stacked on an MMC`);
  }
  return unit;
}

/**
 * Reads a roster (or a SideSetup in JSON) for `side` ('side_a' | 'side_b') into a
 * melee.asl.v1.SideSetup. Throws a RosterError naming the line.
 */
export function readRoster(text, side) {
  const seat = kSides[side];
  if (!seat) throw new RosterError(0, 'only a seat enters units');
  if (text.trim().startsWith('{')) {
    let setup;
    try {
      setup = JSON.parse(text);
    } catch (error) {
      throw new RosterError(0, `not JSON: ${error.message}`);
    }
    if (setup.situation) {
      throw new RosterError(0, 'a situation file: enter it with `melee submit --setup`, or ' +
        'paste its units as a roster');
    }
    return setup;
  }
  const setup = { units: [] };
  let section = null;       // the side of the current `side:` section
  let sawSections = false;
  let sideNationality = '';
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const n = index + 1;
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) return;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new RosterError(n, `'${line}': write 'ID: counter' (G1: 4-6-7) or 'key: value'`);
    const key = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    const directive = key.toLowerCase().replace(/ /g, '-');
    const mine = !sawSections || section === side;
    switch (directive) {
      case 'ruleset':
        if (value.toLowerCase() !== 'asl') throw new RosterError(n, `a ${value} roster, not asl`);
        return;
      case 'side':
        if (!kSides[value.toLowerCase()]) throw new RosterError(n, `side: side_a or side_b, not '${value}'`);
        sawSections = true;
        section = value.toLowerCase();
        return;
      case 'attacker':
        if (!kSides[value.toLowerCase()]) throw new RosterError(n, `attacker: side_a or side_b, not '${value}'`);
        if (mine) setup.attacker = kSides[value.toLowerCase()];
        return;
      case 'nationality':
        if (!kNationalities[value.toLowerCase()]) throw new RosterError(n, `no nationality '${value}'`);
        if (mine) sideNationality = kNationalities[value.toLowerCase()];
        return;
      case 'location': {
        const w = words(value);
        if (!w.length) throw new RosterError(n, 'location: needs a name, e.g. location: G3');
        const location = { name: w[0].text };
        for (const { text: t, word } of w.slice(1)) {
          if (word === 'woods-or-building') location.woods_or_building = true;
          else if (word === 'melee') location.melee = true;
          else throw new RosterError(n, `the page does not read location word '${t}' (use ` +
            '`melee submit --setup` for the rest)');
        }
        if (mine) setup.location = location;
        return;
      }
      default:
        break;
    }
    if (!/^[!-~]{1,32}$/.test(key)) throw new RosterError(n, `'${key}' is not a unit id (1..32 characters, no spaces)`);
    if (!mine) return;
    try {
      setup.units.push(aslUnit(key, seat, value));
    } catch (error) {
      throw new RosterError(n, error.message);
    }
  });
  if (!setup.units.length) {
    throw new RosterError(0, sawSections
      ? `this roster has no units of ${side.replace('_', ' ')}: is it the other side's?`
      : 'no units: write one a line, e.g. G1: 4-6-7');
  }
  if (sideNationality) {
    for (const u of setup.units) u.nationality ??= sideNationality;
  }
  return setup;
}
