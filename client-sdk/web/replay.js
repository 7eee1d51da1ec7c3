// The replay page (replay.html): the whole log of a match as one viewer saw it, every event in
// words with the rules it names, and a scrubber from the first event to the last. At each
// position the event is highlighted and the match is drawn as it stood right after it: the
// view the server makes for that event (GET /api/matches/{id}/replay?at=k, the code that makes
// live views), so it never shows more than the viewer saw then. The events come from the match's
// WebSocket (the SDK, which checks them against the dice commitments), so the log goes on
// growing while the match is played. Views are cached, and the range input is debounced.
//
// It opens like the match page: the link's fragment (#m=..&as=..&t=..), or the token the match
// page keeps for this tab in sessionStorage (melee.token.<match>.<role>); the token travels only
// in the WebSocket's join frame and in the Authorization header, never in a URL.

import { MeleeClient, parseSeatLink } from './sdk/melee.js';
import { counterButton, fateWord } from './counters.js';
import { dieImage } from './asl-play.js';
import { unitCard } from './coc-play.js';
import {
  describeEvent, describeForce, describeSetup, describeView, ruleRefs,
} from './describe.js';
import { make } from './page-kit.js';

const $ = (id) => document.getElementById(id);

const kRoleNames = {
  side_a: 'side A', side_b: 'side B', spectator: 'a spectator', director: 'the director',
};
const kSideNames = { SEAT_SIDE_A: 'side A', SEAT_SIDE_B: 'side B' };
const kPhases = {
  PHASE_SET_UP: 'setting up', PHASE_ANNOUNCE: 'announcements (A11.2, A11.14)',
  PHASE_DECLARE: 'declaring attacks (A11.12)', PHASE_CHOICE: 'a choice is pending',
  PHASE_ENDED: 'this Close Combat Phase is over here',
};
// How long the range input must rest before the view of its position is asked for.
const kDebounceMs = 150;

function showProblem(text) {
  $('problem').textContent = text;
  $('problem').hidden = false;
}

function setConnection(state, detail = {}) {
  const badge = $('connection');
  badge.dataset.state = state;
  const words = {
    connecting: 'Connecting…',
    connected: 'Connected: new events join the log',
    reconnecting: `Connection lost — reconnecting (attempt ${detail.attempt})`,
    closed: `Disconnected${detail.reason ? `: ${detail.reason}` : ''}`,
  };
  badge.textContent = words[state] || state;
}

// Reads the link as the match page does; keeps its token for this tab, out of the address bar.
function openLink() {
  const link = parseSeatLink(location.hash);
  const key = `melee.token.${link.matchId}.${link.role}`;
  if (link.token) {
    sessionStorage.setItem(key, link.token);
    history.replaceState(null, '',
      `${location.pathname}#m=${encodeURIComponent(link.matchId)}&as=${link.role}`);
  }
  const token = link.token || sessionStorage.getItem(key);
  if (!token) {
    throw new Error('this tab holds no token for this match: open the match from the link you ' +
      'were sent, then “Replay this match” on its page');
  }
  return { ...link, token };
}

// The first line of an event in words, and the rest (an attack's account) apart, without the
// "roll ..." lines: the page draws those dice.
function eventWords(e) {
  const [first, ...rest] = describeEvent(e).split('\n');
  return { first, rest: rest.map((l) => l.trim()).filter((l) => l && !l.startsWith('roll ')) };
}

function ruleItems(e) {
  return ruleRefs(e).map((r) => {
    const li = make('li', { className: 'rule' });
    li.append(make('strong', {}, r.rule), document.createTextNode(r.about ? ` ${r.about}` : ''));
    return li;
  });
}

/** The replay of one match for one viewer. */
class Replay {
  constructor(link) {
    this.link = link;
    this.client = new MeleeClient({ matchId: link.matchId, token: link.token, role: link.role });
    this.events = [];          // every event received, events[k - 1] is event k
    this.entries = [];         // the log's buttons, by the same index
    this.views = new Map();    // k -> Promise of the view as of event k
    this.at = 0;               // the position shown (0: none yet)
    this.shownView = 0;        // the event whose view the board shows
    this.timer = null;
    this.live = false;         // the backlog is in: new events may move a scrubber at the end
    this.witnessProblem = null;
    this.#wire();
  }

  #wire() {
    const scrub = $('scrub');
    scrub.addEventListener('input', () => this.go(Number(scrub.value), { debounce: true }));
    scrub.addEventListener('change', () => this.go(Number(scrub.value)));
    $('first').addEventListener('click', () => this.go(1));
    $('previous').addEventListener('click', () => this.go(this.at - 1));
    $('next').addEventListener('click', () => this.go(this.at + 1));
    $('last').addEventListener('click', () => this.go(this.events.length));
    $('log').addEventListener('click', (e) => {
      const entry = e.target.closest('button[data-seq]');
      if (entry) this.go(Number(entry.dataset.seq));
    });
    document.addEventListener('keydown', (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey || e.target === scrub) return;  // the range's own
      if (e.target.closest?.('input, textarea, select')) return;
      const to = { ArrowLeft: this.at - 1, ArrowRight: this.at + 1, Home: 1,
        End: this.events.length }[e.key];
      if (to === undefined || !this.events.length) return;
      e.preventDefault();
      this.go(to);
    });
    const c = this.client;
    c.addEventListener('state', (e) => setConnection(e.detail.state, e.detail));
    c.addEventListener('event', (e) => this.#onEvent(e.detail));
    c.addEventListener('joined', () => {
      this.live = true;
      if (!this.events.length) $('event-text').textContent = 'The match has no events yet.';
    });
    c.addEventListener('witness', (e) => {
      this.witnessProblem = e.detail.problem;
      this.#renderFairPlay();
    });
    c.addEventListener('refused', (e) => showProblem(`The server refused: ${e.detail.message}`));
  }

  start() {
    const who = kRoleNames[this.link.role];
    document.title = `Melee — replay — ${this.link.matchId}`;
    $('replay-heading').textContent = `Replay — match ${this.link.matchId}, as ${who}`;
    $('viewer-words').textContent = who === 'side A' || who === 'side B' ? `${who} (you)` : who;
    $('back-link').href = `match.html#m=${encodeURIComponent(this.link.matchId)}&as=${this.link.role}`;
    this.client.connect().catch((error) => showProblem(`Could not open the match: ${error.message}`));
  }

  // ---- the log ----------------------------------------------------------------------------------

  #onEvent(e) {
    const k = Number(e.seq);
    if (k !== this.events.length + 1) return;  // the SDK delivers each seq once, in order
    this.events.push(e);
    const { first, rest } = eventWords(e);
    const button = make('button', { type: 'button', className: 'log-entry' });
    button.dataset.seq = String(k);
    button.append(make('span', { className: 'log-text' }, first));
    if (rest.length) button.append(make('span', { className: 'log-more' }, rest.join('\n')));
    const rules = ruleRefs(e);
    if (rules.length) {
      button.append(make('span', { className: 'log-rules' },
        rules.map((r) => (r.about ? `${r.rule} ${r.about}` : r.rule)).join(' · ')));
    }
    const li = make('li');
    li.append(button);
    $('log').append(li);
    this.entries.push(button);
    const scrub = $('scrub');
    const wasAtEnd = this.at === this.events.length - 1;
    scrub.max = String(this.events.length);
    scrub.disabled = false;
    if (!this.at) this.go(1);
    else if (this.live && wasAtEnd) this.go(k, { debounce: true });  // following the match live
    else this.#renderControls();
    this.client.checked().then(() => this.#renderFairPlay());
  }

  // ---- moving -----------------------------------------------------------------------------------

  /** Shows event `k` at once and, once the position rests, the match as of it. */
  go(k, { debounce = false } = {}) {
    if (!this.events.length) return;
    const to = Math.min(Math.max(1, Math.round(k) || 1), this.events.length);
    const moved = to !== this.at;
    this.at = to;
    this.#renderControls();
    this.#renderEvent();
    if (moved) this.#highlight();
    clearTimeout(this.timer);
    if (this.shownView === to) return;
    $('board-section').dataset.stale = 'true';
    $('board-status').textContent = `Loading the match as of event #${to}…`;
    if (debounce) this.timer = setTimeout(() => this.#showView(to), kDebounceMs);
    else this.#showView(to);
  }

  #view(k) {
    if (!this.views.has(k)) {
      const asked = this.client.replayView(k);
      asked.catch(() => this.views.delete(k));  // a failure is asked again next time
      this.views.set(k, asked);
    }
    return this.views.get(k);
  }

  async #showView(k) {
    let view;
    try {
      view = await this.#view(k);
    } catch (error) {
      if (this.at === k) $('board-status').textContent = `Could not get the match as of event #${k}: ${error.message}`;
      return;
    }
    if (this.at !== k) return;  // the scrubber moved on meanwhile
    this.shownView = k;
    this.#renderView(view);
    delete $('board-section').dataset.stale;
    $('board-status').textContent = '';
    // The next step is the likeliest: have it ready.
    if (k < this.events.length) this.#view(k + 1).catch(() => {});
  }

  #renderControls() {
    const n = this.events.length;
    const scrub = $('scrub');
    scrub.value = String(this.at);
    const e = this.events[this.at - 1];
    const words = e ? eventWords(e).first : '';
    scrub.setAttribute('aria-valuetext', `Event ${this.at} of ${n}${words ? `: ${words}` : ''}`);
    $('scrub-position').textContent = n ? `Event ${this.at} of ${n}` : 'No events yet.';
    $('first').disabled = $('previous').disabled = this.at <= 1;
    $('next').disabled = $('last').disabled = this.at >= n;
  }

  #renderEvent() {
    const e = this.events[this.at - 1];
    const { first, rest } = eventWords(e);
    $('event-heading').textContent = `Event #${this.at}`;
    const text = $('event-text');
    text.replaceChildren(make('span', { className: 'event-first' }, first.replace(/^#\d+ /, '')));
    if (rest.length) text.append(make('span', { className: 'event-more' }, rest.join('\n')));
    const rules = ruleItems(e);
    $('event-rules').replaceChildren(...rules);
    $('event-rules').hidden = !rules.length;
    // Every die the event rolled, drawn, with what it was rolled for.
    const part = e.asl || e.coc || e.vv || {};
    const dice = part.dice?.length ? part.dice : e.dice_rolled?.rolls || [];
    const box = $('event-dice');
    box.replaceChildren();
    const groups = [];
    for (const d of dice) {
      const colour = d.color === 'COLOR_COLORED' ? 'coloured' : d.color === 'COLOR_WHITE' ? 'white' : 'single';
      const last = groups[groups.length - 1];
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
      row.append(images, make('span', { className: 'purpose' },
        `${g.purpose}: ${g.dice.map(([v]) => v).join(', ')}`));
      box.append(row);
    }
  }

  #highlight() {
    for (const entry of this.entries) entry.removeAttribute('aria-current');
    const entry = this.entries[this.at - 1];
    if (!entry) return;
    entry.setAttribute('aria-current', 'step');
    // Keep it in sight inside the log's own scrolling box (the page itself does not move).
    const log = $('log');
    const top = entry.offsetTop;  // the log is the button's offset parent
    if (top < log.scrollTop || top + entry.offsetHeight > log.scrollTop + log.clientHeight) {
      log.scrollTop = Math.max(0, top - log.clientHeight / 3);
    }
  }

  // ---- the match as of the event ----------------------------------------------------------------

  #renderView(view) {
    const ruleset = view.settings?.ruleset || 'asl';
    $('board-heading').textContent = `The match as of event #${view.seq}`;
    const board = $('board');
    board.replaceChildren();
    $('board-facts').textContent = '';
    if (ruleset === 'asl') this.#drawAsl(view);
    if (ruleset === 'coc') this.#drawCoc(view);
    board.hidden = !board.children.length;
    const summary = $('summary');
    summary.replaceChildren();
    for (const [label, value] of describeView(view)) {
      if (label === 'You are') continue;
      summary.append(make('dt', {}, label),
        // Live connections are no part of the log: a replayed view counts none.
        make('dd', {}, value.replace(/, (not connected|\d+ connections?)$/, '')));
    }
    const waiting = (view.waiting_for || []).map((w) => w.replace(/^side_a/, 'side A').replace(/^side_b/, 'side B'));
    $('waiting').replaceChildren(...(waiting.length ? waiting : ['nobody']).map((w) => make('li', {}, w)));
    const forces = $('forces');
    forces.replaceChildren();
    for (const [side, units, setup] of [
      ['Side A', view.side_a_force, view.side_a_setup || view.side_a_vv_setup || view.side_a_coc_setup],
      ['Side B', view.side_b_force, view.side_b_setup || view.side_b_vv_setup || view.side_b_coc_setup]]) {
      const force = describeForce(units);
      const lines = force.length ? force : describeSetup(setup);
      const list = make('ul', { className: 'plain units' });
      for (const line of lines.length ? lines : ['no units yet']) list.append(make('li', {}, line));
      const box = make('div');
      box.append(make('h4', {}, side), list);
      forces.append(box);
    }
  }

  // asl: the Location's counters as the view shows them (counters.js), the rest of each force.
  #drawAsl(view) {
    const asl = view.asl || {};
    const setupStage = view.stage === 'STAGE_SETUP' || !(asl.units || []).length;
    const units = [];
    if (setupStage) {
      for (const setup of [view.side_a_setup, view.side_b_setup]) {
        for (const u of setup?.units || []) {
          units.push({ unit: u, hidden: !u.kind && Boolean(u.concealed), presence: 'PRESENCE_PRESENT' });
        }
      }
    } else {
      for (const v of asl.units) {
        units.push({ unit: v.unit, hidden: Boolean(v.hidden), presence: v.presence || 'PRESENCE_PRESENT' });
      }
    }
    const location = setupStage
      ? view.side_a_setup?.location || view.side_b_setup?.location || asl.location : asl.location;
    const attacker = setupStage
      ? view.side_a_setup?.attacker || view.side_b_setup?.attacker || asl.attacker : asl.attacker;
    const facts = [location?.name ? `Location ${location.name}` : 'Location not named yet'];
    if (location?.woods_or_building) facts.push('woods or building');
    const melee = asl.phase === 'PHASE_ENDED' ? asl.melee : location?.melee || asl.melee;
    if (melee) facts.push('in Melee (A11.15)');
    if (attacker) facts.push(`ATTACKER: ${kSideNames[attacker]}`);
    // Between the reveal and the end of the CCPh the rules are resolving the attacks (the
    // engine's phase still says declaring): the log says whether this CCPh's reveal came yet.
    const resolving = asl.phase === 'PHASE_DECLARE' && this.#revealedBy(view.seq);
    if (resolving) facts.push('declarations revealed: the attacks are resolved (A11.11, A11.12)');
    else if (!setupStage && asl.phase) facts.push(kPhases[asl.phase] || asl.phase);
    for (const seat of ['SEAT_SIDE_A', 'SEAT_SIDE_B']) {
      const sealed = seat === 'SEAT_SIDE_A' ? asl.side_a_sealed : asl.side_b_sealed;
      if (asl.phase === 'PHASE_DECLARE' && sealed && !resolving) facts.push(`${kSideNames[seat]} has sealed`);
    }
    $('board-facts').textContent = `${facts.join(' · ')}.`;
    const ids = new Set(units.map((e) => e.unit.id));
    for (const seat of ['SEAT_SIDE_A', 'SEAT_SIDE_B']) {
      const group = make('div', { className: 'side', role: 'group' });
      group.dataset.side = seat;
      const h = make('h3', { id: `board-${seat}` },
        `${kSideNames[seat].replace('s', 'S')}${seat === attacker ? ' (ATTACKER)' : ''}`);
      group.setAttribute('aria-labelledby', h.id);
      const row = make('div', { className: 'counters' });
      const here = units.filter((e) => e.unit.owner === seat);
      // A SMC stacked on an MMC (A11.14) is drawn on it, as a stack.
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
          const button = counterButton(entry.unit, { hidden: entry.hidden, fate: fateWord(entry.presence) });
          button.tabIndex = -1;  // read out, not pressed: the replay plays nothing
          box.append(button);
        }
        row.append(box);
      }
      if (!here.length) row.append(make('p', { className: 'hint' }, 'No units entered yet.'));
      group.append(h, row);
      const force = (seat === 'SEAT_SIDE_A' ? view.side_a_force : view.side_b_force) || [];
      const elsewhere = force.filter((f) => !ids.has(f.id) ||
        (f.location && location?.name && f.location !== location.name));
      if (elsewhere.length) {
        const more = make('div', { className: 'counters small' });
        for (const f of elsewhere) {
          const unit = { ...(f.asl || {}), id: f.id, owner: f.owner || seat };
          const fate = fateWord(f.fate) || (f.location ? `in ${f.location}` : 'off board');
          const button = counterButton(unit, { hidden: Boolean(f.hidden), fate, size: 52 });
          button.tabIndex = -1;
          more.append(button);
        }
        group.append(make('p', { className: 'hint' }, 'The rest of the force:'), more);
      }
      $('board').append(group);
    }
  }

  // Whether the declarations of the CCPh under way at event `k` were revealed by event k.
  #revealedBy(k) {
    const seq = Number(k);
    let start = 0;
    for (const e of this.events.slice(0, seq)) if (e.asl?.kind === 'EVENT_KIND_SET_UP') start = Number(e.seq);
    return this.events.slice(start, seq).some((e) => e.declarations_revealed);
  }

  // coc: each side's Units as the match page draws them (coc-play.js), its Force Morale.
  #drawCoc(view) {
    const coc = view.coc || {};
    const situation = coc.situation || {};
    const facts = [];
    if (situation.attacker) facts.push(`${kSideNames[situation.attacker].replace('s', 'S')} attacks`);
    if (situation.location) facts.push(`at ${situation.location}`);
    if (coc.report) facts.push(`combat ${coc.report.combat || 1}, round ${coc.report.round || 1}`);
    $('board-facts').textContent = facts.length ? `${facts.join(' · ')}.` : '';
    for (const side of ['SEAT_SIDE_A', 'SEAT_SIDE_B']) {
      const setup = side === 'SEAT_SIDE_A' ? view.side_a_coc_setup : view.side_b_coc_setup;
      const morale = (side === 'SEAT_SIDE_A' ? coc.side_a_force_morale : coc.side_b_force_morale) ||
        setup?.force_morale;
      const group = make('section', { className: 'side', 'aria-label': kSideNames[side] });
      group.dataset.side = side;
      group.append(make('h3', {}, `${kSideNames[side].replace('s', 'S')}${morale ? ` — Force Morale ${morale}` : ''}`));
      const units = coc.units?.length ? coc.units.filter((u) => u.unit?.side === side)
        : (setup?.units || []).map((unit) => ({ unit }));
      if (!units.length) group.append(make('p', { className: 'hint' }, 'No Units in the contact yet.'));
      for (const viewed of units) group.append(unitCard(viewed));
      $('board').append(group);
    }
  }

  #renderFairPlay() {
    const w = this.client.witness;
    const problem = this.witnessProblem;
    $('fair-play').textContent = problem ? `WARNING — ${problem}`
      : w.hasCommitment
        ? `Checked in your browser: ${w.stepsChecked} dice seed(s) against the commitment, ` +
          `${w.headsChecked} signature(s) of the server (key ${w.fingerprint}), ` +
          `${w.sealsChecked} opened seal(s).`
        : 'Waiting for the match’s first event (its dice commitment).';
    $('fair-play').classList.toggle('problem', Boolean(problem));
  }
}

function start() {
  let link;
  try {
    link = openLink();
  } catch (error) {
    setConnection('closed', { reason: 'no token' });
    showProblem(error.message);
    $('event-text').textContent = '';
    return;
  }
  new Replay(link).start();
}

start();
