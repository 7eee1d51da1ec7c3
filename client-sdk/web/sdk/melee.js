// The Melee browser SDK: one match connection on the WebSocket's JSON text frames (the
// protobuf JSON mapping of melee.v1.ClientMessage / ServerMessage, proto field names). It joins a
// seat or spectates, resumes from the last seq after a dropped connection (reconnecting with a
// growing delay), sends match commands with fresh command ids and the expected_seq, checks a
// seal's receipt and every event against the match's dice commitments (fair-play.js).
// Plain ES module, no build step, no dependencies. Documented in docs/web-sdk.md.

import { randomBytes, toBase64, toHex } from './bytes.js';
import { DiceWitness, checkReceipt, cryptoAvailable, sealCommitment } from './fair-play.js';

export { DiceWitness, checkReceipt, cryptoAvailable, sealCommitment };
export { fromBase64, toBase64, toHex } from './bytes.js';
export { ROLES, parseSeatLink, seatLink } from './links.js';

/** A refusal from the server: a melee.v1.Error (code, rule_ref, message, command_id). */
export class MeleeError extends Error {
  constructor(error) {
    const message = error.message || 'refused';
    super(error.rule_ref && !message.startsWith(error.rule_ref)
      ? `${error.rule_ref}: ${message}` : message);
    this.code = error.code || 'ERROR_CODE_UNSPECIFIED';
    this.ruleRef = error.rule_ref || '';
    this.commandId = error.command_id || '';
  }
}

/** The WebSocket URL of the server that served this page (ws:// or wss://, path /ws). */
export function webSocketUrl(pageUrl = globalThis.location) {
  const url = new URL('/ws', pageUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

/**
 * `url` with `matchId` named in its query (?match=<id>): a load balancer in front of several
 * nodes sends every connection of a match to the node that serves it by hashing that
 * (docs/postgresql.md, "Several nodes"); a single server ignores it.
 */
export function matchUrl(url, matchId) {
  const withMatch = new URL(url);
  if (matchId && !withMatch.searchParams.has('match')) withMatch.searchParams.set('match', matchId);
  return withMatch.href;
}

/**
 * Creates a match: POST /api/matches with `settings` (a melee.v1.MatchSettings in JSON: ruleset,
 * variant, options, declaration_order, choice_deadline_seconds, declaration_deadline_seconds,
 * title, tournament_id). Resolves to the MatchCreated (match_id, side_a_token, side_b_token,
 * director_token, spectator_key, ruleset); rejects with a MeleeError naming the problem.
 */
export async function createMatch(settings, { origin = globalThis.location?.origin,
  idempotencyKey = newCommandId() } = {}) {
  const response = await fetch(`${origin}/api/matches`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
    body: JSON.stringify(settings),
    referrerPolicy: 'no-referrer',
  });
  const body = await response.json().catch(() => ({ message: `HTTP ${response.status}` }));
  if (!response.ok) throw new MeleeError(body);
  return body;
}

/** A fresh command id: 128 random bits in hex. */
export function newCommandId() {
  return toHex(randomBytes(16));
}

/** The commands that act on a match: each carries match_id and expected_seq. */
const kMatchCommands = new Set(['seal_declaration', 'make_choice', 'submit_setup',
  'confirm_setup', 'announce', 'flag_for_director', 'order_locations', 'update_units',
  'record_result', 'take_vacation']);

/**
 * One seat's (or a spectator's, or the director's) live connection to one match.
 *
 * Events (an EventTarget; listen with addEventListener, read `event.detail`):
 *   'state'   {state, attempt, delayMs, reason}: 'connecting' | 'connected' | 'reconnecting' |
 *             'closed' (closed: close() was called, or the server refused the seat for good)
 *   'event'   a MatchEvent, each seq once, in order (also those replayed after a resume)
 *   'view'    a MatchView (after joining and after every change)
 *   'joined'  the Joined answer (seat and view)
 *   'refused' a MeleeError the server sent that answers no pending command
 *   'witness' {problem, event}: an event that breaks the match's commitments
 *   'frame'   {direction: 'in' | 'out', text}: every text frame (for logs and tests)
 */
export class MeleeClient extends EventTarget {
  /**
   * @param {object} options
   *   url          the WebSocket URL (default: webSocketUrl() of this page)
   *   matchId      the match
   *   token        the seat token (role side_a/side_b), or the spectator key or director token
   *   role         'side_a' | 'side_b' (JoinSeat) or 'spectator' | 'director' (Spectate)
   *   reconnect    {initialMs: 250, maxMs: 10000, factor: 2}: the delay grows by `factor` after
   *                each failed attempt, up to maxMs, with +-20% jitter
   *   heartbeat    {silentMs: 15000, timeoutMs: 10000}: after silentMs with nothing received the
   *                client pings the server; with no answer timeoutMs later the connection is
   *                taken for dead (half-open: a partition, a sleeping laptop, a NAT that forgot
   *                it) and a new one is opened. silentMs 0: never.
   *   WebSocketImpl  a WebSocket constructor (tests; default: the browser's)
   */
  constructor({ url = webSocketUrl(), matchId, token, role = 'side_a', reconnect = {},
    heartbeat = {}, WebSocketImpl = globalThis.WebSocket } = {}) {
    super();
    if (!matchId) throw new Error('MeleeClient needs a matchId');
    if (!token) throw new Error('MeleeClient needs a token (seat token or spectator key)');
    this.url = url;
    this.matchId = matchId;
    this.role = role;
    this.reconnect = { initialMs: 250, maxMs: 10000, factor: 2, ...reconnect };
    this.heartbeat = { silentMs: 15000, timeoutMs: 10000, ...heartbeat };
    this.WebSocketImpl = WebSocketImpl;
    this.state = 'closed';
    this.lastSeq = 0;        // the last event delivered: a reconnect resumes after it
    this.seat = '';          // from Joined: SEAT_SIDE_A, SEAT_SIDE_B, SEAT_DIRECTOR, SEAT_SPECTATOR
    this.view = null;        // the last MatchView
    this.witness = new DiceWitness();
    this.attempt = 0;
    this.#token = token;
    this.#pending = new Map();  // command id -> {frame, resolve, reject, sealed}
    this.#receipts = new Map(); // seq of this seat's DeclarationSealed -> its receipt (base64)
    this.#checks = Promise.resolve();
  }

  #token;
  #pending;
  #receipts;
  #checks;
  #socket = null;
  #timer = null;
  #beat = null;      // the heartbeat's interval timer (while a socket is open)
  #heardAt = 0;      // when the socket last received anything
  #pingedAt = 0;     // when the heartbeat pinged (0: not since the last thing heard)
  #joinId = '';
  #stopped = false;

  /** Opens the connection and joins; resolves with the first Joined (rejects if refused). */
  connect() {
    this.#stopped = false;
    return new Promise((resolve, reject) => {
      const onJoined = (e) => { cleanup(); resolve(e.detail); };
      const onState = (e) => {
        if (e.detail.state === 'closed') { cleanup(); reject(new Error(e.detail.reason)); }
      };
      const cleanup = () => {
        this.removeEventListener('joined', onJoined);
        this.removeEventListener('state', onState);
      };
      this.addEventListener('joined', onJoined);
      this.addEventListener('state', onState);
      this.#open();
    });
  }

  /** Closes the connection for good (no reconnect). */
  close() {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#beat);
    if (this.#socket) this.#socket.close(1000, 'closed by the page');
    this.#setState('closed', { reason: 'closed by the page' });
  }

  /**
   * Sends match command `kind` (e.g. 'submit_setup', 'confirm_setup', 'announce', 'make_choice')
   * with `body`; match_id and expected_seq (the last seq this client saw) are filled in unless
   * given. Resolves with the answering ServerMessage (an `ack`); rejects with a MeleeError.
   * An unanswered command is sent again, with the same command id, after a reconnect: the
   * server answers a retry with its first answer and never applies it twice.
   */
  command(kind, body = {}) {
    const payload = { ...body };
    if (kMatchCommands.has(kind)) {
      payload.match_id ??= this.matchId;
      payload.expected_seq ??= String(this.lastSeq);
    }
    return this.#send({ [kind]: payload });
  }

  /**
   * Seals `declaration` (a melee.v1.Declaration in JSON) with 32 fresh bytes of client entropy.
   * Resolves with {ack, receipt, problem}: problem is null when the receipt checks out
   * (checkReceipt), else what is wrong with it.
   */
  async seal(declaration) {
    const answer = await this.command('seal_declaration', {
      declaration, client_entropy: toBase64(randomBytes(32)),
    });
    const ack = answer.ack || {};
    // The commitment every viewer was shown for this seal: this seat's last DeclarationSealed
    // up to the ack's seq, when that event has arrived.
    let shown = null;
    for (const [seq, receipt] of this.#receipts) {
      if (seq <= Number(ack.seq || 0)) shown = receipt;
    }
    const problem = await checkReceipt(ack, shown);
    return { ack, receipt: ack.receipt, problem };
  }

  /**
   * The exact outcome preview of what this seat is drafting, worked out by the server from this
   * seat's own view (POST /api/matches/{id}/preview; it tells nothing the view does not). asl:
   * `order` is a melee.asl.v1.AttackOrder ({attackers: ['G1'], targets: ['R1']}) and it resolves
   * with a melee.asl.v1.OutcomeTable; coc: no order, the first round's melee.coc.v1.PreviewTable.
   * Rejects with a MeleeError naming the rule the attack would break (`.ruleRef`).
   */
  async preview(order = {}) {
    const origin = new URL(this.url);
    origin.protocol = origin.protocol === 'wss:' ? 'https:' : 'http:';
    const url = new URL(`/api/matches/${encodeURIComponent(this.matchId)}/preview`, origin);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.#token}` },
      body: JSON.stringify(order),
      referrerPolicy: 'no-referrer',
      cache: 'no-store',
    });
    const body = await response.json().catch(() => ({ message: `HTTP ${response.status}` }));
    if (!response.ok) throw new MeleeError(body);
    return body;
  }

  /**
   * The view this client's viewer had right after event `at` (1..the last seq), made by the
   * server as live views are: GET /api/matches/{id}/replay?at=<at> with the token in the
   * Authorization header. It shows what the rules let this viewer see at that moment and
   * nothing more; `connections` are 0 (live sessions are no part of the log). Resolves with the
   * melee.v1.MatchView; rejects with a MeleeError (an `at` beyond the last event: NOT_FOUND).
   */
  async replayView(at) {
    const origin = new URL(this.url);
    origin.protocol = origin.protocol === 'wss:' ? 'https:' : 'http:';
    const url = new URL(`/api/matches/${encodeURIComponent(this.matchId)}/replay`, origin);
    url.searchParams.set('at', String(at));
    const response = await fetch(url, {
      headers: { Authorization: `Bearer ${this.#token}` },
      referrerPolicy: 'no-referrer',
      cache: 'no-store',
    });
    const body = await response.json().catch(() => ({ message: `HTTP ${response.status}` }));
    if (!response.ok) throw new MeleeError(body);
    return body;
  }

  // ---- the connection -------------------------------------------------------------------------

  #setState(state, detail = {}) {
    this.state = state;
    this.dispatchEvent(new CustomEvent('state', {
      detail: { state, attempt: this.attempt, ...detail },
    }));
  }

  #open() {
    if (this.#stopped) return;
    this.#setState(this.attempt === 0 ? 'connecting' : 'reconnecting', { delayMs: 0 });
    let socket;
    try {
      socket = new this.WebSocketImpl(matchUrl(this.url, this.matchId));
    } catch (error) {
      return this.#retry(`cannot open ${this.url}: ${error.message}`);
    }
    this.#socket = socket;
    socket.onopen = () => {
      this.#heard();
      this.#startHeartbeat(socket);
      // Protocol 2: a view leaves out the forces this connection already holds (#onView puts
      // back those of the view before). Its answer needs no waiting: the server reads in order.
      this.#write(
          {command_id: newCommandId(), hello: {protocol_version: 2, client_name: 'melee.js'}});
      this.#join();
    };
    socket.onmessage = (message) => {
      this.#heard();
      this.#receive(String(message.data));
    };
    socket.onclose = (close) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      clearInterval(this.#beat);
      this.#retry(close.reason || `connection closed (${close.code})`);
    };
  }

  #heard() {
    this.#heardAt = Date.now();
    this.#pingedAt = 0;
  }

  // Pings after heartbeat.silentMs of silence; gives the socket up when the ping goes unanswered.
  #startHeartbeat(socket) {
    clearInterval(this.#beat);
    const { silentMs, timeoutMs } = this.heartbeat;
    if (!(silentMs > 0)) return;
    this.#beat = setInterval(() => {
      if (this.#socket !== socket) return clearInterval(this.#beat);
      const now = Date.now();
      if (this.#pingedAt && now - this.#pingedAt >= timeoutMs) {
        return this.#giveUp(socket, `no answer from the server for ${Math.round(
          (now - this.#heardAt) / 1000)} s`);
      }
      if (!this.#pingedAt && now - this.#heardAt >= silentMs) {
        this.#pingedAt = now;
        // Any frame the server sends proves the connection; the Pong itself is not awaited.
        this.#write({ command_id: newCommandId(), ping: { nonce: String(now) } });
      }
    }, Math.max(50, Math.min(silentMs, timeoutMs) / 4));
  }

  // A connection that went silent: dropped without waiting for a closing handshake that may
  // never come, and a new one opened (unanswered commands are sent again on it).
  #giveUp(socket, reason) {
    clearInterval(this.#beat);
    socket.onclose = null;
    socket.onmessage = null;
    try {
      socket.close(4000, 'heartbeat timeout');
    } catch {
      // already closing
    }
    if (this.#socket === socket) this.#socket = null;
    this.#retry(reason);
  }

  #retry(reason) {
    if (this.#stopped) return;
    const { initialMs, maxMs, factor } = this.reconnect;
    const base = Math.min(maxMs, initialMs * factor ** Math.min(this.attempt, 30));
    const delayMs = Math.round(base * (0.8 + 0.4 * Math.random()));
    this.attempt++;
    this.#setState('reconnecting', { delayMs, reason });
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#open(), delayMs);
  }

  #join() {
    const spectating = this.role === 'spectator' || this.role === 'director';
    this.#joinId = newCommandId();
    const join = spectating
      ? { spectate: { match_id: this.matchId, spectator_key: this.#token,
        after_seq: String(this.lastSeq) } }
      : { join_seat: { match_id: this.matchId, seat_token: this.#token,
        after_seq: String(this.lastSeq) } };
    this.#write({ command_id: this.#joinId, ...join });
  }

  #write(message) {
    const text = JSON.stringify(message);
    this.dispatchEvent(new CustomEvent('frame', { detail: { direction: 'out', text } }));
    this.#socket.send(text);
  }

  #send(message) {
    const commandId = newCommandId();
    const frame = { command_id: commandId, ...message };
    return new Promise((resolve, reject) => {
      this.#pending.set(commandId, { frame, resolve, reject });
      if (this.state === 'connected') this.#write(frame);
    });
  }

  #receive(text) {
    this.dispatchEvent(new CustomEvent('frame', { detail: { direction: 'in', text } }));
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;  // the server sends JSON only; a broken frame is logged by the 'frame' listener
    }
    if (message.event) return this.#onEvent(message.event);
    if (message.view) return this.#onView(message.view);
    const id = message.command_id || '';
    if (id && id === this.#joinId) return this.#onJoinAnswer(message);
    const pending = this.#pending.get(id);
    if (pending) {
      this.#pending.delete(id);
      if (message.error) pending.reject(new MeleeError(message.error));
      else pending.resolve(message);
      return;
    }
    if (message.error) {
      this.dispatchEvent(new CustomEvent('refused', { detail: new MeleeError(message.error) }));
    }
  }

  #onJoinAnswer(message) {
    if (message.error) {
      const error = new MeleeError(message.error);
      const lasting = ['ERROR_CODE_UNAUTHENTICATED', 'ERROR_CODE_NOT_FOUND',
        'ERROR_CODE_PERMISSION_DENIED'].includes(error.code);
      if (lasting) {
        this.#stopped = true;
        this.#socket?.close(1000, 'refused');
        this.#setState('closed', { reason: error.message });
      } else {
        this.#socket?.close(1000, 'retrying');  // e.g. UNAVAILABLE while the server recovers
      }
      return;
    }
    const joined = message.joined || {};
    this.seat = joined.seat || this.seat;
    this.attempt = 0;
    this.#setState('connected');
    this.dispatchEvent(new CustomEvent('joined', { detail: joined }));
    if (joined.view) this.#onView(joined.view);
    for (const { frame } of this.#pending.values()) this.#write(frame);
  }

  #onEvent(event) {
    const seq = Number(event.seq || 0);
    if (seq <= this.lastSeq) return;  // already delivered before a reconnect
    this.lastSeq = seq;
    const sealed = event.declaration_sealed;
    if (sealed && sealed.seat === this.seat) this.#receipts.set(seq, sealed.receipt);
    this.#checks = this.#checks.then(async () => {
      const problem = await this.witness.observe(event);
      if (problem) {
        this.dispatchEvent(new CustomEvent('witness', { detail: { problem, event } }));
      }
    });
    this.dispatchEvent(new CustomEvent('event', { detail: event }));
  }

  #onView(view) {
    if (view.forces_as_before && this.view) {
      // The settings and both forces are as in the view before (protocol 2): pages get whole views.
      const {forces_as_before: _, ...rest} = view;
      view = rest;
      for (const key of ['settings', 'side_a_force', 'side_b_force']) {
        if (key in this.view) view[key] = this.view[key];
      }
    }
    this.view = view;
    this.dispatchEvent(new CustomEvent('view', { detail: view }));
  }

  /** Resolves once every event received so far has been checked by the witness. */
  checked() {
    return this.#checks;
  }
}
