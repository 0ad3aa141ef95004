import { ConfigError } from '../../../shared/config/config-error';
import { EnvReaderContext, envBoolean, envChoice, envInteger, envText } from '../../../shared/config/env-readers';
import { type Environment, type ReadTextFile, resolveFileVariables } from '../../../shared/config/env-source';
import { loadSwarmWatcherConfigs } from '../../../shared/docker/swarm-watcher-config';
import { loadWatcherConfigs, type WatcherConfig } from '../../../shared/docker/watcher-config';
import { loadPodmanWatcherConfigs } from '../../../shared/podman/podman-watcher-config';
import { LOG_LEVELS, type LogLevel } from '../../../shared/schemas/log-entry';
import { type FileSourceConfig, loadFileSourceConfigs } from '../../../shared/sources/file-source-config';
import { type HookConfig, loadHookConfig } from '../../../shared/update/hook-config';
import { type AuthProviders, loadAuthProviders } from '../auth/basic-users';
import { DEFAULT_SIGN_IN_LIMITS, type SignInLimits } from '../edge/sign-in-slots';
import { DEFAULT_ICON_BASES, ICON_BASE_VARIABLES, ICON_PROVIDERS, type IconProvider } from '../icons/icon-providers';
import { type ListenAgentConfig, loadListenAgentConfigs } from '../listen/listen-agent-config';
import {
  loadReleaseNotesConfig,
  maskReleaseNotesConfig,
  RELEASE_NOTES_VARIABLES,
  type ReleaseNotesConfig,
} from '../release-notes/release-notes-config';
import { loadSecurityConfig, type SecurityConfig } from '../security/security-config';
import { type DockerActionTrigger, loadActionTriggers } from '../updates/action-triggers';
import { loadWebhookConfig, maskWebhookConfig, type WebhookConfig } from '../webhooks/webhook-config';
import { envCorsOrigins } from './cors-origins';
import { HUB_SETTING_VARIABLES } from './hub-settings';
import { groupProviderVariables, type ProviderVariables } from './provider-variables';
import { quotableValue, showVariable } from './secret-variables';

export const STORE_DRIVERS = ['fs', 'memory', 'redis'] as const;
export type StoreDriver = (typeof STORE_DRIVERS)[number];

export interface HubConfig {
  server: {
    port: number;
    host: string;
    trustProxy: number;
    cookieSameSite: 'lax' | 'strict' | 'none';
    metricsAuth: boolean;
    metricsToken: string | undefined;
    featureContainerActions: boolean;
    featureDelete: boolean;
    /** Requests per 15 minutes per client on routes without a limit of their own (decisions §5). */
    requestLimit: number;
    /** WebSocket upgrades per 15 minutes per session or address (http-interface §8). */
    webSocketUpgradeLimit: number;
    /** DD_SERVER_CORS_ORIGINS: origins whose pages may call the API from a browser; empty is off (docs/cors.md). */
    corsOrigins: string[];
  };
  store: { driver: StoreDriver; path: string; url: string | undefined };
  log: { level: LogLevel; format: 'json' | 'pretty'; bufferEnabled: boolean };
  audit: { retentionDays: number; maxEntries: number };
  ui: { maturityThresholdDays: number };
  compat: { wudCard: boolean };
  /** DD_APPROVALS_SEPARATE: separation of duties for update approvals (docs/approvals.md "Separation of duties"). */
  approvals: { separate: boolean };
  /** DD_EXPERIMENTAL_EDGE, and DD_EDGE_AUTHORIZED_KEYS: the path of a file of keys to register at start (the Node entry reads it). */
  edge: {
    enabled: boolean;
    authorizedKeysFile: string | undefined;
    signInLimits: SignInLimits;
    /** DD_EDGE_GATEWAY_SHARDS: edge gateway objects in front of the hub on Workers (0: none; ignored on Node). */
    gatewayShards: number;
  };
  /** Deadline of one registry request, redirects included (DD_REGISTRY_TIMEOUT, seconds). */
  registry: { timeoutMs: number };
  /** The icon sets' base URLs (DD_ICONS_<SET>_URL) and the deadline of one icon request (DD_ICONS_TIMEOUT, seconds). */
  icons: { bases: Record<IconProvider, string>; timeoutMs: number };
  /** DD_RELEASE_NOTES_*: the forges' APIs and tokens (docs/release-notes.md). */
  releaseNotes: ReleaseNotesConfig;
  /**
   * Notification triggers (DD_NOTIFICATION_<TYPE>_<NAME>_<KEY>), grouped but not yet checked: the
   * hub checks them against the provider types of its runtime (some come from the entry point).
   * DD_NOTIFICATION_TIMEOUT (seconds) bounds each delivery attempt.
   */
  notifications: { triggers: ProviderVariables[]; timeoutMs: number };
  /** Action triggers (DD_ACTION_DOCKER_<NAME>_*): what updates containers (docs/updates.md). */
  actions: DockerActionTrigger[];
  /** Update hooks dd.hook.pre / dd.hook.post (DD_HOOKS_ENABLED, DD_HOOKS_TIMEOUT). */
  hooks: HookConfig;
  /** Docker watchers (DD_WATCHER_*), the default `local` one included unless DD_LOCAL_WATCHER=false. */
  watchers: WatcherConfig[];
  /** Swarm watchers (DD_WATCHER_<NAME>_TYPE=swarm): a manager's services (docs/sources.md). */
  swarmWatchers: WatcherConfig[];
  /** Podman watchers (DD_WATCHER_<NAME>_TYPE=podman): a Podman service's Docker-compatible socket (docs/sources.md). */
  podmanWatchers: WatcherConfig[];
  /** File sources (DD_WATCHER_<NAME>_TYPE=file|dockerfile): image lists, Dockerfiles and compose files (docs/sources.md). */
  fileSources: FileSourceConfig[];
  /** Listen-mode agents the hub connects to (DD_AGENT_<NAME>_HOST, _PORT, _SECRET, _PROTOCOL, _CAFILE). */
  agents: ListenAgentConfig[];
  /** Action and registry webhooks (DD_SERVER_WEBHOOK_*, http-interface §4.11, §5.8, §5.9). */
  webhooks: WebhookConfig;
  /** Vulnerability scanning and the security gate (DD_SECURITY_*, docs/security-scanning.md). */
  security: SecurityConfig;
  /** True when no DD_AUTH_* provider is configured (decisions §4). */
  anonymous: boolean;
  /** Basic users (DD_AUTH_BASIC_*) and OpenID Connect providers (DD_AUTH_OIDC_*). */
  auth: AuthProviders;
  /** DD_* variables that no part of the hub reads: reported at start so typos are visible. */
  unknownVariables: string[];
}

/**
 * Families whose variables are read by the providers that own them (watchers, registries,
 * triggers, agents, authentication, webhooks, hooks); they are not "unknown" here.
 */
const PROVIDER_PREFIXES = [
  'DD_WATCHER_',
  'DD_REGISTRY_',
  'DD_NOTIFICATION_',
  'DD_ACTION_',
  'DD_AGENT_',
  'DD_AUTH_',
  'DD_SERVER_WEBHOOK_',
  'DD_HOOKS_',
  'DD_SECURITY_',
  'DD_EDGE_',
  'DD_LOCAL_WATCHER',
];

/** DD_EDGE_GATEWAY_SHARDS (docs/workers.md "Edge gateways"): the Worker reads it with the same rule. */
export const GATEWAY_SHARDS = envInteger(0, 1024);

/** Variables read here by name (the families of PROVIDER_PREFIXES aside): GET /api/v1/config lists the unset ones as defaults. */
export const KNOWN_VARIABLES: ReadonlySet<string> = new Set([
  ...HUB_SETTING_VARIABLES,
  'DD_CONFIG_FILE',
  'DD_SERVER_METRICS_TOKEN',
  'DD_STORE_PATH',
  'DD_STORE_URL',
  ...Object.values(ICON_BASE_VARIABLES),
  ...RELEASE_NOTES_VARIABLES,
]);

/**
 * An icon set's base (docs/icons.md): an absolute http(s) URL without credentials. Read as a
 * secret, so a refused value (it may hold a password) is never echoed in the error.
 */
function iconBase(vars: EnvReaderContext, provider: IconProvider): string {
  const name = ICON_BASE_VARIABLES[provider];
  const raw = vars.secret(name);
  if (raw === undefined) return DEFAULT_ICON_BASES[provider];
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '') {
    throw new ConfigError(name, 'must be an http:// or https:// URL without credentials');
  }
  return raw;
}

/**
 * Parses and validates the whole configuration once, at start-up. Throws a ConfigError whose
 * message names the offending variable; nothing here has side effects.
 */
export function loadHubConfig(env: Environment, readTextFile: ReadTextFile): HubConfig {
  const resolved = resolveFileVariables(env, readTextFile);
  const vars = new EnvReaderContext(resolved, quotableValue);
  rejectRemovedVariables(vars);

  const anonymous = ![...vars.names()].some((name) => name.startsWith('DD_AUTH_'));
  const driver = vars.get('DD_STORE_DRIVER', envChoice(STORE_DRIVERS), 'fs');
  const storeUrl = vars.secret('DD_STORE_URL');
  if (driver === 'redis' && storeUrl === undefined) {
    throw new ConfigError(
      'DD_STORE_URL',
      'is required when DD_STORE_DRIVER is redis (for example redis://127.0.0.1:6379)',
    );
  }
  if (storeUrl !== undefined && driver === 'redis' && !/^(rediss?:\/\/|unix:\/\/\/)/.test(storeUrl)) {
    throw new ConfigError('DD_STORE_URL', 'must be a redis://, rediss:// or unix:///path/to/redis.sock URL');
  }

  return {
    server: {
      port: vars.get('DD_SERVER_PORT', envInteger(0, 65535), 3000),
      // Anonymous mode listens on loopback only unless told otherwise (decisions §4).
      host: vars.get('DD_SERVER_HOST', envText, anonymous ? '127.0.0.1' : '0.0.0.0'),
      trustProxy: vars.get('DD_SERVER_TRUSTPROXY', envInteger(0, 10), 0),
      cookieSameSite: vars.get('DD_SERVER_COOKIE_SAMESITE', envChoice(['lax', 'strict', 'none']), 'lax'),
      metricsAuth: vars.get('DD_SERVER_METRICS_AUTH', envBoolean, true),
      metricsToken: vars.secret('DD_SERVER_METRICS_TOKEN'),
      featureContainerActions: vars.get('DD_SERVER_FEATURE_CONTAINERACTIONS', envBoolean, true),
      featureDelete: vars.get('DD_SERVER_FEATURE_DELETE', envBoolean, false),
      requestLimit: vars.get('DD_SERVER_RATELIMIT_MAX', envInteger(1, 1_000_000_000), 1_000),
      webSocketUpgradeLimit: vars.get('DD_SERVER_RATELIMIT_WEBSOCKET', envInteger(1, 1_000_000_000), 1_000),
      corsOrigins: vars.get('DD_SERVER_CORS_ORIGINS', envCorsOrigins, []),
    },
    store: { driver, path: vars.get('DD_STORE_PATH', envText, './data'), url: storeUrl },
    log: {
      level: vars.get('DD_LOG_LEVEL', envChoice(LOG_LEVELS), 'info'),
      format: vars.get('DD_LOG_FORMAT', envChoice(['json', 'pretty']), 'json'),
      bufferEnabled: vars.get('DD_LOG_BUFFER_ENABLED', envBoolean, true),
    },
    audit: {
      retentionDays: vars.get('DD_AUDIT_RETENTION_DAYS', envInteger(1, 3650), 90),
      maxEntries: vars.get('DD_AUDIT_MAX_ENTRIES', envInteger(100, 1_000_000), 10_000),
    },
    ui: { maturityThresholdDays: vars.get('DD_UI_MATURITY_THRESHOLD_DAYS', envInteger(1, 3650), 7) },
    compat: { wudCard: vars.get('DD_COMPAT_WUDCARD', envBoolean, false) },
    approvals: { separate: vars.get('DD_APPROVALS_SEPARATE', envBoolean, false) },
    edge: {
      enabled: vars.get('DD_EXPERIMENTAL_EDGE', envBoolean, true),
      authorizedKeysFile: vars.optional('DD_EDGE_AUTHORIZED_KEYS', envText),
      // Connections not yet signed in, at once (docs/edge-protocol.md "Limits before sign-in").
      signInLimits: {
        perAddress: vars.get(
          'DD_EDGE_SIGNIN_MAX_PER_ADDRESS',
          envInteger(1, 1_000_000),
          DEFAULT_SIGN_IN_LIMITS.perAddress,
        ),
        total: vars.get('DD_EDGE_SIGNIN_MAX', envInteger(1, 1_000_000), DEFAULT_SIGN_IN_LIMITS.total),
      },
      gatewayShards: vars.get('DD_EDGE_GATEWAY_SHARDS', GATEWAY_SHARDS, 0),
    },
    registry: { timeoutMs: vars.get('DD_REGISTRY_TIMEOUT', envInteger(1, 300), 15) * 1000 },
    icons: {
      bases: Object.fromEntries(ICON_PROVIDERS.map((provider) => [provider, iconBase(vars, provider)])) as Record<
        IconProvider,
        string
      >,
      timeoutMs: vars.get('DD_ICONS_TIMEOUT', envInteger(1, 120), 10) * 1000,
    },
    releaseNotes: loadReleaseNotesConfig(vars),
    notifications: {
      triggers: groupProviderVariables(resolved, 'DD_NOTIFICATION_', ['TIMEOUT']),
      timeoutMs: vars.get('DD_NOTIFICATION_TIMEOUT', envInteger(1, 300), 10) * 1000,
    },
    actions: loadActionTriggers(resolved),
    hooks: loadHookConfig(vars),
    webhooks: loadWebhookConfig(vars),
    watchers: loadWatcherConfigs(
      new Map([...resolved, ...(env.DOCKER_HOST ? [['DOCKER_HOST', env.DOCKER_HOST] as const] : [])]),
    ),
    swarmWatchers: loadSwarmWatcherConfigs(resolved),
    podmanWatchers: loadPodmanWatcherConfigs(resolved),
    fileSources: loadFileSourceConfigs(resolved),
    agents: loadListenAgentConfigs(resolved),
    security: loadSecurityConfig(vars),
    anonymous,
    auth: loadAuthProviders(resolved),
    unknownVariables: [...vars.names()].filter(
      (name) => !KNOWN_VARIABLES.has(name) && !PROVIDER_PREFIXES.some((prefix) => name.startsWith(prefix)),
    ),
  };
}

/** http-interface §9.8: the DD_TRIGGER_* prefix was removed; starting with it set must fail, not ignore it. */
function rejectRemovedVariables(vars: EnvReaderContext): void {
  for (const name of vars.names()) {
    if (name.startsWith('DD_TRIGGER_')) {
      throw new ConfigError(name, 'the DD_TRIGGER_* prefix was removed; use DD_ACTION_* or DD_NOTIFICATION_*');
    }
  }
}

/**
 * The configuration as the API may show it (GET /api/v1/server, the debug dump): each value that
 * comes from a variable shown as the secret table says (secret-variables.ts), never echoed.
 */
export function maskHubConfig(config: HubConfig): Record<string, unknown> {
  const { unknownVariables: _unknown, auth, ...shown } = config;
  const show = (variable: string, value: string | undefined) => value && showVariable(variable, value);
  return {
    ...shown,
    auth: {
      basic: auth.basic.map((user) => ({ id: user.id, username: user.username })),
      oidc: auth.oidc.map(({ clientSecret: _secret, ...provider }) => {
        const prefix = `DD_AUTH_OIDC_${provider.id.toUpperCase().replace(/-/g, '_')}_`;
        return {
          ...provider,
          discovery: show(`${prefix}DISCOVERY`, provider.discovery),
          redirect: show(`${prefix}REDIRECT`, provider.redirect),
          clientSecret: show(`${prefix}CLIENTSECRET`, 'set'),
        };
      }),
    },
    server: { ...config.server, metricsToken: show('DD_SERVER_METRICS_TOKEN', config.server.metricsToken) },
    store: { ...config.store, url: show('DD_STORE_URL', config.store.url) },
    agents: config.agents.map((agent) => {
      const prefix = `DD_AGENT_${agent.name.toUpperCase().replace(/-/g, '_')}_`;
      return { ...agent, secret: show(`${prefix}SECRET`, agent.secret) };
    }),
    icons: {
      ...config.icons,
      bases: Object.fromEntries(
        ICON_PROVIDERS.map((provider) => [provider, show(ICON_BASE_VARIABLES[provider], config.icons.bases[provider])]),
      ),
    },
    webhooks: maskWebhookConfig(config.webhooks),
    releaseNotes: {
      ...maskReleaseNotesConfig(config.releaseNotes),
      githubApiUrl: show('DD_RELEASE_NOTES_GITHUB_API_URL', config.releaseNotes.githubApiUrl),
      gitlabApiUrl: show('DD_RELEASE_NOTES_GITLAB_API_URL', config.releaseNotes.gitlabApiUrl),
    },
    security: {
      ...config.security,
      osv: { ...config.security.osv, url: show('DD_SECURITY_OSV_URL', config.security.osv.url) },
    },
    // Raw values hold secrets; GET /api/v1/triggers shows each trigger masked.
    notifications: {
      timeoutMs: config.notifications.timeoutMs,
      triggers: config.notifications.triggers.map((group) => `${group.type}.${group.name}`),
    },
  };
}
