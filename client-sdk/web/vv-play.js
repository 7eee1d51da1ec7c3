// Playing a Valor & Victory close assault (rule 15, board and PC editions) in the match page: the
// source hex and the target hex drawn with vv counters (counters.js), a set-up form that reads a
// roster in counter notation on the server (POST /api/rosters/read, as `melee submit --setup`
// reads it), the declaration (15.1-15.3, 15.6) as clicks and a form — the assault group, the
// leader whose Leadership Modifier counts, each unit's support weapon, Grenades and Satchel
// Charges — its seal and receipt, the Casualty Point allocation (14.61-14.65, 15.10) as a form,
// and every roll of the reveal drawn as dice with its purpose, its modifiers with their rules, and
// the result. Nothing on a V&V map is concealed: the secrets are the sealed declarations and
// allocations, shown only once both are revealed. Like asl-play.js it offers only what the view's
// waiting_for asks of this seat; the server checks everything.

import { dieImage } from './asl-play.js';
import { vvCounterButton, vvCounterNumbers, vvInfantry, vvUnitWords } from './counters.js';
import {
  Countdown, make, readSetupForm, runInto, seatOf, stepOf, wireSetupForm,
} from './page-kit.js';

const $ = (id) => document.getElementById(id);

const kSideNames = { SEAT_SIDE_A: 'Side A', SEAT_SIDE_B: 'Side B' };
const kOther = { SEAT_SIDE_A: 'SEAT_SIDE_B', SEAT_SIDE_B: 'SEAT_SIDE_A' };

// The Close Assault Table (15.6; SPEC-NOTES B.1.1): the Kill Number under each odds column.
const kKillNumbers = [['1-4', 3], ['1-3', 4], ['1-2', 5], ['1-1', 6], ['2-1', 8], ['3-1', 9], ['4-1', 10]];

const kActionWords = {
  CP_ACTION_KIND_IGNORE: 'ignores the first Casualty Point (14.63)',
  CP_ACTION_KIND_PIN: 'pinned',
  CP_ACTION_KIND_REDUCE: 'reduced to its half squad',
  CP_ACTION_KIND_REDUCE_AND_PIN: 'reduced to its half squad and pinned',
  CP_ACTION_KIND_ELIMINATE: 'eliminated',
  CP_ACTION_KIND_SURVIVAL_ROLL: 'survival roll (14.64)',
  CP_ACTION_KIND_IMMOBILIZATION: 'immobilization roll (15.10)',
};

const kEffectWords = {
  EFFECT_KIND_ELIMINATED: (u) => `${u} is eliminated`,
  EFFECT_KIND_PINNED: (u) => `${u} is pinned`,
  EFFECT_KIND_REDUCED: (u) => `${u} is reduced to its half squad`,
  EFFECT_KIND_IMMOBILIZED: (u) => `${u} is Immobile`,
  EFFECT_KIND_VALOROUS: (u) => `${u} becomes valorous`,
  EFFECT_KIND_IGNORED_CP: (u) => `${u} ignores its first Casualty Point`,
  EFFECT_KIND_OCCUPIED: (u) => `${u} moves into the hex`,
};

const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0');
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A modifier list in words: "−1 leader Coleman (15.3), −1 Grenades (12.52)". */
function modifierWords(mods = []) {
  return mods.map((m) => `${signed(m.value || 0)} ${m.what} (${m.rule})`).join(', ');
}

/** A side's revealed declaration in words. */
export function declareWords(declare, assaulting) {
  if (!declare) return 'nothing to declare';
  const parts = [];
  if (assaulting) {
    parts.push(declare.group?.length ? `assault group ${declare.group.join(' + ')}` : 'calls the assault off');
  } else {
    parts.push('every unit in the hex defends (15.1)');
  }
  if (declare.leader) parts.push(`leader ${declare.leader} (15.3)`);
  for (const use of declare.uses || []) {
    const what = [];
    if (use.weapon) what.push(`fires ${use.weapon}`);
    if (use.grenades) what.push('uses a Grenades counter (12.52)');
    if (use.satchel) what.push('uses a Satchel Charge (12.53)');
    if (what.length) parts.push(`${use.unit} ${what.join(' and ')}`);
  }
  return parts.join('; ');
}

/** A side's revealed allocation in words. */
export function allocationWords(allocation) {
  const actions = (allocation?.actions || []).map((a) =>
    `${a.unit} ${kActionWords[a.kind] || a.kind}${a.points ? ` with ${a.points} CP` : ''}`);
  const occupy = allocation?.occupy?.length ? [`${allocation.occupy.join(' + ')} move in (20.5)`] : [];
  return [...actions, ...occupy].join('; ') || 'no action';
}

/** The vv part of the match page for one seat (or a spectator, or the director). */
export class VvPlay {
  constructor(client, role) {
    this.client = client;
    this.role = role;
    this.view = null;
    this.setup = null;          // the SubmitSetup the server read from the roster
    this.units = new Map();     // id -> {unit, eliminated, inTarget} as the view shows it now
    this.sealed = {};           // seat -> commitment shown for the step under way
    this.myReceipt = null;      // {text, step, after, problem}: this seat's last seal
    this.stepKey = '';          // the step the seals above belong to
    this.declareKey = '';       // the declaration form built for this close assault
    this.allocateKey = '';
    this.countdown = new Countdown();
    this.revealCards = [];      // [{seq, card}]
    this.#wire();
  }

  get me() {
    return seatOf(this.role);
  }

  #myStep() {
    return stepOf(this.view, this.me);
  }

  #wire() {
    wireSetupForm('vv-', { client: this.client,
      read: (source) => this.#readRoster(source), submit: () => this.#submitSetup() });
    $('vv-board').addEventListener('click', (e) => {
      const button = e.target.closest('button.counter');
      if (button && !$('vv-declare-panel').hidden) this.#toggleGroup(button.dataset.unit);
    });
    $('vv-declare-form').addEventListener('change', () => this.#renderDeclareTotals());
    $('vv-declare-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.#sealDeclaration();
    });
    $('vv-allocate-form').addEventListener('change', () => this.#renderAllocationTotal());
    $('vv-allocate-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.#sealAllocation();
    });
    $('vv-suggest').addEventListener('click', () => this.#suggestAllocation());
  }

  // ---- the view ---------------------------------------------------------------------------------

  onView(view) {
    this.view = view;
    const vv = view.vv || {};
    const setupStage = view.stage === 'STAGE_SETUP' || !(vv.units || []).length;
    this.setupStage = setupStage;
    this.units = new Map();
    if (setupStage) {
      const attacker = this.#facts().attacker;
      for (const setup of [view.side_a_vv_setup, view.side_b_vv_setup]) {
        for (const u of setup?.units || []) {
          this.units.set(u.id, { unit: u, eliminated: false, inTarget: Boolean(attacker) && u.owner !== attacker });
        }
      }
    } else {
      for (const v of vv.units) {
        this.units.set(v.unit.id, { unit: v.unit, eliminated: Boolean(v.eliminated), inTarget: Boolean(v.in_target) });
      }
    }
    const key = `${view.ccph || 1}.${vv.phase || ''}`;
    if (key !== this.stepKey) {
      // A new step: the last one's seals are no longer news.
      this.stepKey = key;
      this.sealed = {};
    }
    this.#renderNext();
    this.#renderBoard();
    this.#renderPanels();
    this.#renderSeals();
  }

  // The close assault's facts: from the engine's view once it is set up, else as entered.
  #facts() {
    const view = this.view;
    const vv = view.vv || {};
    if (!this.setupStage) {
      return { attacker: vv.attacker, source: vv.source_hex, target: vv.target || {},
        uphill: vv.uphill_levels || 0 };
    }
    const parts = [view.side_a_vv_setup, view.side_b_vv_setup].filter(Boolean);
    const pick = (f) => parts.map(f).find((x) => x) || undefined;
    return {
      attacker: pick((p) => (p.attacker && p.attacker !== 'SEAT_UNSPECIFIED' ? p.attacker : '')),
      source: pick((p) => p.source_hex),
      target: pick((p) => (p.target?.name ? p.target : null)) || {},
      uphill: pick((p) => p.uphill_levels) || 0,
    };
  }

  #edition() {
    return this.view.vv?.variant || this.view.settings?.variant || 'board';
  }

  #renderNext() {
    const step = this.#myStep();
    const words = (w) => w.replace(/^side_a/, 'side A').replace(/^side_b/, 'side B');
    let text;
    if (step) {
      const attacking = this.#facts().attacker === this.me;
      text = step.startsWith('enter') ? 'Your turn: enter your units below (a roster in counter notation).'
        : step.startsWith('confirm') ? 'Your turn: check both sides’ units, then confirm the set-up.'
          : step.startsWith('seal a close-assault declaration')
            ? (attacking ? 'Your turn: declare your close assault — click the units that assault, pick their weapons, then seal (15.6).'
              : 'Your turn: declare your defence — your leader and each unit’s weapons, then seal (15.3, 15.6).')
            : step.startsWith('seal a Casualty Point allocation')
              ? `Your turn: apply your Casualty Points${step.slice('seal a Casualty Point allocation (14.61)'.length)}.`
              : `Your turn: ${step}.`;
    } else if (this.view.stage === 'STAGE_ENDED') {
      text = `This close assault is over${this.#outcome()}. Either side may enter units for the next one.`;
    } else {
      const waiting = (this.view.waiting_for || []).map(words);
      text = waiting.length ? `Waiting for ${waiting.join('; ')}.` : 'Waiting for the players.';
    }
    $('next').textContent = text;
    $('next').dataset.mine = step ? 'true' : 'false';
    $('next').dataset.stage = this.view.stage || '';
    document.body.dataset.stage = this.view.stage || '';
  }

  // Who holds the target hex once the close assault is over.
  #outcome() {
    const { attacker, target } = this.#facts();
    const holders = [...this.units.values()].filter((e) => e.inTarget && !e.eliminated);
    const owners = new Set(holders.map((e) => e.unit.owner));
    const where = target?.name || 'the target hex';
    if (owners.size === 1) {
      const [owner] = owners;
      return ` — ${kSideNames[owner]} holds ${where}${owner === attacker ? ' (the assault took it, 15.8)' : ''}`;
    }
    if (!owners.size) return ` — nobody is left in ${where}`;
    return '';
  }

  #renderBoard() {
    const { attacker, source, target, uphill } = this.#facts();
    const facts = [`${this.#edition() === 'pc' ? 'PC game' : 'Board game'} edition`];
    if (attacker) facts.push(`${kSideNames[attacker]} assaults`);
    if (source) facts.push(`from ${source}`);
    if (target?.name) facts.push(`into ${target.name}`);
    const cover = [['terrain', target?.terrain_cover], ['hexside', target?.hexside_cover],
      ['fortification', target?.fortification_cover], ['hindrance', target?.hindrance_cover]]
      .filter(([, v]) => v).map(([k, v]) => `${k} +${v}`);
    if (target?.name) facts.push(`cover ${cover.length ? cover.join(', ') : '0'} (15.8: Casualty Points, not the DR, 15.7)`);
    if (uphill) facts.push(`${uphill} level${uphill === 1 ? '' : 's'} uphill (15.81)`);
    if (target?.capacity) facts.push(`the hex holds ${target.capacity} (20.5)`);
    for (const seat of ['SEAT_SIDE_A', 'SEAT_SIDE_B']) {
      const pool = this.setupStage
        ? (seat === 'SEAT_SIDE_A' ? this.view.side_a_vv_setup : this.view.side_b_vv_setup)?.expendables
        : (seat === 'SEAT_SIDE_A' ? this.view.vv?.side_a_expendables : this.view.vv?.side_b_expendables);
      const items = [];
      if (pool?.grenades) items.push(plural(pool.grenades, 'Grenades counter'));
      if (pool?.satchel_charges) items.push(`${plural(pool.satchel_charges, 'Satchel Charge')} (+${pool.satchel_apfp || 0} APFP each)`);
      if (items.length) facts.push(`${kSideNames[seat]}’s pool: ${items.join(', ')}`);
    }
    $('vv-facts').textContent = target?.name || attacker ? `${facts.join(' · ')}.` : 'Being set up: each side’s units as entered.';

    const board = $('vv-board');
    board.replaceChildren();
    const declaring = (this.#myStep() || '').startsWith('seal a close-assault declaration');
    const hexes = [
      { key: 'source', title: `${source || 'The source hex'}${attacker ? ` — ${kSideNames[attacker]} assaults from here` : ''}`,
        entries: [...this.units.values()].filter((e) => !e.inTarget) },
      { key: 'target', title: `${target?.name || 'The target hex'}${this.view.vv?.phase === 'PHASE_ENDED'
        ? ' — the target hex' : attacker ? ` — ${kSideNames[kOther[attacker]]} defends` : ''}`,
        entries: [...this.units.values()].filter((e) => e.inTarget) },
    ];
    for (const hex of hexes) {
      const group = make('div', { className: 'side', role: 'group' });
      const h = make('h3', { id: `vv-hex-${hex.key}` }, hex.title);
      group.setAttribute('aria-labelledby', h.id);
      group.dataset.hex = hex.key;
      const row = make('div', { className: 'counters' });
      for (const entry of hex.entries) {
        const button = vvCounterButton(entry.unit, { fate: entry.eliminated ? 'eliminated' : '',
          where: hex.key === 'target' ? `in ${target?.name || 'the target hex'}` : `in ${source || 'the source hex'}` });
        if (entry.unit.owner === this.me && declaring && this.#attacking()) {
          button.dataset.pickable = hex.key === 'source' && !entry.eliminated ? 'true' : 'false';
        }
        row.append(button);
      }
      if (!hex.entries.length) row.append(make('p', { className: 'hint' }, 'No units here yet.'));
      group.append(h, row);
      board.append(group);
    }
    // The rest of each force: units the match carries elsewhere, or eliminated earlier.
    const rest = [];
    for (const seat of ['SEAT_SIDE_A', 'SEAT_SIDE_B']) {
      const force = (seat === 'SEAT_SIDE_A' ? this.view.side_a_force : this.view.side_b_force) || [];
      for (const f of force) {
        if (this.units.has(f.id) || !f.vv) continue;
        const fate = f.fate === 'FORCE_FATE_ELIMINATED' ? 'eliminated' : f.location ? `in ${f.location}` : '';
        rest.push(vvCounterButton({ ...f.vv, id: f.id, owner: f.owner || seat }, { fate, size: 52 }));
      }
    }
    if (rest.length) {
      const group = make('div', { className: 'side' });
      group.append(make('h3', {}, 'The rest of the forces (not in this close assault)'));
      const row = make('div', { className: 'counters small' });
      row.append(...rest);
      group.append(row);
      board.append(group);
    }
  }

  #attacking() {
    return Boolean(this.me) && this.#facts().attacker === this.me;
  }

  // Who has sealed the step under way (its content stays secret until both have), and this
  // seat's own receipt.
  #renderSeals() {
    const list = $('vv-seals');
    list.replaceChildren();
    const vv = this.view.vv || {};
    if (vv.phase !== 'PHASE_DECLARE' && vv.phase !== 'PHASE_ALLOCATE') return;
    const what = vv.phase === 'PHASE_DECLARE' ? 'declaration' : 'Casualty Point allocation';
    for (const seat of ['SEAT_SIDE_A', 'SEAT_SIDE_B']) {
      const a = seat === 'SEAT_SIDE_A';
      const owes = a ? vv.side_a_owes : vv.side_b_owes;
      const sealed = a ? vv.side_a_sealed : vv.side_b_sealed;
      const commitment = this.sealed[seat] ? ` (commitment ${this.sealed[seat].slice(0, 16)}…)` : '';
      let text;
      if (seat === this.me && sealed && this.myReceipt?.step === this.stepKey) text = this.myReceipt.text;
      else if (sealed) text = `${kSideNames[seat]} has sealed its ${what}${commitment}: it stays secret until both have sealed.`;
      else if (owes) text = `${kSideNames[seat]} has not sealed its ${what} yet.`;
      else {
        text = `${kSideNames[seat]} has nothing to seal here` +
          `${vv.phase === 'PHASE_ALLOCATE' ? ' (no Casualty Points)' : ' (15.9: every defender is pinned)'}.`;
      }
      const li = make('li', {}, text);
      li.dataset.side = seat;
      list.append(li);
    }
  }

  #renderPanels() {
    const step = this.#myStep() || '';
    const seat = Boolean(this.me);
    const stage = this.view.stage;
    $('vv-setup-panel').hidden = !seat || !(stage === 'STAGE_SETUP' || stage === 'STAGE_ENDED');
    if (this.stage && stage !== this.stage && stage === 'STAGE_ENDED') {
      // The next close assault: its units stay with their side (the match carries its forces),
      // so the form starts empty, for new units and the next assault's facts.
      $('vv-roster').value = '';
      $('vv-roster-preview').replaceChildren();
      $('vv-roster-read').textContent = 'Your units of this close assault stay with you where it left them: ' +
        'enter only new units, and the next assault’s facts (attacker, source, target).';
      $('vv-setup-status').textContent = '';
      this.setup = null;
    }
    this.stage = stage;
    if (!$('vv-setup-panel').hidden) {
      $('vv-setup-heading').textContent = stage === 'STAGE_ENDED' ? 'Units for the next close assault' : 'Your units';
      const status = this.me === 'SEAT_SIDE_A' ? this.view.side_a : this.view.side_b;
      const done = stage === 'STAGE_SETUP' && Boolean(status?.confirmed);
      $('vv-confirm-setup').disabled = stage !== 'STAGE_SETUP' || !status?.submitted || done;
      $('vv-confirm-setup').textContent = done ? 'Set-up confirmed' : 'Confirm the set-up';
    }
    const key = `${this.view.ccph || 1}`;
    const declaring = seat && step.startsWith('seal a close-assault declaration');
    if (declaring && (this.declareKey !== key || $('vv-declare-panel').hidden)) {
      this.declareKey = key;
      $('vv-declare-panel').hidden = false;
      this.#buildDeclare();
      this.#showOdds();
    }
    $('vv-declare-panel').hidden = !declaring;
    const allocating = seat && step.startsWith('seal a Casualty Point allocation');
    if (allocating && (this.allocateKey !== key || $('vv-allocate-panel').hidden)) {
      this.allocateKey = key;
      $('vv-allocate-panel').hidden = false;
      this.#buildAllocate();
    }
    $('vv-allocate-panel').hidden = !allocating;
    this.#runCountdown(declaring ? 'vv-declare-countdown' : allocating ? 'vv-allocate-countdown' : null);
    if (declaring) this.#renderDeclareTotals();
  }

  // A live countdown to the view's deadline in the open panel, and what the rules do without an
  // answer.
  #runCountdown(id) {
    if (!id) return this.countdown.stop();
    this.countdown.run($(id), this.view.deadline_unix_ms, 'seal');
  }

  // ---- set-up -------------------------------------------------------------------------------------

  // Reads the roster on the server (as `melee submit --setup` reads it) and draws its units.
  async #readRoster(source = 'your roster') {
    this.setup = null;
    const body = await readSetupForm('vv-', 'vv', this.me, source);
    if (!body) return;
    const out = $('vv-roster-preview');
    this.setup = body;
    const units = body.vv?.units || [];
    out.replaceChildren(...units.map((u) => vvCounterButton(u, { size: 56 })));
    for (const b of out.querySelectorAll('button')) b.tabIndex = -1;
    const facts = [];
    const s = body.vv || {};
    if (s.attacker && s.attacker !== 'SEAT_UNSPECIFIED') facts.push(`${kSideNames[s.attacker]} assaults`);
    if (s.source_hex) facts.push(`from ${s.source_hex}`);
    if (s.target?.name) facts.push(`into ${s.target.name}`);
    if (s.expendables?.grenades) facts.push(plural(s.expendables.grenades, 'Grenades counter'));
    if (s.expendables?.satchel_charges) facts.push(plural(s.expendables.satchel_charges, 'Satchel Charge'));
    $('vv-roster-read').textContent = `Read ${plural(units.length, 'unit')}${facts.length ? `; ${facts.join(', ')}` : ''}.`;
  }

  async #submitSetup() {
    if (!this.setup) await this.#readRoster();
    if (!this.setup) {
      if (!$('vv-roster').value.trim()) $('vv-setup-status').textContent = 'Nothing to enter: write or load your units first.';
      return;
    }
    await runInto($('vv-setup-status'), () => this.client.command('submit_setup', { vv: this.setup.vv }),
      `Entered ${plural(this.setup.vv?.units?.length || 0, 'unit')}. Check the other side’s units, then confirm.`);
  }

  // ---- declaring ----------------------------------------------------------------------------------

  #pool(seat = this.me) {
    const vv = this.view.vv || {};
    return (seat === 'SEAT_SIDE_A' ? vv.side_a_expendables : vv.side_b_expendables) || {};
  }

  // The units this seat declares for: the assaulter's in the source hex, the defender's in the
  // target hex (pinned ones are eliminated before the odds, 15.9).
  #myDeclarers() {
    const attacking = this.#attacking();
    return [...this.units.values()].filter((e) => e.unit.owner === this.me && !e.eliminated &&
      e.inTarget !== attacking);
  }

  // Why `unit` may not assault (15.1, 14.7), or ''.
  static whyNotAssault(unit) {
    if (!vvInfantry(unit)) return `15.1: only infantry units close assault (${unit.id} is not infantry)`;
    if (unit.advanced) return `15.1: ${unit.id} advanced this phase; only units that did not advance may close assault`;
    if (unit.pinned) return `14.7: ${unit.id} is pinned and unable to perform any action`;
    if (unit.carrier) return `15.1: ${unit.id} is a passenger of ${unit.carrier}; infantry assault from the hex`;
    return '';
  }

  #buildDeclare() {
    const attacking = this.#attacking();
    const pc = this.#edition() === 'pc';
    const pool = this.#pool();
    $('vv-declare-heading').textContent = attacking ? 'Declare your close assault (15.1, 15.6)' : 'Declare your defence (15.3, 15.6)';
    $('vv-declare-hint').textContent = attacking
      ? 'Click the counters that assault (or tick them below); only infantry that did not advance and ' +
        'is not pinned may (15.1). Leave all unticked to call the assault off.'
      : 'Every unit in the hex defends (15.1). Choose each unit’s support weapon (any, 15.2), Grenades and ' +
        'Satchel Charges, and the leader whose modifier lowers the Kill Number (15.3).';
    $('vv-declare-problem').textContent = '';
    $('vv-declare-status').textContent = '';
    const box = $('vv-declare-units');
    box.replaceChildren();
    for (const { unit } of this.#myDeclarers()) {
      const row = make('fieldset', { className: 'vv-use' });
      row.dataset.unit = unit.id;
      const label = (unit.name || '').replace(/^[\d-]+(\s*\(-?\d\))?\s*/, '');
      row.append(make('legend', {}, `${unit.id} (${vvCounterNumbers(unit)}${label ? ` ${label}` : ''})`));
      const why = attacking ? VvPlay.whyNotAssault(unit) : unit.pinned ? `15.9: ${unit.id} is pinned: eliminated before the odds are calculated` : '';
      if (attacking) {
        const id = `vv-group-${unit.id}`.replace(/[^A-Za-z0-9_-]/g, '_');
        const check = make('div', { className: 'check' });
        const input = make('input', { type: 'checkbox', id, name: 'group', value: unit.id });
        if (why) input.disabled = true;
        check.append(input, make('label', { for: id }, why ? `cannot assault — ${why}` : 'assaults'));
        row.append(check);
      } else if (why) {
        row.append(make('p', { className: 'hint' }, why));
      }
      if (vvInfantry(unit) && !why) {
        const extras = make('div', { className: 'vv-extras' });
        if (unit.weapons?.length) {
          const id = `vv-weapon-${unit.id}`.replace(/[^A-Za-z0-9_-]/g, '_');
          const select = make('select', { id, name: 'weapon' });
          select.dataset.unit = unit.id;
          select.append(make('option', { value: '' }, 'no support weapon'));
          for (const w of unit.weapons) {
            const barred = attacking && (w.heavy || !w.machine_gun);
            const option = make('option', { value: w.id },
              `${w.id}: +${w.apfp || 0} APFP${barred ? ` — 15.2: an assaulter uses only Light machine guns` : ''}`);
            if (barred) option.disabled = true;
            select.append(option);
          }
          // A defender fires its best weapon unless told otherwise (what the deadline default does).
          if (!attacking) {
            const best = [...unit.weapons].sort((x, y) => (y.apfp || 0) - (x.apfp || 0))[0];
            if (best) select.value = best.id;
          }
          const field = make('div', { className: 'field inline' });
          field.append(make('label', { for: id }, 'Support weapon (12.3)'), select);
          extras.append(field);
        }
        if (pool.grenades) {
          const id = `vv-grenades-${unit.id}`.replace(/[^A-Za-z0-9_-]/g, '_');
          const check = make('div', { className: 'check' });
          const input = make('input', { type: 'checkbox', id, name: 'grenades', value: unit.id });
          check.append(input, make('label', { for: id }, `uses a Grenades counter (12.52): −1 to the ${attacking ? 'assault DR' : 'Kill Number'}`));
          extras.append(check);
        }
        if (pool.satchel_charges) {
          const id = `vv-satchel-${unit.id}`.replace(/[^A-Za-z0-9_-]/g, '_');
          const check = make('div', { className: 'check' });
          const input = make('input', { type: 'checkbox', id, name: 'satchel', value: unit.id });
          check.append(input, make('label', { for: id }, `uses a Satchel Charge (12.53): +${pool.satchel_apfp || 0} APFP, and no support weapon`));
          extras.append(check);
        }
        if (extras.childElementCount) row.append(extras);
      }
      box.append(row);
    }
    if (!box.childElementCount) box.append(make('p', { className: 'hint' }, 'You have no unit here.'));
    // The leader whose Leadership Modifier counts (15.3): chosen here in the board edition; the
    // pc edition picks the best one itself.
    const select = $('vv-leader');
    select.replaceChildren(make('option', { value: '' }, 'no leader'));
    $('vv-leader-field').hidden = pc;
    $('vv-leader-pc').hidden = !pc;
    $('vv-leader-pc').textContent = pc
      ? `PC edition: the best leader ${attacking ? 'in your assault group lowers the DR' : 'in the hex lowers the Kill Number'} ` +
        'by his modifier, chosen automatically (15.3).'
      : '';
    this.#refreshLeaders();
  }

  // The leaders offered: in the board edition, leaders of the assault group (the assaulter) or
  // unpinned defenders, the best one picked first.
  #refreshLeaders() {
    if (this.#edition() === 'pc') return;
    const select = $('vv-leader');
    const attacking = this.#attacking();
    const group = new Set(this.#ticked('group'));
    const leaders = this.#myDeclarers().map((e) => e.unit)
      .filter((u) => u.kind === 'UNIT_KIND_LEADER' && !u.pinned && (!attacking || group.has(u.id)))
      .sort((x, y) => (y.leadership || 0) - (x.leadership || 0));
    const was = select.value;
    const first = select.options.length <= 1;
    select.replaceChildren(make('option', { value: '' }, 'no leader'),
      ...leaders.map((u) => make('option', { value: u.id }, `${u.id}: Leadership Modifier −${u.leadership || 0}`)));
    if (leaders.some((u) => u.id === was)) select.value = was;
    else if (first || was) select.value = leaders[0]?.id || '';
  }

  #ticked(name) {
    return [...$('vv-declare-form').querySelectorAll(`input[name="${name}"]:checked`)].map((i) => i.value);
  }

  #toggleGroup(id) {
    const entry = this.units.get(id);
    if (!entry || entry.unit.owner !== this.me || !this.#attacking()) return;
    if (entry.inTarget || entry.eliminated) return;
    const why = VvPlay.whyNotAssault(entry.unit);
    if (why) {
      $('vv-declare-problem').textContent = why;
      return;
    }
    const input = $('vv-declare-form').querySelector(`input[name="group"][value="${CSS.escape(id)}"]`);
    if (!input) return;
    input.checked = !input.checked;
    this.#renderDeclareTotals();
  }

  // The declaration the form holds now.
  #declaration() {
    const attacking = this.#attacking();
    const group = attacking ? this.#ticked('group') : [];
    const grenades = new Set(this.#ticked('grenades'));
    const satchel = new Set(this.#ticked('satchel'));
    const uses = [];
    for (const { unit } of this.#myDeclarers()) {
      if (attacking && !group.includes(unit.id)) continue;
      const select = $('vv-declare-form').querySelector(`select[name="weapon"][data-unit="${CSS.escape(unit.id)}"]`);
      const use = { unit: unit.id };
      if (select?.value) use.weapon = select.value;
      if (grenades.has(unit.id)) use.grenades = true;
      if (satchel.has(unit.id)) use.satchel = true;
      if (use.weapon || use.grenades || use.satchel) uses.push(use);
    }
    const leader = this.#edition() === 'pc' ? '' : $('vv-leader').value;
    const declare = { group, uses };
    if (leader) declare.leader = leader;
    return declare;
  }

  // This side's APFP as the rules count it (12.3, 12.53, 15.4, 15.5, 16.3) for the declaration the
  // form holds, with its parts; the other side's total waits on its sealed declaration.
  #myApfp(declare) {
    const attacking = this.#attacking();
    const pool = this.#pool();
    const parts = [];
    let total = 0;
    for (const { unit } of this.#myDeclarers()) {
      if (attacking ? !declare.group.includes(unit.id) : unit.pinned) continue;
      const use = declare.uses.find((u) => u.unit === unit.id);
      let apfp;
      if (unit.kind === 'UNIT_KIND_AFV') apfp = unit.apfp || 0;
      else if (unit.kind === 'UNIT_KIND_VEHICLE') apfp = unit.apfp || 2;
      else if (unit.kind === 'UNIT_KIND_GUN') apfp = unit.carrier ? 0 : 2;
      else {
        const inherent = (unit.apfp || 0) * (unit.valorous ? 2 : 1);
        const weapon = use?.weapon ? (unit.weapons || []).find((w) => w.id === use.weapon) : null;
        const weaponOnly = weapon && (unit.kind === 'UNIT_KIND_LEADER' || (unit.kind === 'UNIT_KIND_HALF_SQUAD' && weapon.heavy));
        apfp = weapon ? (weaponOnly ? 0 : inherent) + (weapon.apfp || 0) : inherent;
        if (use?.satchel) apfp += pool.satchel_apfp || 0;
      }
      parts.push(`${unit.id} ${apfp}`);
      total += apfp;
    }
    return { total, parts };
  }

  #renderDeclareTotals() {
    if ($('vv-declare-panel').hidden) return;
    this.#refreshLeaders();
    const attacking = this.#attacking();
    const declare = this.#declaration();
    for (const b of $('vv-board').querySelectorAll('button.counter')) {
      b.setAttribute('aria-pressed', declare.group.includes(b.dataset.unit) ? 'true' : 'false');
    }
    // Grenades and Satchel Charges only for units that take part.
    for (const input of $('vv-declare-form').querySelectorAll('input[name="grenades"], input[name="satchel"], select[name="weapon"]')) {
      const unit = input.value && input.tagName === 'INPUT' ? input.value : input.dataset.unit;
      input.disabled = attacking && !declare.group.includes(unit);
    }
    const { total, parts } = this.#myApfp(declare);
    const mods = [];
    const leader = declare.leader ? this.units.get(declare.leader)?.unit : null;
    if (leader?.leadership) mods.push(`−${leader.leadership} leader ${leader.id} (15.3)`);
    const grenades = declare.uses.filter((u) => u.grenades).length;
    if (grenades) mods.push(`−${grenades} Grenades (12.52)`);
    const max = Number(this.view.settings?.options?.grenades_per_assault_max ?? 1);
    const pool = this.#pool();
    const problems = [];
    if (grenades > (pool.grenades || 0)) problems.push(`12.5: ${plural(grenades, 'Grenades counter')} ticked, your pool holds ${pool.grenades || 0}.`);
    else if (grenades > max) problems.push(`12.52: this match allows ${max} Grenades counter${max === 1 ? '' : 's'} per side per close assault (VV-AMB-3).`);
    const satchels = declare.uses.filter((u) => u.satchel).length;
    if (satchels > (pool.satchel_charges || 0)) {
      problems.push(`12.5: ${plural(satchels, 'Satchel Charge')} ticked, your pool holds ${pool.satchel_charges || 0}.`);
    }
    for (const use of declare.uses) {
      if (use.satchel && use.weapon) problems.push(`12.53: ${use.unit} uses a Satchel Charge and may not also fire ${use.weapon}.`);
    }
    if (attacking && declare.group.length && !total) problems.push('15.6: the assault group has no APFP.');
    $('vv-declare-problem').textContent = problems.join(' ');
    const modWords = mods.length ? ` ${attacking ? 'Assault DR' : 'Kill Number'} ${mods.join(', ')}.` : '';
    $('vv-declare-total').textContent = attacking && !declare.group.length
      ? 'No unit assaults: sealing this calls the assault off.'
      : `Your APFP as declared: ${total}${parts.length > 1 ? ` (${parts.join(' + ')})` : ''}.${modWords}`;
    $('vv-seal').textContent = attacking
      ? (declare.group.length ? `Seal the assault (${plural(declare.group.length, 'unit')})` : 'Seal: call the assault off')
      : 'Seal the defence';
    $('vv-declare-default').textContent = attacking
      ? 'If you do not seal in time: the assault is called off.'
      : 'If you do not seal in time: your best leader and each unit’s best support weapon, no Grenades or Satchel Charges.';
  }

  // The server gives no odds for a vv close assault (it answers 501): say so plainly, with its
  // words, and show the Close Assault Table instead.
  async #showOdds() {
    const status = $('vv-odds-status');
    status.textContent = 'Asking the server for the odds…';
    try {
      await this.client.preview({});
      status.textContent = 'The server sent odds this page cannot read.';
    } catch (error) {
      const other = this.#attacking() ? 'the defender' : 'the assaulter';
      const answer = error.code === 'ERROR_CODE_NOT_SUPPORTED' ? '501 not supported' : error.code;
      status.textContent = `No odds here: the server does not preview a vv close assault (it answers ${answer}). ` +
        `The Kill Number and the DR depend on what ${other} seals — its leader (15.3), support weapons, ` +
        'Grenades (12.52) and Satchel Charges (12.53) — which stays secret until both have sealed. ' +
        'The Close Assault Table (15.6): the assault succeeds when the modified DR is at most the modified Kill Number (15.7).';
      $('vv-odds-server').textContent = `The server’s words: “${error.message}”`;
    }
    const table = $('vv-kill-table');
    if (table.rows.length) return;
    const head = table.createTHead().insertRow();
    const body = table.createTBody().insertRow();
    const th = make('th', { scope: 'row' }, 'Odds');
    head.append(th);
    body.append(make('th', { scope: 'row' }, 'Kill #'));
    for (const [odds, kill] of kKillNumbers) {
      head.append(make('th', { scope: 'col' }, odds));
      body.append(make('td', {}, String(kill)));
    }
  }

  async #sealDeclaration() {
    const declare = this.#declaration();
    await this.#seal($('vv-declare-status'), { vv: { declare } }, 'declaration', $('vv-seal'));
  }

  async #seal(status, declaration, what, button) {
    status.textContent = 'Sealing…';
    status.classList.remove('problem');
    button.disabled = true;
    // The ack comes after the events the seal caused (the reveal, the dice): the receipt belongs
    // to the step under way when it was sent.
    const step = this.stepKey;
    const after = this.client.lastSeq;
    try {
      const { receipt, problem } = await this.client.seal(declaration);
      const text = problem
        ? `WARNING — you sealed your ${what}, but the receipt does not check out: ${problem}`
        : `You sealed your ${what}. Receipt ${String(receipt || '').slice(0, 16)}… — verified in your browser ` +
          `(SHA-256 of the server’s nonce and your ${what}); it stays secret until both have sealed.`;
      this.myReceipt = { text, step, after: Number(after || 0), problem };
      status.textContent = text;
      status.classList.toggle('problem', Boolean(problem));
      this.#noteReceipt();
      if (this.view) this.#renderSeals();
    } catch (error) {
      status.textContent = `Refused — ${error.message}`;
      status.classList.add('problem');
    } finally {
      button.disabled = false;
    }
  }

  // Notes on the reveal's card that this seat's receipt was checked, once both are there.
  #noteReceipt() {
    const mine = this.myReceipt;
    if (!mine || mine.noted) return;
    const reveal = this.revealCards.find((r) => r.seq > mine.after);
    if (!reveal) return;
    mine.noted = true;
    reveal.card.append(make('p', { className: mine.problem ? 'problem' : 'facts receipt' }, mine.problem ? mine.text
      : 'Your seal’s receipt was verified in your browser; the fair-play check below opens both seals against the commitments shown before the reveal.'));
  }

  // ---- Casualty Points ----------------------------------------------------------------------------

  // The units this seat's Casualty Points may go to: the surviving assault group (assaulter) or
  // the defenders left in the hex (not a transported Gun, 14.65).
  #receivers() {
    const vv = this.view.vv || {};
    if (this.#attacking()) {
      const mine = this.me === 'SEAT_SIDE_A' ? vv.side_a_declaration : vv.side_b_declaration;
      const group = new Set(mine?.group || []);
      return [...this.units.values()].filter((e) => group.has(e.unit.id) && !e.eliminated).map((e) => e.unit);
    }
    return [...this.units.values()].filter((e) => e.unit.owner === this.me && e.inTarget && !e.eliminated &&
      !(e.unit.kind === 'UNIT_KIND_GUN' && e.unit.carrier)).map((e) => e.unit);
  }

  // What each action on `unit` fulfils (14.61, 14.64, 15.10): [{kind, label, value, points}].
  #actionsFor(unit) {
    const out = [];
    const cr = unit.casualty_rating || 0;
    const infantry = vvInfantry(unit);
    const passengers = [...this.units.values()].filter((e) => e.unit.carrier === unit.id && !e.eliminated && vvInfantry(e.unit))
      .reduce((sum, e) => sum + (e.unit.casualty_rating || 0), 0);
    if (unit.kind === 'UNIT_KIND_AFV') {
      if (unit.immobile) return out;
      const cap = this.view.vv?.variant === 'pc' || this.view.settings?.options?.afv_cp_cap === 'false' ? 9 : 3;
      for (let p = 1; p <= cap; p += 1) {
        out.push({ kind: 'CP_ACTION_KIND_IMMOBILIZATION', points: p, value: p,
          label: `immobilization (15.10) with ${p} CP${p === 3 && cap === 3 ? ': Immobile, no roll' : ': d6 ≤ CP immobilizes'}` });
      }
      return out;
    }
    if (!unit.pinned && !unit.carrier) out.push({ kind: 'CP_ACTION_KIND_PIN', value: 1, label: 'pin (1 CP)' });
    if (unit.kind === 'UNIT_KIND_SQUAD' && !unit.pinned) {
      const diff = cr - (unit.reduced_casualty_rating || 0);
      out.push({ kind: 'CP_ACTION_KIND_REDUCE', value: diff, label: `reduce to its half squad (${diff} CP)` });
      if (!unit.carrier) {
        out.push({ kind: 'CP_ACTION_KIND_REDUCE_AND_PIN', value: diff + 1, label: `reduce and pin (${diff + 1} CP)` });
      }
    }
    if (!infantry && !unit.pinned) {
      for (let p = 2; p <= cr; p += 1) {
        out.push({ kind: 'CP_ACTION_KIND_SURVIVAL_ROLL', points: p, value: p,
          label: `survival roll with ${p} CP (14.64: dr ≤ ${cr} pins it, more eliminates it)` });
      }
    }
    const eliminate = infantry ? cr : cr + (unit.pinned ? 0 : 1) + passengers;
    out.push({ kind: 'CP_ACTION_KIND_ELIMINATE', value: eliminate, label: `eliminate (${eliminate} CP)` });
    return out;
  }

  #canIgnore(unit) {
    return (vvInfantry(unit) && unit.valorous) ||
      (unit.kind === 'UNIT_KIND_GUN' && unit.gun_shield_faces_assault && !unit.pinned);
  }

  #owed() {
    const vv = this.view.vv || {};
    return Number((this.me === 'SEAT_SIDE_A' ? vv.side_a_cp : vv.side_b_cp) || 0);
  }

  // What the allocation must reach: the Casualty Points, or all the units can take (14.61).
  #needed() {
    const receivers = this.#receivers();
    let absorbable = 0;
    for (const u of receivers) {
      if (vvInfantry(u)) absorbable += u.casualty_rating || 0;
      else if (u.kind !== 'UNIT_KIND_AFV') absorbable += (u.casualty_rating || 0) + (u.pinned ? 0 : 1);
      else if (!u.immobile) absorbable += Math.max(0, ...this.#actionsFor(u).map((a) => a.value));
    }
    if (receivers.some((u) => this.#canIgnore(u))) absorbable += 1;
    return Math.min(this.#owed(), absorbable);
  }

  #buildAllocate() {
    const report = this.view.vv?.report || {};
    const attacking = this.#attacking();
    const owed = this.#owed();
    const parts = attacking ? report.assaulter_cp_parts : report.defender_cp_parts;
    $('vv-allocate-hint').textContent = `You suffer ${plural(owed, 'Casualty Point')}` +
      `${parts?.length ? ` (${modifierWords(parts)})` : ''}. Pin a unit (1), reduce a squad to its half squad (the difference in Casualty Rating), ` +
      'or eliminate a unit (its Casualty Rating) until they are equalled or exceeded — and no more ' +
      '(14.61, VV-AMB-12). Unpinned units take them before pinned ones (14.62).';
    $('vv-allocate-problem').textContent = '';
    $('vv-allocate-status').textContent = '';
    const box = $('vv-allocate-units');
    box.replaceChildren();
    for (const unit of this.#receivers()) {
      const id = `vv-cp-${unit.id}`.replace(/[^A-Za-z0-9_-]/g, '_');
      const row = make('div', { className: 'field inline vv-cp' });
      const select = make('select', { id, name: 'cp' });
      select.dataset.unit = unit.id;
      select.append(make('option', { value: '' }, 'nothing'));
      this.#actionsFor(unit).forEach((a, i) => {
        const option = make('option', { value: String(i) }, a.label);
        select.append(option);
      });
      const label = (unit.name || '').replace(/^[\d-]+(\s*\(-?\d\))?\s*/, '');
      const facts = [`Casualty Rating ${unit.casualty_rating || 0}`];
      if (unit.pinned) facts.push('pinned');
      if (unit.carrier) facts.push(`a passenger of ${unit.carrier}`);
      row.append(make('label', { for: id },
        `${unit.id} (${vvInfantry(unit) ? vvCounterNumbers(unit) : unit.kind.replace('UNIT_KIND_', '')}` +
        `${label ? ` ${label}` : ''}): ${facts.join(', ')}`), select);
      if (this.#canIgnore(unit)) {
        const ignoreId = `vv-ignore-${unit.id}`.replace(/[^A-Za-z0-9_-]/g, '_');
        const check = make('div', { className: 'check' });
        const input = make('input', { type: 'checkbox', id: ignoreId, name: 'ignore', value: unit.id });
        check.append(input, make('label', { for: ignoreId }, `${unit.id} ignores the first Casualty Point (14.63); the next must go to it`));
        row.append(check);
      }
      box.append(row);
    }
    // Who moves into a hex that holds fewer units than the group (20.5).
    const occupy = $('vv-occupy');
    const capacity = this.view.vv?.target?.capacity || 0;
    occupy.hidden = !(attacking && report.success && capacity);
    const list = $('vv-occupy-units');
    list.replaceChildren();
    if (!occupy.hidden) {
      $('vv-occupy-legend').textContent = `Who moves into ${this.view.vv.target.name}: it holds ${capacity} (20.5)`;
      for (const unit of this.#receivers()) {
        const id = `vv-occupy-${unit.id}`.replace(/[^A-Za-z0-9_-]/g, '_');
        const check = make('div', { className: 'check' });
        check.append(make('input', { type: 'checkbox', id, name: 'occupy', value: unit.id }),
          make('label', { for: id }, unit.id));
        list.append(check);
      }
    }
    $('vv-allocate-default').textContent = 'If you do not seal in time: the engine applies them for you, ' +
      'least valuable units first ([DEFAULT – NOT FROM RULES] VV-AMB-13).';
    this.#renderAllocationTotal();
  }

  // The allocation the form holds: its actions with their values.
  #allocation() {
    const form = $('vv-allocate-form');
    const actions = [];
    const valued = [];
    for (const input of form.querySelectorAll('input[name="ignore"]:checked')) {
      actions.push({ unit: input.value, kind: 'CP_ACTION_KIND_IGNORE' });
      valued.push(1);
    }
    for (const select of form.querySelectorAll('select[name="cp"]')) {
      if (select.value === '') continue;
      const unit = this.units.get(select.dataset.unit)?.unit;
      const a = this.#actionsFor(unit)[Number(select.value)];
      const action = { unit: unit.id, kind: a.kind };
      if (a.points) action.points = a.points;
      actions.push(action);
      valued.push(a.value);
    }
    const occupy = [...form.querySelectorAll('input[name="occupy"]:checked')].map((i) => i.value);
    return { allocation: { actions, ...(occupy.length ? { occupy } : {}) }, valued };
  }

  #renderAllocationTotal() {
    if ($('vv-allocate-panel').hidden) return;
    const { valued } = this.#allocation();
    const total = valued.reduce((s, v) => s + v, 0);
    const needed = this.#needed();
    let text = `Fulfils ${total} of ${needed} Casualty Point${needed === 1 ? '' : 's'}`;
    if (needed < this.#owed()) text += ` (all your units can take of the ${this.#owed()})`;
    if (total < needed) text += ` — ${needed - total} short: pin, reduce or eliminate more (14.61).`;
    else if (valued.some((v) => total - v >= needed)) text += ' — more than needed: drop an action; stop once they are equalled or exceeded (VV-AMB-12).';
    else text += ' — enough.';
    $('vv-allocate-total').textContent = text;
    $('vv-allocate-total').dataset.enough = total >= needed && !valued.some((v) => total - v >= needed) ? 'true' : 'false';
  }

  // Fills the form with one allocation that meets the rules: unpinned units first (14.62), the
  // largest action while none alone is enough, then the smallest that is; then drops what is
  // not needed (VV-AMB-12). A suggestion of this page, not of the rules: change it at will.
  #suggestAllocation() {
    const receivers = this.#receivers();
    const needed = this.#needed();
    const chosen = new Map();  // unit id -> action index
    let total = 0;
    const value = (id) => this.#actionsFor(this.units.get(id).unit)[chosen.get(id)].value;
    for (const pinnedPass of [false, true]) {
      const pool = receivers.filter((u) => Boolean(u.pinned) === pinnedPass);
      while (total < needed) {
        const left = needed - total;
        const options = [];
        for (const u of pool) {
          if (chosen.has(u.id)) continue;
          this.#actionsFor(u).forEach((a, i) => options.push({ id: u.id, i, value: a.value }));
        }
        if (!options.length) break;
        const enough = options.filter((o) => o.value >= left).sort((x, y) => x.value - y.value);
        const pick = enough[0] || options.sort((x, y) => y.value - x.value)[0];
        chosen.set(pick.id, pick.i);
        total += pick.value;
      }
    }
    for (const id of [...chosen.keys()]) {
      if (total - value(id) >= needed) {
        total -= value(id);
        chosen.delete(id);
      }
    }
    for (const select of $('vv-allocate-form').querySelectorAll('select[name="cp"]')) {
      select.value = chosen.has(select.dataset.unit) ? String(chosen.get(select.dataset.unit)) : '';
    }
    for (const input of $('vv-allocate-form').querySelectorAll('input[name="ignore"]')) input.checked = false;
    this.#renderAllocationTotal();
  }

  async #sealAllocation() {
    const { allocation } = this.#allocation();
    await this.#seal($('vv-allocate-status'), { vv: { allocate: allocation } }, 'Casualty Point allocation', $('vv-allocate-seal'));
  }

  // ---- events: seals, the reveal, the dice, the casualties ----------------------------------------

  onEvent(e) {
    if (e.declaration_sealed && e.vv) {
      this.sealed[e.declaration_sealed.seat] = e.declaration_sealed.receipt;
      if (this.view) this.#renderSeals();
    }
    const vv = e.vv;
    if (!vv) return;
    const card = this.#card(e, vv);
    if (!card) return;
    $('vv-rolls').append(card);
    $('vv-rolls-empty').hidden = true;
  }

  #card(e, vv) {
    const card = make('li', { className: 'roll' });
    card.dataset.seq = e.seq;
    card.dataset.kind = vv.kind || '';
    const title = (text) => card.append(make('h3', {}, `#${e.seq} ${text}`));
    const line = (text, className = 'facts') => card.append(make('p', { className }, text));
    switch (vv.kind) {
      case 'EVENT_KIND_SET_UP': {
        const s = vv.situation || {};
        card.classList.add('divider');
        title(`Close assault on ${s.target?.name || 'the target hex'} from ${s.source_hex || 'its source hex'}`);
        const count = (seat) => (s.units || []).filter((u) => u.owner === seat).length;
        line(`${kSideNames[s.attacker] || '?'} assaults with ${plural(count(s.attacker), 'unit')}; ` +
          `${kSideNames[kOther[s.attacker]] || '?'} defends with ${plural(count(kOther[s.attacker]), 'unit')}.`);
        return card;
      }
      case 'EVENT_KIND_DECLARATIONS_REVEALED':
      case 'EVENT_KIND_ALLOCATIONS_REVEALED': {
        const declarations = vv.kind === 'EVENT_KIND_DECLARATIONS_REVEALED';
        title(declarations ? 'Declarations revealed' : 'Casualty Point allocations revealed');
        const r = e.declarations_revealed || {};
        const attacker = this.view?.vv?.attacker || this.#facts().attacker;
        for (const seat of ['SEAT_SIDE_A', 'SEAT_SIDE_B']) {
          const part = (seat === 'SEAT_SIDE_A' ? r.side_a : r.side_b)?.vv;
          if (!part) continue;
          const p = make('p', {}, `${kSideNames[seat]}: ${declarations ? declareWords(part.declare, seat === attacker) : allocationWords(part.allocate)}.`);
          p.dataset.declaration = seat;
          card.append(p);
        }
        this.#effects(card, vv);
        this.revealCards.push({ seq: Number(e.seq), card });
        queueMicrotask(() => this.#noteReceipt());
        return card;
      }
      case 'EVENT_KIND_ASSAULT_RESOLVED':
        this.#assaultCard(e, vv, card, title, line);
        return card;
      case 'EVENT_KIND_CASUALTIES_APPLIED': {
        title(`${kSideNames[vv.seat]} applies ${plural(vv.cp || 0, 'Casualty Point')} (14.61)`);
        this.#dice(card, vv.dice);
        this.#effects(card, vv);
        for (const note of vv.notes || []) line(note, 'hint');
        this.#account(card, vv);
        return card;
      }
      case 'EVENT_KIND_ASSAULT_ENDED': {
        title('The close assault is over');
        this.#effects(card, vv);
        for (const note of vv.notes || []) line(note, 'result');
        return card;
      }
      default:
        return null;  // seals: shown in the list of seals above
    }
  }

  #assaultCard(e, vv, card, title, line) {
    // Fields at 0 are left out of the JSON mapping: read every number with a default.
    const r = { margin: 0, final_dr: 0, kill_number: 0, printed_kill_number: 0, dr_colored: 0,
      dr_white: 0, assault_apfp: 0, defence_apfp: 0, assaulter_cp: 0, defender_cp: 0, ...vv.report };
    const attacker = this.view?.vv?.attacker || this.#facts().attacker;
    const verdict = r.called_off ? 'is called off'
      : r.automatic ? 'takes the hex automatically (15.9)'
        : r.success ? 'succeeds: the defenders are eliminated (15.7)' : `fails by ${r.margin || 0}`;
    title(`${kSideNames[attacker] || 'The assaulter'}’s close assault ${verdict}`);
    if (r.pinned_eliminated?.length) line(`15.9: pinned ${r.pinned_eliminated.join(', ')} eliminated before the odds.`);
    if (r.called_off) return;
    if (!r.automatic) {
      const side = (list) => (list || []).map((c) => `${c.unit} ${c.apfp} (${c.how})`).join(' + ');
      line(`Assault: ${side(r.assault)} = ${r.assault_apfp || 0} APFP.`);
      line(`Defence: ${side(r.defence)} = ${r.defence_apfp || 0} APFP.`);
      line(`15.6: ${r.assault_apfp || 0} to ${r.defence_apfp || 0} → odds ${r.odds}, Kill # ${r.printed_kill_number}` +
        `${r.kill_number_modifiers?.length ? ` ${modifierWords(r.kill_number_modifiers)} = ${r.kill_number}` : ''}.`, 'drms');
      // The DR: the coloured and the white die, then its modifiers.
      const row = make('div', { className: 'dice-row' });
      const images = make('span', { className: 'dice' });
      images.append(dieImage(r.dr_colored, 'coloured'), dieImage(r.dr_white, 'white'));
      const dr = (r.dr_colored || 0) + (r.dr_white || 0);
      row.append(images, make('span', { className: 'purpose' }, `15.7 close assault DR: ${r.dr_colored} + ${r.dr_white} = ${dr}`));
      card.append(row);
      line(`${r.dr_modifiers?.length ? `DRM: ${modifierWords(r.dr_modifiers)} → ` : 'No DRM: '}Final DR ${r.final_dr} ` +
        `${r.success ? '≤' : '>'} Kill # ${r.kill_number}.`, 'drms');
      const result = make('p', { className: `result ${r.success ? 'result-eliminated' : 'result-partial'}` },
        r.success ? `The assault succeeds: every defender is eliminated, and the assaulters move in (15.7, 15.8).`
          : `The assault fails by ${r.margin || 0} (15.8).`);
      card.append(result);
      // The other dice of the event: valor checks (16.2) and the like, each with its purpose.
      this.#dice(card, (vv.dice || []).slice(2));
      for (const v of r.valor_checks || []) {
        const dr = (v.colored || 0) + (v.white || 0);
        line(`${v.unit}: ${dr} ${v.valorous ? '≤' : '>'} ${v.needed || 0} → ${v.valorous ? 'valorous' : 'no valor'} (16.2).`);
      }
      if (r.sniper_activated) line(`17.2: the natural 12 activates ${kSideNames[kOther[attacker]] || 'the defender'}’s sniper.`);
    }
    if (r.assaulter_cp || r.assaulter_cp_parts?.length) {
      line(`${kSideNames[attacker]} suffers ${plural(r.assaulter_cp || 0, 'Casualty Point')}` +
        `${r.assaulter_cp_parts?.length ? `: ${modifierWords(r.assaulter_cp_parts)}` : ''}.`, 'result');
    }
    if (r.defender_cp) {
      line(`${kSideNames[kOther[attacker]]} suffers ${plural(r.defender_cp, 'Casualty Point')}` +
        `${r.defender_cp_parts?.length ? `: ${modifierWords(r.defender_cp_parts)}` : ''}.`, 'result');
    }
    this.#effects(card, vv);
    for (const note of [...(r.notes || []), ...(vv.notes || [])]) line(note, 'hint');
    this.#account(card, vv);
  }

  // Dice of an event, grouped by purpose: a DR (coloured and white die) read as its total.
  #dice(card, dice = []) {
    const groups = [];
    for (const d of dice) {
      const last = groups[groups.length - 1];
      const colour = d.color === 'COLOR_COLORED' ? 'coloured' : d.color === 'COLOR_WHITE' ? 'white' : 'single';
      if (last && last.purpose === d.purpose && !(colour === 'coloured' && last.dice.length)) last.dice.push([d.value, colour]);
      else groups.push({ purpose: d.purpose, dice: [[d.value, colour]] });
    }
    for (const g of groups) {
      const row = make('div', { className: 'dice-row' });
      const images = make('span', { className: 'dice' });
      for (const [value, colour] of g.dice) images.append(dieImage(value, colour));
      const values = g.dice.map(([v]) => v);
      const total = values.length > 1 ? ` = ${values.reduce((s, v) => s + v, 0)}` : '';
      row.append(images, make('span', { className: 'purpose' }, `${g.purpose}: ${values.join(' + ')}${total}`));
      card.append(row);
    }
  }

  #effects(card, vv) {
    const words = [];
    for (const f of vv.effects || []) {
      if (f.kind === 'EFFECT_KIND_EXPENDED') {
        words.push(`${kSideNames[f.seat]} expends ${f.value} ${f.text}`);
        continue;
      }
      const say = kEffectWords[f.kind];
      words.push(`${say ? say(f.unit) : `${f.unit}: ${f.kind}`}${f.text ? ` (${f.text})` : ''}`);
    }
    if (words.length) {
      const list = make('ul', { className: 'plain effects' });
      for (const w of words) list.append(make('li', {}, w));
      card.append(list);
    }
  }

  #account(card, vv) {
    if (!vv.text) return;
    const more = make('details');
    more.append(make('summary', {}, 'The whole account'), make('pre', {}, vv.text.trim()));
    card.append(more);
  }
}
