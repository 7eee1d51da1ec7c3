// The match page (match.html): opens the seat, spectator or director link in its fragment,
// keeps the token in sessionStorage and takes it out of the address bar, joins through the SDK,
// and shows the match: for asl the Location as counters and the controls to play it with the
// mouse (asl-play.js), for coc the contact's Units and its forms (coc-play.js), for vv the close
// assault's two hexes as counters and its forms (vv-play.js); for every ruleset the players'
// names, clocks and results (match-status.js), the unit updates between close combats
// (force-updates.js) and the view as text — connection state, each side's force, the events and
// the fair-play checks. It reconnects and resumes by itself.

import { MeleeClient, parseSeatLink } from './sdk/melee.js';
import { AslPlay } from './asl-play.js';
import { CocPlay } from './coc-play.js';
import { ForceUpdates } from './force-updates.js';
import { MatchStatus, sideLabel } from './match-status.js';
import { VvPlay } from './vv-play.js';
import { describeEvent, describeForce, describeSetup, describeView, seatName } from './describe.js';

const kRoleNames = {
  side_a: 'Side A', side_b: 'Side B', spectator: 'Spectator', director: 'Director',
};

const $ = (id) => document.getElementById(id);

function showProblem(text) {
  $('problem').textContent = text;
  $('problem').hidden = false;
}

function setConnection(state, detail = {}) {
  const badge = $('connection');
  badge.dataset.state = state;
  document.body.dataset.connection = state;  // the view is dimmed while it may be stale
  const words = {
    connecting: 'Connecting…',
    connected: 'Connected',
    reconnecting: detail.delayMs
      ? `Connection lost — reconnecting in ${Math.ceil(detail.delayMs / 1000)} s (attempt ${detail.attempt})`
      : `Connection lost — reconnecting (attempt ${detail.attempt})`,
    closed: `Disconnected${detail.reason ? `: ${detail.reason}` : ''}`,
  };
  badge.textContent = words[state] || state;
}

// Reads the link; stores its token for this tab and removes it from the address bar, so it is
// not shown, bookmarked or shared by accident. A reload finds it in sessionStorage.
function openLink() {
  const link = parseSeatLink(location.hash);
  const key = `melee.token.${link.matchId}.${link.role}`;
  if (link.token) {
    sessionStorage.setItem(key, link.token);
    history.replaceState(null, '', `${location.pathname}#m=${encodeURIComponent(link.matchId)}&as=${link.role}`);
  }
  const token = link.token || sessionStorage.getItem(key);
  if (!token) {
    throw new Error('this link carries no token and this tab has none for it: open the full ' +
      'link you were sent');
  }
  return { ...link, token };
}

function renderView(view) {
  $('seat-heading').textContent = `${seatName(view.seat).replace(/^./, (c) => c.toUpperCase())} — match ${view.match_id}`;
  const summary = $('summary');
  summary.replaceChildren();
  for (const [label, value] of describeView(view)) {
    const dt = document.createElement('dt');
    dt.textContent = label;
    const dd = document.createElement('dd');
    dd.textContent = value;
    summary.append(dt, dd);
  }
  const waiting = $('waiting');
  waiting.replaceChildren();
  for (const line of view.waiting_for?.length ? view.waiting_for : ['nobody']) {
    const li = document.createElement('li');
    li.textContent = line.replace(/^side_a/, 'side A').replace(/^side_b/, 'side B');
    waiting.append(li);
  }
  const forces = $('forces');
  forces.replaceChildren();
  const sides = [
    [sideLabel(view.settings, 'side_a'), view.side_a_force, view.side_a_setup || view.side_a_vv_setup || view.side_a_coc_setup],
    [sideLabel(view.settings, 'side_b'), view.side_b_force, view.side_b_setup || view.side_b_vv_setup || view.side_b_coc_setup],
  ];
  for (const [side, units, setup] of sides) {
    const box = document.createElement('div');
    const h = document.createElement('h3');
    h.textContent = side;
    const list = document.createElement('ul');
    list.className = 'plain units';
    const force = describeForce(units);
    const lines = force.length ? force : describeSetup(setup);
    for (const line of lines.length ? lines : ['no units yet']) {
      const li = document.createElement('li');
      li.textContent = line;
      list.append(li);
    }
    box.append(h, list);
    forces.append(box);
  }
  $('view-json').textContent = JSON.stringify(view, null, 2);
}

function renderFairPlay(client, problem) {
  const w = client.witness;
  const text = problem
    ? `WARNING — ${problem}`
    : w.hasCommitment
      ? `Checked: ${w.stepsChecked} dice seed(s) against the commitment, ${w.headsChecked} ` +
        `signature(s) of the server (key ${w.fingerprint}), ${w.sealsChecked} opened seal(s).`
      : 'Waiting for the match’s first event (its dice commitment).';
  $('fair-play').textContent = text;
  $('fair-play').classList.toggle('problem', Boolean(problem));
}

function start() {
  let link;
  try {
    link = openLink();
  } catch (error) {
    setConnection('closed', { reason: 'no seat' });
    showProblem(error.message);
    return;
  }
  document.title = `Melee — ${kRoleNames[link.role]} — ${link.matchId}`;
  $('seat-heading').textContent = `${kRoleNames[link.role]} — match ${link.matchId}`;
  // The replay opens in this tab, where the token is kept: the link carries none.
  $('replay-link').href = `replay.html#m=${encodeURIComponent(link.matchId)}&as=${link.role}`;
  if (link.role === 'director') {
    // The director's audit page finds the token in this tab's sessionStorage, as this page does.
    $('audit-link').href = `audit.html#m=${encodeURIComponent(link.matchId)}&as=director`;
    $('audit-line').hidden = false;
  }
  const client = new MeleeClient({ matchId: link.matchId, token: link.token, role: link.role });
  let witnessProblem = null;
  const asl = new AslPlay(client, link.role);
  const coc = new CocPlay(client, link.role);
  const status = new MatchStatus(client, link.role);
  const updates = new ForceUpdates(client, link.role);
  const vv = new VvPlay(client, link.role);
  client.addEventListener('state', (e) => setConnection(e.detail.state, e.detail));
  client.addEventListener('view', (e) => {
    renderView(e.detail);
    status.onView(e.detail);
    updates.onView(e.detail);
    const ruleset = e.detail.settings?.ruleset || 'asl';
    for (const section of document.querySelectorAll('.asl-only')) section.hidden = ruleset !== 'asl';
    for (const section of document.querySelectorAll('.coc-only')) section.hidden = ruleset !== 'coc';
    for (const section of document.querySelectorAll('.vv-only')) section.hidden = ruleset !== 'vv';
    if (ruleset === 'asl') asl.onView(e.detail);
    if (ruleset === 'coc') coc.onView(e.detail);
    if (ruleset === 'vv') vv.onView(e.detail);
  });
  client.addEventListener('event', (e) => {
    asl.onEvent(e.detail);
    coc.onEvent(e.detail);
    vv.onEvent(e.detail);
    const li = document.createElement('li');
    li.textContent = describeEvent(e.detail);
    $('events').append(li);
    $('events').scrollTop = $('events').scrollHeight;  // the newest event stays in sight
    client.checked().then(() => renderFairPlay(client, witnessProblem));
  });
  client.addEventListener('witness', (e) => {
    witnessProblem = e.detail.problem;
    renderFairPlay(client, witnessProblem);
  });
  client.addEventListener('refused', (e) => showProblem(`The server refused: ${e.detail.message}`));
  client.connect().catch((error) => showProblem(`Could not open the match: ${error.message}`));
  // Leaving the page (closing the tab, following a link) closes the connection cleanly, so the
  // director's audit counts a clean close, not a lost connection; a page the browser brings back
  // from its cache opens the match afresh.
  window.addEventListener('pagehide', () => client.close());
  window.addEventListener('pageshow', (e) => {
    if (e.persisted) location.reload();
  });
}

start();
