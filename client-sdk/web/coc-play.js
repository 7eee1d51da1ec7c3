// Playing a Chain of Command close combat (rule 17) in the match page: the contact's Units drawn
// as counters (each Team with its figures, weapons and Shock; its Leaders with rank and status;
// Broken and pinned Units marked), each side's Force Morale, a set-up form that reads a roster
// in counter notation on the server (POST /api/rosters/read, as `melee submit --setup` reads
// it), the declaration (17.2) and the placement of odd hits (17.4.1) as forms, the exact odds of
// the first round from the server's preview (17.3, 17.4), and every round's dice and result.
// Like asl-play.js it offers only what the view's waiting_for asks of this seat; the server
// checks everything.

import { dieImage } from './asl-play.js';
import {
  Countdown, kWireNames, make, readSetupForm, runInto, seatOf, stepOf, wireSetupForm,
} from './page-kit.js';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';

const kSideNames = { SEAT_SIDE_A: 'Side A', SEAT_SIDE_B: 'Side B' };
const kRoles = { ROLE_ATTACKER: 'attacking', ROLE_DEFENDER: 'defending', ROLE_SUPPORT: 'in support (within 4")' };
const kQualities = { QUALITY_GREEN: 'Green', QUALITY_ELITE: 'Elite' };
const kLeaderStatus = {
  LEADER_STATUS_WOUNDED: 'wounded', LEADER_STATUS_STUNNED: 'stunned',
  LEADER_STATUS_KILLED: 'killed', LEADER_STATUS_CAPTURED: 'captured',
};
const kPositions = {
  POSITION_OPEN: 'in the open', POSITION_BUILDING_FROM_OUTSIDE: 'a building attacked from outside (Hard Cover)',
  POSITION_BUILDING_OTHER_FLOOR: 'a building, from another floor (Light Cover)',
  POSITION_BUILDING_SAME_FLOOR: 'a building, on the same floor', POSITION_BUNKER_ENTRANCE: 'a bunker, through its entrance',
};
const kOutcomes = {
  OUTCOME_KIND_FIGHT_AGAIN: 'they fight another round (17.5)',
  OUTCOME_KIND_RETIRE: 'the loser retires (17.5)',
  OUTCOME_KIND_DEFEATED: 'the loser is defeated (17.5)',
  OUTCOME_KIND_BROKEN: 'the loser is Broken (17.5)',
  OUTCOME_KIND_SURRENDERED: 'the loser surrenders (17.5)',
  OUTCOME_KIND_WIPED_OUT: 'the loser is wiped out (17.5)',
  OUTCOME_KIND_BROKE_BY_SHOCK: 'the loser breaks under its Shock (17.5)',
  OUTCOME_KIND_MUTUAL: 'both sides are spent (17.5)',
};

function svgElement(tag, attributes) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  return element;
}

/** A Team's weapons in words: "2 SMG, 1 LMG". */
function weaponWords(team) {
  const parts = [];
  if (team.smgs) parts.push(`${team.smgs} SMG`);
  if (team.lmgs) parts.push(`${team.lmgs} LMG`);
  if (team.mmgs) parts.push(`${team.mmgs} MMG`);
  if (team.crewed_weapon) parts.push('a crewed weapon');
  return parts.join(', ');
}

/** A Team's counter: its figures large, its id, its weapons, a red Shock marker when it has any. */
export function teamCounter(team, side) {
  const figure = make('figure', { className: `coc-counter team side-${kWireNames[side] || 'x'}` });
  figure.dataset.team = team.id;
  const svg = svgElement('svg', { viewBox: '0 0 80 80', role: 'img', class: 'coc-svg' });
  const shock = team.shock || 0;
  const words = `Team ${team.id}: ${team.figures || 0} figure${team.figures === 1 ? '' : 's'}` +
    `${weaponWords(team) ? `, ${weaponWords(team)}` : ''}${shock ? `, ${shock} Shock` : ''}`;
  svg.setAttribute('aria-label', words);
  svg.append(svgElement('rect', { x: 2, y: 2, width: 76, height: 76, rx: 6, class: 'coc-face' }));
  const figures = svgElement('text', { x: 40, y: 44, 'text-anchor': 'middle', class: 'coc-figures' });
  figures.textContent = String(team.figures || 0);
  svg.append(figures);
  const weapons = svgElement('text', { x: 40, y: 68, 'text-anchor': 'middle', class: 'coc-weapons' });
  weapons.textContent = [team.smgs ? `SMG${team.smgs > 1 ? `×${team.smgs}` : ''}` : '',
    team.lmgs ? 'LMG' : '', team.mmgs ? 'MMG' : ''].filter(Boolean).join(' ');
  svg.append(weapons);
  if (shock) {
    svg.append(svgElement('circle', { cx: 64, cy: 16, r: 12, class: 'coc-shock' }));
    const count = svgElement('text', { x: 64, y: 21, 'text-anchor': 'middle', class: 'coc-shock-count' });
    count.textContent = String(shock);
    svg.append(count);
  }
  figure.append(svg, make('figcaption', {}, team.id));
  return figure;
}

/** A Leader's counter: JL or SL, and its status when it is not active. */
export function leaderCounter(leader, side) {
  const senior = leader.rank === 'LEADER_RANK_SENIOR';
  const status = kLeaderStatus[leader.status] || '';
  const figure = make('figure', { className: `coc-counter leader side-${kWireNames[side] || 'x'}${status ? ` ${status}` : ''}` });
  figure.dataset.leader = leader.id;
  const svg = svgElement('svg', { viewBox: '0 0 80 80', role: 'img', class: 'coc-svg' });
  svg.setAttribute('aria-label', `${senior ? 'Senior' : 'Junior'} Leader ${leader.id}` +
    `${leader.smg ? ' with an SMG' : ''}${status ? `, ${status}` : ''}` +
    `${leader.team ? `, with Team ${leader.team}` : ''}`);
  svg.append(svgElement('circle', { cx: 40, cy: 40, r: 36, class: 'coc-face' }));
  const rank = svgElement('text', { x: 40, y: 46, 'text-anchor': 'middle', class: 'coc-figures' });
  rank.textContent = senior ? 'SL' : 'JL';
  svg.append(rank);
  if (status) {
    const band = svgElement('text', { x: 40, y: 68, 'text-anchor': 'middle', class: 'coc-status' });
    band.textContent = status.toUpperCase();
    svg.append(band);
  }
  figure.append(svg, make('figcaption', {}, leader.id));
  return figure;
}

/** A Unit: its name, role and quality, its Teams and Leaders, Broken / pinned / gone. */
export function unitCard(viewed) {
  const unit = viewed.unit || viewed;
  const card = make('article', { className: `coc-unit${viewed.gone ? ' gone' : ''}` });
  card.dataset.unit = unit.id;
  const marks = [];
  if (viewed.broken || unit.broken) marks.push('BROKEN');
  else if (viewed.pinned) marks.push('PINNED (Shock above its figures)');
  if (viewed.gone) marks.push('left play');
  const title = `${unit.name || unit.id}${unit.name ? ` (${unit.id})` : ''}`;
  const facts = [kRoles[unit.role] || '', kQualities[unit.quality] || '',
    unit.vehicle ? `a vehicle${unit.armour ? `, armour ${unit.armour}` : ''}` : ''].filter(Boolean);
  const heading = make('h4', {}, title);
  card.append(heading, make('p', { className: 'hint' }, facts.join(', ')));
  if (marks.length) {
    const band = make('p', { className: 'coc-marks' }, marks.join(' · '));
    card.append(band);
  }
  const counters = make('div', { className: 'coc-counters' });
  for (const team of unit.teams || []) counters.append(teamCounter(team, unit.side));
  for (const leader of unit.leaders || []) counters.append(leaderCounter(leader, unit.side));
  card.append(counters);
  return card;
}

/** The coc part of the match page for one seat (or a spectator, or the director). */
export class CocPlay {
  constructor(client, role) {
    this.client = client;
    this.role = role;
    this.view = null;
    this.setup = null;       // the SubmitSetup the server read from the roster
    this.oddsShownFor = '';  // the view the odds were asked for
    this.myReceipt = '';     // what this seat's last seal said, kept until the next step
    this.lastRound = null;   // {report, outcomes} of the last round shown
    this.countdown = new Countdown();  // in the declaration or placement panel
    this.#wire();
  }

  get me() {
    return seatOf(this.role);
  }

  #myStep() {
    return stepOf(this.view, this.me);
  }

  #wire() {
    wireSetupForm('coc-', { client: this.client, noun: 'Units',
      read: (source) => this.#readRoster(source), submit: () => this.#submitSetup() });
    $('coc-declare-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.#sealDeclaration();
    });
    $('coc-place-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.#sealPlacement();
    });
  }

  // The round's report and its outcome come as events (every viewer sees them): the last round
  // stays shown once the contact is over, until the next one is set up.
  onEvent(event) {
    const coc = event.coc;
    if (!coc) return;
    if (coc.situation) this.lastRound = null;
    if (coc.report) this.lastRound = { report: coc.report, outcomes: [] };
    if (coc.outcome && this.lastRound) this.lastRound.outcomes.push(coc.outcome);
  }

  onView(view) {
    this.view = view;
    const coc = view.coc || {};
    this.#renderNext();
    this.#renderContact(coc);
    this.#renderPanels(coc);
    this.#renderRound(coc);
    this.#renderSeals(coc);
  }

  // Who has sealed the step under way (its content stays secret until both have), and this
  // seat's own receipt.
  #renderSeals(coc) {
    const list = $('coc-seals');
    list.replaceChildren();
    if (coc.phase !== 'PHASE_DECLARE' && coc.phase !== 'PHASE_PLACE') return;
    const what = coc.phase === 'PHASE_DECLARE' ? 'declaration' : 'placement of odd hits';
    for (const side of ['SEAT_SIDE_A', 'SEAT_SIDE_B']) {
      const sealed = side === 'SEAT_SIDE_A' ? coc.side_a_sealed : coc.side_b_sealed;
      const li = make('li', {}, side === this.me && sealed && this.myReceipt ? this.myReceipt
        : `${kSideNames[side]} ${sealed ? `has sealed its ${what}: it stays secret until both have sealed` : `has not sealed its ${what} yet`}.`);
      li.dataset.side = side;
      list.append(li);
    }
  }

  // ---- what is shown to everyone ----------------------------------------------------------------

  #renderNext() {
    const step = this.#myStep();
    const words = (w) => w.replace(/^side_a/, 'side A').replace(/^side_b/, 'side B');
    let text;
    if (step) {
      text = step.startsWith('enter') ? 'Your turn: enter your Units below (a roster in counter notation).'
        : step.startsWith('confirm') ? 'Your turn: check both sides’ Units, then confirm the set-up.'
          : step.startsWith('seal a Close Combat declaration') ? 'Your turn: declare how you fight this Close Combat (17.2), then seal.'
            : step.startsWith('seal the placement') ? `Your turn: place your odd hits${step.slice('seal the placement of odd hits (17.4.1)'.length)}.`
              : `Your turn: ${step}.`;
    } else if (this.view.stage === 'STAGE_ENDED') {
      text = 'This Close Combat is over. Either side may enter Units for the next one.';
    } else {
      const waiting = (this.view.waiting_for || []).map(words);
      text = waiting.length ? `Waiting for ${waiting.join('; ')}.` : 'Waiting for the players.';
    }
    $('next').textContent = text;
    $('next').dataset.mine = step ? 'true' : 'false';
  }

  #renderContact(coc) {
    const situation = coc.situation || {};
    const facts = [];
    if (situation.position) facts.push(kPositions[situation.position] || situation.position);
    if (situation.attacker) facts.push(`${kSideNames[situation.attacker]} attacks`);
    if (situation.location) facts.push(`at ${situation.location}`);
    $('contact-facts').textContent = facts.length ? `${facts.join('; ')}.`
      : coc.units?.length ? '' : 'Being set up: each side’s Units as entered.';
    const board = $('contact-board');
    board.replaceChildren();
    for (const side of ['SEAT_SIDE_A', 'SEAT_SIDE_B']) {
      const morale = (side === 'SEAT_SIDE_A' ? coc.side_a_force_morale : coc.side_b_force_morale) ||
        (side === 'SEAT_SIDE_A' ? this.view.side_a_coc_setup : this.view.side_b_coc_setup)?.force_morale;
      const group = make('section', { className: 'side', 'aria-label': kSideNames[side] });
      group.dataset.side = side;
      group.append(make('h3', {}, `${kSideNames[side]}${morale ? ` — Force Morale ${morale}` : ''}`));
      // Until the contact is set up, each side's Units as entered (everything on a CoC table is in
      // plain sight); then as the rules have left them.
      const setup = side === 'SEAT_SIDE_A' ? this.view.side_a_coc_setup : this.view.side_b_coc_setup;
      const units = coc.units?.length ? coc.units.filter((u) => u.unit?.side === side)
        : (setup?.units || []).map((unit) => ({ unit }));
      if (!units.length) group.append(make('p', { className: 'hint' }, 'No Units in the contact yet.'));
      for (const viewed of units) group.append(unitCard(viewed));
      board.append(group);
    }
  }

  #renderRound(coc) {
    const report = this.lastRound?.report;
    const outcomes = this.lastRound?.outcomes || [];
    const list = $('coc-round');
    list.replaceChildren();
    $('coc-rounds-section').hidden = !report;
    if (!report) return;
    list.append(make('p', {}, `Combat ${report.combat || 1}, round ${report.round || 1}` +
      (kSideNames[report.overwhelmed] ? ` — ${kSideNames[report.overwhelmed]} is overwhelmed (17.3.1): no dice` : '')));
    for (const side of ['SEAT_SIDE_A', 'SEAT_SIDE_B']) {
      const r = side === 'SEAT_SIDE_A' ? report.side_a : report.side_b;
      if (!r) continue;
      const row = make('div', { className: 'coc-side-round' });
      row.dataset.side = side;
      row.append(make('p', {}, `${kSideNames[side]}: ${r.pool?.dice || 0} Combat Dice (17.3) — ` +
        `${r.kills || 0} Kill${r.kills === 1 ? '' : 's'} (6s), ${r.shock || 0} Shock (5s)`));
      const dice = make('div', { className: 'dice' });
      for (const face of r.faces || []) dice.append(dieImage(face, 'white'));
      row.append(dice);
      list.append(row);
    }
    for (const note of report.notes || []) list.append(make('p', { className: 'hint' }, note));
    for (const outcome of outcomes) {
      list.append(make('p', { className: 'coc-outcome' },
        `${kSideNames[outcome.winner] || 'Nobody'} wins by ${outcome.margin || 0}: ` +
        `${kOutcomes[outcome.kind] || outcome.kind}` +
        (outcome.retreat_inches ? `, retreating ${outcome.retreat_inches}"` : '') + '.'));
    }
  }

  // ---- what this seat does ----------------------------------------------------------------------

  #renderPanels(coc) {
    const step = this.#myStep() || '';
    const seat = Boolean(this.me);
    const stage = this.view.stage;
    $('coc-setup-panel').hidden = !seat || !(stage === 'STAGE_SETUP' || stage === 'STAGE_ENDED');
    if (!$('coc-setup-panel').hidden) {
      const status = this.me === 'SEAT_SIDE_A' ? this.view.side_a : this.view.side_b;
      const done = stage === 'STAGE_SETUP' && Boolean(status?.confirmed);
      $('coc-confirm-setup').disabled = stage !== 'STAGE_SETUP' || !status?.submitted || done;
      $('coc-confirm-setup').textContent = done ? 'Set-up confirmed' : 'Confirm the set-up';
    }
    const declaring = seat && step.startsWith('seal a Close Combat declaration');
    // A step starts afresh when its round changes, even if the seat owed the same kind of step
    // without a break (its seal closed a round and the next one asks it again at once).
    const round = `${coc.report?.combat || 0}.${coc.report?.round || 0}`;
    const declarePanel = $('coc-declare-panel');
    if (declaring && (declarePanel.hidden || declarePanel.dataset.round !== round)) {
      this.#buildDeclare(coc);
      declarePanel.dataset.round = round;
    }
    declarePanel.hidden = !declaring;
    if (declaring) this.#refreshOdds();
    const placing = seat && step.startsWith('seal the placement');
    const placePanel = $('coc-place-panel');
    if (placing && (placePanel.hidden || placePanel.dataset.round !== round)) {
      this.#buildPlace(coc);
      placePanel.dataset.round = round;
    }
    placePanel.hidden = !placing;
    // A live countdown to the step's deadline in the open panel, and the default taken at it.
    if (declaring) {
      this.countdown.run($('coc-declare-countdown'), this.view.deadline_unix_ms, 'seal');
      $('coc-declare-default').textContent = coc.situation?.attacker === this.me
        ? 'If the time runs out, your Units engage where they must (17.1) and decline where they may.'
        : 'If the time runs out, every Unit in support with firepower gives Supporting Fire (17.2).';
    } else if (placing) {
      this.countdown.run($('coc-place-countdown'), this.view.deadline_unix_ms, 'seal');
    } else {
      this.countdown.stop();
    }
  }

  #mine(coc, roles) {
    return (coc.units || []).filter((u) => u.unit?.side === this.me && !u.gone &&
      (!roles || roles.includes(u.unit.role)));
  }

  #check(container, { name, value, label, checked = false }) {
    const id = `${name}-${value}`.replace(/[^A-Za-z0-9_-]/g, '_');
    const row = make('div', { className: 'check' });
    const input = make('input', { type: 'checkbox', id, name, value });
    input.checked = checked;
    row.append(input, make('label', { for: id }, label));
    container.append(row);
    return input;
  }

  #buildDeclare(coc) {
    const box = $('coc-declare-options');
    box.replaceChildren();
    $('coc-declare-status').textContent = '';
    const attacking = coc.situation?.attacker === this.me;
    if (attacking) {
      const mine = this.#mine(coc, ['ROLE_ATTACKER']);
      this.#check(box, { name: 'decline', value: 'yes',
        label: 'Decline this Close Combat (only where 17.1 makes it optional)' });
      if (mine.length > 1) {
        this.#check(box, { name: 'in_sequence', value: 'yes',
          label: 'Fight with my Units one after another, in set-up order (17.2)' });
      }
    } else {
      const support = this.#mine(coc, ['ROLE_SUPPORT']);
      for (const u of support) {
        this.#check(box, { name: 'support', value: u.unit.id, checked: true,
          label: `${u.unit.name || u.unit.id} gives Supporting Fire (17.2)` });
      }
      if (!support.length) box.append(make('p', { className: 'hint' }, 'No Unit of yours is within 4" to give Supporting Fire.'));
    }
    this.#check(box, { name: 'advance', value: 'yes',
      label: 'Advance into the loser’s ground if we win (17.5)' });
  }

  #sealDeclaration() {
    const form = $('coc-declare-form');
    const ticked = (name) => [...form.querySelectorAll(`input[name="${name}"]:checked`)].map((i) => i.value);
    const declare = {
      decline: ticked('decline').length > 0,
      in_sequence: ticked('in_sequence').length > 0,
      support: ticked('support'),
      advance: ticked('advance').length > 0,
    };
    this.#seal($('coc-declare-status'), { coc: { declare } }, 'declaration');
  }

  #buildPlace(coc) {
    const box = $('coc-place-options');
    box.replaceChildren();
    $('coc-place-status').textContent = '';
    const report = coc.report || {};
    const mine = this.me === 'SEAT_SIDE_A' ? report.side_a : report.side_b;
    const kills = mine?.odd_kills || 0;
    const shock = mine?.odd_shock || 0;
    $('coc-place-hint').textContent = `The dice leave ${kills} odd Kill${kills === 1 ? '' : 's'} and ` +
      `${shock} odd Shock for you to place on your own fighting Teams (17.4.1), no Team twice in a list.`;
    const teams = this.#mine(coc).flatMap((u) => (u.unit.teams || []).filter((t) => (t.figures || 0) > 0));
    for (const [name, count, what] of [['odd_kills', kills, 'Kill'], ['odd_shock', shock, 'Shock']]) {
      if (!count) continue;
      const set = make('fieldset', { className: 'checks' });
      set.append(make('legend', {}, `The odd ${what}${count === 1 ? '' : 's'}: tick ${count} Team${count === 1 ? '' : 's'}`));
      teams.forEach((t, i) => this.#check(set, { name, value: t.id, checked: i < count,
        label: `${t.id}: ${t.figures} figure${t.figures === 1 ? '' : 's'}${t.shock ? `, ${t.shock} Shock` : ''}` }));
      box.append(set);
    }
  }

  #sealPlacement() {
    const form = $('coc-place-form');
    const ticked = (name) => [...form.querySelectorAll(`input[name="${name}"]:checked`)].map((i) => i.value);
    this.#seal($('coc-place-status'), { coc: { place: { odd_kills: ticked('odd_kills'), odd_shock: ticked('odd_shock') } } },
      'placement');
  }

  async #seal(status, declaration, what) {
    status.textContent = 'Sealing…';
    status.classList.remove('problem');
    try {
      const { receipt, problem } = await this.client.seal(declaration);
      status.textContent = problem
        ? `Sealed, but the receipt does not check out: ${problem}`
        : `You sealed your ${what}. Receipt ${String(receipt || '').slice(0, 16)}… — verified in your browser; it stays secret until both have sealed.`;
      status.classList.toggle('problem', Boolean(problem));
      this.myReceipt = status.textContent;
      if (this.view) this.#renderSeals(this.view.coc || {});
    } catch (error) {
      status.textContent = `Refused — ${error.message}`;
      status.classList.add('problem');
    }
  }

  // The first round's exact odds, from the server's preview of this seat's view.
  async #refreshOdds() {
    const key = `${this.view.seq}`;
    if (this.oddsShownFor === key) return;
    this.oddsShownFor = key;
    const table = $('coc-odds-table');
    try {
      const p = await this.client.preview();
      if (this.oddsShownFor !== key) return;
      const pct = (x) => Number(x?.percent || 0);
      $('coc-odds-status').textContent = kSideNames[p.overwhelmed]
        ? `${kSideNames[p.overwhelmed]} is overwhelmed (17.3.1): it rolls no dice.`
        : `The attacker rolls ${p.attacker_dice} Combat Dice, the defender ${p.defender_dice} (17.3), the attacker fighting with all its Units and the defender’s support giving Supporting Fire.`;
      const rows = make('ul', { className: 'plain odds-rows' });
      for (const [label, chance, tone] of [['the attacker wins', p.attacker_wins, 'ok'],
        ['a draw: they fight again', p.draw, 'warn'], ['the defender wins', p.defender_wins, 'bad']]) {
        const row = make('li', { className: `odds-row ${tone}`,
          'aria-label': `${label}: ${pct(chance).toFixed(2)} percent, exactly ${chance?.exact || '0'}` });
        const track = make('span', { className: 'odds-track' });
        const bar = make('span', { className: 'odds-bar' });
        bar.style.width = `${pct(chance)}%`;
        track.append(bar);
        row.append(make('span', { className: 'odds-label' }, label), track,
          make('span', { className: 'odds-value' }, `${pct(chance).toFixed(2)} % (${chance?.exact || '0'})`));
        rows.append(row);
      }
      table.replaceChildren(rows);
    } catch (error) {
      table.replaceChildren();
      $('coc-odds-status').textContent = `No odds: ${error.message}`;
    }
  }

  // ---- set-up -------------------------------------------------------------------------------------

  // Reads the roster on the server (as `melee submit --setup` reads it) and draws its Units.
  async #readRoster(source = 'your roster') {
    this.setup = null;
    const body = await readSetupForm('coc-', 'coc', this.me, source);
    if (!body) return;
    const out = $('coc-roster-preview');
    this.setup = body;
    out.replaceChildren(...(body.coc?.units || []).map((u) => unitCard({ unit: u })));
  }

  async #submitSetup() {
    if (!this.setup) await this.#readRoster();
    if (!this.setup) {
      $('coc-setup-status').textContent = 'Nothing to enter: write or load your Units first.';
      return;
    }
    await runInto($('coc-setup-status'), () => this.client.command('submit_setup', { coc: this.setup.coc }),
      'Entered. Check the other side’s Units, then confirm.');
  }

}
