// A whole asl close combat played with the mouse (and a little keyboard) in two browser
// contexts against a real melee-server with its real dice, a spectator following: side A types
// its roster, side B loads its roster from a file and has a concealed 6-2-8; both confirm,
// announce, declare by clicking counters (the page refuses a second attack on a unit, A11.12),
// seal and see their receipts verified; every roll is shown as dice; any choice the dice bring is
// answered in its dialog. Side A's and the spectator's DOM and every WebSocket frame their pages
// received never hold the concealed unit's name or strength before the reveal. Screenshots of
// each step (one at phone width) go to $MELEE_SCREENSHOTS.
//
// Usage: node asl_play_test.mjs MELEE_SERVER_BINARY [SCREENSHOT_DIR]

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  ServerProcess, launchBrowser, openPage, screenshotDir, serverBinary, settle, shot, visible,
} from './harness.mjs';

const ROSTER_A = `# side A types this
location: G3
attacker: side_a
nationality: german
G1: 4-6-7
L1: 8-1 leader on G1
`;
// R2 is what side A must not learn before the reveal: a 6-2-8 under a "?".
const ROSTER_B = `ruleset: asl
side: side_b
nationality: russian
R1: 4-4-7
R2: 6-2-8 assault engineers concealed
`;
const SECRET = '6-2-8';

let server;
let browser;

before(async () => {
  server = new ServerProcess(serverBinary());
  await server.start();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.dispose();
});

// Checks that `text` (a frame, or the page's DOM) holds nothing of side B's concealed unit: not
// its counter, kind, morale or class. Its Strength Factor is in the view from designation on,
// because A11.19 reveals it then (a "?" with "SF 6"); before designation not even that.
function assertSecretKept(text, where, { designating = false } = {}) {
  assert.ok(!text.includes(SECRET), `${where} shows the concealed unit's counter ${SECRET}`);
  const values = designating ? /"name"|"morale"|"kind"|"assault_engineer"/
    : /"name"|"firepower"|"morale"|"kind"|"assault_engineer"/;
  for (const m of text.replace(/":\s+/g, '":').matchAll(/\{[^{}]*"id":"R2"[^{}]*\}/g)) {
    assert.doesNotMatch(m[0], values, `${where} holds R2's values: ${m[0]}`);
  }
}

// Checks every frame `page` received before the declarations were revealed.
function assertFramesKeptSecret(page, who) {
  let designating = false;
  for (const frame of page.framesReceived) {
    if (frame.includes('"declarations_revealed"')) return;
    designating ||= frame.includes('"PHASE_DECLARE"');
    assertSecretKept(frame, `a frame ${who} received`, { designating });
  }
}

test('two players play a whole asl close combat with the mouse; a spectator follows', async () => {
  const problems = [];
  const ctxA = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const ctxB = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true,
    hasTouch: true });
  const ctxS = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const a = await openPage(ctxA, problems);
  await a.goto(`${server.origin}/`);
  const created = await a.evaluate(async () => {
    const sdk = await import('/sdk/melee.js');
    return sdk.createMatch({ ruleset: 'asl', title: 'Building G3' });
  });
  const link = (role, token) => `${server.origin}/match.html#m=${created.match_id}&as=${role}&t=${token}`;
  await a.goto(link('side_a', created.side_a_token));
  const b = await openPage(ctxB, problems);
  await b.goto(link('side_b', created.side_b_token));
  const s = await openPage(ctxS, problems);
  await s.goto(link('spectator', created.spectator_key));
  const pages = [a, b, s];
  try {
    await play(a, b, s, problems, created);
  } catch (error) {
    // What each page showed when it failed, for whoever reads the log.
    for (const [page, name] of [[a, 'side-a'], [b, 'side-b'], [s, 'spectator']]) {
      await shot(page, `asl-failed-${name}.png`).catch(() => {});
    }
    throw error;
  }
  for (const ctx of [ctxA, ctxB, ctxS]) await ctx.close();
});

async function play(a, b, s, problems, created) {
  const pages = [a, b, s];
  for (const page of pages) await page.locator('#connection[data-state="connected"]').waitFor();

  // ---- set-up: A types a roster (a typo first), B loads a file ----
  await a.locator('#setup-panel').waitFor();
  assert.equal(await s.locator('#setup-panel').isHidden(), true, 'a spectator enters no units');
  await a.getByLabel(/Your units, one a line/).fill('G1: 4-6');
  assert.match(await a.locator('#roster-problem').innerText(), /line 1: '4-6' is not a counter/);
  await a.getByLabel(/Your units, one a line/).fill(ROSTER_A);
  assert.equal(await a.locator('#roster-preview button.counter').count(), 2);
  assert.equal(await a.locator('#roster-problem').innerText(), '');
  await a.getByRole('button', { name: 'Enter these units' }).click();
  await a.locator('#setup-status', { hasText: 'Entered 2 unit(s)' }).waitFor();
  await settle(pages);
  await b.locator('#roster-file').setInputFiles({ name: 'russians.txt', mimeType: 'text/plain',
    buffer: Buffer.from(ROSTER_B) });
  await b.locator('#setup-status', { hasText: 'Loaded russians.txt' }).waitFor();
  await b.getByRole('button', { name: 'Enter these units' }).click();
  await b.locator('#setup-status', { hasText: 'Entered 2 unit(s)' }).waitFor();
  await settle(pages);
  // A sees B's concealed unit as "?" only.
  await a.locator('#board button.counter[data-unit="R2"][data-hidden="true"]').waitFor();
  assert.match(await a.locator('#board button.counter[data-unit="R2"]').getAttribute('aria-label'),
    /R2: side B, concealed unit "\?" — not known/);
  assert.match(await a.locator('#board button.counter[data-unit="L1"]').getAttribute('aria-label'),
    /L1: side A, german leader 8-1, morale 8, leadership -1, stacked on G1/);
  assert.match(await b.locator('#board button.counter[data-unit="R2"]').getAttribute('aria-label'),
    /R2: side B, russian squad 6-2-8, firepower 6, morale 8, concealed/);
  await shot(a, 'asl-1-setup-side-a.png');
  await a.getByRole('button', { name: 'Confirm the set-up' }).click();
  await settle(pages);
  await b.getByRole('button', { name: 'Confirm the set-up' }).click();
  await settle(pages);

  // ---- announce: A (the ATTACKER) first, then B ----
  await a.locator('#announce-panel').waitFor();
  assert.match(await a.locator('#announce-panel').innerText(), /L1 \(8-1\) attacks \(and defends\) alone \(A11\.14\)/);
  await shot(a, 'asl-2-announce-side-a.png');
  await a.getByRole('button', { name: 'Announce nothing' }).click();
  await settle(pages);
  await b.getByRole('button', { name: 'Announce nothing' }).click();
  await settle(pages);

  // ---- declare: A clicks G1 and L1, then R1; a second attack on R1 is refused (A11.12) ----
  await a.locator('#declare-panel').waitFor();
  const counter = (page, id) => page.locator(`#board button.counter[data-unit="${id}"]`);
  await counter(a, 'G1').click();
  await counter(a, 'L1').click();
  await counter(a, 'R1').click();
  assert.equal(await counter(a, 'G1').getAttribute('aria-pressed'), 'true');
  assert.equal(await a.locator('#pick-attackers').innerText(), 'G1 4-6-7 + L1 8-1');
  // The exact odds show while picking: the page draws the server's table for this attack (from
  // side A's view), a bar per result with its exact fraction, and the leader's DRM with its rule.
  await a.locator('#odds-table figure[data-unit="R1"] li').first().waitFor();
  const asked = await fetch(`${server.origin}/api/matches/${created.match_id}/preview`, {
    method: 'POST', headers: { Authorization: `Bearer ${created.side_a_token}` },
    body: JSON.stringify({ attackers: ['G1', 'L1'], targets: ['R1'] }),
  });
  assert.equal(asked.status, 200);
  const table = await asked.json();
  const summary = await a.locator('#odds-status').innerText();
  assert.ok(summary.includes(`odds ${table.column}, Kill # ${table.kill_number} (A11.11)`), summary);
  assert.match(summary, /directed by L1 \(A11\.141\)/);
  assert.match(await a.locator('#odds-table .odds-drms').innerText(), /\(A11\.141\)/);
  const rows = await a.locator('#odds-table figure[data-unit="R1"] .odds-value').allInnerTexts();
  const expected = ['eliminated', 'captured', 'reduced', 'wounded', 'burning', 'immobilized', 'no_effect']
    .map((k) => table.targets[0][k]).filter((p) => Number(p?.percent || 0) > 0)
    .map((p) => `${Number(p.percent).toFixed(2)} % (${p.exact})`);
  assert.deepEqual(rows, expected);
  const total = rows.reduce((sum, r) => sum + Number.parseFloat(r), 0);
  assert.ok(Math.abs(total - 100) < 0.05, `the results add up to ${total} %`);
  // A preview of an attack on the "?" names nothing of it (worked out from A's view alone).
  const onHidden = await fetch(`${server.origin}/api/matches/${created.match_id}/preview`, {
    method: 'POST', headers: { Authorization: `Bearer ${created.side_a_token}` },
    body: JSON.stringify({ attackers: ['G1'], targets: ['R2'] }),
  });
  assertSecretKept(await onHidden.text(), 'a preview of an attack on R2', { designating: true });
  await shot(a, 'asl-3-odds-side-a.png');
  await a.getByRole('button', { name: 'Add this attack' }).click();
  await counter(a, 'R1').click();
  assert.match(await a.locator('#declare-problem').innerText(), /A11\.12: R1 \(4-4-7\) is already attacked/);
  await counter(a, 'G1').click();
  assert.match(await a.locator('#declare-problem').innerText(), /A11\.12: G1 \(4-6-7\) already attacks/);
  assert.match(await a.locator('#draft').innerText(), /Attack 1: G1 4-6-7 \+ L1 8-1 attack R1 4-4-7/);
  await shot(a, 'asl-3-declare-side-a.png');
  await a.getByRole('button', { name: 'Seal 1 attack' }).click();
  await a.locator('#seal-status li[data-who="mine"]', { hasText: 'verified in your browser' }).waitFor();
  await settle(pages);
  // A reload finds the seal again from the events (the receipt itself was the ack's).
  await a.reload();
  await a.locator('#connection[data-state="connected"]').waitFor();
  await a.locator('#seal-status li[data-who="mine"]', { hasText: 'You have sealed your declaration (commitment ' }).waitFor();
  assert.equal(await a.locator('#declare-panel').isHidden(), true, 'nothing left to declare');
  await b.locator('#seal-status', { hasText: 'Side A has sealed its declaration' }).waitFor();
  await s.locator('#seal-status', { hasText: 'Side A has sealed its declaration' }).waitFor();

  // Before the reveal: nothing of R2 in A's or the spectator's page, nor in any frame they got.
  for (const [page, who] of [[a, 'side A'], [s, 'the spectator']]) {
    assertSecretKept(await page.content(), `${who}'s DOM`, { designating: true });
    assertFramesKeptSecret(page, who);
    assert.match(await counter(page, 'R2').getAttribute('aria-label'),
      /R2: side B, concealed unit "\?" — not known, Strength Factor 6 \(A11\.19\)/);
  }

  // ---- B declares at phone width, with the keyboard: R1 and R2 attack G1; the server refuses
  // it with its rule (the 8-1 on G1 defends with it, A11.14), so B attacks the stack ----
  await b.locator('#declare-panel').waitFor();
  const pick = async (ids, { before = async () => {} } = {}) => {
    for (const id of ids) {
      await counter(b, id).focus();
      await b.keyboard.press('Enter');
    }
    await before();
    await b.getByRole('button', { name: 'Add this attack' }).click();
  };
  await pick(['R1', 'R2', 'G1'], { before: async () => {
    // The odds panel says the rules refuse this attack before anything is sealed.
    await b.locator('#odds-status[data-refused="true"]', { hasText: /A11\.14: .*L1.*G1/ }).waitFor();
  } });
  await b.getByRole('button', { name: 'Seal 1 attack' }).click();
  await b.locator('#declare-problem', { hasText: /^Refused — A11\.14: .*L1.*G1/ }).waitFor();
  await shot(b, 'asl-4-declare-side-b-phone-refused.png');
  await b.getByRole('button', { name: 'Remove attack 1' }).click();
  await pick(['R1', 'R2', 'G1', 'L1']);
  assert.match(await b.locator('#draft').innerText(), /Attack 1: R1 4-4-7 \+ R2 6-2-8 attack G1 4-6-7 \+ L1 8-1/);
  await b.getByRole('button', { name: 'Seal 1 attack' }).click();
  // The receipt is checked before the reveal: the reveal's card says so (the Declarations box
  // starts afresh when a Melee goes on into the next CCPh).
  await b.locator('#rolls li', { hasText: 'Your seal’s receipt was verified in your browser' }).waitFor();

  // ---- the reveal and the resolution, and as many Melee rounds as the dice make (A11.15): each
  // seat answers what its page asks — a choice in its dialog, an announcement (nothing), a
  // declaration (every unit it can attack with against every enemy unit; no attack if refused) —
  // until the close combat is over ----
  let choiceShot = false;
  let meleeShot = false;
  const end = performance.now() + 120000;
  // Over means over: a close combat that ends in a Melee shows STAGE_ENDED for a moment, until
  // the server's next batch starts the next CCPh (A11.15); only the last end says "the close
  // combat is over".
  const over = async () => (await visible(a, '#next[data-stage="STAGE_ENDED"]')) &&
    /the close combat is over/.test(await a.locator('#rolls').innerText());
  while (!(await over())) {
    if (performance.now() > end) throw new Error('the close combat did not end');
    for (const page of [a, b]) {
      if (await visible(page, '#choice-dialog[open]')) {
        assert.match(await page.locator('#choice-countdown').innerText(), /\d+:\d\d left to answer|No deadline/);
        assert.match(await page.locator('#choice-default').innerText(), /If you do not answer in time: /);
        if (!choiceShot) {
          await page.screenshot({ path: path.join(screenshotDir(), 'asl-5-choice-dialog.png') });
          choiceShot = true;
        }
        await settle(pages);
        const id = await page.locator('#choice-dialog').getAttribute('data-choice');
        await page.getByRole('button', { name: 'Answer' }).click();
        await page.waitForFunction((answered) => {
          const dialog = document.getElementById('choice-dialog');
          return !dialog.open || dialog.dataset.choice !== answered;
        }, id, { timeout: 10000 });
      } else if (await visible(page, '#announce-panel:not([hidden])')) {
        if (!meleeShot && await visible(page, '#location-facts:has-text("in Melee")')) {
          await shot(page, 'asl-5-melee-announce.png');
          meleeShot = true;
        }
        await settle(pages);
        await page.locator('#announce-submit').click();
        await page.locator('#announce-panel').waitFor({ state: 'hidden', timeout: 10000 });
      } else if (await visible(page, '#declare-panel:not([hidden])')) {
        await settle(pages);
        for (const c of await page.locator('#board button.counter[data-pickable="true"]').all()) await c.click();
        if (await visible(page, '#pick-targets:not(:has-text("none yet"))')) {
          await page.getByRole('button', { name: 'Add this attack' }).click();
        }
        await page.locator('#seal').click();
        if (await page.locator('#declare-problem', { hasText: 'Refused' }).waitFor({ timeout: 1500 })
          .then(() => true, () => false)) {
          await page.getByRole('button', { name: 'Remove attack 1' }).click();
          await page.locator('#seal').click();
        }
        await page.locator('#declare-panel').waitFor({ state: 'hidden', timeout: 10000 });
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await settle(pages);

  // Every frame before the reveal kept the secret, for A and the spectator alike.
  for (const [page, who] of [[a, 'side A'], [s, 'the spectator']]) {
    assertFramesKeptSecret(page, who);
    assert.ok(page.framesReceived.some((f) => f.includes('"declarations_revealed"')),
      `${who} saw the reveal`);
  }
  // The rolls: each CC DR as a coloured and a white die, its purpose, the DRMs and the result.
  for (const page of [a, s]) {
    const rolls = await page.locator('#rolls').innerText();
    // (After an Original 2 a created leader joins the account: "G1 + L1 + G1-ldr attack R1".)
    assert.match(rolls, /Side A: G1 \+ L1[^\n]* attack R1/);
    assert.match(rolls, /Side B: R1 \+ R2[^\n]* attack G1 \+ L1/);
    assert.match(rolls, /A11\.11 CC DR: \d \+ \d = \d+/);
    assert.match(rolls, /odds [^,]+, Kill # \d+/);
    assert.match(rolls, /DRM: −1 leadership[^\n]*\(A11\.141\)/, 'the 8-1 directs: its DRM with its rule');
    assert.match(rolls, /R1: Final DR -?\d+.* vs Kill # \d+ → /);
    assert.match(rolls, /the close combat is over/);
    assert.ok(await page.locator('#rolls svg.die-coloured[aria-label^="coloured die "]').count() >= 2);
    assert.ok(await page.locator('#rolls svg.die-white[aria-label^="white die "]').count() >= 2);
  }
  // After the reveal R2 attacked: it lost its "?" (A11.19), and A's page now shows what it is.
  assert.match(await a.locator('#events').innerText(), /R2/);
  await a.locator('#next', { hasText: 'This close combat is over' }).waitFor();
  await shot(a, 'asl-6-result-side-a.png');
  await shot(s, 'asl-7-spectator.png');
  await shot(b, 'asl-8-result-side-b-phone.png');
  assert.equal(await a.locator('#fair-play.problem').count(), 0);
  assert.match(await a.locator('#fair-play').innerText(), /Checked: [1-9]\d* dice seed/);
  assert.deepEqual(problems, []);
}
