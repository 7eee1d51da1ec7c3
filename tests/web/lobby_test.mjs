// The lobby and the seat pages in a real browser against a real melee-server: create a match
// with the mouse and keyboard, copy and read the links, open side A, side B and the spectator in
// their own browser contexts, check that side B's page never receives or shows side A's token,
// restart the server and check that every page reconnects and resumes by itself. Screenshots of
// each page go to $MELEE_SCREENSHOTS (or the second argument).
//
// Usage: node lobby_test.mjs MELEE_SERVER_BINARY [SCREENSHOT_DIR]

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { ServerProcess, launchBrowser, openPage, screenshotDir, serverBinary } from './harness.mjs';

const kPhone = { width: 390, height: 844 };
const kDesktop = { width: 1100, height: 900 };

const UNITS_A = {
  location: { name: 'G3' }, attacker: 'SEAT_SIDE_A',
  units: [{ id: 'G1', owner: 'SEAT_SIDE_A', kind: 'UNIT_KIND_SQUAD', name: '4-6-7',
    firepower: 4, morale: 7 }],
};

const UNITS_B = {
  units: [{ id: 'R1', owner: 'SEAT_SIDE_B', kind: 'UNIT_KIND_SQUAD', name: '4-4-7', firepower: 4,
    morale: 7, concealed: true }],
};

let server;
let browser;
const problems = [];

before(async () => {
  server = new ServerProcess(serverBinary());
  await server.start();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.dispose();
});

async function waitForState(page, state, timeout = 20000) {
  await page.waitForSelector(`#connection[data-state="${state}"]`, { timeout });
}

test('lobby, seats, no leaked token, reconnect after a server restart', async () => {
  const shots = screenshotDir();

  // ---- the lobby, at phone width, by keyboard and mouse ----
  const lobbyContext = await browser.newContext({ viewport: kPhone });
  await lobbyContext.grantPermissions(['clipboard-read', 'clipboard-write'],
    { origin: server.origin });
  const lobby = await openPage(lobbyContext, problems);
  const home = await lobby.goto(`${server.origin}/`);
  assert.equal(home.status(), 200);
  assert.match(home.headers()['content-security-policy'], /default-src 'self'/);
  await lobby.getByLabel('Title').click();
  await lobby.keyboard.type('Building G3');
  await lobby.getByLabel('Rules', { exact: true }).focus();
  await lobby.keyboard.press('ArrowDown');
  await lobby.keyboard.press('ArrowUp');
  assert.equal(await lobby.getByLabel('Rules', { exact: true }).inputValue(), 'asl');
  await lobby.getByLabel(/Time to declare/).fill('600');
  assert.equal(await lobby.locator('#variant-field').isHidden(), true, 'no edition for asl');
  // The players agree on the SSR "no voluntary Withdrawal from Melee" (asl option melee_withdrawal).
  await lobby.getByLabel(/Withdrawal from Melee/).selectOption('none');
  await lobby.screenshot({ path: path.join(shots, 'lobby-form.png'), fullPage: true });
  await lobby.getByRole('button', { name: 'Create match' }).click();
  await lobby.waitForSelector('#links:not([hidden])');
  const link = async (role) => lobby.locator(`#link-${role}`).inputValue();
  const links = {
    side_a: await link('side_a'), side_b: await link('side_b'),
    spectator: await link('spectator'), director: await link('director'),
  };
  const fragment = (url) => new URLSearchParams(new URL(url).hash.slice(1));
  const tokenA = fragment(links.side_a).get('t');
  const tokenB = fragment(links.side_b).get('t');
  const matchId = fragment(links.side_a).get('m');
  assert.ok(tokenA && tokenB && tokenA !== tokenB, 'two different seat tokens');
  for (const url of Object.values(links)) {
    assert.ok(url.startsWith(`${server.origin}/match.html#`), `${url} is a page link`);
    assert.ok(!new URL(url).search, 'no token in the query string');
  }
  // The copy button puts the link on the clipboard and says so.
  await lobby.getByRole('button', { name: /Copy Side B/ }).click();
  await lobby.waitForFunction(() => document.getElementById('copy-status').textContent.startsWith('Copied'));
  assert.equal(await lobby.evaluate(() => navigator.clipboard.readText()), links.side_b);
  await lobby.screenshot({ path: path.join(shots, 'lobby.png'), fullPage: true });

  // ---- the seats and a spectator, each in its own browser ----
  const openSeat = async (url, viewport) => {
    const context = await browser.newContext({ viewport });
    const page = await openPage(context, problems);
    await page.goto(url);
    await waitForState(page, 'connected');
    return page;
  };
  const seatA = await openSeat(links.side_a, kDesktop);
  const seatB = await openSeat(links.side_b, kPhone);
  const spectator = await openSeat(links.spectator, kDesktop);
  for (const [page, who] of [[seatA, 'Side A'], [seatB, 'Side B'], [spectator, 'A spectator']]) {
    await page.waitForFunction((w) => document.getElementById('seat-heading').textContent.startsWith(w), who);
    const text = await page.locator('#summary').innerText();
    assert.match(text, new RegExp(`Match\\s+${matchId}`));
    assert.match(text, /Setting up/);
    assert.ok(!page.url().includes('t='), 'the token left the address bar');
  }
  assert.match(await seatA.locator('#events').innerText(), /match opened: asl/);
  for (const page of [seatA, seatB, spectator]) {
    await page.waitForSelector('#house-rules:not([hidden])');
    assert.match(await page.locator('#house-rules').innerText(),
      /SSR: no voluntary Withdrawal from Melee \(A11\.2/, 'every page shows the agreed SSR');
  }

  // ---- side A enters its set-up (through the SDK in the lobby's page); every page sees it ----
  await lobby.evaluate(async ({ m, t, units }) => {
    const sdk = await import('/sdk/melee.js');
    const client = new sdk.MeleeClient({ matchId: m, token: t, role: 'side_a' });
    await client.connect();
    const answer = await client.command('submit_setup', { asl: units });
    client.close();
    return answer.ack.seq;
  }, { m: matchId, t: tokenA, units: UNITS_A });
  for (const page of [seatA, seatB, spectator]) {
    await page.waitForFunction(() => /side A entered its set-up/.test(document.getElementById('events').textContent));
  }
  assert.match(await seatB.locator('#forces').innerText(), /G1 4-6-7 in G3/);

  // ---- the server restarts: the pages say so, reconnect and resume by themselves ----
  await server.stop();
  for (const page of [seatA, seatB]) {
    await waitForState(page, 'reconnecting');
    assert.match(await page.locator('#connection').innerText(), /reconnecting/i);
  }
  await seatB.screenshot({ path: path.join(shots, 'seat-b-reconnecting.png'), fullPage: true });
  await server.start();
  for (const page of [seatA, seatB, spectator]) await waitForState(page, 'connected', 30000);
  await lobby.evaluate(async ({ m, t, units }) => {
    const sdk = await import('/sdk/melee.js');
    const client = new sdk.MeleeClient({ matchId: m, token: t, role: 'side_b' });
    await client.connect();
    await client.command('submit_setup', { asl: units });
    client.close();
  }, { m: matchId, t: tokenB, units: UNITS_B });
  for (const page of [seatA, seatB, spectator]) {
    await page.waitForFunction(() => /side B entered its set-up/.test(document.getElementById('events').textContent));
    // Each event once: the resume after the restart replayed nothing twice.
    const lines = await page.locator('#events li').allInnerTexts();
    const seqs = lines.map((line) => line.split(' ')[0]);
    assert.deepEqual(seqs, [...new Set(seqs)], `no event shown twice: ${lines.join(' | ')}`);
  }

  // ---- side B's page never received nor shows side A's token (nor shows its own) ----
  assert.ok(seatB.framesReceived.length > 3, 'seat B received frames');
  for (const frame of seatB.framesReceived) {
    assert.ok(!frame.includes(tokenA), `a frame seat B received holds side A's token: ${frame}`);
  }
  for (const page of [seatB, spectator]) {
    const html = await page.content();
    const text = await page.locator('body').innerText();
    for (const token of [tokenA, tokenB]) {
      assert.ok(!html.includes(token) && !text.includes(token), 'no token in the DOM');
    }
  }

  await seatA.screenshot({ path: path.join(shots, 'seat-a.png'), fullPage: true });
  await seatB.screenshot({ path: path.join(shots, 'seat-b.png'), fullPage: true });
  await spectator.screenshot({ path: path.join(shots, 'spectator.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

test('a link without its token says what to do', async () => {
  const context = await browser.newContext({ viewport: kPhone });
  const page = await openPage(context, []);
  await page.goto(`${server.origin}/match.html#m=nope&as=side_a`);
  await page.waitForSelector('#problem:not([hidden])');
  assert.match(await page.locator('#problem').innerText(), /no token/);
  const wrong = await openPage(context, []);
  await wrong.goto(`${server.origin}/match.html#m=nope&as=side_a&t=wrong`);
  await waitForState(wrong, 'closed');
  assert.match(await wrong.locator('#problem').innerText(), /no match "nope"/);
  await context.close();
});
