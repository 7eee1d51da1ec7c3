// A Chain of Command close combat (rule 17's "In action") played in two browser contexts against
// a real melee-server with its real dice, a spectator following: side A types its roster in
// counter notation (a typo first: the server's reader names its line), side B loads its roster
// file; both see the contact's Units as counters (Teams with figures and weapons, Leaders with
// rank and status), confirm, see the exact odds of the first round, declare with the form (B
// advances if it wins) and seal; until B's declaration is revealed no frame side A or the
// spectator received holds it. Then each seat answers what its page asks (odd hits to place,
// another round's declaration) until the close combat is over, and the round's dice show.
//
// Usage: node coc_play_test.mjs MELEE_SERVER_BINARY [SCREENSHOT_DIR]

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  ServerProcess, launchBrowser, openPage, screenshotDir, serverBinary, settle, shot, visible,
} from './harness.mjs';

const example = (name) => readFileSync(new URL(`../../examples/coc/${name}`, import.meta.url), 'utf8');

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

test('two players fight a coc close combat with forms; a spectator follows', async () => {
  const problems = [];
  const ctxA = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const ctxB = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const ctxS = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const a = await openPage(ctxA, problems);
  await a.goto(`${server.origin}/`);
  const created = await a.evaluate(async () => {
    const sdk = await import('/sdk/melee.js');
    return sdk.createMatch({ ruleset: 'coc', title: 'The farmhouse' });
  });
  const link = (role, token) => `${server.origin}/match.html#m=${created.match_id}&as=${role}&t=${token}`;
  await a.goto(link('side_a', created.side_a_token));
  const b = await openPage(ctxB, problems);
  await b.goto(link('side_b', created.side_b_token));
  const s = await openPage(ctxS, problems);
  await s.goto(link('spectator', created.spectator_key));
  const pages = [a, b, s];
  try {
    // ---- set-up: A types (a typo first), B loads its file ----
    await a.locator('#coc-setup-panel').waitFor();
    assert.equal(await a.locator('#setup-panel').isHidden(), true, 'the asl form is not offered');
    await a.locator('#coc-roster').fill('attacker: side_a\nsoviet_smg: team soviet_team seven\n');
    await a.locator('#coc-roster-problem', { hasText: /your roster:2: / }).waitFor();
    await a.locator('#coc-roster').fill(example('roster-side-a.txt'));
    await a.locator('#coc-roster-preview [data-team="soviet_team"]').waitFor();
    assert.equal(await a.locator('#coc-roster-problem').innerText(), '');
    await a.getByRole('button', { name: 'Enter these Units' }).click();
    await a.locator('#coc-setup-status', { hasText: 'Entered' }).waitFor();
    await b.locator('#coc-roster-file').setInputFiles({ name: 'germans.txt', mimeType: 'text/plain',
      buffer: Buffer.from(example('roster-side-b.txt')) });
    await b.locator('#coc-roster-preview [data-team="german_lmg"]').waitFor();
    await b.getByRole('button', { name: 'Enter these Units' }).click();
    await b.locator('#coc-setup-status', { hasText: 'Entered' }).waitFor();
    await settle(pages);
    // Both sides' Units drawn as counters on every page, read out for screen readers.
    for (const page of pages) {
      await page.locator('#contact-board [data-team="german_rifles"]').waitFor();
      assert.match(await page.locator('#contact-board [data-team="soviet_team"] svg').getAttribute('aria-label'),
        /Team soviet_team: 7 figures, 7 SMG/);
      assert.match(await page.locator('#contact-board [data-team="german_lmg"] svg').getAttribute('aria-label'),
        /Team german_lmg: 3 figures, 1 LMG/);
      assert.match(await page.locator('#contact-board [data-leader="german_jl"] svg').getAttribute('aria-label'),
        /Junior Leader german_jl, wounded, with Team german_lmg/);
      assert.match(await page.locator('#contact-board section[data-side="SEAT_SIDE_A"] h3').innerText(), /Force Morale 9/);
    }
    await shot(a, 'coc-1-setup-side-a.png');
    await a.getByRole('button', { name: 'Confirm the set-up' }).click();
    await settle(pages);
    await b.getByRole('button', { name: 'Confirm the set-up' }).click();
    await settle(pages);

    // ---- declare: the exact odds of the first round, then the form ----
    await a.locator('#coc-declare-panel').waitFor();
    await a.locator('#coc-odds-table li').first().waitFor();
    assert.match(await a.locator('#coc-odds-status').innerText(), /The attacker rolls \d+ Combat Dice, the defender \d+ \(17\.3\)/);
    const odds = await a.locator('#coc-odds-table .odds-value').allInnerTexts();
    assert.equal(odds.length, 3);
    const total = odds.reduce((sum, r) => sum + Number.parseFloat(r), 0);
    assert.ok(Math.abs(total - 100) < 0.05, `the first round's results add up to ${total} %`);
    await shot(a, 'coc-2-declare-side-a.png');
    await b.locator('#coc-declare-panel').waitFor();
    // The step's clock and its default (this match sets no declaration deadline).
    assert.equal(await b.locator('#coc-declare-countdown').innerText(), 'No deadline: take your time.');
    assert.match(await b.locator('#coc-declare-default').innerText(), /Supporting Fire \(17\.2\)/);
    await b.getByLabel('Advance into the loser’s ground if we win (17.5)').check();
    await b.getByRole('button', { name: 'Seal the declaration' }).click();
    await b.locator('#coc-seals li[data-side="SEAT_SIDE_B"]', { hasText: 'verified in your browser' }).waitFor();
    await a.locator('#coc-seals li[data-side="SEAT_SIDE_B"]', { hasText: 'Side B has sealed its declaration' }).waitFor();
    await settle(pages);
    // B's sealed declaration (it advances) reached neither A nor the spectator before the reveal.
    for (const [page, who] of [[a, 'side A'], [s, 'the spectator']]) {
      for (const frame of page.framesReceived) {
        assert.ok(!/"advance":\s*true/.test(frame), `a frame ${who} received holds B's sealed declaration: ${frame}`);
      }
    }
    await a.getByRole('button', { name: 'Seal the declaration' }).click();

    // ---- whatever the dice bring: odd hits to place, another round, until it is over ----
    const end = performance.now() + 90000;
    let placed = false;
    while (!(await visible(a, '#contact-section')) || !((await a.locator('#next').innerText()).includes('This Close Combat is over'))) {
      if (performance.now() > end) throw new Error('the close combat did not end');
      for (const page of [a, b]) {
        if (await visible(page, '#coc-place-panel:not([hidden])')) {
          await settle(pages);
          // The panel may have gone while the pages settled (a slow build): look again.
          if (!(await visible(page, '#coc-place-panel:not([hidden])'))) continue;
          assert.match(await page.locator('#coc-place-hint').innerText(), /odd Kill.*odd Shock.*\(17\.4\.1\)/);
          assert.match(await page.locator('#coc-place-countdown').innerText(), /left to seal|No deadline/);
          if (!placed) await shot(page, 'coc-3-place.png');
          placed = true;
          const round = await page.locator('#coc-place-panel').getAttribute('data-round');
          await page.getByRole('button', { name: 'Seal the placement' }).click();
          // Done when the panel goes, or asks again for the next round at once.
          await page.waitForFunction((was) => {
            const panel = document.getElementById('coc-place-panel');
            return panel.hidden || panel.dataset.round !== was;
          }, round, { timeout: 10000 }).catch(async (error) => {
            throw new Error(`${error.message}; the page says: ${await page.locator('#coc-place-status').innerText()}`);
          });
        } else if (await visible(page, '#coc-declare-panel:not([hidden])')) {
          await settle(pages);
          if (!(await visible(page, '#coc-declare-panel:not([hidden])'))) continue;
          const round = await page.locator('#coc-declare-panel').getAttribute('data-round');
          await page.getByRole('button', { name: 'Seal the declaration' }).click();
          await page.waitForFunction((was) => {
            const panel = document.getElementById('coc-declare-panel');
            return panel.hidden || panel.dataset.round !== was;
          }, round, { timeout: 10000 }).catch(async (error) => {
            throw new Error(`${error.message}; the page says: ${await page.locator('#coc-declare-status').innerText()}`);
          });
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await settle(pages);
    // The round's dice and the result, on every page.
    for (const page of pages) {
      const round = await page.locator('#coc-round').innerText();
      if (!/wins by/.test(round)) console.log(await page.locator('#view-json').textContent());
      assert.match(round, /Side A: \d+ Combat Dice \(17\.3\)/);
      assert.match(round, /wins by \d+|Nobody wins/);
      assert.ok(await page.locator('#coc-round svg.die').count() >= 1);
    }
    assert.ok(a.framesReceived.some((f) => /"advance":\s*true/.test(f)), 'B’s declaration is revealed in the end');
    await shot(a, 'coc-4-over-side-a.png');
    await shot(b, 'coc-5-over-side-b-phone.png');
    await shot(s, 'coc-6-spectator.png');
    assert.deepEqual(problems, []);
  } finally {
    await ctxA.close();
    await ctxB.close();
    await ctxS.close();
  }
});
