// The routes the system page reads (http-interface §4.3, §4.12; docs/configuration-file.md), typed
// from the schemas that validate them: `import type` only, so nothing of valibot is bundled.
import type * as v from 'valibot';
import type {
  ConfigViewSchema,
  RegistrySchema,
  ReloadSchema,
  ValidationSchema,
} from '../../../../shared/schemas/config-views';
import { call } from '../../api';

export type ConfigView = v.InferOutput<typeof ConfigViewSchema>;
export type Validation = v.InferOutput<typeof ValidationSchema>;
export type Reload = v.InferOutput<typeof ReloadSchema>;
export type Registry = v.InferOutput<typeof RegistrySchema>;

/** GET /api/v1/server (hub/src/routes/health-routes.ts describeServer), the fields shown. */
export interface ServerView {
  name: string;
  version: string;
  runtime: string;
  storage: { driver: string };
  startedAt: string;
  ready: boolean;
  refusedVariables: { variable: string; reason: string }[];
  selfContainer: {
    id: string;
    name: string;
    tag: string;
    updateAvailable: boolean;
    candidate: string | null;
  } | null;
}

/** GET /api/v1/watchers: one watcher, with when it last ran and runs next. */
export interface WatcherView {
  id: string;
  type: string;
  name: string;
  agent?: string;
  configuration?: { endpoint?: string; cron?: string; directory?: string; file?: string } & Record<string, unknown>;
  metadata: { lastRunAt?: string; nextRunAt?: string; inventoryRefreshSupported?: boolean };
}

const watcherPath = (w: WatcherView) =>
  `/watchers/${encodeURIComponent(w.type)}/${encodeURIComponent(w.name)}${w.agent ? `/${encodeURIComponent(w.agent)}` : ''}`;

export const systemApi = {
  server: () => call<ServerView>('/server'),
  watchers: () => call<{ data: WatcherView[] }>('/watchers'),
  refreshWatcher: (w: WatcherView) => call<unknown>(`${watcherPath(w)}/inventory`, { method: 'POST', body: {} }),
  registries: () => call<{ data: Registry[] }>('/registries'),
  config: () => call<ConfigView>('/config'),
  validate: (content: string) => call<Validation>('/config/validate', { method: 'POST', body: { content } }),
  save: (content: string) => call<Reload>('/config', { method: 'PUT', body: { content } }),
};
