/** Longest `lastError` kept: enough for a receiver's explanation, bounded against a page of HTML. */
export const MAX_LAST_ERROR = 1000;

// `Authorization: Basic …`, `"authorization":"Bearer …"`, `authorization=…`: the value up to the
// end of the line, a closing quote, a comma or a brace.
const AUTHORIZATION_VALUE = /(\b(?:proxy-)?authorization\b["']?\s*[:=]\s*["']?)[^"'\r\n,}]*/gi;
// A credential after its scheme, wherever it is quoted without the header name.
const SCHEME_CREDENTIAL = /\b(Bearer|Basic|Digest|Token)(\s+)[A-Za-z0-9._~+/=-]{4,}/g;

/**
 * What may be stored as an outbox entry's `lastError` (http-interface §2.9): Authorization values redacted
 * wherever a receiver echoed them, every secret of the trigger replaced, control characters
 * flattened, and the length bounded.
 */
export function redactDeliveryError(message: string, secrets: readonly string[]): string {
  let out = message;
  // Longest first, so a secret inside a longer one cannot leave part of the longer one behind.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret) out = out.split(secret).join('***');
  }
  out = out.replace(AUTHORIZATION_VALUE, '$1***').replace(SCHEME_CREDENTIAL, '$1$2***');
  out = out.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return out.length > MAX_LAST_ERROR ? `${out.slice(0, MAX_LAST_ERROR)}…` : out;
}
