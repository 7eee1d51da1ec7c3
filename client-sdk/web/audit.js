// The director's audit page (audit.html): the audit of one match (GET /api/matches/{id}/audit,
// a melee.v1.MatchAuditReport worked out by the server from the director's own export, as
// `melee audit` works it out from the file) drawn for people: whether the file verifies, a
// histogram per roll purpose and player against the exact counts of fair dice, the chi-square
// test in words, response times, clocks, deadlines, connections and the timeline; and the match
// file and the ratings CSV to download.
//
// The director token comes from the tab's sessionStorage (melee.token.<match>.director, where
// the match page keeps it) or from a "#m=<match>&as=director&t=<token>" fragment, which is moved
// there and taken out of the address bar at once. It is sent only in an Authorization header,
// never in a URL.

import { parseSeatLink } from './sdk/links.js';
import { make } from './page-kit.js';

const $ = (id) => document.getElementById(id);
const kSvg = 'http://www.w3.org/2000/svg';

// ---- words and numbers --------------------------------------------------------------------------

/** The JSON mapping writes 64-bit integers as strings: a number either way. */
const num = (value) => Number(value || 0);

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "2026-09-21 14:13:20Z" (UTC), or "—" for 0. */
export function utcTime(ms) {
  const value = num(ms);
  if (!value) return '—';
  return new Date(value).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** "350 ms", "4.2 s", "12 min 05 s", "3 h 07 min": a wait as people read it. */
export function duration(ms) {
  const value = num(ms);
  const s = Math.floor(value / 1000);
  if (value < 1000) return `${value} ms`;
  if (value < 60000) return `${(value / 1000).toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor(s / 60) % 60).padStart(2, '0')} min`;
}

const kBuckets = { side_a: 'Side A', side_b: 'Side B', nobody: 'Nobody',
  'the whole match': 'The whole match' };

/** "Side A — Alice", "Side B", "Nobody (rolls the rules make for no side)". */
function playerTitle(report, player) {
  const name = player === 'side_a' ? report.side_a_name : player === 'side_b' ? report.side_b_name : '';
  if (player === 'nobody') return 'Nobody (rolls the rules make for no side)';
  return `${kBuckets[player] || player}${name ? ` — ${name}` : ''}`;
}

function seatTitle(report, seat) {
  return seat === 'director' ? 'The director' : playerTitle(report, seat);
}

const kPValue = (p) => (p < 0.001 ? '< 0.001' : p.toFixed(3));

/** The test in words: sample, chi-square, p-value and the verdict. */
export function testWords(test) {
  const rolls = num(test.rolls);
  const sample = test.shape === 'DR' ? plural(rolls, 'DR') : plural(rolls, 'die', 'dice');
  const figures = `chi-square ${Number(test.chi_square || 0).toFixed(2)} with ` +
    `${plural(num(test.degrees_of_freedom), 'degree')} of freedom, p = ${kPValue(Number(test.p_value ?? 1))}`;
  const needed = test.shape === 'DR' ? '180 DRs' : '30 dice';
  const verdict = test.judged
    ? test.verdict
    : `${test.verdict} (a chi-square needs at least ${needed} here; the p-value is only a hint)`;
  return `${sample}: ${figures} — ${verdict}.`;
}

/** 'bad', 'good' or 'unjudged': how a test's verdict is coloured. */
function tone(test) {
  if (!test.judged) return 'unjudged';
  return Number(test.p_value) < 0.01 ? 'bad' : 'good';
}

// ---- the histogram ----------------------------------------------------------------------------

function svg(tag, attributes = {}, text = '') {
  const node = document.createElementNS(kSvg, tag);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
  if (text) node.textContent = text;
  return node;
}

/** A tick step for counts up to `top`: 1, 2, 5, 10, 20, 50, ... giving at most ~5 ticks. */
function tickStep(top) {
  let step = 1;
  for (let scale = 1; ; scale *= 10) {
    for (const m of [1, 2, 5]) {
      step = m * scale;
      if (top / step <= 5) return step;
    }
  }
}

/**
 * One test as an SVG bar chart: a bar per outcome (its count above it), a dark tick across each
 * bar's slot at the exact count fair dice would give, the axes labelled. Each bar is a group with
 * data-outcome, data-count and data-expected, an aria-label and a <title>.
 */
export function histogram(test) {
  const counts = (test.counts || []).map(num);
  const expected = (test.expected || []).map(Number);
  const lowest = num(test.lowest) || 1;
  const n = counts.length;
  const width = 360;
  const height = 210;
  const left = 38;
  const right = 8;
  const top = 20;
  const bottom = 44;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const highest = Math.max(1, ...counts, ...expected.map((e) => Math.ceil(e)));
  const step = tickStep(highest);
  const ceiling = Math.ceil(highest / step) * step;
  const y = (value) => top + plotH - (value / ceiling) * plotH;
  const slot = plotW / n;
  const barW = slot * 0.64;
  const what = test.shape === 'DR' ? 'DR' : 'die';

  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'histogram',
    role: 'group', 'aria-label': `${test.purpose}: how often each ${what} total came up, ` +
      'against fair dice' });
  // The count axis: gridlines and their numbers.
  for (let v = 0; v <= ceiling; v += step) {
    chart.append(svg('line', { x1: left, x2: width - right, y1: y(v), y2: y(v),
      class: v === 0 ? 'axis' : 'grid' }));
    chart.append(svg('text', { x: left - 5, y: y(v) + 4, class: 'tick', 'text-anchor': 'end' },
      String(v)));
  }
  chart.append(svg('text', { x: 4, y: 12, class: 'axis-title' }, 'rolls'));
  for (let i = 0; i < n; i += 1) {
    const outcome = lowest + i;
    const count = counts[i];
    const fair = expected[i] || 0;
    const x = left + i * slot + (slot - barW) / 2;
    const label = `${what === 'DR' ? 'DR' : 'face'} ${outcome}: rolled ${plural(count, 'time')}; ` +
      `fair dice: ${fair.toFixed(2)}`;
    const bar = svg('g', { class: 'bar', role: 'img', 'aria-label': label,
      'data-outcome': outcome, 'data-count': count, 'data-expected': fair });
    bar.append(svg('title', {}, label));
    bar.append(svg('rect', { x, y: y(count), width: barW, height: Math.max(0, y(0) - y(count)),
      class: 'seen' }));
    bar.append(svg('line', { x1: x - slot * 0.12, x2: x + barW + slot * 0.12, y1: y(fair),
      y2: y(fair), class: 'expected' }));
    bar.append(svg('text', { x: x + barW / 2, y: Math.min(y(count), y(fair)) - 4,
      class: 'count', 'text-anchor': 'middle' }, String(count)));
    bar.append(svg('text', { x: x + barW / 2, y: y(0) + 16, class: 'tick',
      'text-anchor': 'middle' }, String(outcome)));
    chart.append(bar);
  }
  chart.append(svg('text', { x: left + plotW / 2, y: height - 6, class: 'axis-title',
    'text-anchor': 'middle' },
  what === 'DR' ? 'DR (coloured + white die): 2 … 12' : 'die face: 1 … 6'));
  return chart;
}

/** A figure: the test's purpose, its chart and its verdict in words. */
function testFigure(test, title) {
  const figure = make('figure', { className: `dice-test ${tone(test)}`,
    'data-purpose': test.purpose, 'data-shape': test.shape, 'data-rolls': num(test.rolls) });
  figure.append(make('figcaption', {}, title));
  figure.append(histogram(test));
  figure.append(make('p', { className: `verdict-words ${tone(test)}` }, testWords(test)));
  return figure;
}

// ---- the sections -----------------------------------------------------------------------------

function showProblem(text) {
  $('problem').textContent = text;
  $('problem').hidden = false;
}

function renderVerdict(report) {
  const box = $('verdict');
  box.hidden = false;
  box.dataset.verified = String(Boolean(report.verified));
  // The verifier's report: its first line says what the file is, the rest what was checked.
  const [first, ...rest] = String(report.verification || '').split('\n');
  $('verdict-lines').textContent = rest.join('\n');
  $('verdict-checks').hidden = rest.length === 0;
  if (report.verified) {
    $('verdict-title').textContent = 'This match file verifies.';
    $('verdict-detail').textContent = first;
  } else {
    const where = num(report.failed_seq) ? `event ${report.failed_seq}: ` : '';
    $('verdict-title').textContent = 'This match file does NOT verify.';
    $('verdict-detail').textContent = `${where}${report.failure} — what follows is what the ` +
      'file claims; its dice prove nothing.';
  }
}

function renderFacts(report) {
  const facts = [
    ['Match', report.match_id],
    ['Rules', report.ruleset],
    ['Side A', report.side_a_name || '(unnamed)'],
    ['Side B', report.side_b_name || '(unnamed)'],
  ];
  if (report.tournament_id) facts.push(['Tournament', report.tournament_id]);
  facts.push(['First event', utcTime(report.first_event_unix_ms)]);
  facts.push(['Events', String(report.timeline?.length || 0)]);
  if (report.first_attacker) {
    facts.push(['First ATTACKER', kBuckets[report.first_attacker] || report.first_attacker]);
  }
  for (const result of report.results || []) {
    facts.push([num(result.combat) === 0 ? 'Result of the match' : `Result of CC ${result.combat}`,
      result.status]);
  }
  if (!(report.results || []).length) facts.push(['Result', 'none recorded yet']);
  if (num(report.redacted)) facts.push(['Redacted', `${plural(num(report.redacted), 'event')}`]);
  facts.push(['Referee’s key', report.key_fingerprint || '—']);
  const list = $('facts');
  list.replaceChildren();
  for (const [label, value] of facts) list.append(make('dt', {}, label), make('dd', {}, value));
}

function renderDice(report) {
  $('dice-section').hidden = false;
  const criterion = String(report.criterion || '');
  $('criterion').textContent = `${criterion.charAt(0).toUpperCase()}${criterion.slice(1)}.`;
  const box = $('dice');
  box.replaceChildren();
  for (const dice of report.dice || []) {
    const all = dice.all_dice || {};
    const group = make('section', { className: 'dice-player', 'data-player': dice.player,
      'aria-label': `${playerTitle(report, dice.player)}: dice` });
    const total = num(all.rolls);
    group.append(make('h3', {}, `${playerTitle(report, dice.player)}: ${plural(total, 'die', 'dice')}`));
    if (num(dice.invalid_dice)) {
      group.append(make('p', { className: 'problem' },
        `${plural(num(dice.invalid_dice), 'die shows', 'dice show')} a value outside 1…6 ` +
        '(counted nowhere else).'));
    }
    if (total === 0) {
      group.append(make('p', { className: 'hint' }, 'No dice.'));
      box.append(group);
      continue;
    }
    const grid = make('div', { className: 'dice-grid' });
    for (const test of dice.by_purpose || []) {
      grid.append(testFigure(test, test.purpose));
    }
    grid.append(testFigure(all, 'Every die on its own'));
    group.append(grid);
    box.append(group);
  }
}

function renderTiming(report) {
  $('timing-section').hidden = false;
  const box = $('timing');
  box.replaceChildren();
  for (const timing of report.timing || []) {
    const responses = timing.responses || [];
    const group = make('div', { className: 'seat-timing', 'data-seat': timing.seat });
    let heading = `${seatTitle(report, timing.seat)}: ${plural(responses.length, 'response')}`;
    if (responses.length) {
      heading += `, median ${duration(timing.median_ms)}, longest ${duration(timing.max_ms)}`;
    }
    group.append(make('h3', {}, heading));
    if (responses.length) {
      const longest = Math.max(1, ...responses.map((r) => num(r.waited_ms)));
      const table = make('table', { className: 'audit-table waits' });
      const head = make('tr');
      for (const [title, className] of [['#', 'num'], ['Answer', ''], ['Waited', 'num'], ['', '']]) {
        head.append(make('th', { scope: 'col', className }, title));
      }
      table.append(make('thead'), make('tbody'));
      table.tHead.append(head);
      head.lastChild.append(make('span', { className: 'visually-hidden' }, 'as a bar'));
      for (const response of responses) {
        const row = make('tr', { 'data-seq': num(response.seq) });
        row.append(make('td', { className: 'num' }, String(num(response.seq))));
        row.append(make('td', {}, response.what));
        row.append(make('td', { className: 'num' }, duration(response.waited_ms)));
        const cell = make('td', { className: 'wait-cell', 'aria-hidden': 'true' });
        const bar = make('span', { className: 'wait-bar' });
        bar.style.width = `${(100 * num(response.waited_ms)) / longest}%`;  // CSSOM: CSP allows it
        if (num(response.waited_ms) === num(timing.max_ms)) bar.classList.add('longest');
        cell.append(bar);
        row.append(cell);
        table.tBodies[0].append(row);
      }
      group.append(table);
    }
    box.append(group);
  }
}

function renderClocks(report) {
  $('clocks-section').hidden = !report.clocked;
  const list = $('clocks');
  list.replaceChildren();
  if (!report.clocked) return;
  for (const t of report.timing || []) {
    list.append(make('li', {}, `${seatTitle(report, t.seat)}: time bank drawn ` +
      `${plural(num(t.bank_draws), 'time')} (${duration(t.bank_drawn_ms)} in all), time ran out ` +
      `${plural(num(t.expired), 'time')}, ${plural(num(t.vacations), 'vacation')} ` +
      `(${plural(num(t.vacation_days), 'day')}).`));
  }
}

function renderDeadlines(report) {
  $('deadlines-section').hidden = false;
  const list = $('deadlines');
  list.replaceChildren();
  for (const t of report.timing || []) {
    const missed = t.missed_deadlines || [];
    const item = make('li', { 'data-seat': t.seat, 'data-missed': missed.length },
      `${seatTitle(report, t.seat)}: ${missed.length ? plural(missed.length, 'deadline') : 'none'}`);
    if (missed.length) {
      const inner = make('ul');
      for (const m of missed) {
        inner.append(make('li', {}, `event ${num(m.seq)} at ${utcTime(m.unix_ms)}: its ${m.what}`));
      }
      item.append(inner);
    }
    list.append(item);
  }
}

function renderConnections(report) {
  $('connections-section').hidden = false;
  const list = $('connections');
  list.replaceChildren();
  for (const s of report.sessions || []) {
    const disconnects = s.disconnects || [];
    const item = make('li', { 'data-seat': s.seat, 'data-disconnects': disconnects.length },
      `${seatTitle(report, s.seat)}: ${plural(num(s.sessions), 'connection')}, ` +
      `${plural(num(s.closed), 'clean close', 'clean closes')}, ` +
      `${plural(disconnects.length, 'disconnect')}`);
    if (disconnects.length) item.classList.add('warn');
    if (disconnects.length) {
      const inner = make('ul');
      for (const d of disconnects) {
        inner.append(make('li', {}, `left ${utcTime(d.left_unix_ms)} (joined ` +
          `${utcTime(d.joined_unix_ms)}): ${d.reason}`));
      }
      item.append(inner);
    }
    list.append(item);
  }
}

const kWho = { side_a: 'side A', side_b: 'side B', director: 'director', server: 'server' };

function renderTimeline(report) {
  $('timeline-section').hidden = false;
  const body = $('timeline').tBodies[0];
  body.replaceChildren();
  for (const entry of report.timeline || []) {
    const row = make('tr', { 'data-who': entry.who });
    row.append(make('td', { className: 'num' }, String(num(entry.seq))));
    row.append(make('td', { className: 'when' }, utcTime(entry.unix_ms)));
    row.append(make('td', { className: 'who' }, kWho[entry.who] || entry.who));
    row.append(make('td', {}, entry.what));
    body.append(row);
  }
}

// ---- downloads --------------------------------------------------------------------------------

/** Saves `blob` as `filename` through a temporary link (the browser's own download). */
function save(blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = make('a', { href: url, download: filename, hidden: '' });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function kilobytes(size) {
  return size < 1024 ? `${size} bytes` : `${(size / 1024).toFixed(1)} kB`;
}

/** The error message of a refused answer (a melee.v1.Error in JSON). */
async function refusal(response) {
  const body = await response.json().catch(() => ({}));
  return body.message || `HTTP ${response.status}`;
}

function request(path, token) {
  return fetch(path, {
    headers: { Authorization: `Bearer ${token}` },
    cache: 'no-store',
    referrerPolicy: 'no-referrer',
  });
}

async function downloadFile(matchId, token) {
  const status = $('download-status');
  status.classList.remove('problem');
  status.textContent = 'Exporting the match file…';
  try {
    const response = await request(`/api/matches/${encodeURIComponent(matchId)}/export`, token);
    if (!response.ok) throw new Error(await refusal(response));
    const named = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') || '');
    const filename = named ? named[1] : `${matchId}-director.melee.json`;
    const blob = await response.blob();
    save(new Blob([blob], { type: 'application/json' }), filename);
    status.textContent = `Saved ${filename} (${kilobytes(blob.size)}).`;
  } catch (error) {
    status.textContent = `Could not export the match file: ${error.message}`;
    status.classList.add('problem');
  }
}

function downloadCsv(report) {
  const filename = `${report.match_id}-aslpr.csv`;
  const blob = new Blob([report.aslpr_csv], { type: 'text/csv' });
  save(blob, filename);
  $('download-status').classList.remove('problem');
  $('download-status').textContent = `Saved ${filename} (the header and 1 row).`;
}

// ---- the page ---------------------------------------------------------------------------------

/** The match and director token: from the fragment (then kept in this tab) or this tab's store. */
function openLink() {
  const link = parseSeatLink(location.hash || '#');
  if (link.role !== 'director') {
    throw new Error(`the audit is the director's: this link opens ${link.role === 'spectator'
      ? 'a spectator' : 'a seat'} (open the match with the director link to audit it)`);
  }
  const key = `melee.token.${link.matchId}.director`;
  if (link.token) {
    sessionStorage.setItem(key, link.token);
    history.replaceState(null, '', `${location.pathname}#m=${encodeURIComponent(link.matchId)}&as=director`);
  }
  const token = link.token || sessionStorage.getItem(key);
  if (!token) {
    throw new Error('this tab holds no director token for this match: open the director link ' +
      'you were given, then “Audit this match” on its page');
  }
  return { matchId: link.matchId, token };
}

let current = null;

async function audit(matchId, token) {
  $('reload').disabled = true;
  $('problem').hidden = true;
  try {
    const response = await request(`/api/matches/${encodeURIComponent(matchId)}/audit`, token);
    if (!response.ok) throw new Error(await refusal(response));
    const report = await response.json();
    current = report;
    $('audit-heading').textContent = `Audit of match ${report.match_id}`;
    document.title = `Melee — audit — ${report.match_id}`;
    renderVerdict(report);
    renderFacts(report);
    $('downloads-section').hidden = false;
    const csv = Boolean(report.aslpr_csv);
    $('download-csv').disabled = !csv;
    $('csv-hint').hidden = csv;
    $('csv-hint').textContent = csv ? '' : `A ${report.ruleset.split(' ')[0]} match has no ASL ` +
      'Player Ratings row: the CSV is for ASL games.';
    renderDice(report);
    renderTiming(report);
    renderClocks(report);
    renderDeadlines(report);
    renderConnections(report);
    renderTimeline(report);
    document.body.dataset.audited = 'true';
  } catch (error) {
    showProblem(`Could not audit the match: ${error.message}`);
  } finally {
    $('reload').disabled = false;
  }
}

function start() {
  let link;
  try {
    link = openLink();
  } catch (error) {
    $('audit-heading').textContent = 'No audit';
    showProblem(error.message);
    return;
  }
  $('audit-heading').textContent = `Auditing match ${link.matchId}…`;
  $('back').href = `match.html#m=${encodeURIComponent(link.matchId)}&as=director`;
  $('reload').addEventListener('click', () => audit(link.matchId, link.token));
  $('download-file').addEventListener('click', () => downloadFile(link.matchId, link.token));
  $('download-csv').addEventListener('click', () => current && downloadCsv(current));
  audit(link.matchId, link.token);
}

start();
