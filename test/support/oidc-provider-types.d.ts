// oidc-provider ships no type declarations; these cover the few parts the test harness uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface ProviderContext {
    oidc: { params?: Record<string, unknown> };
    body: unknown;
  }

  export interface Account {
    accountId: string;
    claims(): Record<string, unknown> | Promise<Record<string, unknown>>;
  }

  export interface ProviderConfiguration {
    clients?: Record<string, unknown>[];
    pkce?: { required?: () => boolean };
    features?: Record<string, { enabled: boolean }>;
    jwks?: { keys: Record<string, unknown>[] };
    cookies?: { keys: string[] };
    ttl?: Record<string, number>;
    claims?: Record<string, string[]>;
    findAccount?: (ctx: ProviderContext, id: string) => Account | undefined | Promise<Account | undefined>;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: ProviderConfiguration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: 'grant.success', listener: (ctx: ProviderContext) => void): this;
  }
}
