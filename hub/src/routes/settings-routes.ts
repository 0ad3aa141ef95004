import type { Context } from 'hono';
import type { Logger } from '../../../shared/logging/logger';
import type { AuditRecord } from '../../../shared/schemas/audit-entry';
import {
  type Settings,
  type SettingsPatch,
  SettingsPatchSchema,
  SettingsSchema,
} from '../../../shared/schemas/settings';
import { SETTINGS_PUT_DEPRECATION } from '../http/deprecation';
import type { HubEnv } from '../http/hub-env';
import type { RouteGroup } from '../http/route-group';
import type { SettingsStore } from '../store/settings-store';
import { describePrincipal } from './system-routes';

/** The settings routes: the settings store; each change audited (`settings-changed`) and logged with who made it. */
export interface SettingsRoutesDeps {
  settings: Pick<SettingsStore, 'get' | 'patch'>;
  audit: { append(record: AuditRecord): Promise<unknown> };
  logger: Logger;
}

/** `updateMode manual → auto, internetlessMode false → true`: every field the write changed. */
function describeChanges(before: Settings, after: Settings): string[] {
  return (Object.keys(after) as (keyof Settings)[])
    .filter((field) => before[field] !== after[field])
    .map((field) => `${field} ${String(before[field])} → ${String(after[field])}`);
}

export function registerSettingsRoutes(api: RouteGroup, deps: SettingsRoutesDeps): void {
  api.add(
    {
      method: 'get',
      path: '/settings',
      access: 'read',
      tag: 'settings',
      summary: 'Current settings',
      response: SettingsSchema,
    },
    (c) => c.json(deps.settings.get()),
  );

  // Issue 33 item 10: a change of the hub's settings leaves an audit entry and a log line naming who made it.
  const patch = async (c: Context<HubEnv>, body: SettingsPatch) => {
    const { before, after } = await deps.settings.patch(body);
    const changes = describeChanges(before, after);
    if (changes.length > 0) {
      const by = describePrincipal(c.get('principal'));
      deps.logger.info('settings changed', { by, changes });
      await deps.audit.append({
        action: 'settings-changed',
        status: 'success',
        details: `settings changed by ${by}: ${changes.join(', ')}`,
      });
    }
    return c.json(after);
  };
  const write = {
    path: '/settings',
    access: 'settings:write',
    tag: 'settings',
    body: SettingsPatchSchema,
    response: SettingsSchema,
    statuses: { 400: 'Invalid body' },
  } as const;
  api.add(
    {
      ...write,
      method: 'patch',
      summary: 'Change some settings; returns them all; a change is audited (settings-changed)',
    },
    (c, { body }) => patch(c, body),
  );
  api.add(
    {
      ...write,
      method: 'put',
      summary: 'Deprecated alias of PATCH',
      deprecated: true,
      deprecation: SETTINGS_PUT_DEPRECATION,
    },
    (c, { body }) => patch(c, body),
  );
}
