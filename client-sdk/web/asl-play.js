// Playing an asl close combat with the mouse (match.html): the Location drawn as counters, the
// set-up form (a roster in counter notation), the announcements, declaring by clicking
// attackers and targets, the seal and its receipt, every roll of the reveal drawn as dice with
// its DRMs and result, and the choices as a dialog with a countdown. Everything it offers comes
// from the view's waiting_for (what the match waits for now, and from whom): the page holds no
// rules beyond refusing the picks A11.12 forbids before they reach the server, which checks all.
// While a player picks, the server's exact preview of the attack (odds.js) shows every result's
// chance, or the rule that would refuse it.

import { counterButton, counterNumbers, fateWord, isSmc, unitWords } from './counters.js';
import { oddsSummary, oddsTable } from './odds.js';
import {
  Countdown, kWireNames, make, readRosterOnServer, runInto, seatOf, stepOf, wireSetupForm,
} from './page-kit.js';
import { readRoster } from './roster.js';

const $ = (id) => document.getElementById(id);

const kSideNames = { SEAT_SIDE_A: 'side A', SEAT_SIDE_B: 'side B' };

const kPhases = {
  PHASE_SET_UP: 'setting up', PHASE_ANNOUNCE: 'announcements (A11.2, A11.14)',
  PHASE_DECLARE: 'declaring attacks (A11.12)', PHASE_CHOICE: 'a choice is pending',
  PHASE_ENDED: 'this Close Combat Phase is over here',
};

const kOutcomes = {
  OUTCOME_NO_EFFECT: 'no effect', OUTCOME_PARTIAL: 'partial: Casualty Reduction by Random Selection',
  OUTCOME_ELIMINATED: 'eliminated', OUTCOME_CAPTURED: 'captured', OUTCOME_IMMOBILIZED: 'immobilized',
  OUTCOME_BURNING: 'a burning wreck',
};

function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0';
}

const kPips = {
  1: [[18, 18]], 2: [[9, 9], [27, 27]], 3: [[9, 9], [18, 18], [27, 27]],
  4: [[9, 9], [27, 9], [9, 27], [27, 27]], 5: [[9, 9], [27, 9], [18, 18], [9, 27], [27, 27]],
  6: [[9, 9], [27, 9], [9, 18], [27, 18], [9, 27], [27, 27]],
};

/** A die drawn with its pips: the coloured die red, the white die (and a lone dr) white. */
export function dieImage(value, colour) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 36 36');
  svg.setAttribute('class', `die die-${colour}`);
  svg.setAttribute('role', 'img');
  const words = colour === 'coloured' ? 'coloured die' : colour === 'white' ? 'white die' : 'die';
  svg.setAttribute('aria-label', `${words} ${value}`);
  const face = document.createElementNS(ns, 'rect');
  for (const [k, v] of Object.entries({ x: 1.5, y: 1.5, width: 33, height: 33, rx: 6 })) face.setAttribute(k, v);
  svg.append(face);
  for (const [cx, cy] of kPips[value] || []) {
    const pip = document.createElementNS(ns, 'circle');
    pip.setAttribute('cx', cx);
    pip.setAttribute('cy', cy);
    pip.setAttribute('r', 3.6);
    svg.append(pip);
  }
  return svg;
}

/** The asl part of the match page for one seat (or a spectator, or the director). */
export class AslPlay {
  constructor(client, role) {
    this.client = client;
    this.role = role;                 // side_a, side_b, spectator, director
    this.view = null;
    this.units = new Map();           // id -> {unit, hidden, presence} as the view shows it now
    this.pick = { attackers: [], targets: [] };
    this.draft = [];                  // [{attackers, targets}]
    this.choices = new Map();         // choice id -> ChoiceRequested for this seat
    this.openChoice = null;
    this.sealed = { SEAT_SIDE_A: null, SEAT_SIDE_B: null };  // receipts shown
    this.myReceipt = null;
    this.revealed = null;             // the reveal in words, once both declarations are open
    this.over = false;                // the close combat ended: the next set-up starts afresh
    this.roundStart = 0;              // the seq of this CCPh's set-up event
    this.revealCards = [];            // [{seq, card}] of every reveal shown
    this.countdown = new Countdown();
    this.oddsAsked = 0;               // the latest preview asked: older answers are dropped
    this.#wire();
  }

  get me() {
    return seatOf(this.role);
  }

  // What waiting_for asks of this seat now ("announce (A11.2, A11.14)", ...), or null.
  #myStep() {
    return stepOf(this.view, this.me);
  }

  #wire() {
    // A roster is read here at each key stroke; a situation file on the server (#readSetup).
    wireSetupForm('', { client: this.client, debounceMs: 0,
      read: () => this.#previewRoster(), submit: () => this.#submitSetup() });
    $('announce-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.#announce();
    });
    $('announce-form').addEventListener('change', () => this.#announceLabel());
    $('board').addEventListener('click', (e) => {
      const button = e.target.closest('button.counter');
      if (button && !$('declare-panel').hidden) this.#pickUnit(button.dataset.unit);
    });
    $('add-attack').addEventListener('click', () => this.#addAttack());
    $('clear-pick').addEventListener('click', () => {
      this.pick = { attackers: [], targets: [] };
      this.#say('');
      this.#renderDeclare();
    });
    $('seal').addEventListener('click', () => this.#seal());
    $('choice-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.#answerChoice();
    });
    $('choice-dialog').addEventListener('cancel', (e) => e.preventDefault());  // answer it
  }

  // ---- the view ---------------------------------------------------------------------------------

  onView(view) {
    this.view = view;
    this.units = new Map();
    const asl = view.asl || {};
    const setupStage = view.stage === 'STAGE_SETUP' || !(asl.units || []).length;
    if (setupStage) {
      for (const setup of [view.side_a_setup, view.side_b_setup]) {
        for (const u of setup?.units || []) {
          this.units.set(u.id, { unit: u, hidden: !u.kind && Boolean(u.concealed),
            presence: 'PRESENCE_PRESENT' });
        }
      }
    } else {
      for (const v of asl.units) {
        this.units.set(v.unit.id, { unit: v.unit, hidden: Boolean(v.hidden),
          presence: v.presence || 'PRESENCE_PRESENT' });
      }
    }
    const location = setupStage
      ? view.side_a_setup?.location || view.side_b_setup?.location || asl.location
      : asl.location;
    const attacker = setupStage
      ? view.side_a_setup?.attacker || view.side_b_setup?.attacker || asl.attacker
      : asl.attacker;
    this.#renderNext();
    this.#renderBoard(location, attacker, setupStage);
    this.#renderPanels();
    this.#renderSeals();
    this.#syncChoice();
  }

  #renderNext() {
    const view = this.view;
    const step = this.#myStep();
    const waiting = (view.waiting_for || []).map((w) => w.replace(/^side_a/, 'side A')
      .replace(/^side_b/, 'side B'));
    let text;
    if (step) {
      const words = {
        'enter its units': 'Your turn: enter your units below (a roster in counter notation).',
        'enter units': 'Your turn: enter your units below (a roster in counter notation).',
        'confirm the set-up': 'Your turn: check both sides’ units, then confirm the set-up.',
      };
      const key = Object.keys(words).find((k) => step.startsWith(k));
      text = key ? words[key]
        : step.startsWith('announce') ? 'Your turn: announce (withdrawals, solo SMC) — or nothing.'
          : step.startsWith('seal') || step.startsWith('declare')
            ? 'Your turn: declare your attacks — click your units, then the enemy units they attack.'
            : step.startsWith('answer choice') ? 'Your turn: answer the choice the rules give you.'
              : `Your turn: ${step}.`;
    } else if (view.stage === 'STAGE_ENDED') {
      text = `This close combat is over${this.#outcome()}. Either side may enter units for the next one.`;
    } else if (waiting.length) {
      text = `Waiting for ${waiting.join('; ')}.`;
    } else {
      text = 'Waiting for the players.';
    }
    $('next').textContent = text;
    $('next').dataset.mine = step ? 'true' : 'false';
    $('next').dataset.stage = view.stage || '';
    document.body.dataset.stage = view.stage || '';  // the form for the next one goes below
  }

  // Who is left in the Location when the close combat is over, in words.
  #outcome() {
    const left = (seat) => [...this.units.values()].filter((e) => e.unit.owner === seat &&
      e.presence === 'PRESENCE_PRESENT').length;
    const [a, b] = [left('SEAT_SIDE_A'), left('SEAT_SIDE_B')];
    const where = this.view.asl?.location?.name || 'the Location';
    if (a && !b) return ` — side A holds ${where}: no unit of side B is left in it`;
    if (b && !a) return ` — side B holds ${where}: no unit of side A is left in it`;
    if (!a && !b) return ` — no unit of either side is left in ${where}`;
    return this.lastSummary ? ` — ${this.lastSummary}` : '';
  }

  #renderBoard(location, attacker, setupStage) {
    const view = this.view;
    const asl = view.asl || {};
    const facts = [];
    facts.push(location?.name ? `Location ${location.name}` : 'Location not named yet');
    if (location?.woods_or_building) facts.push('woods or building (Ambush possible, A11.4)');
    // Once the CCPh is over, whether a Melee marker stays is the view's `melee`, not the
    // Location's state at its start.
    const melee = asl.phase === 'PHASE_ENDED' ? asl.melee : location?.melee || asl.melee;
    if (melee) facts.push('in Melee (A11.15)');
    if (attacker) facts.push(`ATTACKER: ${kSideNames[attacker]}`);
    if (!setupStage && asl.phase) facts.push(kPhases[asl.phase] || asl.phase);
    $('location-facts').textContent = `${facts.join(' · ')}.`;
    const board = $('board');
    board.replaceChildren();
    for (const seat of ['SEAT_SIDE_A', 'SEAT_SIDE_B']) {
      const group = make('div', { className: 'side', role: 'group' });
      const title = `${kSideNames[seat].replace('s', 'S')}${seat === attacker ? ' (ATTACKER)' : ''}` +
        `${seat === this.me ? ' — you' : ''}`;
      const h = make('h3', { id: `board-${seat}` }, title);
      group.setAttribute('aria-labelledby', h.id);
      group.dataset.side = seat;
      const row = make('div', { className: 'counters' });
      const here = [...this.units.values()].filter((e) => e.unit.owner === seat);
      // A SMC stacked on an MMC (A11.14) is drawn on top of it, offset, as a stack.
      const stacks = new Map();
      for (const entry of here) {
        const base = entry.unit.stacked_on && here.some((o) => o.unit.id === entry.unit.stacked_on)
          ? entry.unit.stacked_on : entry.unit.id;
        if (!stacks.has(base)) stacks.set(base, []);
        stacks.get(base)[base === entry.unit.id ? 'unshift' : 'push'](entry);
      }
      for (const stack of stacks.values()) {
        const box = make('div', { className: stack.length > 1 ? 'stack' : 'single' });
        for (const entry of stack) {
          const fate = fateWord(entry.presence);
          const button = counterButton(entry.unit, { hidden: entry.hidden, fate });
          if (!$('declare-panel').hidden) button.dataset.pickable = fate ? 'false' : 'true';
          box.append(button);
        }
        row.append(box);
      }
      if (!here.length) row.append(make('p', { className: 'hint' }, 'No units entered yet.'));
      group.append(h, row);
      // The rest of the side's force: units in other Locations, withdrawn, eliminated, captured.
      const force = (seat === 'SEAT_SIDE_A' ? view.side_a_force : view.side_b_force) || [];
      const elsewhere = force.filter((f) => !this.units.has(f.id) ||
        (f.location && location?.name && f.location !== location.name));
      if (elsewhere.length) {
        const more = make('div', { className: 'counters small' });
        for (const f of elsewhere) {
          const unit = { ...(f.asl || {}), id: f.id, owner: f.owner || seat };
          const fate = fateWord(f.fate) || (f.location ? `in ${f.location}` : 'off board');
          more.append(counterButton(unit, { hidden: Boolean(f.hidden), fate, size: 52 }));
        }
        group.append(make('p', { className: 'hint' }, 'The rest of the force (not in this Location now):'), more);
      }
      board.append(group);
    }
  }

  #renderPanels() {
    const step = this.#myStep() || '';
    const seat = Boolean(this.me);
    const stage = this.view.stage;
    $('setup-panel').hidden = !seat || !(stage === 'STAGE_SETUP' || stage === 'STAGE_ENDED');
    if (stage !== this.stage) {
      // A new stage: what the set-up form said last is no longer news.
      $('setup-status').textContent = '';
      $('setup-heading').textContent = stage === 'STAGE_ENDED'
        ? 'Units for the next close combat' : 'Your units';
      this.stage = stage;
    }
    if (!$('setup-panel').hidden) {
      const status = this.me === 'SEAT_SIDE_A' ? this.view.side_a : this.view.side_b;
      const done = stage === 'STAGE_SETUP' && Boolean(status?.confirmed);
      $('confirm-setup').disabled = stage !== 'STAGE_SETUP' || !status?.submitted || done;
      $('confirm-setup').textContent = done ? 'Set-up confirmed' : 'Confirm the set-up';
    }
    const announcing = seat && step.startsWith('announce');
    if (announcing && $('announce-panel').hidden) this.#buildAnnounce();
    $('announce-panel').hidden = !announcing;
    const declaring = seat && (step.startsWith('seal') || step.startsWith('declare'));
    if (declaring && $('declare-panel').hidden) {
      this.pick = { attackers: [], targets: [] };
      this.draft = [];
      this.#say('');
    }
    $('declare-panel').hidden = !declaring;
    if (declaring) {
      this.#renderDeclare();
      for (const b of $('board').querySelectorAll('button.counter')) {
        b.dataset.pickable = b.dataset.fate ? 'false' : 'true';
      }
    }
    $('declarations').hidden = stage === 'STAGE_SETUP';
  }

  // ---- set-up -------------------------------------------------------------------------------------

  // A roster in counter notation or a SideSetup in JSON is read here (roster.js, at each key
  // stroke); a situation file (docs/asl-situation-format.md: both sides, as `melee rules resolve`
  // takes it) by the server, as `melee submit --setup` reads it, keeping this seat's units.
  async #readSetup(text) {
    if (!/^\s*\{/.test(text) || !/"situation"\s*:/.test(text)) return readRoster(text, this.role);
    return (await readRosterOnServer('asl', this.me, text, 'your file')).asl;
  }

  async #previewRoster() {
    const out = $('roster-preview');
    const text = $('roster').value;
    if (!text.trim()) {
      out.replaceChildren();
      return null;
    }
    try {
      const setup = await this.#readSetup(text);
      if ($('roster').value !== text) return null;  // typed on meanwhile
      out.replaceChildren(...setup.units.map((u) => counterButton(u, { size: 56 })));
      for (const b of out.querySelectorAll('button')) b.tabIndex = -1;
      $('roster-problem').textContent = '';
      return setup;
    } catch (error) {
      out.replaceChildren();
      $('roster-problem').textContent = error.message;
      return null;
    }
  }

  async #submitSetup() {
    const setup = await this.#previewRoster();
    if (!setup) {
      if (!$('roster').value.trim()) $('roster-problem').textContent = 'Write your units first, e.g. G1: 4-6-7';
      return;
    }
    runInto($('setup-status'), () => this.client.command('submit_setup', { asl: setup }),
      `Entered ${setup.units.length} unit(s). Confirm when both sides look right.`);
  }

  // ---- announce -----------------------------------------------------------------------------------

  #buildAnnounce() {
    $('announce-status').textContent = '';
    const box = $('announce-units');
    box.replaceChildren();
    const asl = this.view.asl || {};
    const melee = Boolean(asl.melee || asl.location?.melee);
    const mine = [...this.units.values()].filter((e) => e.unit.owner === this.me &&
      e.presence === 'PRESENCE_PRESENT' && e.unit.kind !== 'UNIT_KIND_VEHICLE');
    const options = [];
    for (const { unit } of mine) {
      if (melee) options.push([unit, 'withdraw', 'withdraws from Melee (A11.2)']);
      if (melee && unit.broken) {
        options.push([unit, 'cannot_withdraw', 'cannot withdraw: eliminated for Failure to Rout (A11.16)']);
      }
      if (isSmc(unit)) options.push([unit, 'solo', 'attacks (and defends) alone (A11.14)']);
    }
    for (const [unit, what, words] of options) {
      const id = `announce-${what}-${unit.id}`;
      const row = make('div', { className: 'check' });
      const input = make('input', { type: 'checkbox', id, value: unit.id });
      input.dataset.what = what;
      const label = make('label', { for: id }, `${unit.id} (${unit.name || ''}) ${words}`);
      row.append(input, label);
      box.append(row);
    }
    $('announce-hint').textContent = options.length
      ? 'Tick what you announce; leave all unticked to announce nothing.'
      : melee ? '' : 'Nothing to announce here: no Melee (so no Withdrawal, A11.2) and no SMC of yours (A11.14).';
    this.#announceLabel();
  }

  #announceLabel() {
    const ticked = $('announce-form').querySelectorAll('input:checked').length;
    $('announce-submit').textContent = ticked ? 'Announce' : 'Announce nothing';
  }

  #announce() {
    const asl = {};
    for (const input of $('announce-form').querySelectorAll('input:checked')) {
      (asl[input.dataset.what] ||= []).push(input.value);
    }
    runInto($('announce-status'), () => this.client.command('announce', { asl }), 'Announced.');
  }

  // ---- declaring ----------------------------------------------------------------------------------

  #say(text) {
    $('declare-problem').textContent = text;
  }

  #pickUnit(id) {
    const entry = this.units.get(id);
    if (!entry) return;
    const { unit } = entry;
    const name = entry.hidden ? `${id} (?)` : `${id} (${unit.name || unit.id})`;
    if (entry.presence !== 'PRESENCE_PRESENT') {
      this.#say(`${name} is no longer in the Location.`);
      return;
    }
    const own = unit.owner === this.me;
    const list = own ? this.pick.attackers : this.pick.targets;
    const at = list.indexOf(id);
    if (at >= 0) {
      list.splice(at, 1);
      this.#say('');
    } else if (own) {
      if (unit.broken) return this.#say(`A11.16: broken ${name} cannot attack.`);
      if (this.draft.some((a) => a.attackers.includes(id))) {
        return this.#say(`A11.12: ${name} already attacks — each unit attacks once per CCPh.`);
      }
      list.push(id);
      this.#say('');
    } else {
      if (this.draft.some((a) => a.targets.includes(id))) {
        return this.#say(`A11.12: ${name} is already attacked — each unit is attacked once per CCPh.`);
      }
      list.push(id);
      this.#say('');
    }
    this.#renderDeclare();
  }

  #addAttack() {
    const { attackers, targets } = this.pick;
    if (!attackers.length || !targets.length) {
      this.#say('Pick at least one of your units (attackers) and one enemy unit (target) first.');
      return;
    }
    this.draft.push({ attackers: [...attackers], targets: [...targets] });
    this.pick = { attackers: [], targets: [] };
    this.#say('');
    this.#renderDeclare();
  }

  #renderDeclare() {
    const name = (id) => {
      const e = this.units.get(id);
      return e && !e.hidden && e.unit.name ? `${id} ${e.unit.name}` : e?.hidden ? `${id} ?` : id;
    };
    $('pick-attackers').textContent = this.pick.attackers.map(name).join(' + ') || 'none yet';
    $('pick-targets').textContent = this.pick.targets.map(name).join(' + ') || 'none yet';
    const list = $('draft');
    list.replaceChildren();
    this.draft.forEach((a, i) => {
      const li = make('li');
      li.append(make('span', {}, `Attack ${i + 1}: ${a.attackers.map(name).join(' + ')} attack ${a.targets.map(name).join(' + ')}`));
      const remove = make('button', { type: 'button', className: 'secondary small',
        'aria-label': `Remove attack ${i + 1}` }, 'Remove');
      remove.addEventListener('click', () => {
        this.draft.splice(i, 1);
        this.#renderDeclare();
      });
      li.append(remove);
      list.append(li);
    });
    if (!this.draft.length) list.append(make('li', { className: 'hint' }, 'No attack yet.'));
    $('seal').textContent = this.draft.length
      ? `Seal ${this.draft.length} attack${this.draft.length === 1 ? '' : 's'}` : 'Seal: no attack';
    for (const b of $('board').querySelectorAll('button.counter')) {
      const on = this.pick.attackers.includes(b.dataset.unit) || this.pick.targets.includes(b.dataset.unit);
      b.setAttribute('aria-pressed', on ? 'true' : 'false');
      const used = this.draft.some((a) => a.attackers.includes(b.dataset.unit) || a.targets.includes(b.dataset.unit));
      b.dataset.drafted = used ? 'true' : 'false';
    }
    this.#refreshOdds();
  }

  // ---- the exact odds of the attack being picked -------------------------------------------------

  // Asks the server for the outcome table of the attack picked now (worked out from this seat's
  // view alone) and draws it; a pick the rules refuse shows the rule instead, before any seal.
  async #refreshOdds() {
    const asked = ++this.oddsAsked;
    const { attackers, targets } = this.pick;
    const table = $('odds-table');
    if (!attackers.length || !targets.length) {
      table.replaceChildren();
      $('odds-status').textContent = attackers.length || targets.length
        ? `Now pick ${attackers.length ? 'the enemy units they attack' : 'your attacking units'}: the odds show once both are picked.`
        : 'Pick your attackers and their targets: the chance of every result shows here, every dice outcome counted (not sampled), from what your seat can see.';
      return;
    }
    $('odds-status').textContent = 'Counting every dice outcome…';
    let answer = null;
    let refusal = null;
    try {
      answer = await this.client.preview({ attackers, targets });
    } catch (error) {
      refusal = error;
    }
    if (asked !== this.oddsAsked) return;  // the picks changed meanwhile
    if (refusal) {
      table.replaceChildren();
      $('odds-status').textContent = `This attack would be refused — ${refusal.message}`;
      $('odds-status').dataset.refused = 'true';
      return;
    }
    delete $('odds-status').dataset.refused;
    const hidden = targets.some((id) => this.units.get(id)?.hidden);
    $('odds-status').textContent = oddsSummary(answer) + (hidden
      ? ' (A concealed unit counts at the Strength Factor A11.19 reveals: its real counter is not known to you.)'
      : '');
    table.replaceChildren(...oddsTable(answer, (id) => this.#unitWords(id)));
  }

  // "R1 (4-6-7)", or "R2 (?)" for a concealed enemy unit.
  #unitWords(id) {
    const e = this.units.get(id);
    if (!e) return id;
    if (e.hidden) return `${id} (?)`;
    return `${id} (${counterNumbers(e.unit)})`;
  }

  async #seal() {
    const attacks = this.draft.map((a) => ({ attacker_ids: a.attackers, target_ids: a.targets }));
    $('seal').disabled = true;
    this.#say('');
    try {
      const sealedAfter = this.client.lastSeq;
      const { receipt, problem } = await this.client.seal({ attacks });
      // The ack comes after the events the seal caused (the reveal, the rolls, perhaps the next
      // CCPh's set-up): the receipt belongs to the round that was under way when it was sent.
      this.myReceipt = { receipt, problem, sealedAfter };
      this.#noteReceipt();
      this.#renderSeals();
    } catch (error) {
      this.#say(`Refused — ${error.message}`);
    } finally {
      $('seal').disabled = false;
    }
  }

  // Notes on the reveal's card that this seat's receipt was checked, once both are there.
  #noteReceipt() {
    const mine = this.myReceipt;
    if (!mine || mine.noted) return;
    const reveal = this.revealCards.find((r) => r.seq > mine.sealedAfter);
    if (!reveal) return;
    mine.noted = true;
    reveal.card.append(make('p', { className: mine.problem ? 'problem' : 'facts receipt' },
      mine.problem ? `WARNING — your receipt ${mine.problem}`
        : 'Your seal’s receipt was verified in your browser; the fair-play check below opens ' +
          'both seals against the commitments shown before the reveal.'));
  }

  #renderSeals() {
    const lines = [];
    const short = (b64) => (b64 ? `${b64.slice(0, 16)}…` : '');
    if (this.myReceipt && this.myReceipt.sealedAfter >= this.roundStart) {
      const { receipt, problem } = this.myReceipt;
      lines.push(['mine', problem
        ? `WARNING — your receipt ${problem}`
        : `You sealed your declaration. Receipt ${short(receipt)} — verified in your browser ` +
          '(SHA-256 of the server’s nonce and your declaration): the server cannot change it now.']);
    }
    const asl = this.view?.asl || {};
    const mineShown = lines.length > 0;
    for (const seat of ['SEAT_SIDE_A', 'SEAT_SIDE_B']) {
      if (seat === this.me) {
        // Sealed before this page was opened (a reload): the commitment, from the events.
        if (!mineShown && this.sealed[seat]) {
          lines.push(['mine', `You have sealed your declaration (commitment ${short(this.sealed[seat])}).`]);
        }
        continue;
      }
      const sealed = seat === 'SEAT_SIDE_A' ? asl.side_a_sealed : asl.side_b_sealed;
      const receipt = this.sealed[seat];
      if (sealed || receipt) {
        lines.push([seat, `${kSideNames[seat].replace('s', 'S')} has sealed its declaration` +
          `${receipt ? ` (commitment ${short(receipt)})` : ''}${this.revealed ? '' : ': its content stays secret until both have sealed'}.`]);
      } else if (this.view?.stage === 'STAGE_PLAYING' && asl.phase === 'PHASE_DECLARE') {
        lines.push([seat, `${kSideNames[seat].replace('s', 'S')} has not sealed yet.`]);
      }
    }
    if (this.revealed) lines.push(['reveal', this.revealed]);
    const box = $('seal-status');
    box.replaceChildren();
    for (const [who, text] of lines) {
      const li = make('li', {}, text);
      li.dataset.who = who;
      if (text.startsWith('WARNING')) li.className = 'problem';
      box.append(li);
    }
    if (!lines.length) box.append(make('li', { className: 'hint' }, 'No declaration yet.'));
  }

  // ---- events: seals, the reveal, the rolls, choices ----------------------------------------------

  onEvent(e) {
    if (e.declaration_sealed) {
      this.sealed[e.declaration_sealed.seat] = e.declaration_sealed.receipt;
      this.#renderSeals();
    }
    if (this.over && (e.setup_submitted || e.setup_confirmed || e.asl?.kind === 'EVENT_KIND_SET_UP')) {
      // The next close combat: forget the last one's declarations.
      this.over = false;
      this.sealed = { SEAT_SIDE_A: null, SEAT_SIDE_B: null };
      this.revealed = null;
      this.#renderSeals();
    }
    if (e.declarations_revealed) {
      const r = e.declarations_revealed;
      const words = (d) => {
        const attacks = d?.asl?.attacks || [];
        return attacks.length
          ? attacks.map((a) => `${(a.attackers || []).join(' + ')} → ${(a.targets || []).join(' + ')}`).join('; ')
          : 'no attack';
      };
      this.revealed = `Both declarations revealed — side A: ${words(r.side_a)}; side B: ${words(r.side_b)}.`;
      this.#renderSeals();
    }
    if (e.match_ended) {
      this.over = true;
      this.lastSummary = e.match_ended.summary.replace(/^end of CCPh: /, '');
    }
    if (e.choice_requested && e.choice_requested.seat === this.me) {
      this.choices.set(e.choice_requested.choice_id, e.choice_requested);
    }
    this.#renderRoll(e);
  }

  #renderRoll(e) {
    const asl = e.asl;
    const dice = asl?.dice || [];
    const attack = asl?.attack;
    const ended = e.match_ended;
    if (asl?.kind === 'EVENT_KIND_SET_UP') {
      this.roundStart = Number(e.seq);
      // A close combat (or its next Melee round) starts: a divider in the list of rolls.
      const sit = asl.situation || {};
      const card = make('li', { className: 'roll divider' });
      const where = sit.location?.name || 'the Location';
      card.append(make('h3', {}, sit.location?.melee
        ? `#${e.seq} A new Close Combat Phase: the Melee in ${where} goes on (A11.15)`
        : `#${e.seq} Close combat in ${where} starts`));
      card.append(make('p', { className: 'facts' }, `ATTACKER: ${kSideNames[sit.attacker] || '?'}.`));
      $('rolls').append(card);
      $('rolls-empty').hidden = true;
      return;
    }
    if (!dice.length && !attack && !ended && !e.declarations_revealed && !asl?.effects?.length) return;
    const card = make('li', { className: 'roll' });
    card.dataset.seq = e.seq;
    let title;
    if (attack) {
      const side = kSideNames[attack.side] || '';
      title = `${side.replace('s', 'S')}: ${(attack.attackers || []).join(' + ')} attack` +
        `${attack.capture ? ' to capture' : ''} ${(attack.targets || []).join(' + ')}`;
    } else if (ended) {
      title = asl?.melee ? 'End of this Close Combat Phase: Melee (A11.15)'
        : 'End of this Close Combat Phase: the close combat is over';
    } else if (e.declarations_revealed) {
      title = 'Declarations revealed';
    } else {
      title = (asl?.text || (asl?.kind || 'event').replace('EVENT_KIND_', '').toLowerCase()).split('\n')[0];
    }
    card.append(make('h3', {}, `#${e.seq} ${title}`));
    if (attack) {
      const facts = attack.vs_vehicle
        ? `vs a vehicle: CCV ${attack.kill_number}`
        : `${attack.attack_strength_mixed || attack.attack_strength} FP vs ${attack.defence_strength_mixed || attack.defence_strength}` +
          ` → odds ${attack.column}, Kill # ${attack.kill_number}`;
      card.append(make('p', { className: 'facts' }, `${facts}${attack.director ? `; directed by ${attack.director} (A11.141)` : ''}.`));
      for (const h of attack.halvings || []) {
        card.append(make('p', { className: 'facts' }, `${h.rule} ${h.cause}${h.unit ? ` (${h.unit})` : ''}: halved`));
      }
    }
    // The dice, grouped by purpose: "A11.11 CC DR" with its coloured and white die.
    const groups = [];
    for (const d of dice) {
      const last = groups[groups.length - 1];
      const colour = d.color === 'COLOR_COLORED' ? 'coloured' : d.color === 'COLOR_WHITE' ? 'white' : 'single';
      if (last && last.purpose === d.purpose && !(colour === 'coloured' && last.dice.length)) {
        last.dice.push([d.value, colour]);
      } else {
        groups.push({ purpose: d.purpose, dice: [[d.value, colour]] });
      }
    }
    for (const g of groups) {
      const row = make('div', { className: 'dice-row' });
      const images = make('span', { className: 'dice' });
      for (const [value, colour] of g.dice) images.append(dieImage(value, colour));
      // A DR (coloured and white die) is read as its total; other dice (a Random Selection dr
      // per unit, A.9) each on their own.
      const values = g.dice.map(([v]) => v);
      const dr = g.dice.some(([, c]) => c === 'coloured') && g.dice.length === 2;
      row.append(images, make('span', { className: 'purpose' },
        `${g.purpose}: ${dr ? `${values.join(' + ')} = ${values[0] + values[1]}` : values.join(', ')}`));
      card.append(row);
    }
    const drmList = (drms) => drms.map((d) => `${signed(d.value)} ${d.cause} (${d.rule})`).join(', ');
    if (attack) {
      if (attack.drms?.length) card.append(make('p', { className: 'drms' }, `DRM: ${drmList(attack.drms)}`));
      for (const r of attack.results || []) {
        const extra = r.drms?.length ? ` with ${drmList(r.drms)}` : '';
        const p = make('p', { className: `result result-${(r.outcome || '').replace('OUTCOME_', '').toLowerCase()}` },
          `${r.unit}: Final DR ${r.final_dr}${extra} vs Kill # ${attack.kill_number} → ${kOutcomes[r.outcome] || r.outcome}`);
        card.append(p);
      }
      if (attack.leader_creation) {
        const l = attack.leader_creation;
        card.append(make('p', { className: 'drms' }, `Leader creation (A18.2): dr ${l.dr}` +
          `${l.drms?.length ? ` ${drmList(l.drms)}` : ''} → ${l.final_dr}: ${l.leader ? `an ${l.leader} is created` : 'no leader'}`));
      }
    } else if (asl?.ambush) {
      for (const [seat, roll] of [['side A', asl.ambush.side_a], ['side B', asl.ambush.side_b]]) {
        if (!roll) continue;
        card.append(make('p', { className: 'drms' }, `${seat}: dr ${roll.dr}` +
          `${roll.drms?.length ? ` ${drmList(roll.drms)}` : ''} → ${roll.final_dr}`));
      }
    }
    if (ended) card.append(make('p', { className: 'result' }, ended.summary));
    else if (e.declarations_revealed) {
      card.append(make('p', {}, this.revealed || ''));
      this.revealCards.push({ seq: Number(e.seq), card });
      this.#noteReceipt();
    }
    if (asl?.text && (attack || dice.length)) {
      const more = make('details');
      more.append(make('summary', {}, 'The whole account'), make('pre', {}, asl.text.trim()));
      card.append(more);
    }
    $('rolls').append(card);
    $('rolls-empty').hidden = true;
  }

  #syncChoice() {
    const step = this.#myStep() || '';
    const m = /^answer choice (\d+)/.exec(step);
    const dialog = $('choice-dialog');
    if (!m) {
      if (dialog.open) dialog.close();
      this.openChoice = null;
      this.countdown.stop();
      return;
    }
    const choice = this.choices.get(m[1]);
    if (!choice || this.openChoice === m[1]) return;
    this.openChoice = m[1];
    dialog.dataset.choice = m[1];
    $('choice-title').textContent = `A choice for you (${choice.rule_ref})`;
    $('choice-prompt').textContent = choice.prompt;
    const box = $('choice-options');
    box.replaceChildren();
    const single = Number(choice.max_selected || 0) === 1 && Number(choice.min_selected || 0) === 1;
    (choice.options || []).forEach((option, i) => {
      const id = `choice-${choice.choice_id}-${i}`;
      const row = make('div', { className: 'check' });
      const input = make('input', { type: single ? 'radio' : 'checkbox', id, name: 'choice', value: option });
      if (single && i === 0) input.checked = true;
      const entry = this.units.get(option);
      const label = make('label', { for: id }, entry ? unitWords(entry.unit, { hidden: entry.hidden }) : option);
      row.append(input, label);
      box.append(row);
    });
    const min = Number(choice.min_selected || 0);
    const max = Number(choice.max_selected || 0);
    $('choice-rule').textContent = single ? 'Pick one.'
      : `Pick ${min ? `at least ${min}` : 'any'}${max ? `, at most ${max}` : ''}${min ? '' : ' (none is an answer too)'}.`;
    $('choice-default').textContent = `If you do not answer in time: ${choice.default_if_timeout || 'the rules default'}.`;
    $('choice-problem').textContent = '';
    this.countdown.run($('choice-countdown'),
      choice.deadline_unix_ms || this.view.deadline_unix_ms, 'answer', 'No deadline.');
    if (!dialog.open) dialog.showModal();
  }

  async #answerChoice(attempt = 0) {
    const id = this.openChoice;
    if (!id) return;
    const selected = [...$('choice-options').querySelectorAll('input:checked')].map((i) => i.value);
    const choice = this.choices.get(id);
    const min = Number(choice?.min_selected || 0);
    const max = Number(choice?.max_selected || 0);
    if (selected.length < min || (max && selected.length > max)) {
      $('choice-problem').textContent = `Pick ${min === max ? min : `${min} to ${max}`}.`;
      return;
    }
    $('choice-submit').disabled = true;
    try {
      await this.client.command('make_choice', { choice_id: id, selected });
    } catch (error) {
      if (error.code === 'ERROR_CODE_STALE' && attempt < 3) {
        // The match moved on (the other side acted) while this answer was on its way: the
        // choice is still ours, so send it again on the new seq.
        await new Promise((r) => setTimeout(r, 300));
        return this.#answerChoice(attempt + 1);
      }
      $('choice-problem').textContent = `Refused — ${error.message}`;
    } finally {
      $('choice-submit').disabled = false;
    }
  }
}
