// Seat links: where a match's page is and which seat it opens. The token rides in the URL
// fragment (after '#'), which a browser never sends to a server: it reaches no access log and
// no Referer header. Format: /match.html#m=<match id>&as=<role>&t=<token>, role one of
// side_a, side_b, spectator, director.

export const ROLES = ['side_a', 'side_b', 'spectator', 'director'];

/** Returns the link (absolute URL) that opens `role` of match `matchId` with `token`. */
export function seatLink(origin, matchId, role, token) {
  if (!ROLES.includes(role)) throw new Error(`unknown role "${role}" (one of ${ROLES.join(', ')})`);
  const fragment = new URLSearchParams({ m: matchId, as: role, t: token });
  return `${origin}/match.html#${fragment}`;
}

/** Reads a link's fragment ("#m=..&as=..&t=.."): {matchId, role, token}; token may be "". */
export function parseSeatLink(hash) {
  const params = new URLSearchParams(String(hash || '').replace(/^#/, ''));
  const matchId = params.get('m') || '';
  const role = params.get('as') || '';
  if (!matchId) throw new Error('the link names no match (its fragment has no "m=")');
  if (!ROLES.includes(role)) {
    throw new Error(`the link names no seat: "as=" must be one of ${ROLES.join(', ')}`);
  }
  return { matchId, role, token: params.get('t') || '' };
}
