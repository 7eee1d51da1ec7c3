// Words for what the server sends: a MatchEvent as one line, a MatchView as label/value pairs
// and unit lists. Generic over the rulesets (it reads the fields every ruleset shares); later
// pages draw counters and forms from the same messages.

const kSeats = {
  SEAT_SIDE_A: 'side A', SEAT_SIDE_B: 'side B', SEAT_DIRECTOR: 'the director',
  SEAT_SPECTATOR: 'a spectator',
};

/** "side A" for SEAT_SIDE_A, etc. */
export function seatName(seat) {
  return kSeats[seat] || 'nobody';
}

const kStages = {
  STAGE_SETUP: 'Setting up: each side enters its units, then both confirm',
  STAGE_PLAYING: 'Close combat under way',
  STAGE_ENDED: 'Close combat over: either side may enter units for the next one',
};

function short(base64) {
  return base64 ? `${base64.slice(0, 12)}…` : '';
}

function rolls(dice = []) {
  return dice.map((r) => {
    const colour = r.color === 'COLOR_COLORED' ? ' (coloured)' : r.color === 'COLOR_WHITE' ? ' (white)' : '';
    return `${r.purpose}: ${r.value}${colour}`;
  }).join('; ');
}

const kOutcomes = {
  RESULT_OUTCOME_SIDE_A_WON: 'side A won', RESULT_OUTCOME_SIDE_B_WON: 'side B won',
  RESULT_OUTCOME_DRAW: 'a draw',
};

const kUpdateWords = {
  ENTER: 'entered', MOVE: 'moved', BREAK: 'broke', RALLY: 'rallied', PIN: 'was pinned',
  UNPIN: 'is no longer pinned', CONCEAL: 'gained "?"', REVEAL: 'lost "?"',
  REDUCE: 'was reduced by fire', ELIMINATE: 'was eliminated by fire', RECOMBINE: 'recombined',
  SET_CX: 'became CX', CLEAR_CX: 'is no longer CX', SHOCK: 'took Shock', KILL: 'lost figures',
  FORCE_MORALE: 'Force Morale became',
};

/** One unit update of a UnitsUpdated event in words: "G1 moved to H2 (“fell back”)". */
export function describeUnitUpdate(u) {
  const kind = String(u.kind || '').replace('UPDATE_KIND_', '');
  if (u.hidden) return `${u.unit || '?'} (?) changed${u.location ? `, now in ${u.location}` : ''}`;
  let text = `${u.unit || 'the side'} ${kUpdateWords[kind] || kind.toLowerCase()}`;
  if (kind === 'ENTER') text += ` ${u.location}`;
  if (kind === 'MOVE') text += ` ${u.location ? `to ${u.location}` : 'off the board'}`;
  if (kind === 'RECOMBINE' && u.with) text += ` with ${u.with}`;
  if (['SHOCK', 'KILL', 'FORCE_MORALE'].includes(kind)) text += ` ${u.value || 0}`;
  if (u.rule) text += ` (${u.rule})`;
  if (u.note) text += ` — “${u.note}”`;
  return text;
}

function describeClock(c) {
  const who = seatName(c.seat);
  const minutes = (ms) => `${Math.round(Number(ms || 0) / 60000)} min`;
  switch (c.kind) {
    case 'CLOCK_EVENT_KIND_BANK_DRAWN':
      return `${who} answered past its step's time: ${minutes(c.drawn_ms)} from its bank ` +
        `(${minutes(c.bank_left_ms)} left)`;
    case 'CLOCK_EVENT_KIND_TIME_EXPIRED':
      return c.action === 'match_lost' ? `${who}'s time ran out: it loses the match on time`
        : `${who}'s time ran out for its ${c.step || 'step'}: the rules default is taken`;
    case 'CLOCK_EVENT_KIND_VACATION_STARTED':
      return `${who} went on vacation for ${c.vacation_days} day(s), until ` +
        `${new Date(Number(c.vacation_until_unix_ms)).toLocaleString()}`;
    case 'CLOCK_EVENT_KIND_VACATION_ENDED':
      return `${who} is back from vacation (${c.vacation_days_left} day(s) left)`;
    default:
      return `${who}'s clock changed`;
  }
}

/** One line for a MatchEvent (JSON mapping). */
export function describeEvent(e) {
  const seq = `#${e.seq}`;
  const by = e.by_default ? ' (deadline passed: the rules default)' : '';
  let text;
  if (e.match_opened) {
    const s = e.match_opened.settings || {};
    text = `match opened: ${s.ruleset || '?'} ${e.match_opened.ruleset_version || ''}` +
      `${s.title ? ` "${s.title}"` : ''}; dice committed (${e.match_opened.dice_chain_length} seeds)`;
  } else if (e.seat_joined) {
    text = `${seatName(e.seat_joined.seat)} joined`;
  } else if (e.setup_submitted) {
    text = `${seatName(e.setup_submitted.seat)} entered its set-up`;
  } else if (e.setup_confirmed) {
    text = `${seatName(e.setup_confirmed.seat)} confirmed the set-up`;
  } else if (e.declaration_sealed) {
    text = `${seatName(e.declaration_sealed.seat)} sealed a declaration (commitment ` +
      `${short(e.declaration_sealed.receipt)})`;
  } else if (e.declarations_revealed) {
    text = 'declarations revealed';
  } else if (e.dice_rolled) {
    text = `dice, step ${e.dice_rolled.step}: ${rolls(e.dice_rolled.rolls)}`;
  } else if (e.choice_requested) {
    const c = e.choice_requested;
    text = `${seatName(c.seat)} to choose (${c.rule_ref}): ${c.prompt}`;
  } else if (e.match_ended) {
    text = `close combat over: ${e.match_ended.summary}`;
  } else if (e.head_signed) {
    text = `the server signed the log after event ${e.head_signed.seq}`;
  } else if (e.units_updated) {
    const updates = (e.units_updated.updates || []).map(describeUnitUpdate);
    text = `${seatName(e.units_updated.seat)} updated its units: ${updates.join('; ')}`;
  } else if (e.result_recorded) {
    const r = e.result_recorded;
    text = `${seatName(r.seat)} recorded the result of ${Number(r.combat || 0) === 0 ? 'the match'
      : `close combat ${r.combat}`}: ${kOutcomes[r.outcome] || '?'}${r.note ? ` (“${r.note}”)` : ''}`;
  } else if (e.clock) {
    text = describeClock(e.clock);
  } else if (e.locations_ordered) {
    text = `${seatName(e.locations_ordered.seat)} ordered the Locations: ` +
      `${(e.locations_ordered.locations || []).join(', ')}`;
  } else if (e.director_flag) {
    text = `${seatName(e.director_flag.seat)} flagged event ${e.director_flag.seq} for the director`;
  } else {
    // A ruleset's own event carries its readable account (`text`) and the dice it rolled.
    const part = e[['asl', 'coc', 'vv'].find((k) => e[k])] || {};
    const dice = part.dice?.length ? ` [dice: ${rolls(part.dice)}]` : '';
    text = part.text ? part.text.trim()
      : `${(part.kind || 'event').toLowerCase().replace(/_/g, ' ')}${dice}`;
  }
  const seed = e.dice_step && e.dice_step !== '0' ? ` — seed of step ${e.dice_step} revealed` : '';
  return `${seq} ${text}${by}${seed}`;
}

function sideStatus(status = {}) {
  const parts = [];
  parts.push(status.confirmed ? 'set-up confirmed' : status.submitted ? 'set-up entered' : 'no set-up yet');
  const n = Number(status.connections || 0);
  parts.push(n === 0 ? 'not connected' : `${n} connection${n === 1 ? '' : 's'}`);
  return parts.join(', ');
}

/** Label/value pairs that summarise a MatchView. */
export function describeView(v) {
  const s = v.settings || {};
  const rows = [
    ['Match', `${v.match_id}${s.title ? ` — ${s.title}` : ''}`],
    ['You are', seatName(v.seat)],
    ['Rules', `${s.ruleset || '?'}${s.variant ? ` (${s.variant})` : ''}`],
    ['Stage', kStages[v.stage] || v.stage || '?'],
    ['Close Combat Phase', String(v.ccph || 1)],
    [s.side_a_name ? `Side A (${s.side_a_name})` : 'Side A', sideStatus(v.side_a)],
    [s.side_b_name ? `Side B (${s.side_b_name})` : 'Side B', sideStatus(v.side_b)],
    ['Last event', `#${v.seq || 0}`],
  ];
  if (Number(v.deadline_unix_ms || 0) > 0) {
    rows.push(['Deadline', new Date(Number(v.deadline_unix_ms)).toLocaleString()]);
  }
  return rows;
}

function unitName(u) {
  const part = u.asl || u.vv || u.coc || {};
  return part.name || part.id || '';
}

/** Lines for one side's force (ForceUnit list): "G1 4-6-7 in G3 (present)", "? in G3". */
export function describeForce(units = []) {
  return units.map((u) => {
    const where = u.location ? ` in ${u.location}` : '';
    const fate = (u.fate || '').replace('FORCE_FATE_', '').toLowerCase();
    if (u.hidden) return `${u.id} ? (concealed)${where}`;
    return `${u.id} ${unitName(u)}${where}${fate && fate !== 'present' ? ` — ${fate}` : ''}`;
  });
}

/** Lines for one side's set-up as entered so far (asl, vv or coc SideSetup), before it is a force. */
export function describeSetup(setup) {
  if (!setup) return [];
  const where = setup.location?.name ? ` in ${setup.location.name}` : '';
  return (setup.units || []).map((u) => {
    const flags = ['broken', 'pinned', 'concealed', 'cx'].filter((f) => u[f]);
    const label = u.name || (u.teams ? `${u.teams.length} team(s)` : '');
    return `${u.id} ${label}${where}${flags.length ? ` (${flags.join(', ')})` : ''} — set-up`;
  });
}

// ---- rule references --------------------------------------------------------------------------

// The headings of the rules an event names, as the rulebooks title them (shared/rules/): shown
// beside a bare reference that carries no words of its own.
const kRuleTitles = {
  'A.9': 'Random Selection',
  'A11.1': 'Close Combat', 'A11.11': 'Resolution', 'A11.12': 'Mechanics', 'A11.13': 'SW',
  'A11.14': 'SMC', 'A11.141': 'Leader', 'A11.15': 'Melee', 'A11.16': 'Broken units',
  'A11.17': 'Stealth', 'A11.18': 'Lax', 'A11.19': 'Concealment', 'A11.2': 'Withdrawal from Melee',
  'A11.21': 'Withdrawal mechanics', 'A11.22': 'Infiltration', 'A11.3': 'Sequential CC',
  'A11.31': 'vs vehicle', 'A11.32': 'Ambush', 'A11.33': 'Prisoners', 'A11.4': 'Ambush',
  'A11.41': 'Ambush Withdrawal', 'A11.5': 'CC vs a vehicle', 'A11.501': 'Unlikely Kill',
  'A11.51': 'CC DRM', 'A11.6': 'CC vs an AFV', 'A11.61': 'CC attack DRM vs AFV',
  'A11.611': 'PRC', 'A11.62': 'AFV CC attacks vs Infantry', 'A11.621': 'Crew Small Arms',
  'A11.622': 'Close Defense Weapon System', 'A11.7': 'AFV withdrawal from CC',
  'A17.11': 'Wounds', 'A18.2': 'Leader Creation', 'A20.22': 'Capture',
  '17.1': 'When does Close Combat occur', '17.2': 'Who fights', '17.2.1': 'Defending cover',
  '17.3': 'The Combat Dice', '17.3.1': 'Overwhelming Numbers', '17.4': 'Resolving combat',
  '17.4.1': 'Effect of hits', '17.5': 'Result of Close Combat', '17.5.1': 'Leaders in Close Combat',
  '17.5.2': 'Aggressive troops', '17.5.3': 'Stubborn troops', '17.5.4': 'Supporting Fire units',
  '17.5.5': 'Crewed weapons', '17.5.6': 'Prisoners', '17.6': 'Close Combat in buildings',
  '17.7': 'Tank Over-Runs', '17.7.1': 'Tanks against crewed weapons', '17.8': 'Ramming AFVs',
  '15.1': 'General', '15.2': 'Support weapon restrictions', '15.3': 'Leadership modifiers',
  '15.6': 'Close Assault procedure', '15.7': 'Resolution',
  '15.8': 'Taking ground and taking casualties', '15.81': 'Hill assaults and Casualty Points',
  '15.9': 'Assaulting pinned units', '15.10': 'Failed assaults versus AFVs',
};

// The rules an event of each kind follows when its own words name none, and what for.
const kKindRules = {
  asl: {
    EVENT_KIND_SET_UP: [['A11.1', 'Close Combat in the Location']],
    EVENT_KIND_ANNOUNCED: [['A11.2', 'Withdrawal from Melee announced'], ['A11.14', 'SMC solo attack announced']],
    EVENT_KIND_DUMMIES_REMOVED: [['A11.19', 'Dummies removed before designation']],
    EVENT_KIND_AMBUSH_CHECKED: [['A11.4', 'Ambush']],
    EVENT_KIND_DECLARATION_SEALED: [['A11.12', 'attacks designated']],
    EVENT_KIND_DECLARATIONS_REVEALED: [['A11.12', 'attacks designated, then resolved']],
    EVENT_KIND_ATTACK_RESOLVED: [['A11.11', 'CC attack resolved']],
    EVENT_KIND_PASSED: [['A11.3', 'Sequential CC: no further attack']],
    EVENT_KIND_PAATC_TAKEN: [['A11.6', 'PAATC']],
  },
  coc: {
    EVENT_KIND_SET_UP: [['17.1', 'Close Combat occurs']],
    EVENT_KIND_DECLARATION_SEALED: [['17.2', 'who fights, sealed']],
    EVENT_KIND_DECLARATIONS_REVEALED: [['17.2', 'who fights']],
    EVENT_KIND_ROUND_ROLLED: [['17.3', 'the Combat Dice'], ['17.4', 'resolving combat']],
    EVENT_KIND_PLACEMENT_SEALED: [['17.4.1', 'odd hits placed, sealed']],
    EVENT_KIND_PLACEMENTS_REVEALED: [['17.4.1', 'odd hits placed']],
    EVENT_KIND_ROUND_ENDED: [['17.5', 'result of Close Combat']],
    EVENT_KIND_OVERRUN: [['17.7', 'Tank Over-Run']], EVENT_KIND_RAM: [['17.8', 'ramming']],
    EVENT_KIND_CONTACT_ENDED: [['17.5', 'the contact is over']],
  },
  vv: {
    EVENT_KIND_SET_UP: [['15.1', 'close assault']],
    EVENT_KIND_DECLARATION_SEALED: [['15.6', 'close assault declared, sealed']],
    EVENT_KIND_DECLARATIONS_REVEALED: [['15.6', 'close assault procedure']],
    EVENT_KIND_ASSAULT_RESOLVED: [['15.7', 'resolution']],
    EVENT_KIND_ALLOCATION_SEALED: [['15.8', 'Casualty Points allocated, sealed']],
    EVENT_KIND_ALLOCATIONS_REVEALED: [['15.8', 'Casualty Points allocated']],
    EVENT_KIND_CASUALTIES_APPLIED: [['15.8', 'taking casualties']],
    EVENT_KIND_ASSAULT_ENDED: [['15.8', 'taking ground']],
  },
};

// The rule of each kind of asl choice, and what it asks.
const kChoiceRules = {
  CHOICE_KIND_INFILTRATION: ['A11.22', 'Infiltration: withdraw after an Original 2/12'],
  CHOICE_KIND_CAPTURE_SELECTION: ['A20.22', 'which unit is captured'],
  CHOICE_KIND_AMBUSH_WITHDRAWAL: ['A11.41', 'Ambush Withdrawal'],
};

// A rule number as each rulebook writes it: ASL's chapter letter first (A11.141, A.9, C13.7);
// Chain of Command's and Valor & Victory's bare section numbers (17.4.1, 13.2.7, 15.10, 14.63).
const kRulePatterns = {
  asl: /\b(?:A\.\d+|[A-HJ]\d+(?:\.\d+)+)\b/g,
  coc: /\b1[0-9]\.\d+(?:\.\d+)*\b/g,
  vv: /\b1[0-9]\.\d+(?:\.\d+)*\b/g,
};
const kLeadingRule = /^\s*((?:A\.\d+|[A-HJ]?\d+(?:\.\d+)+))\s+(.*)$/;

/**
 * The rules an event names, in the order it names them: [{rule, about}], `about` saying what
 * for ("CC DR", "DRM −1 leadership of the directing leader", the rule's title when the event's
 * own words say nothing more). From every die's purpose, every DRM and halving, a choice's
 * rule, the rules the event's account cites, and, when it cites none, the rules its kind follows.
 */
export function ruleRefs(e) {
  const ruleset = ['asl', 'coc', 'vv'].find((k) => e[k]) || '';
  const part = e[ruleset] || {};
  const found = [];
  const add = (rule, about = '') => {
    if (!rule) return;
    const same = found.find((r) => r.rule === rule);
    if (!same) found.push({ rule, about });
    else if (about && !same.about.split('; ').includes(about)) {
      same.about = same.about ? `${same.about}; ${about}` : about;
    }
  };
  const signedValue = (v) => (v > 0 ? `+${v}` : v < 0 ? `−${-v}` : '0');
  const drms = (list = [], what = 'DRM') => {
    for (const d of list) add(d.rule, `${what} ${signedValue(d.value || 0)} ${d.cause || ''}`.trim());
  };
  for (const d of part.dice || e.dice_rolled?.rolls || []) {
    const m = kLeadingRule.exec(d.purpose || '');
    if (m) add(m[1], m[2]);
  }
  const attack = part.attack;
  if (attack) {
    if (!attack.vs_vehicle && attack.column) {
      add('A11.11', `CC Table ${attack.column}, Kill # ${attack.kill_number || 0}`);
    }
    if (attack.director) add('A11.141', `directed by ${attack.director}`);
    for (const h of attack.halvings || []) add(h.rule, `FP halved: ${h.cause || ''}`.trim());
    drms(attack.drms);
    drms(attack.ccv_modifiers, 'CCV');
    for (const r of attack.results || []) drms(r.drms, `${r.unit}: DRM`);
    if (attack.leader_creation) {
      add('A18.2', 'Leader Creation');
      drms(attack.leader_creation.drms, 'drm');
    }
  }
  if (part.ambush) {
    add('A11.4');
    drms(part.ambush.side_a?.drms, 'side A drm');
    drms(part.ambush.side_b?.drms, 'side B drm');
  }
  const choice = kChoiceRules[part.choice?.kind];
  if (choice) add(choice[0], choice[1]);
  if (e.choice_requested?.rule_ref) add(e.choice_requested.rule_ref, e.choice_requested.prompt?.split(':')[0] || '');
  const pattern = kRulePatterns[ruleset];
  if (pattern) {
    for (const line of [part.text || '', ...(part.notes || []), ...(attack?.notes || [])]) {
      for (const m of line.matchAll(pattern)) add(m[0]);
    }
  }
  if (!found.length && ruleset) {
    const kind = part.kind || '';
    if (ruleset === 'asl' && kind === 'EVENT_KIND_PHASE_ENDED') {
      add('A11.15', part.melee ? 'both sides remain: locked in Melee' : 'no Melee: the close combat is over');
    }
    for (const [rule, about] of kKindRules[ruleset]?.[kind] || []) add(rule, about);
  }
  const kindAbout = Object.fromEntries(kKindRules[ruleset]?.[part.kind] || []);
  for (const r of found) if (!r.about) r.about = kindAbout[r.rule] || kRuleTitles[r.rule] || '';
  return found;
}

/** "A11.11 CC DR; A11.141 DRM −1 leadership of the directing leader": an event's rules in words. */
export function describeRules(e) {
  return ruleRefs(e).map((r) => (r.about ? `${r.rule} ${r.about}` : r.rule)).join(' · ');
}
