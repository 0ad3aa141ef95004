import { edgeKeyId, fromBase64 } from '../../../shared/edge/sign-in';

/** An Ed25519 public key as an admin gives it: raw 32 bytes in standard base64. */
export interface EdgePublicKey {
  /** Canonical base64 (re-encoded, so one key has one spelling). */
  publicKey: string;
  keyId: string;
}

export interface AuthorizedKey extends EdgePublicKey {
  label: string;
}

const LABEL_MAX = 100;

/** Undefined unless the text is standard base64 of exactly 32 bytes. */
export function parseEdgePublicKey(text: string): EdgePublicKey | undefined {
  const trimmed = text.trim();
  if (trimmed.length < 43 || trimmed.length > 44) return undefined;
  const bytes = fromBase64(trimmed);
  if (bytes?.length !== 32) return undefined;
  return { publicKey: canonicalBase64(bytes), keyId: edgeKeyId(bytes) };
}

export function canonicalBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export class AuthorizedKeysError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'AuthorizedKeysError';
  }
}

/**
 * The content of the DD_EDGE_AUTHORIZED_KEYS file: one key per line, `<base64 public key> [label]`;
 * blank lines and `#` comments are skipped. A bad line throws AuthorizedKeysError naming it, so a
 * typo stops start-up instead of silently locking an agent out. A key listed twice counts once.
 */
export function parseAuthorizedKeys(content: string): AuthorizedKey[] {
  const keys = new Map<string, AuthorizedKey>();
  const lines = content.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [first = '', ...rest] = line.split(/\s+/);
    const key = parseEdgePublicKey(first);
    if (!key) throw new AuthorizedKeysError(index + 1, 'expected "<base64 of a 32-byte Ed25519 public key> [label]"');
    const label = rest.join(' ');
    if (label.length > LABEL_MAX)
      throw new AuthorizedKeysError(index + 1, `the label is longer than ${LABEL_MAX} characters`);
    if (!keys.has(key.keyId)) keys.set(key.keyId, { ...key, label });
  }
  return [...keys.values()];
}
