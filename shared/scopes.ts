/**
 * API-key scopes (decisions §5). Each route requires exactly one of these, or is
 * session-only, or public.
 */
export const SCOPES = [
  'read',
  'containers:watch',
  'containers:update',
  /** Decides update approvals with DD_APPROVALS_SEPARATE (docs/approvals.md); not implied by containers:update. */
  'approvals:decide',
  'containers:control',
  'containers:delete',
  'containers:scan',
  'triggers:run',
  'notifications:manage',
  'settings:write',
  'audit:read',
  'edge:manage',
  'admin',
  'api-keys:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

/** What a route asks of its caller: one scope, a signed-in session only, or nothing. */
export type RouteAccess = Scope | 'session' | 'public';

/** `admin` opens every scope except key management, which must be held outright (http-interface §5.3). */
export function scopeSatisfies(held: readonly Scope[], required: Scope): boolean {
  if (held.includes(required)) return true;
  return required !== 'api-keys:manage' && held.includes('admin');
}
