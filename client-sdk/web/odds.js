// The exact outcome table of one asl attack (a melee.asl.v1.OutcomeTable from the server's
// preview, worked out from the seat's own view) drawn as a bar per result and target, each with
// its exact fraction: what the declaring panel shows while a player picks attackers and targets.

const make = (tag, props = {}, text = '') => {
  const element = document.createElement(tag);
  Object.assign(element, props);
  if (text) element.textContent = text;
  return element;
};

const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0');

// The results a target may meet, in the order a player reads them.
const kResults = [
  ['eliminated', 'eliminated', 'bad'],
  ['captured', 'captured (A20.22)', 'bad'],
  ['reduced', 'Casualty Reduction (A11.11)', 'warn'],
  ['wounded', 'wounded (A17.11)', 'warn'],
  ['burning', 'a burning wreck (A11.5)', 'bad'],
  ['immobilized', 'immobilized (A11.5)', 'warn'],
  ['no_effect', 'no effect', 'ok'],
];

const percent = (p) => Number(p?.percent || 0);
const exact = (p) => p?.exact || '0';

/** One line: strengths, odds column and Kill number (or CCV), who directs, what was halved. */
export function oddsSummary(t) {
  const parts = [];
  if (t.vs_vehicle) {
    parts.push(`Close Combat against a vehicle: CCV ${t.kill_number} (A11.5)`);
  } else {
    parts.push(`${t.attack_strength || '0'} FP against ${t.defence_strength || '0'}: odds ` +
      `${t.column || '?'}, Kill # ${t.kill_number} (A11.11)`);
  }
  if (t.director) parts.push(`directed by ${t.director} (A11.141)`);
  for (const h of t.halvings || []) {
    parts.push(`halved: ${h.cause}${h.unit ? ` (${h.unit})` : ''} (${h.rule})`);
  }
  return `${parts.join('; ')}.`;
}

// One result's row: its words, a bar as long as its chance, the percentage and exact fraction.
function resultRow(label, probability, tone) {
  const row = make('li', { className: `odds-row ${tone}` });
  const value = percent(probability);
  row.append(make('span', { className: 'odds-label' }, label));
  const track = make('span', { className: 'odds-track' });
  const bar = make('span', { className: 'odds-bar' });
  bar.style.width = `${Math.min(100, Math.max(0, value))}%`;  // CSSOM: allowed by the CSP
  track.append(bar);
  row.append(track);
  row.append(make('span', { className: 'odds-value' },
    `${value.toFixed(2)} % (${exact(probability)})`));
  row.setAttribute('aria-label', `${label}: ${value.toFixed(2)} percent, exactly ${exact(probability)}`);
  return row;
}

/**
 * The table as elements: the DRMs with their rules, then for each target a bar per possible
 * result (results that cannot happen are left out), then the chances the rules key on an
 * Original 2 or 12. `words(id)` names a unit for a person ("R1 (4-6-7)").
 */
export function oddsTable(t, words) {
  const out = [];
  const drms = t.drms || [];
  out.push(make('p', { className: 'odds-drms' }, drms.length
    ? `DRM: ${drms.map((d) => `${signed(d.value)} ${d.cause} (${d.rule})`).join(', ')}`
    : 'No DRM.'));
  for (const target of t.targets || []) {
    const figure = make('figure', { className: 'odds-target' });
    figure.dataset.unit = target.unit;
    const offset = target.final_dr_offset || 0;
    figure.append(make('figcaption', {}, `${words(target.unit)}: Final DR = Original DR` +
      (offset ? ` ${signed(offset)}` : '')));
    const rows = make('ul', { className: 'plain odds-rows' });
    for (const [field, label, tone] of kResults) {
      if (percent(target[field]) > 0 || (field === 'no_effect' && exact(target[field]) !== '0')) {
        rows.append(resultRow(label, target[field], tone));
      }
    }
    figure.append(rows);
    out.push(figure);
  }
  if (t.close_defense) {
    const rows = make('ul', { className: 'plain odds-rows' });
    for (const r of t.ift_results || []) rows.append(resultRow(r.result, r.probability, 'warn'));
    const figure = make('figure', { className: 'odds-target' });
    figure.append(make('figcaption', {}, 'The sN on the 16-FP IFT column (A11.622)'), rows);
    out.push(figure);
  }
  const also = [];
  if (percent(t.all_eliminated) > 0 && (t.targets || []).length > 1) {
    also.push(`every target eliminated or captured: ${percent(t.all_eliminated).toFixed(2)} %`);
  }
  if (percent(t.original_two) > 0) {
    also.push(`an Original 2 (Infiltration A11.22${t.vs_vehicle ? '' : ', Leader Creation A18.2'}): ` +
      `${percent(t.original_two).toFixed(2)} %`);
  }
  if (percent(t.leader_created) > 0) {
    also.push(`a leader created (A18.2): ${percent(t.leader_created).toFixed(2)} %`);
  }
  if (percent(t.original_twelve) > 0) {
    also.push(`an Original 12 (the targets may Infiltrate, A11.22): ${percent(t.original_twelve).toFixed(2)} %`);
  }
  if (percent(t.atmm_success) > 0) {
    also.push(`the ATMM check succeeds (C13.7): ${percent(t.atmm_success).toFixed(2)} %`);
  }
  if (also.length) out.push(make('p', { className: 'odds-also hint' }, `Also: ${also.join('; ')}.`));
  return out;
}
