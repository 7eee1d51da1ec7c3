// A whole Valor & Victory close assault (rule 15's own example: three German 4-6-5 squads and
// Schmidt assault Coleman's Americans in building C1) played in two browser contexts against a
// real melee-server with its real dice, a spectator following: side A types its roster (a typo
// first: the server's reader names its line), side B loads its roster file; both see every unit
// as a vv counter and confirm; side B seals its defence (Coleman's modifier, the LMG, a Grenades
// counter) and until side A has sealed too, no frame side A or the spectator received and
// nothing on their pages holds any of it; side A declares its assault group by clicking
// counters (a pinned squad is refused with 14.7), sees that the server gives no vv odds (501)
// and seals; every page shows the reveal's DR as dice with its DRMs, the Kill Number's
// modifiers with their rules and the result; each seat applies its Casualty Points with the form
// (a sealed allocation kept secret from the others until both are revealed) until the close
// assault is over. A second match plays the PC edition, where the best leaders and the
// Casualty Points are the engine's.
//
// Usage: node vv_play_test.mjs MELEE_SERVER_BINARY [SCREENSHOT_DIR]

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';

import {
  ServerProcess, launchBrowser, openPage, serverBinary, settle, shot, visible,
} from './harness.mjs';

const example = (name) => readFileSync(new URL(`../../examples/vv/${name}`, import.meta.url), 'utf8');

// Side A: the example's roster, and a pinned fourth squad that may not assault (14.7).
const ROSTER_A = `${example('roster-side-a.txt')}G4: 4-6-5 squad "Rifle" pinned\n`;
// Side B: the example's roster with a Grenades counter in its pool.
const ROSTER_B = `${example('roster-side-b.txt')}grenades: 1\n`;

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

async function openMatch(settings, viewports) {
  const problems = [];
  const contexts = [];
  const pages = [];
  for (const viewport of viewports) {
    const phone = viewport.width < 500;
    const ctx = await browser.newContext({ viewport, ...(phone ? { isMobile: true, hasTouch: true } : {}) });
    contexts.push(ctx);
    pages.push(await openPage(ctx, problems));
  }
  await pages[0].goto(`${server.origin}/`);
  const created = await pages[0].evaluate(async (s) => {
    const sdk = await import('/sdk/melee.js');
    return sdk.createMatch(s);
  }, settings);
  const link = (role, token) => `${server.origin}/match.html#m=${created.match_id}&as=${role}&t=${token}`;
  const roles = [['side_a', created.side_a_token], ['side_b', created.side_b_token],
    ['spectator', created.spectator_key]];
  for (let i = 0; i < pages.length; i += 1) await pages[i].goto(link(...roles[i]));
  for (const page of pages) await page.locator('#connection[data-state="connected"]').waitFor();
  return { pages, contexts, problems };
}

// Side B's sealed defence, as it could show in a frame or on a page.
const kDefenceInFrames = [/"leader":\s*"Coleman"/, /"grenades":\s*true/, /"uses"/, /"declare":\s*\{[^}]/];
const kDefenceOnPage = [/leader Coleman \(15\.3\)/, /US-SQ uses a Grenades/, /US-HS fires/];

function assertNothingOf(texts, patterns, where) {
  for (const text of texts) {
    for (const pattern of patterns) {
      assert.doesNotMatch(text, pattern, `${where} holds a sealed secret: ${text.slice(0, 400)}`);
    }
  }
}

async function pageText(page) {
  return [await page.locator('body').innerText(), await page.locator('main').innerHTML()];
}

// Enters a roster by typing it and submits it.
async function enterRoster(page, text) {
  await page.getByLabel(/Your units in the close assault, one a line/).fill(text);
  await page.locator('#vv-roster-preview button.counter').first().waitFor();
  await page.getByRole('button', { name: 'Enter these units' }).click();
  await page.locator('#vv-setup-status', { hasText: 'Entered' }).waitFor();
}

test('two players play a whole vv close assault (board edition); a spectator follows', async () => {
  const { pages, contexts, problems } = await openMatch(
    { ruleset: 'vv', variant: 'board', title: 'Building C1', declaration_deadline_seconds: 900 },
    [{ width: 1100, height: 900 }, { width: 390, height: 844 }, { width: 1100, height: 900 }]);
  const [a, b, s] = pages;
  try {
    // ---- set-up: A types (a typo first), B loads its file ----
    await a.locator('#vv-setup-panel').waitFor();
    assert.equal(await a.locator('#setup-panel').isHidden(), true, 'the asl form is not offered');
    assert.equal(await s.locator('#vv-setup-panel').isHidden(), true, 'a spectator enters no units');
    await a.getByLabel(/Your units in the close assault, one a line/).fill('attacker: side_a\nG1: 4-6\n');
    await a.locator('#vv-roster-problem', { hasText: /your roster:2: '4-6' is not a counter/ }).waitFor();
    await enterRoster(a, ROSTER_A);
    assert.equal(await a.locator('#vv-roster-preview button.counter').count(), 5);
    assert.match(await a.locator('#vv-roster-read').innerText(), /Read 5 units; Side A assaults, from B1, into C1, 1 Grenades counter/);
    await b.locator('#vv-roster-file').setInputFiles({ name: 'americans.txt', mimeType: 'text/plain',
      buffer: Buffer.from(ROSTER_B) });
    await b.locator('#vv-setup-status', { hasText: 'Loaded americans.txt' }).waitFor();
    await b.getByRole('button', { name: 'Enter these units' }).click();
    await b.locator('#vv-setup-status', { hasText: 'Entered 3 units' }).waitFor();
    await settle(pages);
    // Every unit as a vv counter on every page, read out for screen readers; nothing is hidden.
    for (const page of pages) {
      await page.locator('#vv-board [data-hex="target"] button.counter[data-unit="Coleman"]').waitFor();
      assert.match(await page.locator('#vv-board button.counter[data-unit="US-HS"]').getAttribute('aria-label'),
        /US-HS: side B half squad 2-6-2, Rifle, APFP 2, Casualty Rating 2, with LMG \(M1919A6 3-6 \(L\)\), APFP 3, Light machine gun, in C1/);
      assert.match(await page.locator('#vv-board button.counter[data-unit="Schmidt"]').getAttribute('aria-label'),
        /Schmidt: side A leader 1-3-1, APFP 1, Casualty Rating 1, Leadership Modifier −1, in B1/);
      assert.match(await page.locator('#vv-board button.counter[data-unit="G4"]').getAttribute('aria-label'),
        /reduces to a half squad of APFP 2, CR 2, pinned \(14\.7\)/);
      assert.match(await page.locator('#vv-facts').innerText(), /Board game edition · Side A assaults · from B1 · into C1 · cover terrain \+3/);
    }
    await shot(a, 'vv-1-setup-side-a.png');
    await a.getByRole('button', { name: 'Confirm the set-up' }).click();
    await settle(pages);
    await b.getByRole('button', { name: 'Confirm the set-up' }).click();
    await settle(pages);

    // ---- B seals its defence: Coleman, the LMG, a Grenades counter ----
    await b.locator('#vv-declare-panel').waitFor();
    assert.match(await b.locator('#next').innerText(), /Your turn: declare your defence/);
    assert.equal(await b.locator('#vv-leader').inputValue(), 'Coleman', 'the best leader is offered first');
    assert.equal(await b.locator('select[name="weapon"][data-unit="US-HS"]').inputValue(), 'LMG');
    await b.getByLabel(/uses a Grenades counter \(12\.52\): −1 to the Kill Number/).nth(1).check();
    assert.match(await b.locator('#vv-declare-total').innerText(),
      /Your APFP as declared: 11 \(US-HS 5 \+ US-SQ 5 \+ Coleman 1\)\. Kill Number −1 leader Coleman \(15\.3\), −1 Grenades \(12\.52\)\./);
    await b.locator('#vv-odds-status', { hasText: /501 not supported/ }).waitFor();
    await shot(b, 'vv-2-declare-side-b-phone.png');
    await b.getByRole('button', { name: 'Seal the defence' }).click();
    await b.locator('#vv-seals li[data-side="SEAT_SIDE_B"]', { hasText: 'verified in your browser' }).waitFor();
    await a.locator('#vv-seals li[data-side="SEAT_SIDE_B"]', { hasText: /Side B has sealed its declaration \(commitment .+…\): it stays secret/ }).waitFor();
    await s.locator('#vv-seals li[data-side="SEAT_SIDE_B"]', { hasText: 'Side B has sealed its declaration' }).waitFor();
    await settle(pages);
    // Until A seals, nothing of B's defence reached A or the spectator: no frame, nothing shown.
    for (const [page, who] of [[a, 'side A'], [s, 'the spectator']]) {
      assertNothingOf(page.framesReceived, kDefenceInFrames, `a frame ${who} received`);
      assertNothingOf(await pageText(page), kDefenceOnPage, `the page of ${who}`);
      assert.equal(await page.locator('[data-declaration]').count(), 0);
    }

    // ---- A declares by clicking its counters ----
    await a.locator('#vv-declare-panel').waitFor();
    assert.match(await a.locator('#next').innerText(), /Your turn: declare your close assault — click the units that assault/);
    assert.match(await a.locator('#vv-declare-countdown').innerText(), /^1[45]:\d\d left to seal$/);
    assert.match(await a.locator('#vv-declare-default').innerText(), /the assault is called off/);
    await a.locator('#vv-odds-status', { hasText: /No odds here: the server does not preview a vv close assault \(it answers 501 not supported\)\. The Kill Number and the DR depend on what the defender seals/ }).waitFor();
    assert.match(await a.locator('#vv-odds-server').innerText(), /The server’s words: “not supported: a preview of a vv close assault/);
    assert.deepEqual(await a.locator('#vv-kill-table td').allInnerTexts(), ['3', '4', '5', '6', '8', '9', '10']);
    for (const id of ['G1', 'G2', 'G3', 'Schmidt']) {
      await a.locator(`#vv-board button.counter[data-unit="${id}"]`).click();
      assert.equal(await a.locator(`#vv-board button.counter[data-unit="${id}"]`).getAttribute('aria-pressed'), 'true');
    }
    await a.locator('#vv-board button.counter[data-unit="G4"]').click();
    assert.match(await a.locator('#vv-declare-problem').innerText(), /14\.7: G4 is pinned and unable to perform any action/);
    await a.getByLabel(/uses a Grenades counter \(12\.52\): −1 to the assault DR/).first().check();
    assert.equal(await a.locator('#vv-leader').inputValue(), 'Schmidt');
    assert.match(await a.locator('#vv-declare-total').innerText(),
      /Your APFP as declared: 13 \(G1 4 \+ G2 4 \+ G3 4 \+ Schmidt 1\)\. Assault DR −1 leader Schmidt \(15\.3\), −1 Grenades \(12\.52\)\./);
    await shot(a, 'vv-3-declare-side-a.png');
    await a.getByRole('button', { name: 'Seal the assault (4 units)' }).click();

    // ---- the reveal: the declarations, the DR as dice, its DRMs, the Kill Number, the result ----
    for (const page of pages) {
      await page.locator('#vv-rolls li[data-kind="EVENT_KIND_ASSAULT_RESOLVED"]').waitFor();
      const revealed = await page.locator('#vv-rolls li[data-kind="EVENT_KIND_DECLARATIONS_REVEALED"]').innerText();
      assert.match(revealed, /Side A: assault group G1 \+ G2 \+ G3 \+ Schmidt; leader Schmidt \(15\.3\); G1 uses a Grenades counter \(12\.52\)/);
      assert.match(revealed, /Side B: every unit in the hex defends \(15\.1\); leader Coleman \(15\.3\); US-HS fires LMG; US-SQ uses a Grenades counter/);
      assert.match(revealed, /Side A expends 1 Grenades/);
      const card = page.locator('#vv-rolls li[data-kind="EVENT_KIND_ASSAULT_RESOLVED"]');
      const text = await card.innerText();
      assert.match(text, /Assault: G1 4 \(4 inherent\) \+ G2 4 .* = 13 APFP/, 'the page counted what the server counts');
      assert.match(text, /Defence: US-HS 5 \(2 inherent \+ 3 LMG\) .* = 11 APFP/);
      assert.match(text, /15\.6: 13 to 11 → odds 1-1, Kill # 6 −1 leader Coleman \(15\.3\), −1 defending Grenades \(12\.52\) = 4/);
      assert.match(text, /15\.7 close assault DR: \d \+ \d = \d+/);
      assert.match(text, /DRM: −1 leader Schmidt \(15\.3\), −1 Grenades \(12\.52\) → Final DR -?\d+ (≤|>) Kill # 4/);
      assert.match(text, /The assault (succeeds|fails by \d+)/);
      assert.match(text, /Side A suffers \d+ Casualty Points?: .*\(15\.8\)/);
      // The DR's coloured and white die (valor checks after a natural 2 follow with their own).
      const dr = card.locator('.dice-row').first();
      assert.match(await dr.innerText(), /15\.7 close assault DR/);
      assert.equal(await dr.locator('svg.die-coloured').count(), 1);
      assert.equal(await dr.locator('svg.die-white').count(), 1);
    }
    await a.locator('#vv-rolls .receipt').waitFor();

    // ---- Casualty Points, until the close assault is over ----
    const end = Date.now() + 60000;
    let shown = false;
    while (!(await a.locator('#next').innerText()).includes('This close assault is over')) {
      if (Date.now() > end) throw new Error('the close assault did not end');
      await settle(pages);
      const owing = [];
      for (const page of [b, a]) if (await visible(page, '#vv-allocate-panel:not([hidden])')) owing.push(page);
      for (const page of owing) {
        await page.getByRole('button', { name: 'Suggest one' }).click();
        assert.match(await page.locator('#vv-allocate-total').innerText(), /Fulfils \d+ of \d+ Casualty Points? .*— enough\./);
        if (!shown) await shot(page, page === a ? 'vv-4-allocate-side-a.png' : 'vv-4-allocate-side-b-phone.png');
        shown = true;
        await page.getByRole('button', { name: 'Seal the allocation' }).click();
        await page.locator('#vv-allocate-panel').waitFor({ state: 'hidden', timeout: 10000 }).catch(async (error) => {
          throw new Error(`${error.message}; the page says: ${await page.locator('#vv-allocate-status').innerText()}`);
        });
        if (owing.length === 2 && page === b) {
          // B's allocation is sealed, A's not yet: nothing of it reached A or the spectator.
          await settle(pages);
          for (const [other, who] of [[a, 'side A'], [s, 'the spectator']]) {
            assertNothingOf(other.framesReceived, [/"actions"/, /CP_ACTION_KIND/], `a frame ${who} received`);
            assert.equal(await other.locator('#vv-rolls li[data-kind="EVENT_KIND_ALLOCATIONS_REVEALED"]').count(), 0);
          }
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await settle(pages);
    for (const page of pages) {
      const rolls = await page.locator('#vv-rolls').innerText();
      assert.match(rolls, /The close assault is over/);
      assert.match(rolls, /Side A applies \d+ Casualty Points? \(14\.61\)/);
      assert.match(await page.locator('#next').innerText(), /This close assault is over — Side [AB] holds C1/);
    }
    const fair = await a.locator('#fair-play').innerText();
    assert.match(fair, /Checked: [1-9]\d* dice seed\(s\)/);
    await shot(a, 'vv-5-result-side-a.png');
    await shot(s, 'vv-6-spectator.png');
    await shot(b, 'vv-7-result-side-b-phone.png');
    assert.deepEqual(problems, []);
  } catch (error) {
    for (const [page, name] of [[a, 'side-a'], [b, 'side-b'], [s, 'spectator']]) {
      await shot(page, `vv-failed-${name}.png`).catch(() => {});
    }
    throw error;
  } finally {
    for (const ctx of contexts) await ctx.close();
  }
});

test('the PC edition: the best leaders and the Casualty Points are the engine’s', async () => {
  const { pages, contexts, problems } = await openMatch({ ruleset: 'vv', variant: 'pc', title: 'C1 (PC)' },
    [{ width: 1100, height: 900 }, { width: 390, height: 844 }]);
  const [a, b] = pages;
  try {
    await enterRoster(a, example('roster-side-a.txt'));
    await enterRoster(b, example('roster-side-b.txt'));
    await settle(pages);
    await a.getByRole('button', { name: 'Confirm the set-up' }).click();
    await settle(pages);
    await b.getByRole('button', { name: 'Confirm the set-up' }).click();
    await settle(pages);
    for (const page of pages) {
      await page.locator('#vv-declare-panel').waitFor();
      assert.equal(await page.locator('#vv-leader-field').isHidden(), true, 'no leader to pick in the PC edition');
      assert.match(await page.locator('#vv-leader-pc').innerText(), /PC edition: the best leader .* chosen automatically \(15\.3\)/);
    }
    assert.match(await a.locator('#vv-facts').innerText(), /PC game edition/);
    await b.getByRole('button', { name: 'Seal the defence' }).click();
    await b.locator('#vv-declare-panel').waitFor({ state: 'hidden' });
    for (const id of ['G1', 'G2', 'G3', 'Schmidt']) await a.locator(`#vv-board button.counter[data-unit="${id}"]`).click();
    await a.getByRole('button', { name: 'Seal the assault (4 units)' }).click();
    // No allocation is asked: the engine applies the Casualty Points and says so.
    await a.locator('#next', { hasText: 'This close assault is over' }).waitFor();
    await settle(pages);
    for (const page of pages) {
      const rolls = await page.locator('#vv-rolls').innerText();
      assert.match(rolls, /15\.3 \(pc: best leader\)/);
      assert.match(rolls, /The close assault is over/);
      if (/The assault fails/.test(rolls)) assert.match(rolls, /pc edition: Casualty Points allocated automatically/);
      assert.equal(await page.locator('#vv-allocate-panel').isHidden(), true);
    }
    await shot(b, 'vv-8-pc-result-side-b-phone.png');
    assert.deepEqual(problems, []);
  } finally {
    for (const ctx of contexts) await ctx.close();
  }
});
