/** base64url without padding (RFC 4648 §5), as PKCE and OAuth parameters use it. */
export function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** 32 random bytes as base64url: states, nonces and code verifiers (43 characters, RFC 7636 §4.1). */
export function randomUrlToken(): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The S256 code challenge of a verifier (RFC 7636 §4.2). */
export async function s256Challenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64Url(new Uint8Array(digest));
}
