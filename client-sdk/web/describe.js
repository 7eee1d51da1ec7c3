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
