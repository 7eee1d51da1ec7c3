// The web SDK's fair-play checks in a real browser against real server events: two SDK clients
// (side A and side B) play an asl close combat through to its end; side A's seal receipt
// verifies, a tampered receipt is flagged; every revealed dice seed and the server's signed head
// verify in the witness, and tampered copies of them are flagged. Side A's page, open beside,
// reports the same checks. A screenshot of it goes to $MELEE_SCREENSHOTS.
//
// Usage: node fair_play_test.mjs MELEE_SERVER_BINARY [SCREENSHOT_DIR]

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { ServerProcess, launchBrowser, openPage, screenshotDir, serverBinary } from './harness.mjs';

const UNITS_A = {
  location: { name: 'G3' }, attacker: 'SEAT_SIDE_A',
  units: [{ id: 'G1', owner: 'SEAT_SIDE_A', kind: 'UNIT_KIND_SQUAD', name: '4-6-7',
    firepower: 4, morale: 7 }],
};
const UNITS_B = {
  units: [
    { id: 'R1', owner: 'SEAT_SIDE_B', kind: 'UNIT_KIND_SQUAD', name: '4-4-7', firepower: 4,
      morale: 7 },
    { id: 'R2', owner: 'SEAT_SIDE_B', kind: 'UNIT_KIND_SQUAD', name: '4-4-7', firepower: 4,
      morale: 7, concealed: true },
  ],
};

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

// Runs in the page: plays the close combat with two SDK clients and returns what was checked.
async function playInPage({ unitsA, unitsB }) {
  const sdk = await import('/sdk/melee.js');
  const created = await sdk.createMatch({ ruleset: 'asl', title: 'fair play' });
  const open = async (role, token) => {
    const client = new sdk.MeleeClient({ matchId: created.match_id, token, role });
    client.events = [];
    client.addEventListener('event', (e) => client.events.push(e.detail));
    client.problems = [];
    client.addEventListener('witness', (e) => client.problems.push(e.detail.problem));
    // Protocol 2: views that left the forces out on the wire, and whether every view the SDK
    // handed out was whole (both forces, once they had units; no forces_as_before).
    client.forcesLeftOut = 0;
    client.wholeViews = true;
    client.addEventListener('frame', (e) => {
      if (e.detail.direction === 'in' && e.detail.text.includes('"forces_as_before":true')) {
        client.forcesLeftOut++;
      }
    });
    client.addEventListener('view', (e) => {
      const both = e.detail.side_a_force?.length > 0 && e.detail.side_b_force?.length > 0;
      if ((client.hadForces && !both) || 'forces_as_before' in e.detail) client.wholeViews = false;
      if (both) client.hadForces = true;
    });
    await client.connect();
    return client;
  };
  const a = await open('side_a', created.side_a_token);
  const b = await open('side_b', created.side_b_token);
  const until = async (what, ok, ms = 20000) => {
    const end = performance.now() + ms;
    while (!ok()) {
      if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  // Both clients see every event before either sends the next command (expected_seq).
  const step = async (client, kind, body) => {
    const answer = await client.command(kind, body);
    const seq = Number(answer.ack.seq);
    await until(`seq ${seq}`, () => a.lastSeq >= seq && b.lastSeq >= seq);
    return answer;
  };
  await step(a, 'submit_setup', { asl: unitsA });
  await step(b, 'submit_setup', { asl: unitsB });
  await step(a, 'confirm_setup');
  await step(b, 'confirm_setup');
  await step(a, 'announce', { asl: {} });
  await step(b, 'announce', { asl: {} });
  const sealA = await a.seal({ attacks: [{ attacker_ids: ['G1'], target_ids: ['R1'] }] });
  await until('side B to see the seal', () => b.lastSeq >= Number(sealA.ack.seq));
  const sealB = await b.seal({ attacks: [{ attacker_ids: ['R1', 'R2'], target_ids: ['G1'] }] });
  // Choices (an Original 2 or 12) are answered with the first option until the CC ends.
  const answered = new Set();
  const refusals = [];
  await until('the end of the close combat', () => {
    for (const client of [a, b]) {
      for (const e of client.events) {
        const c = e.choice_requested;
        const mine = c && c.seat === client.seat && !answered.has(c.choice_id);
        if (mine && client.lastSeq === Math.max(a.lastSeq, b.lastSeq)) {
          answered.add(c.choice_id);
          client.command('make_choice', { choice_id: c.choice_id,
            selected: (c.options || []).slice(0, Math.max(1, c.min_selected || 0)) })
            .catch((error) => {
              // Both sides may owe a choice at once: an answer sent on a seq the other's answer
              // just passed is refused as stale, and is sent again.
              if (error.code === 'ERROR_CODE_STALE') answered.delete(c.choice_id);
              else refusals.push(`${c.rule_ref} choice ${c.choice_id}: ${error.message}`);
            });
        }
      }
    }
    return a.events.some((e) => e.head_signed);
  }, 30000);
  await a.checked();
  await b.checked();

  // Tampered receipts are flagged.
  const flip = (base64) => {
    const bytes = sdk.fromBase64(base64);
    bytes[0] ^= 1;
    return sdk.toBase64(bytes);
  };
  const tampered = {
    receipt: await sdk.checkReceipt({ ...sealA.ack, receipt: flip(sealA.ack.receipt) }),
    sealed: await sdk.checkReceipt({ ...sealA.ack, sealed: flip(sealA.ack.sealed) }),
    nonce: await sdk.checkReceipt({ ...sealA.ack,
      seal_nonce: sdk.toBase64(sdk.fromBase64(sealA.ack.seal_nonce).slice(1)) }),
    shown: await sdk.checkReceipt(sealA.ack, flip(sealA.ack.receipt)),
  };
  // A fresh witness over the same events passes; tampered seeds and signatures are flagged.
  const replay = async (events) => {
    const witness = new sdk.DiceWitness();
    for (const e of events) {
      const problem = await witness.observe(e);
      if (problem) return problem;
    }
    return null;
  };
  const seeded = a.events.findIndex((e) => Number(e.dice_step || 0) > 0);
  const signed = a.events.findIndex((e) => e.head_signed);
  const swap = (index, change) => a.events.map((e, i) => (i === index ? change(structuredClone(e)) : e));
  const witnessTampered = {
    clean: await replay(a.events),
    seed: await replay(swap(seeded, (e) => ({ ...e, revealed_seed: flip(e.revealed_seed) }))),
    signature: await replay(swap(signed, (e) => {
      e.head_signed.signature = flip(e.head_signed.signature);
      return e;
    })),
    opening: await replay(a.events.map((e) => {
      if (!e.declarations_revealed) return e;
      const copy = structuredClone(e);
      for (const o of copy.declarations_revealed.openings || []) o.sealed = flip(o.sealed);
      return copy;
    })),
  };
  const result = {
    matchId: created.match_id, tokenA: created.side_a_token,
    sealA: sealA.problem, sealB: sealB.problem, receipt: sealA.receipt,
    steps: a.witness.stepsChecked, heads: a.witness.headsChecked, seals: a.witness.sealsChecked,
    stepsB: b.witness.stepsChecked, problems: [...a.problems, ...b.problems, ...refusals],
    tampered, witnessTampered, crypto: sdk.cryptoAvailable(),
    forcesLeftOut: [a.forcesLeftOut, b.forcesLeftOut], wholeViews: [a.wholeViews, b.wholeViews],
  };
  a.close();
  b.close();
  return result;
}

test('receipts and the dice witness check out on real events; tampering is flagged', async () => {
  const problems = [];
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await openPage(context, problems);
  await page.goto(`${server.origin}/`);
  const r = await page.evaluate(playInPage, { unitsA: UNITS_A, unitsB: UNITS_B });

  assert.equal(r.crypto, true, 'WebCrypto is there on http://127.0.0.1');
  assert.equal(r.sealA, null, `side A's receipt: ${r.sealA}`);
  assert.equal(r.sealB, null, `side B's receipt: ${r.sealB}`);
  assert.equal(r.tampered.receipt, 'is not SHA-256("melee/v2/seal|" || nonce || declaration): ' +
    'the server committed to something else');
  assert.match(r.tampered.sealed, /committed to something else/);
  assert.match(r.tampered.nonce, /nonce of 31 bytes/);
  assert.match(r.tampered.shown, /not the commitment the other viewers were shown/);
  assert.deepEqual(r.problems, []);
  assert.ok(r.steps >= 1, `dice seeds checked: ${r.steps}`);
  assert.equal(r.stepsB, r.steps);
  assert.ok(r.heads >= 1, `signed heads checked: ${r.heads}`);
  assert.ok(r.seals >= 2, `both openings checked at the reveal: ${r.seals}`);
  assert.equal(r.witnessTampered.clean, null);
  assert.match(r.witnessTampered.seed, /does not hash to the match's commitment/);
  assert.match(r.witnessTampered.signature, /signature of the head .* does not verify/);
  assert.match(r.witnessTampered.opening, /does not open its commitment/);
  // Protocol 2: most views came without the forces the connection held, and the SDK handed out
  // whole views all the same.
  for (const left of r.forcesLeftOut) assert.ok(left >= 3, `views without forces: ${left}`);
  assert.deepEqual(r.wholeViews, [true, true]);

  // Side A's page follows the same match from its first event and reports the same checks.
  const seat = await openPage(context, problems);
  await seat.goto(`${server.origin}/match.html#m=${r.matchId}&as=side_a&t=${r.tokenA}`);
  await seat.waitForFunction(() => /Checked: [1-9]\d* dice seed/.test(document.getElementById('fair-play').textContent));
  const fair = await seat.locator('#fair-play').innerText();
  assert.match(fair, /signature\(s\) of the server \(key [0-9a-f]{16}\), [2-9]\d* opened seal/);
  assert.match(await seat.locator('#events').innerText(), /A11\.11 CC DR: \d/);
  await seat.screenshot({ path: path.join(screenshotDir(), 'seat-a-after-combat.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});
