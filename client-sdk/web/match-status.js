// The match's standing in the match page, for every ruleset and every viewer: who plays each
// side (the display names), each seat's correspondence clock counting down live (docs/clocks.md),
// how the match was decided when the server decided it (a loss on time), the results recorded so
// far (docs/tournaments.md), and the forms a seat or the director uses to record a result and a
// seat to take vacation days. Everything comes from the view; the server checks every command.

import { make, runInto } from './page-kit.js';

const $ = (id) => document.getElementById(id);

const kSeats = [
  { seat: 'SEAT_SIDE_A', key: 'side_a', label: 'Side A' },
  { seat: 'SEAT_SIDE_B', key: 'side_b', label: 'Side B' },
];
const kOutcomes = {
  RESULT_OUTCOME_SIDE_A_WON: 'side A won',
  RESULT_OUTCOME_SIDE_B_WON: 'side B won',
  RESULT_OUTCOME_DRAW: 'a draw',
};

/** "2 d 3 h", "3 d", "3 h 05 min", "4:07" (minutes:seconds under an hour); "0:00" when past. */
export function formatDuration(ms) {
  const total = Math.max(0, Math.floor(Number(ms) / 1000));
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (days > 0) return hours ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return minutes ? `${hours} h ${String(minutes).padStart(2, '0')} min` : `${hours} h`;
  return `${minutes}:${String(seconds).padStart(2, '0')}`;
}

/** A side's name as the page shows it: "Side A (Alice)", or "Side A" when unnamed. */
export function sideLabel(settings, key) {
  const label = key === 'side_a' ? 'Side A' : 'Side B';
  const name = settings?.[`${key}_name`];
  return name ? `${label} (${name})` : label;
}

// The match's rules options in words: the ones the players agreed on at creation.
export function houseRules(settings) {
  const options = settings?.options || {};
  const known = {
    'declaration_order=sealed': 'declarations sealed, then revealed together',
    'declaration_order=attacker_first': 'the ATTACKER declares first (A11.12 as written)',
    'melee_withdrawal=none':
      'SSR: no voluntary Withdrawal from Melee (A11.2; broken units still withdraw, A11.16)',
  };
  const words = Object.keys(options).sort().map((name) =>
    known[`${name}=${options[name]}`] || `${name} = ${options[name]}`);
  return words.length ? `Rules options: ${words.join('; ')}` : '';
}

function outcomeWords(settings, outcome) {
  if (outcome === 'RESULT_OUTCOME_SIDE_A_WON') return `${sideLabel(settings, 'side_a')} won`;
  if (outcome === 'RESULT_OUTCOME_SIDE_B_WON') return `${sideLabel(settings, 'side_b')} won`;
  return kOutcomes[outcome] || '—';
}

export class MatchStatus {
  constructor(client, role) {
    this.client = client;
    this.role = role;
    this.view = null;
    this.timer = null;
    this.built = false;
  }

  onView(view) {
    this.view = view;
    if (!this.built) this.#build();
    this.#renderPlayers();
    this.#renderDecision();
    this.#renderResults();
    this.#renderVacation();
    this.#tick();
    clearInterval(this.timer);
    if (this.#clocked()) this.timer = setInterval(() => this.#tick(), 1000);
  }

  #clocked() {
    return Boolean(this.view?.settings?.pace);
  }

  #build() {
    this.built = true;
    const canRecord = this.role === 'side_a' || this.role === 'side_b' || this.role === 'director';
    $('result-form').hidden = !canRecord;
    $('result-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const data = new FormData(event.target);
      const outcome = data.get('outcome');
      if (!outcome) {
        $('result-status').textContent = 'Choose who won (or a draw) first.';
        $('result-status').classList.add('problem');
        return;
      }
      const combat = Number(data.get('combat') || 0);
      const note = String(data.get('note') || '').trim();
      runInto($('result-status'),
        () => this.client.command('record_result', { combat, outcome, ...(note ? { note } : {}) }),
        this.role === 'director' ? 'Recorded: your entry decides this result.'
          : 'Recorded. The director decides if the players disagree.');
    });
    $('vacation-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const days = Number(new FormData(event.target).get('days'));
      runInto($('vacation-status'),
        () => this.client.command('take_vacation', { days }),
        days === 0 ? 'Back from vacation: the whole days not begun are yours again.'
          : `On vacation for ${days} day(s): your clock stops until then.`);
    });
  }

  #renderPlayers() {
    const settings = this.view.settings || {};
    const named = settings.side_a_name || settings.side_b_name;
    $('players').textContent = named
      ? `${sideLabel(settings, 'side_a')} v ${sideLabel(settings, 'side_b')}`
      : '';
    const rules = houseRules(settings);
    $('house-rules').textContent = rules;
    $('house-rules').hidden = !rules;
    for (const { key } of kSeats) {
      $(`${key}-result-label`).textContent = outcomeWords(settings,
        key === 'side_a' ? 'RESULT_OUTCOME_SIDE_A_WON' : 'RESULT_OUTCOME_SIDE_B_WON');
    }
  }

  #renderDecision() {
    const decision = this.view.result;
    const banner = $('decision');
    if (!decision?.reason) {
      banner.hidden = true;
      return;
    }
    const settings = this.view.settings || {};
    const loser = decision.loser === 'SEAT_SIDE_A' ? sideLabel(settings, 'side_a')
      : sideLabel(settings, 'side_b');
    const winner = decision.winner === 'SEAT_SIDE_A' ? sideLabel(settings, 'side_a')
      : sideLabel(settings, 'side_b');
    banner.textContent = `The match is over: ${loser} ${decision.reason} (event ${decision.seq}); ` +
      `${winner} wins.`;
    banner.hidden = false;
  }

  // Each seat's clock: the step's time counting down, then the bank; vacation.
  #tick() {
    const section = $('clocks');
    section.hidden = !this.#clocked();
    if (section.hidden) return;
    const now = Date.now();
    const pace = this.view.settings.pace;
    $('pace-facts').textContent = paceWords(pace);
    for (const { key } of kSeats) {
      const clock = this.view[`${key}_clock`] || {};
      const box = $(`${key}-clock`);
      box.querySelector('h3').textContent = sideLabel(this.view.settings, key);
      const lines = [];
      const step = Number(clock.step_deadline_unix_ms || 0);
      const final = Number(clock.final_deadline_unix_ms || 0);
      const bank = Number(clock.bank_left_ms || 0);
      const away = Number(clock.vacation_until_unix_ms || 0);
      let state = 'idle';
      if (away > now) {
        state = 'vacation';
        lines.push(`On vacation until ${new Date(away).toLocaleString()}: the clock is stopped.`);
      }
      if (step > 0 && step > now) {
        state = state === 'vacation' ? state : 'running';
        lines.push(`${formatDuration(step - now)} left for this step, then the bank.`);
        lines.push(`Bank: ${formatDuration(bank)}.`);
      } else if (final > 0) {
        state = state === 'vacation' ? state : 'bank';
        lines.push(final > now
          ? `The step's time is up: the bank runs — ${formatDuration(final - now)} left.`
          : 'Time is up: the server takes what the pace says at its next tick.');
      } else {
        lines.push('Owes nothing now.');
        lines.push(`Bank: ${formatDuration(bank)}.`);
      }
      if (Number(pace.vacation_days || 0) > 0) {
        lines.push(`Vacation days left: ${clock.vacation_days_left || 0} of ${pace.vacation_days}.`);
      }
      if (final > 0) lines.push(`Final deadline: ${new Date(final).toLocaleString()}.`);
      box.dataset.state = state;
      const list = box.querySelector('ul');
      list.replaceChildren(...lines.map((line) => make('li', {}, line)));
    }
  }

  #renderResults() {
    const results = this.view.results || [];
    const settings = this.view.settings || {};
    const body = $('results-body');
    body.replaceChildren();
    for (const r of results) {
      const combat = Number(r.combat || 0);
      const row = make('tr');
      // data-label: at phone width each row is a card of labelled lines (style.css).
      row.append(
        make('th', { scope: 'row' }, combat === 0 ? 'The match'
          : `Close combat ${combat}${r.location ? ` (${r.location})` : ''}`),
        make('td', { 'data-label': 'Side A says' }, outcomeWords(settings, r.side_a_says)),
        make('td', { 'data-label': 'Side B says' }, outcomeWords(settings, r.side_b_says)),
        make('td', { 'data-label': 'Director' }, outcomeWords(settings, r.director_says)),
        make('td', { className: 'decided', 'data-label': 'Result' }, outcomeWords(settings, r.decided)),
        make('td', { 'data-label': 'How' }, r.status || ''));
      body.append(row);
    }
    $('results-table').hidden = results.length === 0;
    $('results-empty').hidden = results.length !== 0;
  }

  #renderVacation() {
    const mine = this.role === 'side_a' || this.role === 'side_b';
    const days = Number(this.view.settings?.pace?.vacation_days || 0);
    $('vacation-form').hidden = !(mine && days > 0);
    if ($('vacation-form').hidden) return;
    const left = Number(this.view[`${this.role}_clock`]?.vacation_days_left || 0);
    $('vacation-days').max = String(left);
    $('vacation-hint').textContent = `${left} of ${days} day(s) left. Your clock stops while you ` +
      'are away; 0 ends a vacation early and gives back the whole days not begun.';
  }
}

function paceWords(pace) {
  const items = [];
  if (pace.declaration_seconds) {
    items.push(`${formatDuration(pace.declaration_seconds * 1000)} per declaration`);
  }
  if (pace.choice_seconds) items.push(`${formatDuration(pace.choice_seconds * 1000)} per choice`);
  items.push(`a bank of ${formatDuration(Number(pace.bank_seconds || 0) * 1000)}`);
  const expiry = pace.on_expiry === 'ON_EXPIRY_LOSS' ? 'When time runs out, the match is lost.'
    : 'When time runs out, the rules default is taken.';
  return `${pace.preset ? `Pace ${pace.preset}: ` : 'Pace: '}${items.join(', ')}. ${expiry}`;
}
