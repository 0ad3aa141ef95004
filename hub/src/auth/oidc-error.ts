/**
 * Why an OIDC sign-in failed. `reason` is a short code safe to show and log (it never carries the
 * code, a token or the client secret); `status` is 401 for a refused sign-in, 502 or 503 when the
 * provider could not be used at all.
 */
export class OidcError extends Error {
  constructor(
    readonly status: 401 | 502 | 503,
    readonly reason: string,
    message: string,
    readonly details: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'OidcError';
  }
}
