// The replay page in a real browser after a real asl close combat: the `melee` CLI plays it
// (both seats, as docs/play-guide.md does) against a real melee-server with its real dice, side
// B with a 6-2-8 under a "?" that never attacks. Then side A opens the replay from its match
// page's "Replay this match" link (the token stays in the tab's sessionStorage) and steps
// through EVERY event with the arrow keys; a spectator opens its link at phone width and steps
// through every event with the Next button. At each step the page must show that event (in the
// log too, highlighted), its rules, and the board as of that event (the server's view for that
// event: its seq). Every WebSocket frame and every HTTP answer the spectator's page received, and
// every replayed view side A's page received, hold nothing of a sealed declaration before its
// reveal; the spectator's never the concealed unit's identity; no URL carries a token.
// Screenshots (desktop and phone width) go to $MELEE_SCREENSHOTS.
//
// Usage: node replay_test.mjs MELEE_SERVER_BINARY SCREENSHOT_DIR MELEE_CLI_BINARY

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { ServerProcess, launchBrowser, openPage, serverBinary, shot } from './harness.mjs';

const ROSTER_A = `ruleset: asl
side: side_a
attacker: side_a
location: G3
nationality: german
G1: 4-6-7
L1: 8-1 leader on G1
`;
// R2 is side B's secret: a 6-2-8 under a "?", which never attacks, so it stays concealed.
const ROSTER_B = `ruleset: asl
side: side_b
nationality: russian
R1: 4-4-7
R2: 6-2-8 concealed
`;
const SECRET = '6-2-8';

let server;
let browser;
let work;
let cli;

before(async () => {
  const binary = serverBinary();
  cli = process.argv[4] || process.env.MELEE_CLI_BINARY;
  if (cli) cli = path.resolve(cli);
  if (!cli) throw new Error('usage: node replay_test.mjs MELEE_SERVER_BINARY SCREENSHOT_DIR MELEE_CLI_BINARY');
  server = new ServerProcess(binary);
  await server.start();
  browser = await launchBrowser();
  work = mkdtempSync(path.join(tmpdir(), 'melee-replay-'));
});

after(async () => {
  await browser?.close();
  await server?.dispose();
  if (work) rmSync(work, { recursive: true, force: true });
});

// Runs the CLI; returns its output, or null when it refused (exit 1).
function melee(args, { allowRefusal = false } = {}) {
  try {
    return execFileSync(cli, args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MELEE_SERVER: `ws://127.0.0.1:${server.port}/ws` } });
  } catch (error) {
    if (allowRefusal && error.status === 1) return null;
    throw new Error(`melee ${args.join(' ')} failed (${error.status ?? error.message}):\n${error.stdout}\n${error.stderr}`);
  }
}

// The seat's view now, as `melee inbox --json` gives it.
function viewOf(seat) {
  const inbox = JSON.parse(melee(['inbox', `m/${seat}.seat`, '--json']));
  return inbox.entries[0].view;
}

// The ids of `owner`'s units present in the Location, as `view` shows them.
function present(view, owner) {
  return (view.asl?.units || []).filter((u) => u.unit.owner === owner &&
    (u.presence || 'PRESENCE_PRESENT') === 'PRESENCE_PRESENT').map((u) => u.unit.id);
}

// Plays the close combat to its end with the CLI, each seat doing what the view waits for:
// announcing nothing, declaring its attack (side B never with R2), answering a choice by staying.
function playCloseCombat() {
  writeFileSync(path.join(work, 'roster-a.txt'), ROSTER_A);
  writeFileSync(path.join(work, 'roster-b.txt'), ROSTER_B);
  melee(['match', 'create', '--out', 'm', '--title', 'Replay test']);
  melee(['submit', '--seat', 'm/side_a.seat', '--setup', 'roster-a.txt']);
  melee(['submit', '--seat', 'm/side_b.seat', '--setup', 'roster-b.txt']);
  melee(['submit', '--seat', 'm/side_a.seat', '--confirm']);
  melee(['submit', '--seat', 'm/side_b.seat', '--confirm']);
  let attacks = 0;
  for (let step = 0; step < 80; step += 1) {
    const view = viewOf('side_a');
    if (view.stage === 'STAGE_ENDED') return { attacks, ended: true };
    const line = (view.waiting_for || [])[0] || '';
    const seat = line.startsWith('side_b') ? 'side_b' : 'side_a';
    const file = `m/${seat}.seat`;
    const mine = viewOf(seat);
    if (/announce/.test(line)) {
      melee(['submit', '--seat', file, '--announce']);
    } else if (/choice (\d+)/.test(line)) {
      melee(['choose', '--seat', file, '--choice', /choice (\d+)/.exec(line)[1]]);
    } else {
      const a = present(mine, 'SEAT_SIDE_A');
      const b = present(mine, 'SEAT_SIDE_B');
      const [by, at] = seat === 'side_a' ? [a, b.filter((id) => id === 'R1')]
        : [b.filter((id) => id === 'R1'), a];
      const attack = by.length && at.length ? `${by.join(' ')} > ${at.join(' ')}` : 'none';
      // In sequential CC (after an Ambush) a unit that attacked already passes.
      if (attack === 'none' || !melee(['submit', '--seat', file, '--attack', attack], { allowRefusal: true })) {
        melee(['submit', '--seat', file, '--attack', 'none']);
      } else {
        attacks += 1;
      }
    }
  }
  return { attacks, ended: false };
}

// Records what `page` receives over HTTP from the replay endpoint, and every URL it asks for.
function record(page) {
  page.replayAnswers = [];
  page.urls = [];
  page.on('request', (request) => page.urls.push(request.url()));
  page.on('response', async (response) => {
    if (!response.url().includes('/replay?at=')) return;
    page.replayAnswers.push({ url: response.url(), status: response.status(), body: await response.text() });
  });
}

// Waits until the page shows event `k` and the board as of it; returns what it shows.
async function expectStep(page, k, n, events) {
  await page.waitForFunction((seq) => document.querySelector('#board-heading')?.textContent ===
    `The match as of event #${seq}` && !document.querySelector('#board-section').dataset.stale, k);
  const shown = await page.evaluate(() => ({
    event: document.querySelector('#event-heading').textContent,
    text: document.querySelector('#event-text').textContent,
    position: document.querySelector('#scrub-position').textContent,
    current: [...document.querySelectorAll('#log button[aria-current="step"]')].map((b) => b.dataset.seq),
    range: document.querySelector('#scrub').value,
    sides: document.querySelectorAll('#board .side').length,
    counters: document.querySelectorAll('#board button.counter').length,
    summary: document.querySelector('#summary').textContent,
    rules: document.querySelector('#event-rules').textContent,
  }));
  assert.equal(shown.event, `Event #${k}`);
  assert.equal(shown.position, `Event ${k} of ${n}`);
  assert.deepEqual(shown.current, [String(k)], `the log highlights event ${k} alone`);
  assert.equal(shown.range, String(k));
  assert.equal(shown.sides, 2, `event ${k}: the board draws both sides`);
  assert.match(shown.summary, new RegExp(`Last event#${k}(?!\\d)`), `event ${k}: the view's facts are as of it`);
  const words = events[k - 1];
  assert.ok(shown.text.includes(words.slice(0, 40)), `event ${k} shows "${words}", not "${shown.text}"`);
  return shown;
}

// The seq of each CCPh's reveal, and of every set-up (a new CCPh) from the events the page got.
function revealsOf(frames) {
  const events = frames.map((f) => JSON.parse(f)).filter((m) => m.event).map((m) => m.event);
  return {
    events,
    revealed: (k) => {
      // Whether the declarations of the CCPh under way at event k were revealed by event k.
      let start = 0;
      for (const e of events) if (Number(e.seq) <= k && e.asl?.kind === 'EVENT_KIND_SET_UP') start = Number(e.seq);
      return events.some((e) => Number(e.seq) > start && Number(e.seq) <= k && e.declarations_revealed);
    },
  };
}

// Asserts that a replayed view as of event k, before its CCPh's reveal, holds no declaration
// `viewer` may not see (a seat its opponent's; a spectator neither).
function assertNoSealedDeclaration(view, k, viewer, revealed) {
  if (revealed(k)) return;
  const asl = view.asl || {};
  const hidden = viewer === 'spectator' ? ['side_a_declaration', 'side_b_declaration']
    : [viewer === 'side_a' ? 'side_b_declaration' : 'side_a_declaration'];
  for (const field of hidden) {
    const shown = asl[field];
    assert.ok(!shown || !(shown.attacks || []).length,
      `${viewer}'s replay at event ${k} (before the reveal) holds ${field}: ${JSON.stringify(shown)}`);
  }
}

// Asserts that `text` holds nothing of R2 beyond its id and the Strength Factor (A11.19).
function assertConcealed(text, where) {
  assert.ok(!text.includes(SECRET), `${where} shows the concealed unit's counter ${SECRET}`);
  for (const m of text.replace(/":\s+/g, '":').matchAll(/\{[^{}]*"id":"R2"[^{}]*\}/g)) {
    // (An HTTP answer prints every field, the defaults too: UNSPECIFIED, "", 0, false.)
    assert.doesNotMatch(m[0], /"name":"[^"]|"morale":[1-9]|"kind":"UNIT_KIND_(?!UNSPECIFIED)|"nationality":"NATIONALITY_(?!UNSPECIFIED)|":true(?<!"concealed":true|"hidden":true)/,
      `${where} holds R2's values: ${m[0]}`);
  }
}

test('the replay steps through every event of a real close combat, showing each as it was seen', async () => {
  const played = playCloseCombat();
  assert.ok(played.attacks >= 1, 'the close combat had attacks');
  const seatA = JSON.parse(readFileSync(path.join(work, 'm/side_a.seat'), 'utf8'));
  const spectator = JSON.parse(readFileSync(path.join(work, 'm/spectator.seat'), 'utf8'));
  const matchId = seatA.match_id;
  const problems = [];

  // ---- side A: from the match page's link, stepping with the arrow keys (desktop) ----
  const ctxA = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const pageA = await openPage(ctxA, problems);
  record(pageA);
  await pageA.goto(`${server.origin}/match.html#m=${matchId}&as=side_a&t=${seatA.token}`);
  await pageA.waitForFunction(() => /Last event\s*#\d+/.test(document.querySelector('#summary')?.textContent || ''));
  const href = await pageA.locator('#replay-link').getAttribute('href');
  assert.equal(href, `replay.html#m=${matchId}&as=side_a`, 'the link carries no token');
  pageA.framesReceived = [];  // from here on, the replay page's own
  await pageA.getByRole('link', { name: 'Replay this match' }).click();
  await pageA.waitForURL(/replay\.html/);
  await pageA.waitForFunction(() => document.querySelector('#connection')?.dataset.state === 'connected');
  const n = await pageA.evaluate(() => document.querySelectorAll('#log li').length);
  const last = viewOf('side_a').seq;
  assert.equal(n, Number(last), 'the log lists every event');
  const logA = await pageA.locator('#log .log-text').allInnerTexts();
  const eventsA = logA.map((t) => t.replace(/^#\d+ /, ''));
  // Every ruleset event names its rules (A11.x): the log says which.
  const logRules = await pageA.locator('#log li').evaluateAll((items) => items.map((li) =>
    li.querySelector('.log-rules')?.textContent || ''));
  const { events: framesA } = revealsOf(pageA.framesReceived);
  framesA.forEach((e, i) => {
    if (e.asl && e.asl.kind !== 'EVENT_KIND_CHOICE_MADE') {
      assert.match(logRules[i], /A\d*\.\d+/, `event ${e.seq} (${e.asl.kind}) names its rules`);
    }
  });
  assert.ok(logRules.some((r) => r.includes('A11.11 CC DR')), 'the CC DR names A11.11');

  let attackShown = 0;
  await expectStep(pageA, 1, n, eventsA);
  for (let k = 2; k <= n; k += 1) {
    await pageA.keyboard.press('ArrowRight');
    const shown = await expectStep(pageA, k, n, eventsA);
    if (/attacks/.test(shown.text)) {
      attackShown += 1;
      assert.match(shown.rules, /A11\.11/, `event ${k}: an attack names A11.11`);
      if (attackShown === 1) await shot(pageA, 'replay-1-side-a-attack.png');
    }
    if (k > 3) assert.ok(shown.counters >= 3, `event ${k}: the counters are drawn`);
  }
  assert.ok(attackShown >= 1, 'an attack was stepped through');
  // The range input and the other keys: Home, End, back one.
  await pageA.locator('#scrub').focus();
  await pageA.keyboard.press('Home');
  await expectStep(pageA, 1, n, eventsA);
  await pageA.keyboard.press('End');
  await expectStep(pageA, n, n, eventsA);
  await pageA.evaluate(() => document.activeElement.blur());
  await pageA.keyboard.press('ArrowLeft');
  await expectStep(pageA, n - 1, n, eventsA);
  await pageA.getByRole('button', { name: 'Last event' }).click();
  await expectStep(pageA, n, n, eventsA);
  await shot(pageA, 'replay-2-side-a-end.png');

  // Side A's replayed views: each as of its event; none shows side B's declaration early.
  const revealA = revealsOf(pageA.framesReceived).revealed;
  const seenA = new Set();
  for (const answer of pageA.replayAnswers) {
    assert.equal(answer.status, 200, answer.body);
    const k = Number(new URL(answer.url).searchParams.get('at'));
    const view = JSON.parse(answer.body);
    assert.equal(Number(view.seq), k);
    assert.equal(view.seat, 'SEAT_SIDE_A');
    assertNoSealedDeclaration(view, k, 'side_a', revealA);
    seenA.add(k);
  }
  for (let k = 1; k <= n; k += 1) assert.ok(seenA.has(k), `side A's page asked for the view as of event ${k}`);
  for (const url of pageA.urls) assert.ok(!url.includes(seatA.token), `a URL carries side A's token: ${url}`);
  assert.ok(!(await pageA.content()).includes(seatA.token), 'the replay page shows no token');

  // ---- the spectator: its own link at phone width, stepping with the Next button ----
  const ctxS = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const pageS = await openPage(ctxS, problems);
  record(pageS);
  await pageS.goto(`${server.origin}/replay.html#m=${matchId}&as=spectator&t=${spectator.token}`);
  await pageS.waitForFunction(() => document.querySelector('#connection')?.dataset.state === 'connected');
  assert.equal(new URL(pageS.url()).hash, `#m=${matchId}&as=spectator`, 'the token leaves the address bar');
  const logS = await pageS.locator('#log .log-text').allInnerTexts();
  assert.equal(logS.length, n);
  const eventsS = logS.map((t) => t.replace(/^#\d+ /, ''));
  await expectStep(pageS, 1, n, eventsS);
  const next = pageS.getByRole('button', { name: 'Next event' });
  for (let k = 2; k <= n; k += 1) {
    await next.click();
    const shown = await expectStep(pageS, k, n, eventsS);
    if (k === Math.ceil(n / 2)) await shot(pageS, 'replay-3-spectator-phone.png');
    assert.ok(!shown.text.includes(SECRET));
  }
  assert.ok(await next.isDisabled(), 'Next stops at the last event');
  // A log entry picked with the mouse.
  await pageS.locator('#log button[data-seq="2"]').click();
  await expectStep(pageS, 2, n, eventsS);
  await shot(pageS, 'replay-4-spectator-phone-log.png');

  // Everything the spectator's page received: never the "?"'s identity, no sealed declaration.
  const { events: eventsSeen, revealed } = revealsOf(pageS.framesReceived);
  const concealmentLost = eventsSeen.find((e) => (e.asl?.effects || []).some((f) =>
    f.kind === 'EFFECT_KIND_CONCEALMENT_LOST' && f.unit === 'R2'));
  const hiddenUntil = concealmentLost ? Number(concealmentLost.seq) : Infinity;
  for (const frame of pageS.framesReceived) {
    const message = JSON.parse(frame);
    const seq = Number(message.event?.seq || message.view?.seq || message.joined?.view?.seq || 0);
    if (seq < hiddenUntil && !message.joined) assertConcealed(frame, `the spectator's frame #${seq}`);
    if (message.event?.declaration_sealed) {
      assert.ok(!message.event.declaration_sealed.opening && !message.event.asl?.seal,
        `the spectator received a sealed declaration: ${frame}`);
    }
  }
  const seenS = new Set();
  for (const answer of pageS.replayAnswers) {
    assert.equal(answer.status, 200, answer.body);
    const k = Number(new URL(answer.url).searchParams.get('at'));
    const view = JSON.parse(answer.body);
    assert.equal(Number(view.seq), k);
    assert.equal(view.seat, 'SEAT_SPECTATOR');
    if (k < hiddenUntil) assertConcealed(answer.body, `the spectator's replay at event ${k}`);
    assertNoSealedDeclaration(view, k, 'spectator', revealed);
    seenS.add(k);
  }
  for (let k = 1; k <= n; k += 1) assert.ok(seenS.has(k), `the spectator's page asked for event ${k}`);
  for (const url of pageS.urls) assert.ok(!url.includes(spectator.token), `a URL carries the spectator key: ${url}`);
  if (hiddenUntil === Infinity) assertConcealed(await pageS.content(), "the spectator's page");

  // A link without a token in a fresh tab explains itself.
  const pageX = await openPage(ctxS, []);
  await pageX.goto(`${server.origin}/replay.html#m=${matchId}&as=side_b`);
  await pageX.waitForFunction(() => !document.querySelector('#problem').hidden);
  assert.match(await pageX.locator('#problem').innerText(), /holds no token for this match/);

  assert.deepEqual(problems, [], 'no script error or CSP violation');
  await ctxA.close();
  await ctxS.close();
});
