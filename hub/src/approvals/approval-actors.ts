import type { Decider } from '../../../shared/schemas/approval';
import type { Principal } from '../auth/principal';
import type { ApiKeyStore } from '../store/api-key-store';

/** Who is asking or deciding, as an approval records it. */
export function actorOf(principal: Principal): Decider {
  if (principal.kind === 'session') return { kind: 'user', name: principal.username };
  if (principal.kind === 'api-key') return { kind: 'api-key', name: principal.keyId };
  return { kind: 'anonymous' };
}

// Keys mint keys (decisions §5); a chain longer than this is not followed further.
const MAX_KEY_CHAIN = 32;

/**
 * The person behind an actor, for separation of duties (docs/approvals.md): a user is themself; a
 * key is the user who minted it, through the keys that minted it (`createdBy` is `user:<name>` or
 * `api-key:<keyId>`), so nobody approves with a key what they requested with their session. A key
 * no longer stored, or a chain that does not end at a user, stands for itself. In anonymous mode
 * every caller is the same party.
 */
export function createPartyOf(apiKeys: Pick<ApiKeyStore, 'get'>): (actor: Decider) => string {
  return (actor) => {
    // As a key minted in anonymous mode records its creator.
    if (actor.kind === 'anonymous') return 'user:anonymous';
    if (actor.kind === 'user') return `user:${actor.name ?? ''}`;
    let party = `api-key:${actor.name ?? ''}`;
    for (let hop = 0; hop < MAX_KEY_CHAIN && party.startsWith('api-key:'); hop++) {
      const creator = apiKeys.get(party.slice('api-key:'.length))?.createdBy;
      if (creator === undefined) break;
      party = creator;
    }
    return party;
  };
}
