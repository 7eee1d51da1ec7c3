// The unit updates of "Forces that persist" (docs/forces.md) as a form in the match page: between
// close combats a seat reports what happened to its own units outside close combat — it moved,
// broke, rallied, was pinned, reduced, eliminated, gained "?", a reinforcement entered; in coc
// Shock, kills and Force Morale. A seat drafts a report of one or more updates and sends them as
// one UpdateUnits command (all or none); the server checks each and refuses with the rule. The
// form offers only the kinds the match's ruleset takes and the seat's own units that are still in
// the match.

import { make, readRosterOnServer, runInto, seatOf } from './page-kit.js';

const $ = (id) => document.getElementById(id);

// The kinds each ruleset takes (docs/forces.md), in the order the form lists them.
const kKinds = {
  asl: ['MOVE', 'BREAK', 'RALLY', 'PIN', 'UNPIN', 'REDUCE', 'ELIMINATE', 'CONCEAL', 'REVEAL',
    'RECOMBINE', 'SET_CX', 'CLEAR_CX', 'ENTER'],
  coc: ['MOVE', 'SHOCK', 'KILL', 'BREAK', 'RALLY', 'ELIMINATE', 'FORCE_MORALE', 'ENTER'],
  vv: ['MOVE', 'PIN', 'UNPIN', 'REDUCE', 'ELIMINATE', 'ENTER'],
};

// What each kind means, per ruleset where the rules differ.
const kWords = {
  ENTER: { all: 'A new unit enters (a reinforcement)' },
  MOVE: { all: 'Moved to another Location (or off the board)' },
  BREAK: { asl: 'Broke under fire (A10.3)', coc: 'Broken (17.5)' },
  RALLY: { asl: 'Rallied (A10.6)', coc: 'Rallied: no longer Broken' },
  PIN: { asl: 'Pinned by fire (A7.8)', vv: 'Pinned (14.7)' },
  UNPIN: { all: 'Its pin ended (end of its Player Turn)' },
  CONCEAL: { asl: 'Gained "?" (name the rule, e.g. A12.122)' },
  REVEAL: { asl: 'Lost "?"' },
  REDUCE: { asl: 'Casualty Reduction by fire (A7.302; a SMC is wounded, A17.2)',
    vv: 'Reduced by fire (14.61)' },
  ELIMINATE: { all: 'Eliminated by fire' },
  RECOMBINE: { asl: 'Recombined with another HS into a squad (A1.32)' },
  SET_CX: { asl: 'Became CX (A4.51)' },
  CLEAR_CX: { asl: 'No longer CX' },
  SHOCK: { coc: 'Shock added to a Team (17.4.1; negative removes it)' },
  KILL: { coc: 'Figures of a Team killed (17.4.1; a Leader named: killed)' },
  FORCE_MORALE: { coc: 'Your Force Morale changed (a Force Morale test)' },
};

// The fields each kind asks for besides the unit.
const kNeeds = {
  ENTER: ['location', 'counter'], MOVE: ['location'], CONCEAL: ['rule'], RECOMBINE: ['with', 'rule'],
  SHOCK: ['value'], KILL: ['value'], FORCE_MORALE: ['value'],
};
const kNoUnit = new Set(['ENTER', 'FORCE_MORALE']);
const kGone = new Set(['FORCE_FATE_ELIMINATED', 'FORCE_FATE_CAPTURED', 'FORCE_FATE_RECOMBINED']);

function kindWords(kind, ruleset) {
  const words = kWords[kind] || {};
  return words[ruleset] || words.all || kind;
}

/** The label of one unit of the seat's own force in the form: "G1 4-6-7 (in G3)". */
function unitLabel(unit) {
  const part = unit.asl || unit.vv || unit.coc || {};
  const where = unit.location ? `in ${unit.location}` : 'in no Location';
  const fate = unit.fate === 'FORCE_FATE_WITHDRAWN' ? ', withdrawn: MOVE places it' : '';
  return `${unit.id}${part.name && part.name !== unit.id ? ` ${part.name}` : ''} (${where}${fate})`;
}

/** An update in words for the draft list: "G1: Moved to … → H4". */
export function describeUpdate(update, ruleset) {
  const kind = update.kind.replace('UPDATE_KIND_', '');
  const entering = update[ruleset];
  const subject = entering ? `${entering.id} ${entering.name || ''}`.trim() : update.unit || 'Your side';
  const parts = [`${subject}:`, kindWords(kind, ruleset)];
  if (update.location !== undefined) parts.push(`→ ${update.location || 'off the board'}`);
  if (update.with) parts.push(`with ${update.with}`);
  if (update.value !== undefined) parts.push(`(${update.value})`);
  if (update.rule) parts.push(`[${update.rule}]`);
  if (update.note) parts.push(`— “${update.note}”`);
  return parts.join(' ');
}

export class ForceUpdates {
  constructor(client, role) {
    this.client = client;
    this.role = role;
    this.seat = seatOf(role);
    this.view = null;
    this.draft = [];
    this.ruleset = '';
    if (!this.seat) return;  // spectators and the director report nothing
    $('update-kind').addEventListener('change', () => this.#showFields());
    $('update-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.#add().catch((error) => this.#problem(error.message));
    });
    $('update-send').addEventListener('click', () => this.#send());
  }

  onView(view) {
    if (!this.seat) return;
    this.view = view;
    const ruleset = view.settings?.ruleset || 'asl';
    const units = this.#ownUnits();
    // Offered once the seat has a force: before its first close combat there is nothing to update.
    $('updates-panel').hidden = units.length === 0 && this.draft.length === 0;
    if (ruleset !== this.ruleset) {
      this.ruleset = ruleset;
      $('update-kind').replaceChildren(...kKinds[ruleset].map((kind) =>
        make('option', { value: kind }, kindWords(kind, ruleset))));
      $('update-counter').placeholder = {
        asl: 'G9: 4-6-7 german', vv: 'U9: 6-4-4 squad', coc: 'u9: "Section": team t9 7 7 2 smg; leader l9',
      }[ruleset];
    }
    this.#fillUnits(units);
    this.#showFields();
  }

  #ownUnits() {
    const force = this.view?.[this.role === 'side_a' ? 'side_a_force' : 'side_b_force'] || [];
    return force.filter((u) => !kGone.has(u.fate));
  }

  // The unit select: each unit; in coc also its Teams and Leaders (SHOCK and KILL name one).
  #fillUnits(units) {
    const select = $('update-unit');
    const before = select.value;
    const options = [];
    for (const unit of units) {
      options.push(make('option', { value: unit.id }, unitLabel(unit)));
      for (const team of unit.coc?.teams || []) {
        options.push(make('option', { value: team.id },
          `  ${unit.id} › Team ${team.id} (${team.figures ?? '?'} figures, Shock ${team.shock || 0})`));
      }
      for (const leader of unit.coc?.leaders || []) {
        options.push(make('option', { value: leader.id }, `  ${unit.id} › Leader ${leader.id}`));
      }
    }
    select.replaceChildren(...options);
    if ([...select.options].some((o) => o.value === before)) select.value = before;
    const halves = units.filter((u) => u.asl?.kind === 'UNIT_KIND_HALF_SQUAD');
    $('update-with').replaceChildren(...halves.map((u) => make('option', { value: u.id }, unitLabel(u))));
  }

  #showFields() {
    const kind = $('update-kind').value;
    const needs = new Set(kNeeds[kind] || []);
    for (const field of ['location', 'counter', 'rule', 'with', 'value']) {
      $(`update-${field}-field`).hidden = !needs.has(field);
    }
    $('update-unit-field').hidden = kNoUnit.has(kind);
  }

  #problem(text) {
    $('update-status').textContent = text;
    $('update-status').classList.toggle('problem', Boolean(text));
  }

  // Adds the form's update to the draft, after reading a new unit's counter on the server.
  async #add() {
    const kind = $('update-kind').value;
    const needs = new Set(kNeeds[kind] || []);
    const update = { kind: `UPDATE_KIND_${kind}` };
    if (!kNoUnit.has(kind)) {
      if (!$('update-unit').value) throw new Error('Choose the unit first.');
      update.unit = $('update-unit').value;
    }
    if (needs.has('location')) update.location = $('update-location').value.trim();
    if (needs.has('rule')) {
      update.rule = $('update-rule').value.trim();
      if (!update.rule) throw new Error(`${kind}: name the rule that allows it (e.g. ${kind === 'CONCEAL' ? 'A12.122' : 'A1.32'}).`);
    }
    if (needs.has('with')) {
      update.with = $('update-with').value;
      if (!update.with) throw new Error('RECOMBINE: you have no other HS to recombine with.');
    }
    if (needs.has('value')) {
      const value = Number($('update-value').value);
      if (!Number.isInteger(value)) throw new Error(`${kind}: a whole number.`);
      update.value = value;
    }
    if (needs.has('counter')) {
      if (!update.location) throw new Error('ENTER: name the Location the unit enters.');
      update[this.ruleset] = await this.#readCounter($('update-counter').value);
      update.unit = update[this.ruleset].id;
    }
    const note = $('update-note').value.trim();
    if (note) update.note = note;
    this.draft.push(update);
    $('update-note').value = '';
    this.#problem('');
    this.#renderDraft();
  }

  // One unit in counter notation, read by the server as `melee submit --setup` reads a roster.
  async #readCounter(text) {
    if (!text.trim()) throw new Error('ENTER: write the new unit in counter notation.');
    const body = await readRosterOnServer(this.ruleset, this.seat, text, 'new unit');
    const units = body[this.ruleset]?.units || [];
    if (units.length !== 1) throw new Error(`ENTER: write one unit (read ${units.length}).`);
    return units[0];
  }

  #renderDraft() {
    const list = $('update-draft');
    list.replaceChildren();
    this.draft.forEach((update, i) => {
      const li = make('li');
      const remove = make('button', { type: 'button', className: 'secondary small',
        'aria-label': `Remove update ${i + 1}` }, 'Remove');
      remove.addEventListener('click', () => {
        this.draft.splice(i, 1);
        this.#renderDraft();
      });
      li.append(make('span', {}, `${i + 1}. ${describeUpdate(update, this.ruleset)}`), remove);
      list.append(li);
    });
    if (!this.draft.length) list.append(make('li', { className: 'hint' }, 'Nothing drafted yet.'));
    $('update-send').disabled = this.draft.length === 0;
    $('update-send').textContent = this.draft.length
      ? `Send ${this.draft.length} update${this.draft.length > 1 ? 's' : ''}` : 'Send the report';
  }

  async #send() {
    const updates = this.draft.slice();
    await runInto($('update-status'),
      async () => {
        await this.client.command('update_units', { updates });
        this.draft = [];
        this.#renderDraft();
      },
      `Sent: ${updates.length} update(s), logged and shown to your opponent as the rules allow.`);
  }
}
