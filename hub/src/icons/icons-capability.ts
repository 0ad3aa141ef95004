import type { Capability } from '../capability';
import type { HubFoundation } from '../hub-foundation';
import type { SettingsStore } from '../store/settings-store';
import { createIconCache } from './icon-cache';
import { createIconService, type IconService } from './icon-service';

/** Container icons, fetched from the icon sets and cached in storage. */
export function iconsCapability(
  deps: Pick<HubFoundation, 'input' | 'config' | 'storage' | 'storeLogger' | 'now' | 'logger'> & {
    settings: SettingsStore;
  },
): Capability<{ icons: IconService }> {
  const { input, config, settings } = deps;
  const icons = createIconService({
    cache: createIconCache(deps.storage, deps.storeLogger.child('icons'), input.icons?.cacheLimits),
    bases: config.icons.bases,
    timeoutMs: config.icons.timeoutMs,
    internetless: () => settings.get().internetlessMode,
    fetch: input.icons?.fetch ?? ((request, init) => fetch(request, init)),
    now: deps.now,
    logger: deps.logger.child('icons'),
  });
  return { parts: { icons } };
}
