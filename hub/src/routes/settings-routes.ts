import { SettingsPatchSchema, SettingsSchema } from '../../../shared/schemas/settings';
import { SETTINGS_PUT_DEPRECATION } from '../http/deprecation';
import type { RouteGroup } from '../http/route-group';
import type { SettingsStore } from '../store/settings-store';

/** The settings routes: the settings store. */
export interface SettingsRoutesDeps {
  settings: Pick<SettingsStore, 'get' | 'patch'>;
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
  const write = {
    path: '/settings',
    access: 'settings:write',
    tag: 'settings',
    body: SettingsPatchSchema,
    response: SettingsSchema,
    statuses: { 400: 'Invalid body' },
  } as const;
  api.add({ ...write, method: 'patch', summary: 'Change some settings; returns them all' }, async (c, { body }) =>
    c.json(await deps.settings.patch(body)),
  );
  api.add(
    {
      ...write,
      method: 'put',
      summary: 'Deprecated alias of PATCH',
      deprecated: true,
      deprecation: SETTINGS_PUT_DEPRECATION,
    },
    async (c, { body }) => c.json(await deps.settings.patch(body)),
  );
}
