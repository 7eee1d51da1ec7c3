// The match page's roster reader (client-sdk/web/roster.js) in Node, no browser: the asl
// counters it understands become the SideSetup the C++ codec makes of the same lines
// (proto/codec/notation.cc), and what it does not understand is refused by name and line.
//
// Usage: node roster_test.mjs

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { readRoster } from '../../client-sdk/web/roster.js';

const example = (name) => readFileSync(new URL(`../../examples/asl/${name}`, import.meta.url), 'utf8');

test('the example rosters read as the codec reads them', () => {
  assert.deepEqual(readRoster(example('roster-side-a.txt'), 'side_a'), {
    attacker: 'SEAT_SIDE_A',
    location: { name: '11.141 EX (Open Ground)' },
    units: [
      { id: 'G1', owner: 'SEAT_SIDE_A', kind: 'UNIT_KIND_SQUAD', name: '4-6-7', firepower: 4,
        morale: 7, nationality: 'NATIONALITY_GERMAN' },
      { id: 'L1', owner: 'SEAT_SIDE_A', kind: 'UNIT_KIND_LEADER', name: '8-1', morale: 8,
        leadership: -1, stacked_on: 'G1', nationality: 'NATIONALITY_GERMAN' },
    ],
  });
  const b = readRoster(example('roster-side-b.txt'), 'side_b');
  assert.deepEqual(b.units.map((u) => [u.id, u.owner, u.name, u.nationality]), [
    ['R1', 'SEAT_SIDE_B', '4-4-7', 'NATIONALITY_RUSSIAN'],
    ['R2', 'SEAT_SIDE_B', '4-4-7', 'NATIONALITY_RUSSIAN']]);
});

test('the common counters, classes and status words', () => {
  const { units } = readRoster(`
    H1: 2-4-7 HS broken
    H2: HS of 4-6-7 pinned
    C1: 2-2-8 crew CX
    L2: 9-2 leader wounded "Kessler"
    X1: 1-4-9 hero
    R2: 6-2-8 assault engineers ? with LMG, MMG +DC bpv=12
    D1: dummy`, 'side_a');
  const by = Object.fromEntries(units.map((u) => [u.id, u]));
  assert.deepEqual(by.H1, { id: 'H1', owner: 'SEAT_SIDE_A', kind: 'UNIT_KIND_HALF_SQUAD',
    name: '2-4-7', firepower: 2, morale: 7, broken: true });
  assert.equal(by.H2.firepower, 2, 'HS of 4-6-7: FP / 2 (A7.302)');
  assert.equal(by.H2.name, '4-6-7', 'the printed counter, as the codec names it');
  assert.equal(by.C1.cx, true);
  // A17.11: a wounded 9-2 plays as ML 8, leadership -1; the counter stays as printed.
  assert.deepEqual([by.L2.name, by.L2.morale, by.L2.leadership, by.L2.wounds], ['9-2 Kessler', 8, -1, 1]);
  assert.equal(by.X1.kind, 'UNIT_KIND_HERO');
  assert.deepEqual([by.R2.assault_engineer, by.R2.concealed, by.R2.support_weapons, by.R2.bpv],
    [true, true, ['LMG', 'MMG', 'DC'], 12]);
  assert.deepEqual(by.D1, { id: 'D1', owner: 'SEAT_SIDE_A', kind: 'UNIT_KIND_DUMMY', concealed: true });
});

test('a two-sided roster gives each side its own section; JSON passes through', () => {
  const both = 'location: G3 woods-or-building\nattacker: side_b\nside: side_a\nG1: 4-6-7\nside: side_b\nR1: 4-4-7\n';
  assert.deepEqual(readRoster(both, 'side_b').units.map((u) => u.id), ['R1']);
  assert.deepEqual(readRoster(both, 'side_a').location, { name: 'G3', woods_or_building: true });
  assert.throws(() => readRoster('side: side_b\nR1: 4-4-7', 'side_a'), /no units of side a: is it the other side's\?/);
  const json = { units: [{ id: 'G1', owner: 'SEAT_SIDE_A', kind: 'UNIT_KIND_SQUAD' }] };
  assert.deepEqual(readRoster(JSON.stringify(json), 'side_a'), json);
});

test('what the page cannot read is refused by line, with the rule where there is one', () => {
  const message = (text) => {
    try {
      readRoster(text, 'side_a');
    } catch (error) {
      return error.message;
    }
    return 'no error';
  };
  assert.match(message('G1: 4-6'), /^line 1: '4-6' is not a counter/);
  assert.match(message('\nG1: 4-6-7 elite'), /^line 2: 'elite': the CC rules have no elite class/);
  assert.match(message('G1: 4-6-7 hs-fp=2'), /the page does not read 'hs-fp=2'.*melee submit --setup/);
  assert.match(message('T1: vehicle PzIVJ'), /the page does not read/);
  assert.match(message('G1: 4-6-7 wounded'), /A17\.11: 'wounded': only a SMC is wounded/);
  assert.match(message('G1: 4-6-7 on G2'), /A11\.14: 'on G2': only a SMC is stacked on an MMC/);
  assert.match(message('G1: 8-1'), /a leader's ML-leadership: add the word leader/);
  assert.match(message('ruleset: coc\nG1: 4-6-7'), /a coc roster, not asl/);
  assert.match(message('G1 4-6-7'), /write 'ID: counter'/);
  assert.match(message('# nothing'), /no units/);
});
