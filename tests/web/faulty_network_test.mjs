// The web client over a faulty network: side A's page and side B's page each reach a real
// melee-server through their own fault-injecting TCP proxy (tests/testing/fault_proxy, a real
// process on loopback), and play an asl close combat with the browser SDK while the proxies reset
// connections in the middle of commands, delay and trickle every byte, and hold a connection
// half-open (a partition that closes nothing: only the client's heartbeat can notice it). Both
// pages end with every event once, in order; the server's log has each command once. Side A's
// match page, open through the proxy during a partition, says it lost the connection and comes
// back by itself; screenshots of both.
//
// Usage: node faulty_network_test.mjs MELEE_SERVER_BINARY [SCREENSHOT_DIR] [MELEE_CLI] FAULT_PROXY

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';

import { ServerProcess, launchBrowser, openPage, serverBinary, shot } from './harness.mjs';

const UNITS_A = {
  location: { name: 'G3' }, attacker: 'SEAT_SIDE_A',
  units: [{ id: 'G1', owner: 'SEAT_SIDE_A', kind: 'UNIT_KIND_SQUAD', name: '4-6-7',
    firepower: 4, morale: 7 }],
};
const UNITS_B = {
  units: [{ id: 'R1', owner: 'SEAT_SIDE_B', kind: 'UNIT_KIND_SQUAD', name: '4-4-7',
    firepower: 4, morale: 7 }],
};

/** A fault_proxy process in front of the server; faults are lines on its stdin. */
class Proxy {
  constructor(binary, upstream) {
    this.child = spawn(binary, ['--upstream', String(upstream)], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.out = '';
    this.waiters = [];
    this.child.stdout.on('data', (chunk) => {
      this.out += chunk;
      this.waiters = this.waiters.filter((w) => !w());
    });
  }

  #until(pattern) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fault_proxy: no ${pattern} in ${this.out}`)), 10000);
      const check = () => {
        const found = pattern.exec(this.out);
        if (!found) return false;
        this.out = this.out.slice(found.index + found[0].length);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      if (!check()) this.waiters.push(check);
    });
  }

  async start() {
    this.port = Number((await this.#until(/listening on (\d+)\n/))[1]);
    this.origin = `http://127.0.0.1:${this.port}`;
  }

  /** Sends one fault line and waits for its "ok". */
  async do(line) {
    this.child.stdin.write(`${line}\n`);
    const answer = await this.#until(/(ok|error: [^\n]*)\n/);
    assert.equal(answer[1], 'ok', `fault_proxy refused '${line}'`);
  }

  async stats() {
    this.child.stdin.write('stats\n');
    const found = await this.#until(/connections (\d+) cuts (\d+)\n/);
    await this.#until(/ok\n/);
    return { connections: Number(found[1]), cuts: Number(found[2]) };
  }

  stop() {
    this.child.stdin.end();
  }
}

let server;
let browser;
let proxyA;
let proxyB;
const problems = [];

before(async () => {
  server = new ServerProcess(serverBinary());
  await server.start();
  const proxyBinary = process.argv[5] || process.env.MELEE_FAULT_PROXY;
  assert.ok(proxyBinary, 'give the fault_proxy binary as the fourth argument');
  proxyA = new Proxy(proxyBinary, server.port);
  proxyB = new Proxy(proxyBinary, server.port);
  await proxyA.start();
  await proxyB.start();
  browser = await launchBrowser();
});

after(async () => {
  proxyA?.stop();
  proxyB?.stop();
  await browser?.close();
  await server?.dispose();
});

// In a page: a browser-SDK client of one seat, with a quick heartbeat and quick reconnections,
// recording every event and state it reports.
async function openSeat(page, { matchId, token, role }) {
  await page.evaluate(async ({ matchId, token, role }) => {
    const sdk = await import('/sdk/melee.js');
    const client = new sdk.MeleeClient({ matchId, token, role,
      heartbeat: { silentMs: 400, timeoutMs: 600 }, reconnect: { initialMs: 50, maxMs: 400 } });
    client.events = [];
    client.states = [];
    client.addEventListener('event', (e) => client.events.push(e.detail));
    client.addEventListener('state', (e) => client.states.push(e.detail.state));
    window.seat = client;
    await client.connect();
  }, { matchId, token, role });
}

const lastSeqOf = (page) => page.evaluate(() => window.seat.lastSeq);

async function until(what, ok, ms = 20000) {
  const end = performance.now() + ms;
  while (!(await ok())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// Sends a command from `page`'s seat (resolves with its ack's seq); `seal` seals a declaration.
function send(page, kind, body) {
  return page.evaluate(async ({ kind, body }) => {
    const answer = kind === 'seal' ? await window.seat.seal(body)
      : await window.seat.command(kind, body);
    return Number(answer.ack.seq);
  }, { kind, body });
}

test('two pages play a close combat through resets, a trickle and a partition', async () => {
  const created = await (await fetch(`${server.origin}/api/matches`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ruleset: 'asl', title: 'faulty network' }),
  })).json();
  assert.ok(created.match_id, JSON.stringify(created));
  const context = await browser.newContext();
  const pageA = await openPage(context, problems);
  const pageB = await openPage(context, problems);
  await pageA.goto(`${proxyA.origin}/`);
  await pageB.goto(`${proxyB.origin}/`);
  await openSeat(pageA, { matchId: created.match_id, token: created.side_a_token, role: 'side_a' });
  await openSeat(pageB, { matchId: created.match_id, token: created.side_b_token, role: 'side_b' });
  const both = async (seq) => until(`seq ${seq} on both pages`,
    async () => (await lastSeqOf(pageA)) >= seq && (await lastSeqOf(pageB)) >= seq);

  // A reset in the middle of side A's set-up: sent, then every connection of A's proxy reset.
  let pending = send(pageA, 'submit_setup', { asl: UNITS_A });
  await proxyA.do('reset');
  await both(await pending);
  // Side B's set-up and confirmation over a slow network: 40 ms late, a few bytes at a time.
  await proxyB.do('delay 40');
  await proxyB.do('trickle on');
  await both(await send(pageB, 'submit_setup', { asl: UNITS_B }));
  await both(await send(pageA, 'confirm_setup'));
  await both(await send(pageB, 'confirm_setup'));
  await proxyB.do('delay 0');
  await proxyB.do('trickle off');
  // A partition while side A announces: nothing reaches either end and nothing closes; A's
  // heartbeat notices, its reconnections go nowhere until the network heals, then the
  // announcement goes through once.
  await proxyA.do('blackhole');
  pending = send(pageA, 'announce', { asl: {} });
  await until('side A to notice the partition',
    () => pageA.evaluate(() => window.seat.states.includes('reconnecting')), 10000);
  await new Promise((r) => setTimeout(r, 800));
  await proxyA.do('heal');
  await both(await pending);
  await both(await send(pageB, 'announce', { asl: {} }));
  // Both seals, each with a reset right behind it.
  pending = send(pageB, 'seal', { attacks: [{ attacker_ids: ['R1'], target_ids: ['G1'] }] });
  await proxyB.do('reset');
  await both(await pending);
  pending = send(pageA, 'seal', { attacks: [{ attacker_ids: ['G1'], target_ids: ['R1'] }] });
  await proxyA.do('reset');
  await both(await pending);
  // The dice decide the rest: choices (an Original 2 or 12) answered with their first option
  // until the close combat's end is signed.
  await until('the end of the close combat', async () => {
    for (const page of [pageA, pageB]) {
      await page.evaluate(() => {
        const seat = window.seat;
        seat.answered ??= new Set();
        for (const e of seat.events) {
          const c = e.choice_requested;
          if (!c || c.seat !== seat.seat || seat.answered.has(c.choice_id)) continue;
          seat.answered.add(c.choice_id);
          seat.command('make_choice', { choice_id: c.choice_id,
            selected: (c.options || []).slice(0, Math.max(1, c.min_selected || 0)) })
            .catch((error) => { if (error.code === 'ERROR_CODE_STALE') seat.answered.delete(c.choice_id); });
        }
      });
    }
    return pageA.evaluate(() => window.seat.events.some((e) => e.head_signed));
  }, 30000);

  // What each page received: every event once, in order, up to the same last one.
  const last = Math.max(await lastSeqOf(pageA), await lastSeqOf(pageB));
  await both(last);
  for (const page of [pageA, pageB]) {
    const seqs = await page.evaluate(() => window.seat.events.map((e) => Number(e.seq)));
    assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1),
      'every event once, in order');
    assert.ok(seqs.length >= last);
  }
  // The server's log, read by the director straight from the server: each command once.
  const director = await openPage(context, problems);
  await director.goto(`${server.origin}/`);
  await openSeat(director, { matchId: created.match_id, token: created.director_token,
    role: 'director' });
  await until('the director to have the whole log', async () => (await lastSeqOf(director)) >= last);
  const kinds = await director.evaluate(() => {
    const count = {};
    for (const e of window.seat.events) {
      for (const key of ['setup_submitted', 'setup_confirmed', 'declaration_sealed',
        'declarations_revealed']) {
        if (e[key]) count[key] = (count[key] || 0) + 1;
      }
    }
    return count;
  });
  assert.deepEqual(kinds, { setup_submitted: 2, setup_confirmed: 2, declaration_sealed: 2,
    declarations_revealed: 1 }, 'each command applied once');
  const statsA = await proxyA.stats();
  assert.ok(statsA.connections >= 4, `side A reconnected (${JSON.stringify(statsA)})`);

  // What a player sees: side A's match page, through the proxy, during a partition (its
  // default heartbeat: 15 s of silence, then 10 s for an answer), and after.
  const link = `${proxyA.origin}/match.html#m=${created.match_id}&as=side_a&t=${created.side_a_token}`;
  const page = await openPage(context, problems);
  await page.setViewportSize({ width: 900, height: 900 });
  await page.goto(link);
  await until('the match page to show the match', async () => (await page.locator('#summary')
    .innerText()).includes(`#${last}`), 15000);
  await proxyA.do('blackhole');
  await until('the page to say the connection is lost', async () =>
    /Connection lost/.test(await page.locator('body').innerText()), 40000);
  await shot(page, 'faulty-network-partition.png');
  await proxyA.do('heal');
  await until('the page to come back', async () =>
    !/Connection lost/.test(await page.locator('body').innerText()), 20000);
  await shot(page, 'faulty-network-healed.png');
  await context.close();
  assert.deepEqual(problems, []);
});
