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
