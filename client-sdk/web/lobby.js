// The lobby (index.html): creates a match with POST /api/matches through the SDK and shows its
// four links (two seats, spectator, director) with copy buttons. The tokens live only in this
// page and in sessionStorage (so a reload shows the links again); every link carries its token
// in the fragment, which the browser never sends to a server.

import { createMatch, seatLink } from './sdk/melee.js';

const kStored = 'melee.lobby.created';

const kLinks = [
  { role: 'side_a', key: 'side_a_token', label: 'Side A (attacker) — seat link',
    hint: 'Plays side A. Keep it, or send it to side A’s player.' },
  { role: 'side_b', key: 'side_b_token', label: 'Side B (defender) — seat link',
    hint: 'Plays side B. Send it to side B’s player only.' },
  { role: 'spectator', key: 'spectator_key', label: 'Spectator link',
    hint: 'The public view: no sealed declaration, no concealed unit. Share it freely.' },
  { role: 'director', key: 'director_token', label: 'Director link',
    hint: 'Reads everything, for the tournament director. Keep it private.' },
];

const form = document.getElementById('create-form');
const status = document.getElementById('create-status');
const ruleset = document.getElementById('ruleset');

function showVariant() {
  document.getElementById('variant-field').hidden = ruleset.value !== 'vv';
  document.getElementById('withdrawal-field').hidden = ruleset.value !== 'asl';
}

// Reads "name = value" lines into an options map; throws naming the line that is not one.
function parseOptions(text) {
  const options = {};
  text.split('\n').forEach((line, i) => {
    if (!line.trim() || line.trim().startsWith('#')) return;
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`rules options, line ${i + 1}: write "name = value"`);
    options[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  });
  return options;
}

function settingsFromForm() {
  const data = new FormData(form);
  const settings = {
    ruleset: data.get('ruleset'),
    declaration_order: data.get('declaration_order'),
    declaration_deadline_seconds: Number(data.get('declaration_deadline_seconds') || 0),
    choice_deadline_seconds: Number(data.get('choice_deadline_seconds') || 0),
    options: parseOptions(String(data.get('options') || '')),
  };
  for (const name of ['title', 'tournament_id', 'side_a_name', 'side_b_name']) {
    const value = String(data.get(name) || '').trim();
    if (value) settings[name] = value;
  }
  if (settings.ruleset === 'vv') settings.variant = data.get('variant');
  // The scenario special rule "no voluntary Withdrawal from Melee" (asl option melee_withdrawal);
  // a line in the rules options says it too, and wins.
  if (settings.ruleset === 'asl' && data.get('melee_withdrawal') === 'none' &&
      !('melee_withdrawal' in settings.options)) {
    settings.options.melee_withdrawal = 'none';
  }
  const pace = String(data.get('pace') || '');
  if (pace) settings.pace = { preset: pace, on_expiry: data.get('on_expiry') };
  for (const name of ['declaration_deadline_seconds', 'choice_deadline_seconds']) {
    if (!Number.isInteger(settings[name]) || settings[name] < 0) {
      throw new Error(`${name.replace(/_/g, ' ')}: a whole number of seconds, 0 or more`);
    }
  }
  return settings;
}

async function copy(input, button) {
  const copyStatus = document.getElementById('copy-status');
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(input.value);
    } else {
      input.select();
      if (!document.execCommand('copy')) throw new Error('the browser refused');
    }
    copyStatus.textContent = `Copied: ${button.dataset.label}`;
  } catch (error) {
    input.select();
    copyStatus.textContent = `Could not copy (${error.message}): the link is selected, copy it by hand.`;
  }
}

function showLinks(created) {
  document.getElementById('match-id').textContent = created.match_id;
  const list = document.getElementById('link-list');
  list.replaceChildren();
  const template = document.getElementById('link-template');
  for (const { role, key, label, hint } of kLinks) {
    const item = template.content.firstElementChild.cloneNode(true);
    const url = seatLink(location.origin, created.match_id, role, created[key]);
    const id = `link-${role}`;
    item.dataset.role = role;
    item.querySelector('.link-label').textContent = label;
    item.querySelector('.link-label').htmlFor = id;
    const input = item.querySelector('.link-url');
    input.id = id;
    input.value = url;
    const button = item.querySelector('.copy');
    button.dataset.label = label;
    button.setAttribute('aria-label', `Copy ${label}`);
    button.addEventListener('click', () => copy(input, button));
    const open = item.querySelector('.open');
    open.href = url;
    open.setAttribute('aria-label', `Open ${label} in a new tab`);
    item.querySelector('.link-hint').textContent = hint;
    list.append(item);
  }
  form.closest('section').hidden = true;
  const section = document.getElementById('links');
  section.hidden = false;
  section.querySelector('h2').tabIndex = -1;
  section.querySelector('h2').focus();
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const button = document.getElementById('create');
  let settings;
  try {
    settings = settingsFromForm();
  } catch (error) {
    status.textContent = error.message;
    return;
  }
  button.disabled = true;
  status.textContent = 'Creating the match…';
  try {
    const created = await createMatch(settings);
    sessionStorage.setItem(kStored, JSON.stringify(created));
    status.textContent = '';
    showLinks(created);
  } catch (error) {
    status.textContent = `The server refused: ${error.message}`;
  } finally {
    button.disabled = false;
  }
});

document.getElementById('again').addEventListener('click', () => {
  sessionStorage.removeItem(kStored);
  document.getElementById('links').hidden = true;
  form.closest('section').hidden = false;
  document.getElementById('title').focus();
});

ruleset.addEventListener('change', showVariant);
showVariant();
const stored = sessionStorage.getItem(kStored);
if (stored) showLinks(JSON.parse(stored));
