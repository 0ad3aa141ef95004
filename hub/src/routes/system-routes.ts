import * as v from 'valibot';
import type { LogRing } from '../../../shared/logging/log-ring';
import type { AgentDirectory } from '../agents/agent-directory';
import type { Principal } from '../auth/principal';
import type { ConfigService } from '../config/config-service';
import type { RouteGroup } from '../http/route-group';
import type { IconService } from '../icons/icon-service';
import type { NotificationService } from '../notifications/notification-service';
import { describeTrigger } from '../notifications/notification-triggers';
import type { LoadedRegistryProviders } from '../registries/load-registry-providers';
import { describeRegistryProviders } from '../registries/load-registry-providers';
import type { ApiKeyStore } from '../store/api-key-store';
import type { AuditStore } from '../store/audit-store';
import type { ContainerStore } from '../store/container-store';
import type { SettingsStore } from '../store/settings-store';
import { describeActionTrigger } from '../updates/action-triggers';
import type { UpdateService } from '../updates/update-service';
import type { Fleet } from '../watchers/fleet';
import { configuredSecrets, redactDeep } from './debug-dump';
import { type AppRoutesDeps, describeServer } from './health-routes';
import { describeAuthentications, describeSecurityRuntime, describeStore } from './system-views';

/** What the system routes and the debug dump read: the hub's parts, never changed here. */
export interface SystemRoutesDeps {
  server: AppRoutesDeps;
  settings: Pick<SettingsStore, 'get'>;
  containers: Pick<ContainerStore, 'all'>;
  audit: Pick<AuditStore, 'append' | 'query' | 'recent'>;
  apiKeys: Pick<ApiKeyStore, 'page'>;
  icons: Pick<IconService, 'stats'>;
  logRing: LogRing;
  registries: { providers: LoadedRegistryProviders } | undefined;
  notifications: Pick<NotificationService, 'triggers'>;
  updates: Pick<UpdateService, 'triggers'>;
  fleet: Pick<Fleet, 'all'>;
  agents: Pick<AgentDirectory, 'agents'>;
  /** Whether the runtime runs update hooks (Node); Workers has no shell. */
  hooksAvailable: boolean;
  /** The variables the hub runs with: the dump scrubs every value the secret table does not know to be plain. */
  configuration?: Pick<ConfigService, 'variables'> | undefined;
}

/** How many log and audit entries a dump carries: enough for the last minutes, small enough to post. */
const DUMP_LOG_ENTRIES = 200;
const DUMP_AUDIT_ENTRIES = 100;
const API_KEY_PAGE = 200;

function countApiKeys(apiKeys: SystemRoutesDeps['apiKeys']): { total: number; active: number } {
  let total = 0;
  let active = 0;
  let cursor: string | undefined;
  do {
    const page = apiKeys.page(API_KEY_PAGE, cursor);
    if (!page) break;
    total += page.data.length;
    active += page.data.filter((key) => key.status === 'active').length;
    cursor = page.nextCursor;
  } while (cursor);
  return { total, active };
}

async function storeView(deps: SystemRoutesDeps) {
  return describeStore({
    config: deps.server.config,
    storageDriver: deps.server.storageDriver,
    records: {
      containers: deps.containers.all().length,
      auditEntries: deps.audit.query({ offset: 0, limit: 0 }).total,
      apiKeys: countApiKeys(deps.apiKeys).total,
    },
    iconCache: await deps.icons.stats(),
  });
}

function securityView(deps: SystemRoutesDeps) {
  const now = deps.server.now();
  return describeSecurityRuntime({
    config: deps.server.config,
    runtime: deps.server.runtime,
    now,
    activeApiKeys: countApiKeys(deps.apiKeys).active,
    hooksAvailable: deps.hooksAvailable,
  });
}

/** Containers by watcher (agent/watcher for an agent's), without their environment or labels. */
function containerCounts(containers: ReturnType<ContainerStore['all']>) {
  const byWatcher: Record<string, number> = {};
  let updatesAvailable = 0;
  for (const container of containers) {
    const owner = container.agent === undefined ? container.watcher : `${container.agent}/${container.watcher}`;
    byWatcher[owner] = (byWatcher[owner] ?? 0) + 1;
    if (container.updateAvailable) updatesAvailable++;
  }
  return { total: containers.length, updatesAvailable, byWatcher };
}

/**
 * GET /api/v1/store, /authentications, /server/security/runtime (read) and /debug/dump (admin):
 * http-interface §4.14 and its "further operations"; shapes in docs/http-interface.md §4.14.
 */
export function registerSystemRoutes(api: RouteGroup, deps: SystemRoutesDeps): void {
  api.add(
    {
      method: 'get',
      path: '/store',
      access: 'read',
      tag: 'system',
      summary:
        'The storage that holds the hub state (driver, masked configuration), its record counts and the icon cache',
      response: v.object({
        driver: v.string(),
        configuration: v.record(v.string(), v.string()),
        persistent: v.boolean(),
        records: v.object({ containers: v.number(), auditEntries: v.number(), apiKeys: v.number() }),
        iconCache: v.object({ entries: v.number(), bytes: v.number(), maxEntries: v.number(), maxBytes: v.number() }),
      }),
    },
    async (c) => c.json(await storeView(deps)),
  );
  api.add(
    {
      method: 'get',
      path: '/authentications',
      access: 'read',
      tag: 'system',
      summary: 'Sign-in providers (basic users, OpenID Connect), configuration masked; empty in anonymous mode',
      response: v.object({
        anonymous: v.boolean(),
        data: v.array(
          v.object({
            id: v.string(),
            type: v.picklist(['basic', 'oidc']),
            name: v.string(),
            configuration: v.record(v.string(), v.unknown()),
          }),
        ),
        total: v.number(),
      }),
    },
    (c) => c.json(describeAuthentications(deps.server.config)),
  );
  api.add(
    {
      method: 'get',
      path: '/server/security/runtime',
      access: 'read',
      tag: 'system',
      summary:
        'The protections in force (sign-in, keys, cookie, CORS, metrics, webhooks, hooks) and a warning for each weakened one',
    },
    (c) => c.json(securityView(deps)),
  );
  api.add(
    {
      method: 'get',
      path: '/debug/dump',
      access: 'admin',
      tag: 'system',
      summary:
        'Download a JSON file for support: server, settings, storage, sign-in, security, watchers, agents, registries, triggers, container counts, recent log and audit entries; every secret redacted; audited (debug-dump)',
      responseType: 'application/json',
    },
    async (c) => {
      const now = deps.server.now();
      const dump = {
        generatedAt: new Date(now).toISOString(),
        server: describeServer(deps.server),
        settings: deps.settings.get(),
        store: await storeView(deps),
        authentications: describeAuthentications(deps.server.config),
        securityRuntime: securityView(deps),
        watchers: deps.fleet.all().map((watcher) => ({
          id: watcher.id,
          name: watcher.name,
          ...(watcher.agent !== undefined && { agent: watcher.agent }),
        })),
        agents: deps.agents.agents(),
        registries: deps.registries ? describeRegistryProviders(deps.registries.providers) : [],
        triggers: [
          ...deps.notifications.triggers.map(describeTrigger),
          ...deps.updates.triggers.map(describeActionTrigger),
        ],
        containers: containerCounts(deps.containers.all()),
        log: deps.logRing.query({ tail: DUMP_LOG_ENTRIES }),
        audit: deps.audit.recent(DUMP_AUDIT_ENTRIES),
      };
      const redacted = redactDeep(dump, configuredSecrets(deps.server.config, deps.configuration?.variables()));
      // A HEAD downloads nothing, so it leaves no trace in the audit.
      if (c.req.method !== 'HEAD')
        await deps.audit.append({
          action: 'debug-dump',
          status: 'success',
          details: `debug dump downloaded by ${describePrincipal(c.get('principal'))}`,
        });
      const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
      c.header('Content-Disposition', `attachment; filename="dockwatch-debug-${stamp}.json"`);
      // Support data: no cache, shared or private, keeps it.
      c.header('Cache-Control', 'no-store');
      return c.json(redacted);
    },
  );
}

/** Who downloaded it, as the audit names callers (`user:<name>`, `api-key:<keyId>`, `anonymous`). */
export function describePrincipal(principal: Principal): string {
  if (principal.kind === 'api-key') return `api-key:${principal.keyId}`;
  if (principal.kind === 'session') return `user:${principal.username}`;
  return principal.kind;
}
