import { REDACTED } from '../../../shared/redact';
import type { HubConfig } from '../config/hub-config';
import { showVariable } from '../config/secret-variables';
import type { IconCacheStats } from '../icons/icon-cache';

/**
 * The hub's own state as the system routes and the debug dump show it (http-interface §4.14
 * "Further operations"; docs/http-interface.md). Plain functions of what the hub already holds, so
 * the routes and the dump cannot disagree. Every secret is shown as `***` or as a count, never echoed.
 */

/** GET /api/v1/authentications: the sign-in providers, configuration masked (same shape as /registries). */
export function describeAuthentications(config: HubConfig) {
  const data = [
    ...config.auth.basic.map((user) => ({
      id: `basic.${user.id}`,
      type: 'basic' as const,
      name: user.id,
      configuration: {
        username: user.username,
        hash: REDACTED,
        totp: user.totpSecret !== undefined,
        recoveryCodes: user.recoveryCodes.length,
      },
    })),
    ...config.auth.oidc.map((provider) => {
      const variable = (key: string) => `DD_AUTH_OIDC_${provider.id.toUpperCase().replace(/-/g, '_')}_${key}`;
      return {
        id: `oidc.${provider.id}`,
        type: 'oidc' as const,
        name: provider.id,
        configuration: {
          discovery: showVariable(variable('DISCOVERY'), provider.discovery),
          clientId: provider.clientId,
          clientSecret: REDACTED,
          redirect: showVariable(variable('REDIRECT'), provider.redirect),
        },
      };
    }),
  ];
  return { anonymous: config.anonymous, data, total: data.length };
}

export interface StoreViewInput {
  config: HubConfig;
  /** The storage in use, as GET /api/v1/server names it (durable-object on Workers). */
  storageDriver: string;
  records: { containers: number; auditEntries: number; apiKeys: number };
  iconCache: IconCacheStats;
}

/** GET /api/v1/store: which storage holds the hub's state, and how much of it there is. */
export function describeStore(input: StoreViewInput) {
  const { store } = input.config;
  const configuration =
    input.storageDriver !== store.driver
      ? {}
      : store.driver === 'fs'
        ? { path: store.path }
        : store.driver === 'redis'
          ? { url: REDACTED }
          : {};
  return {
    driver: input.storageDriver,
    configuration,
    // decisions §3: every write leaves a record old or new, never torn; memory keeps nothing across restarts.
    persistent: input.storageDriver !== 'memory',
    records: input.records,
    iconCache: input.iconCache,
  };
}

export interface SecurityRuntimeInput {
  config: HubConfig;
  runtime: string;
  now: number;
  /** Active (neither revoked nor expired) API keys. */
  activeApiKeys: number;
  /** Whether the runtime runs update hooks at all (Node); Workers has no shell. */
  hooksAvailable: boolean;
}

const WEBHOOK_SCHEMES = { none: 'none', shared: 'shared-token', 'per-endpoint': 'per-endpoint-tokens' } as const;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * GET /api/v1/server/security/runtime: the protections in force as the hub runs now, and a
 * warning for each setting that weakens them. The scanner part says which vulnerability scanner
 * is configured and the security gate's threshold; its database's state is the vulnerability
 * aggregate's (`GET /api/v1/containers/security/vulnerabilities`).
 */
export function describeSecurityRuntime(input: SecurityRuntimeInput) {
  const { config } = input;
  const { server, webhooks } = config;
  const warnings: string[] = [];
  if (config.anonymous && !LOOPBACK_HOSTS.has(server.host)) {
    warnings.push(`anonymous mode while listening on ${server.host}: anyone who reaches the port has every right`);
  }
  if (!server.metricsAuth) warnings.push('DD_SERVER_METRICS_AUTH=false: /metrics is open to anyone');
  if (server.cookieSameSite === 'none')
    warnings.push('DD_SERVER_COOKIE_SAMESITE=none: the session cookie goes with cross-site requests');
  if (webhooks.enabled && webhooks.tokens.kind === 'none') {
    warnings.push('webhooks are enabled without DD_SERVER_WEBHOOK_TOKEN: the action webhooks refuse every call');
  }
  if (webhooks.enabled && webhooks.secret === undefined) {
    warnings.push('webhooks are enabled without DD_SERVER_WEBHOOK_SECRET: the registry webhook answers 500');
  }
  if (config.hooks.enabled) warnings.push('DD_HOOKS_ENABLED=true: dd.hook.* labels run commands on the hub host');
  return {
    checkedAt: new Date(input.now).toISOString(),
    runtime: input.runtime,
    authentication: {
      anonymous: config.anonymous,
      basicUsers: config.auth.basic.length,
      basicUsersWithTotp: config.auth.basic.filter((user) => user.totpSecret !== undefined).length,
      oidcProviders: config.auth.oidc.length,
      activeApiKeys: input.activeApiKeys,
      sessionCookie: { sameSite: server.cookieSameSite, idleHours: 12, maxDays: 7 },
    },
    listener: { host: server.host, trustProxy: server.trustProxy },
    cors: { origins: server.corsOrigins },
    metrics: { authRequired: server.metricsAuth, token: server.metricsToken !== undefined },
    webhooks: {
      enabled: webhooks.enabled,
      // Not "tokens": a key that names a secret is redacted in the debug dump.
      scheme: WEBHOOK_SCHEMES[webhooks.tokens.kind],
      registrySignature: webhooks.secret !== undefined,
    },
    features: { containerActions: server.featureContainerActions, delete: server.featureDelete },
    hooks: { enabled: config.hooks.enabled, available: input.hooksAvailable },
    scanner: {
      enabled: config.security.scanner !== undefined,
      status: config.security.scanner === undefined ? ('not-configured' as const) : ('configured' as const),
      ...(config.security.scanner !== undefined && { name: config.security.scanner }),
      blockSeverity: config.security.blockSeverity ?? null,
    },
    warnings,
  };
}
