import { type Capability, HOUSEKEEPING_EVERY_MS } from '../capability';
import type { HubFoundation } from '../hub-foundation';
import type { ApiKeyStore } from '../store/api-key-store';
import type { AuditStore } from '../store/audit-store';
import { type ApiKeyAuthenticator, createApiKeyAuthenticator } from './api-key-auth';
import { type BasicCredentialAuthenticator, createBasicCredentialAuthenticator } from './basic-credential-auth';
import { createLoginVerifier, type LoginVerifier } from './login-service';
import { createOidcLogin, type OidcLogin } from './oidc-login';
import { createSessionStore, type SessionStore } from './session-store';
import { createSignInLimits, type SignInLimits } from './sign-in-limits';

export interface AuthParts {
  sessions: SessionStore;
  loginVerifier: LoginVerifier;
  signInLimits: SignInLimits;
  apiKeyAuth: ApiKeyAuthenticator;
  /** HTTP Basic, accepted on the compatibility routes only (DD_COMPAT_WUDCARD). */
  basicAuth: BasicCredentialAuthenticator;
  oidc: OidcLogin;
}

export type AuthCapabilityDeps = Pick<
  HubFoundation,
  'input' | 'config' | 'storage' | 'now' | 'logger' | 'clientAddress' | 'routes'
> & { apiKeys: ApiKeyStore; audit: AuditStore };

/** Sessions, the password verifier and every authenticator of a request. */
export function authCapability(deps: AuthCapabilityDeps): Capability<AuthParts> {
  const { input, config, storage, now, logger, audit, clientAddress } = deps;
  const sessions = createSessionStore(storage, now);
  const loginVerifier = createLoginVerifier(config.auth.basic, storage, now);
  // One brute-force budget for every way a password is tried: the sign-in route and HTTP Basic.
  const signInLimits = createSignInLimits({ now, wait: input.signInWait });
  return {
    parts: {
      sessions,
      loginVerifier,
      signInLimits,
      apiKeyAuth: createApiKeyAuthenticator({
        apiKeys: deps.apiKeys,
        routes: deps.routes,
        now,
        logger,
        audit,
        clientAddress,
      }),
      basicAuth: createBasicCredentialAuthenticator({
        verifier: loginVerifier,
        signInLimits,
        now,
        logger,
        audit,
        clientAddress,
      }),
      // OIDC providers are reached with the runtime's fetch (Node's honours NODE_EXTRA_CA_CERTS).
      oidc: createOidcLogin(config.auth.oidc, input.oidcFetch ?? ((request, init) => fetch(request, init)), now),
    },
    // A session nobody uses again is never resolved, so never found expired on read.
    jobs: [
      {
        name: 'sessions.expiry',
        run: () => sessions.sweep(),
        recurrence: { everyMs: HOUSEKEEPING_EVERY_MS, jitterMs: 60_000 },
      },
    ],
  };
}
