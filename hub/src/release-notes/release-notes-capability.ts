import type { Capability } from '../capability';
import type { HubFoundation } from '../hub-foundation';
import type { RegistryAccess } from '../registries/registries-capability';
import type { SettingsStore } from '../store/settings-store';
import { createReleaseNotesService, type ReleaseNotesService } from './release-notes-service';

/** Release notes, before the notifications: templates show the cached notes of an update's target. */
export function releaseNotesCapability(
  deps: Pick<HubFoundation, 'config' | 'now' | 'logger'> & {
    settings: SettingsStore;
    registries: RegistryAccess | undefined;
  },
): Capability<{ releaseNotes: ReleaseNotesService }> {
  const { settings } = deps;
  const releaseNotes = createReleaseNotesService({
    config: deps.config.releaseNotes,
    registries: deps.registries?.providers,
    internetless: () => settings.get().internetlessMode,
    fetch: (request, init) => fetch(request, init),
    now: deps.now,
    logger: deps.logger.child('release-notes'),
  });
  return { parts: { releaseNotes } };
}
