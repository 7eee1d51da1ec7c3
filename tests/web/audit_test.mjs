// The director's audit page against a real melee-server: two SDK clients play a whole asl close
// combat with the server's real dice (Alice and Bob, two squads a side, every choice answered)
// and both agree on the result; the director opens the match page, follows "Audit this match",
// and the audit page says the file verifies, draws a histogram per roll purpose and player whose
// every bar is the server's own /audit count (adding up to the rolls, the exact fair-dice count
// marked on each), the response times, deadlines, connections and the timeline; both downloads
// arrive (the match file parses, the ratings CSV is the report's). The director token is in no
// URL the page requests. A seat's page offers no audit link, and a seat's token or the spectator
// key gets 403. A doctored answer shows the page's "does NOT verify" banner. Screenshots at
// desktop and phone width go to $MELEE_SCREENSHOTS.
//
// Usage: node audit_test.mjs MELEE_SERVER_BINARY [SCREENSHOT_DIR]

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';

import { ServerProcess, launchBrowser, openPage, serverBinary, shot } from './harness.mjs';

const squad = (id, owner, name, firepower) => ({
  id, owner, kind: 'UNIT_KIND_SQUAD', name, firepower, morale: 7,
});
const UNITS_A = {
  location: { name: 'G3' }, attacker: 'SEAT_SIDE_A',
  units: [squad('G1', 'SEAT_SIDE_A', '4-6-7', 4), squad('G2', 'SEAT_SIDE_A', '4-6-7', 4)],
};
const UNITS_B = {
  units: [squad('R1', 'SEAT_SIDE_B', '4-4-7', 4), squad('R2', 'SEAT_SIDE_B', '4-4-7', 4)],
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

// Runs in a page: creates the match and plays its close combat to the end with two SDK clients
// (side A's two squads attack side B's, and side B's attack back); returns the tokens.
async function playInPage({ unitsA, unitsB }) {
  const sdk = await import('/sdk/melee.js');
  const created = await sdk.createMatch({ ruleset: 'asl', title: 'Alice v Bob',
    side_a_name: 'Alice', side_b_name: 'Bob' });
  const open = async (role, token) => {
    const client = new sdk.MeleeClient({ matchId: created.match_id, token, role });
    client.events = [];
    client.addEventListener('event', (e) => client.events.push(e.detail));
    await client.connect();
    return client;
  };
  const a = await open('side_a', created.side_a_token);
  const b = await open('side_b', created.side_b_token);
  const until = async (what, ok, ms = 30000) => {
    const end = performance.now() + ms;
    while (!ok()) {
      if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const step = async (client, kind, body) => {
    const answer = await client.command(kind, body);
    const seq = Number(answer.ack.seq);
    await until(`seq ${seq}`, () => a.lastSeq >= seq && b.lastSeq >= seq);
  };
  await step(a, 'submit_setup', { asl: unitsA });
  await step(b, 'submit_setup', { asl: unitsB });
  await step(a, 'confirm_setup');
  await step(b, 'confirm_setup');
  await step(a, 'announce', { asl: {} });
  await step(b, 'announce', { asl: {} });
  const sealA = await a.seal({ attacks: [{ attacker_ids: ['G1'], target_ids: ['R1'] },
    { attacker_ids: ['G2'], target_ids: ['R2'] }] });
  await until('side B to see the seal', () => b.lastSeq >= Number(sealA.ack.seq));
  await b.seal({ attacks: [{ attacker_ids: ['R1'], target_ids: ['G1'] },
    { attacker_ids: ['R2'], target_ids: ['G2'] }] });
  // Choices (an Original 2 or 12, a capture) are answered with the first options until the CC
  // is over (the server signs its head).
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
              if (error.code === 'ERROR_CODE_STALE') answered.delete(c.choice_id);
              else refusals.push(`${c.rule_ref} choice ${c.choice_id}: ${error.message}`);
            });
        }
      }
    }
    return a.events.some((e) => e.head_signed);
  });
  a.close();
  b.close();
  return { created, refusals };
}

async function api(method, path, token, body) {
  const response = await fetch(`${server.origin}${path}`, {
    method,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: await response.json() };
}

// What the page draws: per player group, per figure, its bars.
function readCharts(page) {
  return page.$$eval('.dice-player', (groups) => groups.map((group) => ({
    player: group.dataset.player,
    heading: group.querySelector('h3').textContent,
    tests: [...group.querySelectorAll('figure.dice-test')].map((figure) => ({
      purpose: figure.dataset.purpose,
      shape: figure.dataset.shape,
      rolls: Number(figure.dataset.rolls),
      words: figure.querySelector('.verdict-words').textContent,
      labelled: [...figure.querySelectorAll('g.bar')].every((bar) =>
        bar.getAttribute('aria-label') && bar.querySelector('title')?.textContent),
      bars: [...figure.querySelectorAll('g.bar')].map((bar) => ({
        outcome: Number(bar.dataset.outcome),
        count: Number(bar.dataset.count),
        expected: Number(bar.dataset.expected),
      })),
    })),
  })));
}

test('the director audits a real asl match; seats cannot', async () => {
  const problems = [];
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 },
    acceptDownloads: true });
  const player = await openPage(context, problems);
  await player.goto(`${server.origin}/`);
  const played = await player.evaluate(playInPage, { unitsA: UNITS_A, unitsB: UNITS_B });
  assert.deepEqual(played.refusals, []);
  const { created } = played;
  const id = created.match_id;
  // Both players agree: side A won.
  for (const token of [created.side_a_token, created.side_b_token]) {
    const recorded = await api('POST', `/api/matches/${id}/result`, token,
      { outcome: 'RESULT_OUTCOME_SIDE_A_WON' });
    assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
  }
  await player.close();

  // The server's own report, for the director.
  const { status, body: report } = await api('GET', `/api/matches/${id}/audit`,
    created.director_token);
  assert.equal(status, 200, JSON.stringify(report));
  assert.equal(report.verified, true, report.verification);

  // A seat's page offers no audit link; a seat's token and the spectator key are refused.
  const seat = await openPage(context, problems);
  await seat.goto(`${server.origin}/match.html#m=${id}&as=side_a&t=${created.side_a_token}`);
  await seat.locator('#connection[data-state="connected"]').waitFor();
  assert.equal(await seat.locator('#audit-line').isHidden(), true);
  assert.equal(await seat.locator('a[href^="audit.html"]:visible').count(), 0);
  assert.equal(await seat.getByText('Audit this match').isVisible(), false);
  for (const token of [created.side_a_token, created.side_b_token]) {
    const refused = await api('GET', `/api/matches/${id}/audit`, token);
    assert.equal(refused.status, 403);
    assert.match(refused.body.message, /the audit is the director's/);
  }
  const spectator = await api('GET', `/api/matches/${id}/audit`, created.spectator_key);
  assert.equal(spectator.status, 403);
  assert.match(spectator.body.message, /the spectator key only watches the match/);
  assert.equal((await api('GET', `/api/matches/${id}/audit`, '')).status, 401);
  // A seat's link on the audit page is turned away before anything is requested.
  const seatAudit = await openPage(context, problems);
  const seatRequests = [];
  seatAudit.on('request', (request) => seatRequests.push(request.url()));
  await seatAudit.goto(`${server.origin}/audit.html#m=${id}&as=side_a&t=${created.side_a_token}`);
  await seatAudit.locator('#problem').waitFor();
  assert.match(await seatAudit.locator('#problem').innerText(), /the audit is the director's/);
  assert.ok(!seatRequests.some((url) => url.includes('/api/')), seatRequests.join('\n'));
  await seat.close();
  await seatAudit.close();

  // The director: the match page, then its link to the audit page.
  const director = await openPage(context, problems);
  const requested = [];
  director.on('request', (request) => requested.push(request.url()));
  await director.goto(`${server.origin}/match.html#m=${id}&as=director&t=${created.director_token}`);
  await director.locator('#connection[data-state="connected"]').waitFor();
  const link = director.locator('#audit-link');
  await link.waitFor();
  assert.equal(await link.innerText(), 'Audit this match');
  await link.click();
  await director.waitForURL(/\/audit\.html#m=/);
  await director.locator('body[data-audited="true"]').waitFor();

  // The banner: it verifies.
  assert.equal(await director.locator('#verdict').getAttribute('data-verified'), 'true');
  assert.equal(await director.locator('#verdict-title').innerText(), 'This match file verifies.');
  assert.match(await director.locator('#verdict-detail').innerText(), /^OK/);
  const facts = await director.locator('#facts').innerText();
  assert.match(facts, /Alice/);
  assert.match(facts, /Bob/);
  assert.match(facts, /agreed by both players/);

  // Every chart's bars are the server's counts, adding up to the rolls.
  const charts = await readCharts(director);
  assert.equal(charts.length, 4);
  const dealt = [];
  for (const [b, dice] of report.dice.entries()) {
    const group = charts[b];
    assert.equal(group.player, dice.player);
    const tests = Number(dice.all_dice.rolls) ? [...dice.by_purpose, dice.all_dice] : [];
    assert.equal(group.tests.length, tests.length, `${dice.player}: one chart per test`);
    for (const [t, want] of tests.entries()) {
      const got = group.tests[t];
      const where = `${dice.player} ${want.purpose}`;
      assert.equal(got.purpose, want.purpose);
      assert.equal(got.shape, want.shape);
      assert.equal(got.labelled, true, `${where}: every bar labelled`);
      assert.deepEqual(got.bars.map((bar) => bar.count), want.counts.map(Number), where);
      assert.deepEqual(got.bars.map((bar) => bar.outcome),
        want.counts.map((_, i) => Number(want.lowest) + i), where);
      for (const [i, bar] of got.bars.entries()) {
        assert.ok(Math.abs(bar.expected - want.expected[i]) < 1e-9, `${where}: expected ${i}`);
      }
      const sum = got.bars.reduce((total, bar) => total + bar.count, 0);
      assert.equal(sum, Number(want.rolls), `${where}: the bars add up to the rolls`);
      assert.equal(got.rolls, Number(want.rolls));
      assert.ok(got.words.includes(want.verdict), `${where}: ${got.words}`);
      if (!want.judged) assert.match(got.words, /too few dice to judge/);
      if (want.purpose === 'all dice') dealt.push(sum);
    }
  }
  // Side A's and side B's dice (and nobody's) make up the whole match's.
  const whole = Number(report.dice[3].all_dice.rolls);
  assert.ok(whole > 0);
  assert.equal(dealt.at(-1), whole);
  assert.equal(report.dice.slice(0, 3).reduce((n, d) => n + Number(d.all_dice.rolls), 0), whole);
  assert.ok(charts[0].tests.some((t) => t.purpose === 'A11.11 CC DR' && t.shape === 'DR'));

  // Response times, deadlines, connections, the timeline.
  for (const timing of report.timing) {
    const rows = await director.locator(`.seat-timing[data-seat="${timing.seat}"] tbody tr`).count();
    assert.equal(rows, timing.responses.length, timing.seat);
    assert.ok(rows > 0);
  }
  assert.equal(await director.locator('#deadlines li[data-missed="0"]').count(), 2);
  const connections = await director.locator('#connections').innerText();
  assert.match(connections, /Side A — Alice: \d+ connections?, \d+ clean close/);
  assert.equal(await director.locator('#timeline tbody tr').count(), report.timeline.length);

  // The downloads.
  const [csv] = await Promise.all([director.waitForEvent('download'),
    director.click('#download-csv')]);
  assert.equal(csv.suggestedFilename(), `${id}-aslpr.csv`);
  const csvText = await readFile(await csv.path(), 'utf8');
  assert.equal(csvText, report.aslpr_csv);
  assert.match(csvText, /^Tournament ID,Round,Round Date,Scenario,Player 1,/);
  assert.match(csvText, new RegExp(`,Alice,Attacker,,Win,Bob,Defender,,Loss,\\d{4}-\\d\\d-\\d\\d,${id}\\r\\n$`));
  const [file] = await Promise.all([director.waitForEvent('download'),
    director.click('#download-file')]);
  assert.equal(file.suggestedFilename(), `${id}-director.melee.json`);
  const matchFile = JSON.parse(await readFile(await file.path(), 'utf8'));
  assert.equal(matchFile.match_id, id);
  assert.equal(matchFile.exported_for, 'director');
  assert.equal(matchFile.events.length, report.timeline.length);
  await director.locator('#download-status', { hasText: 'Saved' }).waitFor();
  await shot(director, 'audit-1-desktop.png');

  // The token went in no URL the page requested, and is not in the address bar.
  assert.ok(!director.url().includes(created.director_token));
  for (const url of requested) assert.ok(!url.includes(created.director_token), url);
  assert.ok(requested.some((url) => url.endsWith(`/api/matches/${id}/audit`)));
  await context.close();

  // At phone width, opened from a director link straight to the audit page.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const small = await openPage(phone, problems);
  await small.goto(`${server.origin}/audit.html#m=${id}&as=director&t=${created.director_token}`);
  await small.locator('body[data-audited="true"]').waitFor();
  assert.ok(!small.url().includes('t='), 'the fragment loses its token at once');
  assert.equal(await small.evaluate(() => document.documentElement.scrollWidth <= 390), true,
    'nothing sticks out sideways at 390 px');
  await shot(small, 'audit-2-phone.png');

  // A file that does not verify (the server's answer doctored here): the banner says so.
  await small.route('**/api/matches/*/audit', async (route) => {
    const answer = await route.fetch();
    const doctored = { ...(await answer.json()), verified: false, failed_seq: '7',
      failure: "the hash of event 7 does not chain from event 6's" };
    await route.fulfill({ response: answer, json: doctored });
  });
  await small.click('#reload');
  await small.locator('#verdict[data-verified="false"]').waitFor();
  assert.equal(await small.locator('#verdict-title').innerText(),
    'This match file does NOT verify.');
  assert.match(await small.locator('#verdict-detail').innerText(),
    /^event 7: the hash of event 7 does not chain/);
  await shot(small, 'audit-3-not-verified-phone.png');
  await phone.close();
  assert.deepEqual(problems, []);
});
