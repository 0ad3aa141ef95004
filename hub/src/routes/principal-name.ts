import type { Context } from 'hono';
import type { HubEnv } from '../http/hub-env';

/** Who asked, for a record's `by` and the audit: the signed-in username, the API key's id, or anonymous. */
export function principalName(c: Context<HubEnv>): string {
  const principal = c.get('principal');
  if (principal.kind === 'session') return principal.username;
  if (principal.kind === 'api-key') return `api-key ${principal.keyId}`;
  return 'anonymous';
}
