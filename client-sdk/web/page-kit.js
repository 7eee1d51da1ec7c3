// Small helpers the match page's ruleset parts share (asl-play.js, coc-play.js): building
// elements without innerHTML, and reading what the view's waiting_for asks of a seat.

/** The wire's seat names in waiting_for ("side_a: announce ..."). */
export const kWireNames = { SEAT_SIDE_A: 'side_a', SEAT_SIDE_B: 'side_b' };

/** A new element: `attributes` set as attributes (className as the class), `text` as its text. */
export function make(tag, attributes = {}, text = '') {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (k === 'className') node.className = v;
    else node.setAttribute(k, v);
  }
  if (text) node.textContent = text;
  return node;
}

/** The seat ('SEAT_SIDE_A', 'SEAT_SIDE_B') a page role plays, or '' for a spectator or director. */
export function seatOf(role) {
  return role === 'side_a' ? 'SEAT_SIDE_A' : role === 'side_b' ? 'SEAT_SIDE_B' : '';
}

/**
 * What `view`'s waiting_for asks of `seat` now ("announce (A11.2, A11.14)", "seal a Close
 * Combat declaration (17.2)", ...), or null when nothing.
 */
export function stepOf(view, seat) {
  const mine = kWireNames[seat];
  if (!mine || !view) return null;
  for (const line of view.waiting_for || []) {
    if (line.startsWith(`${mine}: `)) return line.slice(mine.length + 2);
    if (line.startsWith('both sides: ')) return line.slice(12);
  }
  return null;
}

/** Runs `command`, saying in `status` that it is sent, then `done` or the refusal with its rule. */
export async function runInto(status, command, done) {
  status.textContent = 'Sending…';
  status.classList.remove('problem');
  try {
    await command();
    status.textContent = done;
  } catch (error) {
    status.textContent = `Refused — ${error.message}`;
    status.classList.add('problem');
  }
}

/**
 * A live countdown in one element to a deadline (unix ms; 0: none): "4:59 left to seal", then
 * "0:00 left to seal" until the view moves on. One per panel or dialog; run() restarts it.
 */
export class Countdown {
  constructor() {
    this.timer = null;
  }

  run(element, deadlineMs, verb, noDeadline = 'No deadline: take your time.') {
    this.stop();
    const deadline = Number(deadlineMs || 0);
    const tick = () => {
      if (!deadline) {
        element.textContent = noDeadline;
        return;
      }
      const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
      const hours = Math.floor(left / 3600);
      const clock = hours > 0
        ? `${hours}:${String(Math.floor((left % 3600) / 60)).padStart(2, '0')}:${String(left % 60).padStart(2, '0')}`
        : `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
      element.textContent = `${clock} left to ${verb}`;
    };
    tick();
    if (deadline) this.timer = setInterval(tick, 1000);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }
}

/**
 * Reads a side's units as `melee submit --setup` reads them, on the server (POST
 * /api/rosters/read): a roster in counter notation, a SideSetup in JSON or a situation file.
 * Resolves with the melee.v1.SubmitSetup; rejects with the problem, its rule first.
 */
export async function readRosterOnServer(ruleset, seat, text, source) {
  const response = await fetch('/api/rosters/read', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ruleset, seat, text, source }),
    referrerPolicy: 'no-referrer',
  });
  const body = await response.json().catch(() => ({ message: `HTTP ${response.status}` }));
  if (!response.ok) {
    throw new Error(body.rule_ref && !body.message.startsWith(body.rule_ref)
      ? `${body.rule_ref}: ${body.message}` : body.message);
  }
  return body;
}

/**
 * Wires a set-up form whose elements are `<prefix>roster`, `-roster-file`, `-setup-form`,
 * `-confirm-setup` and `-setup-status` (asl's have no prefix): `read(source)` on typing (after
 * `debounceMs`) and on a loaded file, `submit()` on the form, and the confirmation.
 */
export function wireSetupForm(prefix, { client, read, submit, noun = 'units', debounceMs = 250 }) {
  const $ = (id) => document.getElementById(`${prefix}${id}`);
  let timer = null;
  $('roster').addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => read(), debounceMs);
  });
  $('roster-file').addEventListener('change', async (e) => {
    const file = e.target.files?.[0];
    if (!file) return;
    $('roster').value = await file.text();
    await read(file.name);
    $('setup-status').textContent = `Loaded ${file.name}: check the ${noun}, then enter them.`;
  });
  $('setup-form').addEventListener('submit', (e) => {
    e.preventDefault();
    submit();
  });
  $('confirm-setup').addEventListener('click', () => runInto($('setup-status'),
    () => client.command('confirm_setup'), 'Confirmed.'));
}

/**
 * Reads the set-up form `<prefix>roster` on the server (readRosterOnServer) and clears its
 * `<prefix>roster-preview`; says a problem in `<prefix>roster-problem`. Resolves with the
 * SubmitSetup, or null when the form is empty, the text is refused, or it was typed on meanwhile.
 */
export async function readSetupForm(prefix, ruleset, seat, source) {
  const $ = (id) => document.getElementById(`${prefix}${id}`);
  const text = $('roster').value;
  $('roster-problem').textContent = '';
  if (!text.trim()) {
    $('roster-preview').replaceChildren();
    return null;
  }
  try {
    const body = await readRosterOnServer(ruleset, seat, text, source);
    return $('roster').value === text ? body : null;
  } catch (error) {
    if ($('roster').value !== text) return null;  // typed on meanwhile
    $('roster-preview').replaceChildren();
    $('roster-problem').textContent = error.message;
    return null;
  }
}
