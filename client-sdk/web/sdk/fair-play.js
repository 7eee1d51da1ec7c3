// What a browser can check of fair play as events arrive (docs/fair-play.md, docs/web-sdk.md),
// with WebCrypto, apart from the server's code — the same checks as the C++ SDK's
// client-sdk/dice_witness.cc:
//   - a seal's receipt is SHA-256("melee/v2/seal|" || nonce || sealed) with a 32-byte nonce,
//     and it is the commitment every viewer was shown for that seal;
//   - each seed a dice step reveals hashes down to the commitment of the match's first event;
//   - each chain head the server signs verifies (Ed25519) with the key that first event named;
//   - each sealed declaration, when opened, opens the commitment shown when it was sealed.
// WebCrypto's crypto.subtle exists only in a secure context (https://, or http://localhost and
// 127.0.0.1): elsewhere `cryptoAvailable()` is false and the checks say so instead of passing.

import { concat, equalBytes, fromBase64, toHex } from './bytes.js';

const kSealPrefix = new TextEncoder().encode('melee/v2/seal|');

/** Whether this page can run the checks (WebCrypto needs a secure context). */
export function cryptoAvailable() {
  return typeof crypto !== 'undefined' && crypto.subtle !== undefined;
}

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}

/** The commitment of seal scheme 2: SHA-256("melee/v2/seal|" || nonce || sealed). */
export async function sealCommitment(nonce, sealed) {
  return sha256(concat(kSealPrefix, nonce, sealed));
}

/**
 * Checks the CommandAck of a SealDeclaration (JSON mapping: receipt, seal_nonce and sealed in
 * base64). Returns null when the receipt opens, else what is wrong. `shownReceipt` (optional,
 * base64 or bytes) is the receipt the DeclarationSealed event showed every viewer; when given,
 * the two must be the same. What a browser cannot check: that `sealed` is the declaration it
 * sent (that needs protobuf's deterministic encoding); it can show the sealed bytes' length
 * and hash, and `melee verify` checks them against the revealed declaration.
 */
export async function checkReceipt(ack, shownReceipt = null) {
  if (!cryptoAvailable()) return 'cannot be checked here: WebCrypto needs https:// or localhost';
  const nonce = fromBase64(ack.seal_nonce);
  const sealed = fromBase64(ack.sealed);
  const receipt = fromBase64(ack.receipt);
  if (sealed.length === 0) return 'commits to no declaration bytes';
  if (nonce.length !== 32) {
    return `comes with a nonce of ${nonce.length} bytes, not 32: the commitment would not hide ` +
      'the declaration';
  }
  if (!equalBytes(receipt, await sealCommitment(nonce, sealed))) {
    return 'is not SHA-256("melee/v2/seal|" || nonce || declaration): the server committed to ' +
      'something else';
  }
  if (shownReceipt !== null) {
    const shown = typeof shownReceipt === 'string' ? fromBase64(shownReceipt) : shownReceipt;
    if (!equalBytes(shown, receipt)) {
      return 'is not the commitment the other viewers were shown for this seal';
    }
  }
  return null;
}

async function verifyEd25519(key, message, signature) {
  if (key.length !== 32 || signature.length !== 64) return false;
  try {
    const imported = await crypto.subtle.importKey('raw', key, { name: 'Ed25519' }, false,
      ['verify']);
    return await crypto.subtle.verify({ name: 'Ed25519' }, imported, signature, message);
  } catch {
    return false;  // a browser without Ed25519 in WebCrypto, or a malformed key
  }
}

/**
 * Follows one match's events in seq order and checks each against the commitments the match
 * published. `observe(event)` returns null or a sentence naming the event that breaks a
 * commitment. Not safe to feed two events at once: await each (MeleeClient does).
 */
export class DiceWitness {
  constructor() {
    this.knownSeed = null;    // the seed of knownStep (s_0: the match's commitment)
    this.knownStep = 0;
    this.publicKey = null;
    this.fingerprint = '';
    this.stepsChecked = 0;
    this.headsChecked = 0;
    this.sealsChecked = 0;
    this.commitments = { SEAT_SIDE_A: null, SEAT_SIDE_B: null };  // {seq, receipt}
  }

  /** Whether the match's first event was seen (else nothing can be checked). */
  get hasCommitment() {
    return this.knownSeed !== null;
  }

  async checkOpening(at, opening) {
    const seat = opening.seat;
    const who = seat === 'SEAT_SIDE_B' ? 'side_b' : 'side_a';
    if (seat !== 'SEAT_SIDE_A' && seat !== 'SEAT_SIDE_B') {
      return `${at}a sealed declaration is opened for no side`;
    }
    const receipt = fromBase64(opening.receipt);
    const shown = this.commitments[seat];
    if (shown && shown.seq === Number(opening.sealed_seq || 0) &&
        !equalBytes(shown.receipt, receipt)) {
      return `${at}${who}'s declaration is opened against another commitment than the one ` +
        `event ${shown.seq} showed`;
    }
    const nonce = fromBase64(opening.nonce);
    if (nonce.length !== 32 ||
        !equalBytes(await sealCommitment(nonce, fromBase64(opening.sealed)), receipt)) {
      return `${at}${who}'s revealed declaration does not open its commitment of event ` +
        `${opening.sealed_seq}: the server changed a sealed declaration`;
    }
    this.sealsChecked++;
    return null;
  }

  /** Checks `event` (a MatchEvent in the JSON mapping). */
  async observe(event) {
    if (!cryptoAvailable()) return null;
    const seq = Number(event.seq || 0);
    const at = `event ${seq}: `;
    const sealed = event.declaration_sealed;
    if (sealed) {
      if (sealed.seat === 'SEAT_SIDE_A' || sealed.seat === 'SEAT_SIDE_B') {
        this.commitments[sealed.seat] = { seq, receipt: fromBase64(sealed.receipt) };
      }
      if (sealed.opening) {
        const broken = await this.checkOpening(at, sealed.opening);
        if (broken) return broken;
      }
    }
    for (const opening of event.declarations_revealed?.openings || []) {
      const broken = await this.checkOpening(at, opening);
      if (broken) return broken;
    }
    if (event.match_opened) {
      this.knownSeed = fromBase64(event.match_opened.dice_commitment);
      this.knownStep = 0;
      this.publicKey = fromBase64(event.match_opened.server_public_key);
      this.fingerprint = toHex(await sha256(this.publicKey)).slice(0, 16);
      return null;
    }
    if (!this.hasCommitment) return null;
    const step = Number(event.dice_step || 0);
    if (step !== 0) {
      if (step <= this.knownStep) return `${at}dice step ${step} after step ${this.knownStep}`;
      const revealed = fromBase64(event.revealed_seed);
      let down = revealed;
      for (let k = step; k > this.knownStep; k--) down = await sha256(down);
      if (!equalBytes(down, this.knownSeed)) {
        return `${at}the seed revealed for dice step ${step} does not hash to the match's ` +
          'commitment: the server broke its commitment';
      }
      this.knownSeed = revealed;
      this.knownStep = step;
      this.stepsChecked++;
    }
    const head = event.head_signed;
    if (head) {
      const message = new TextEncoder().encode(
        `melee/v1/head|${event.match_id}|${Number(head.seq || 0)}|` +
        toHex(fromBase64(head.hash)));
      if (!await verifyEd25519(this.publicKey, message, fromBase64(head.signature))) {
        return `${at}the server's signature of the head after event ${Number(head.seq || 0)} ` +
          `does not verify with its key ${this.fingerprint}`;
      }
      this.headsChecked++;
    }
    return null;
  }
}
