// The match's standing and the unit updates in the page, for both seats, a spectator and the
// director, against a real melee-server (the set-ups entered with the real `melee` CLI, as a
// correspondence player would): the lobby creates a named, paced match; every page shows the
// names and both clocks counting down; a seat takes vacation and comes back; side A reports unit
// updates between close combats (one refused with its rule, then a report of two: a reinforcement
// and a concealed one); side B's and the spectator's DOM and every frame they received never hold
// the concealed reinforcement's counter; both seats and the director record results and every page
// shows the table; a second match lost on time shows the server's decision. Screenshots go to
// $MELEE_SCREENSHOTS.
//
// Usage: node status_test.mjs MELEE_SERVER_BINARY SCREENSHOT_DIR MELEE_CLI_BINARY

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  ServerProcess, launchBrowser, openPage, screenshotDir, serverBinary, settle, shot,
} from './harness.mjs';

const kDesktop = { width: 1100, height: 900 };
const kPhone = { width: 390, height: 844 };
const ROSTER_A = 'location: G3\nattacker: side_a\nnationality: german\nG1: 4-6-7\nL1: 8-1 leader on G1\n';
const ROSTER_B = 'nationality: russian\nR1: 4-4-7\n';
// What side B and the spectator must never learn: the counter of side A's concealed reinforcement.
const SECRET = '5-4-8';

let server;
let browser;
let work;
const problems = [];
const cli = process.argv[4] || process.env.MELEE_CLI_BINARY;

before(async () => {
  server = new ServerProcess(serverBinary());
  await server.start();
  browser = await launchBrowser();
  work = mkdtempSync(path.join(tmpdir(), 'melee-status-'));
  writeFileSync(path.join(work, 'a.roster'), ROSTER_A);
  writeFileSync(path.join(work, 'b.roster'), ROSTER_B);
});

after(async () => {
  await browser?.close();
  await server?.dispose();
  if (work) rmSync(work, { recursive: true, force: true });
});

// A seat file for the CLI from a page link (the token is in the link's fragment).
function seatFile(link, seat) {
  const fragment = new URLSearchParams(new URL(link).hash.slice(1));
  const file = path.join(work, `${fragment.get('m')}-${seat}.seat`);
  writeFileSync(file, JSON.stringify({
    server: `ws://127.0.0.1:${server.port}/ws`, match_id: fragment.get('m'),
    seat: seat === 'side_a' ? 'SEAT_SIDE_A' : 'SEAT_SIDE_B', token: fragment.get('t'), ruleset: 'asl',
  }));
  return file;
}

const melee = (...args) => execFileSync(cli, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

async function openAs(url, viewport) {
  const context = await browser.newContext({ viewport });
  const page = await openPage(context, problems);
  await page.goto(url);
  await page.waitForSelector('#connection[data-state="connected"]');
  return page;
}

const textOf = (page, selector) => page.locator(selector).innerText();
// Waits until `selector`'s text matches `pattern`; on a timeout, says what it showed instead.
async function waitText(page, selector, pattern) {
  try {
    await page.waitForFunction(
      ([s, source, flags]) => new RegExp(source, flags).test(document.querySelector(s)?.innerText || ''),
      [selector, pattern.source, pattern.flags], { timeout: 30000 });
  } catch (error) {
    const shown = await page.locator(selector).innerText().catch(() => '(not there)');
    throw new Error(`${selector} never matched ${pattern}; it shows:\n${shown}`);
  }
}

// Side A's concealed reinforcement G8 must stay a "?" for this page: not its counter in the DOM
// or any frame, and no object of G8 with a name, firepower or kind.
async function assertConcealed(page, who) {
  const dom = await page.content();
  assert.ok(!dom.includes(SECRET), `${who}'s page shows the concealed unit's counter`);
  for (const frame of page.framesReceived) {
    assert.ok(!frame.includes(SECRET), `${who} received the concealed unit's counter: ${frame}`);
    for (const m of frame.replace(/":\s+/g, '":').matchAll(/\{[^{}]*"id":"G8"[^{}]*\}/g)) {
      assert.doesNotMatch(m[0], /"name"|"firepower"|"kind"|"morale"/, `${who} received G8's values: ${m[0]}`);
    }
  }
}

test('names, clocks, vacation, unit updates and results in every page', async () => {
  assert.ok(cli, 'usage: node status_test.mjs MELEE_SERVER_BINARY SCREENSHOT_DIR MELEE_CLI_BINARY');
  // ---- the lobby: a named match with a daily pace ----
  const lobby = await openPage(await browser.newContext({ viewport: kDesktop }), problems);
  await lobby.goto(`${server.origin}/`);
  await lobby.getByLabel('Title').fill('Hill 621');
  await lobby.getByLabel(/Side A's player/).fill('Alice');
  await lobby.getByLabel(/Side B's player/).fill('Bob');
  await lobby.getByLabel(/^Pace/).selectOption('daily');
  await shot(lobby, 'lobby-paced.png');
  await lobby.getByRole('button', { name: 'Create match' }).click();
  await lobby.waitForSelector('#links:not([hidden])');
  const links = {};
  for (const role of ['side_a', 'side_b', 'spectator', 'director']) {
    links[role] = await lobby.locator(`#link-${role}`).inputValue();
  }
  const seatA = seatFile(links.side_a, 'side_a');
  const seatB = seatFile(links.side_b, 'side_b');
  melee('submit', '--seat', seatA, '--setup', path.join(work, 'a.roster'));
  melee('submit', '--seat', seatB, '--setup', path.join(work, 'b.roster'));
  melee('submit', '--seat', seatA, '--confirm');
  melee('submit', '--seat', seatB, '--confirm');

  const pageA = await openAs(links.side_a, kDesktop);
  const pageB = await openAs(links.side_b, kPhone);
  const spectator = await openAs(links.spectator, kDesktop);
  const director = await openAs(links.director, kDesktop);
  const pages = [pageA, pageB, spectator, director];
  await settle(pages);

  // ---- names and clocks, the same on every page ----
  for (const page of pages) {
    assert.equal(await textOf(page, '#players'), 'Side A (Alice) v Side B (Bob)');
    await waitText(page, '#clocks', /Pace daily: 1 d per declaration, 1 d per choice, a bank of 3 d\./);
    // Both seats owe their announcements (A11.2, A11.14): both clocks run.
    await waitText(page, '#side_a-clock', /left for this step/);
    await waitText(page, '#side_b-clock', /Vacation days left: 14 of 14/);
    assert.match(await textOf(page, '#forces'), /Side A \(Alice\)/);
  }
  assert.equal(await pageA.locator('#vacation-form').isVisible(), true);
  assert.equal(await spectator.locator('#vacation-form').isVisible(), false);
  assert.equal(await spectator.locator('#result-form').isVisible(), false, 'a spectator records no result');

  // ---- vacation: every page sees side B's clock stop, then start again ----
  await pageB.getByLabel('Take vacation days').fill('1');
  await pageB.getByRole('button', { name: 'Take vacation' }).click();
  await waitText(pageB, '#vacation-status', /On vacation for 1 day/);
  for (const page of pages) {
    await waitText(page, '#side_b-clock', /On vacation until/);
    await waitText(page, '#side_b-clock', /Vacation days left: 13 of 14/);
  }
  await shot(pageB, 'status-seat-b-vacation-phone.png');
  await pageB.getByLabel('Take vacation days').fill('0');
  await pageB.getByRole('button', { name: 'Take vacation' }).click();
  await waitText(pageB, '#vacation-status', /Back from vacation/);
  for (const page of pages) {
    await page.waitForFunction(() => !/On vacation/.test(document.querySelector('#side_b-clock').innerText));
  }

  // ---- the close combat: nobody attacks in CCPh 1; in the Melee that goes on (A11.15) side A
  // withdraws (A11.2) unopposed, and the close combat is over ----
  const announce = path.join(work, 'withdraw.json');
  writeFileSync(announce, JSON.stringify({ withdraw: ['G1', 'L1'] }));
  melee('submit', '--seat', seatA, '--announce');
  melee('submit', '--seat', seatB, '--announce');
  melee('submit', '--seat', seatA, '--attack', 'none');
  melee('submit', '--seat', seatB, '--attack', 'none');
  melee('submit', '--seat', seatB, '--announce');  // side B is the ATTACKER of CCPh 2
  melee('submit', '--seat', seatA, '--announce', announce);
  melee('submit', '--seat', seatA, '--attack', 'none');
  melee('submit', '--seat', seatB, '--attack', 'none');
  await settle(pages);
  for (const page of pages) await waitText(page, '#forces', /G1 4-6-7 — withdrawn/);

  // ---- unit updates: only a seat reports; each is checked, a refusal names its rule ----
  assert.equal(await pageA.locator('#updates-panel').isVisible(), true);
  assert.equal(await spectator.locator('#updates-panel').isVisible(), false);
  assert.equal(await director.locator('#updates-panel').isVisible(), false);
  await pageA.getByLabel('What happened', { exact: true }).selectOption('BREAK');
  await pageA.getByLabel('To which of your units').selectOption('G1');
  await pageA.getByRole('button', { name: 'Add to the report' }).click();
  await pageA.getByRole('button', { name: 'Send 1 update' }).click();
  await waitText(pageA, '#update-status', /Refused — .*'G1' withdrew from CC and is in no Location: MOVE it first/);
  await pageA.getByRole('button', { name: 'Remove update 1' }).click();

  // The withdrawn squad is placed again (A11.2) with a note.
  await pageA.getByLabel('What happened', { exact: true }).selectOption('MOVE');
  await pageA.getByLabel('To which of your units').selectOption('G1');
  await pageA.getByLabel(/Into which Location/).fill('H2');
  await pageA.getByLabel(/In your words/).fill('fell back to the orchard');
  await pageA.getByRole('button', { name: 'Add to the report' }).click();
  // Then a reinforcement in the open and one under "?": three updates in one report.
  await pageA.getByLabel('What happened', { exact: true }).selectOption('ENTER');
  await pageA.getByLabel(/Into which Location/).fill('H5');
  await pageA.getByLabel('The new unit, in counter notation').fill('G9: 4-6-7 german');
  await pageA.getByRole('button', { name: 'Add to the report' }).click();
  await pageA.getByLabel(/Into which Location/).fill('H4');
  await pageA.getByLabel('The new unit, in counter notation').fill(`G8: ${SECRET} german concealed`);
  await pageA.getByRole('button', { name: 'Add to the report' }).click();
  assert.match(await textOf(pageA, '#update-draft'), /1\. G1: Moved to another Location \(or off the board\) → H2 — “fell back to the orchard”\n.*\n2\. G9 4-6-7: A new unit enters \(a reinforcement\) → H5/);
  await shot(pageA, 'status-seat-a-updates.png');
  await pageA.getByRole('button', { name: 'Send 3 updates' }).click();
  await waitText(pageA, '#update-status', /Sent: 3 update/);
  await settle(pages);
  await waitText(pageA, '#forces', /G8 5-4-8 in H4/);
  for (const page of [pageB, spectator]) {
    await waitText(page, '#forces', /G9 4-6-7 in H5/);
    await waitText(page, '#forces', /G8 \? \(concealed\) in H4/);
    await waitText(page, '#forces', /G1 4-6-7 in H2/);
  }
  await waitText(director, '#forces', /G8 5-4-8 in H4/);

  // Then G9 moves on: the unit list offers it, and every page sees where it went.
  await pageA.getByLabel('What happened', { exact: true }).selectOption('MOVE');
  await pageA.getByLabel('To which of your units').selectOption('G9');
  await pageA.getByLabel(/Into which Location/).fill('H6');
  await pageA.getByRole('button', { name: 'Add to the report' }).click();
  await pageA.getByRole('button', { name: 'Send 1 update' }).click();
  await waitText(pageA, '#update-status', /Sent: 1 update/);
  for (const page of pages) await waitText(page, '#forces', /G9 4-6-7 in H6/);
  // The events say it in words; side B reads only that a "?" entered.
  await waitText(pageA, '#events', /side A updated its units: G1 moved to H2 — “fell back to the orchard”; G9 entered H5; G8 entered H4/);
  await waitText(pageB, '#events', /side A updated its units: G1 moved to H2 — “fell back to the orchard”; G9 entered H5; G8 \(\?\) changed, now in H4/);
  await waitText(pageB, '#events', /side B went on vacation for 1 day\(s\), until .*\n.*side B is back from vacation \(13 day\(s\) left\)/);
  await assertConcealed(pageB, 'side B');
  await assertConcealed(spectator, 'the spectator');

  // ---- results: the players disagree, the director decides ----
  await pageA.getByLabel('Side A (Alice) won').check();
  await pageA.getByRole('button', { name: 'Record the result' }).click();
  await waitText(pageA, '#result-status', /Recorded/);
  await pageB.getByLabel('Side B (Bob) won').check();
  await pageB.getByRole('button', { name: 'Record the result' }).click();
  await waitText(pageB, '#result-status', /Recorded/);
  for (const page of pages) await waitText(page, '#results-body', /disagree/);
  await director.getByLabel('A draw').check();
  await director.getByLabel(/Note/).fill('adjudicated');
  await director.getByRole('button', { name: 'Record the result' }).click();
  await waitText(director, '#result-status', /your entry decides/);
  for (const page of pages) {
    await waitText(page, '#results-body', /decided by the director/);
    const row = await textOf(page, '#results-body tr');
    assert.match(row, /The match\s+Side A \(Alice\) won\s+Side B \(Bob\) won\s+a draw\s+a draw/);
  }
  await waitText(spectator, '#events', /the director recorded the result of the match: a draw \(“adjudicated”\)/);
  await shot(pageA, 'status-seat-a.png');
  await shot(pageB, 'status-seat-b-phone.png');
  await pageB.locator('section:has(#results-heading)').screenshot({ path: path.join(screenshotDir(), 'status-results-phone.png') });
  await pageB.locator('#clocks').screenshot({ path: path.join(screenshotDir(), 'status-clocks-phone.png') });
  await shot(director, 'status-director.png');

  // ---- a second match, lost on time: every page says how it ended ----
  const response = await fetch(`${server.origin}/api/matches`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ruleset: 'asl', side_a_name: 'Alice', side_b_name: 'Bob',
      pace: { declaration_seconds: 10, choice_seconds: 10, on_expiry: 'ON_EXPIRY_LOSS' } }),
  });
  assert.equal(response.status, 201);
  const created = await response.json();
  const link = (role, token) => `${server.origin}/match.html#m=${created.match_id}&as=${role}&t=${token}`;
  const fastA = seatFile(link('side_a', created.side_a_token), 'side_a');
  const fastB = seatFile(link('side_b', created.side_b_token), 'side_b');
  melee('submit', '--seat', fastA, '--setup', path.join(work, 'a.roster'));
  melee('submit', '--seat', fastB, '--setup', path.join(work, 'b.roster'));
  melee('submit', '--seat', fastA, '--confirm');
  melee('submit', '--seat', fastB, '--confirm');
  melee('submit', '--seat', fastA, '--announce');  // side B lets its 10 s pass
  const timed = await openAs(link('side_a', created.side_a_token), kPhone);
  // Side B's countdown moves by itself, second by second, without a new view.
  await waitText(timed, '#side_b-clock', /0:0\d left for this step/);
  const first = await timed.locator('#side_b-clock li').first().innerText();
  await timed.waitForFunction((t) => document.querySelector('#side_b-clock li').innerText !== t, first);
  await timed.waitForSelector('#decision:not([hidden])', { timeout: 30000 });
  assert.match(await textOf(timed, '#decision'),
    /The match is over: Side B \(Bob\) lost on time \(event \d+\); Side A \(Alice\) wins\./);
  await waitText(timed, '#pace-facts', /When time runs out, the match is lost\./);
  await shot(timed, 'status-lost-on-time-phone.png');

  // ---- a situation file (docs/asl-situation-format.md) loaded into the set-up form ----
  const third = await (await fetch(`${server.origin}/api/matches`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"ruleset": "asl"}',
  })).json();
  const loader = await openAs(`${server.origin}/match.html#m=${third.match_id}&as=side_a&t=${third.side_a_token}`, kDesktop);
  await loader.locator('#roster-file').setInputFiles(
    path.join(path.dirname(new URL(import.meta.url).pathname), '../../examples/asl/concealed-11-4.json'));
  await waitText(loader, '#setup-status', /Loaded concealed-11-4\.json/);
  assert.equal(await loader.locator('#roster-preview button.counter').count(), 1, 'side A\'s one unit');
  assert.equal(await textOf(loader, '#roster-problem'), '');
  await loader.getByRole('button', { name: 'Enter these units' }).click();
  await waitText(loader, '#setup-status', /Entered 1 unit\(s\)/);
  await waitText(loader, '#forces', /G1 6-5-8.*set-up/);

  assert.deepEqual(problems, []);
});
