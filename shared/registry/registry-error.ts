/**
 * What went wrong talking to a registry, as a kind a caller can act on:
 * - `auth-required`: the registry wants credentials and none are configured;
 * - `credentials-rejected`: configured credentials were refused (never retried anonymously);
 * - `not-found`, `rate-limited` (with retryAfterMs), `timeout`, `network`, `server`;
 * - `protocol`: an answer that breaks the distribution spec (bad manifest, hostile header).
 */
export type RegistryErrorKind =
  | 'auth-required'
  | 'credentials-rejected'
  | 'not-found'
  | 'rate-limited'
  | 'timeout'
  | 'network'
  | 'server'
  | 'protocol';

export class RegistryError extends Error {
  constructor(
    readonly kind: RegistryErrorKind,
    message: string,
    readonly details: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'RegistryError';
  }

  get status(): number | undefined {
    return this.details.status;
  }
}
