import type { Principal } from '../auth/principal';

/**
 * Carries the caller's principal from a compatibility request to the /api/v1 request it is served
 * by (legacy-api.ts), so the inner request is not authenticated a second time: a Basic credential
 * is accepted on the compatibility paths only, and an API key's request would count twice against
 * its limit. Keyed by the inner Request object, which only the hub itself creates.
 */
export interface PrincipalRelay {
  forward(request: Request, principal: Principal): void;
  /** The principal forwarded with this request, once; undefined for a request that came from the network. */
  take(request: Request): Principal | undefined;
}

export function createPrincipalRelay(): PrincipalRelay {
  const forwarded = new WeakMap<Request, Principal>();
  return {
    forward: (request, principal) => forwarded.set(request, principal),
    take(request) {
      const principal = forwarded.get(request);
      forwarded.delete(request);
      return principal;
    },
  };
}
