// Bytes as the JSON text frames carry them: protobuf's JSON mapping writes `bytes` fields as
// base64 (standard or URL-safe alphabet, padding optional). Plain functions, no dependencies.

/** Decodes base64 (standard or URL-safe, padded or not) into a Uint8Array. */
export function fromBase64(text) {
  const standard = String(text || '').replace(/-/g, '+').replace(/_/g, '/');
  const padded = standard + '='.repeat((4 - (standard.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Encodes bytes as standard, padded base64 (what the server's JSON parser reads). */
export function toBase64(bytes) {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Lower-case hex of `bytes`. */
export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Concatenates Uint8Arrays. */
export function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Whether two byte arrays are equal. */
export function equalBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `n` random bytes from the browser's CSPRNG (available on plain http too). */
export function randomBytes(n) {
  return crypto.getRandomValues(new Uint8Array(n));
}
