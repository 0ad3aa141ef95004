import type { Capability } from '../capability';
import type { HubFoundation } from '../hub-foundation';
import type { ConfiguredNotifications } from '../notifications/create-notifications';
import type { RegistryAccess } from '../registries/registries-capability';
import type { Fleet } from '../watchers/fleet';
import type { WatcherFactory } from '../watchers/watcher-factory';
import { type ConfigService, createConfigService } from './config-service';
import { hubReconfiguration } from './hub-reconfiguration';

/** GET/PUT /api/v1/config: the file's variables, and a reload re-creating watchers, triggers and registries. */
export function configurationCapability(
  deps: Pick<HubFoundation, 'input' | 'config' | 'logger' | 'now'> & {
    fleet: Fleet;
    newWatcher: WatcherFactory;
    notifications: ConfiguredNotifications;
    actionTriggers: HubFoundation['config']['actions'];
    registries: RegistryAccess | undefined;
  },
): Capability<{ configuration: ConfigService }> {
  const { input, config } = deps;
  const logger = deps.logger.child('config');
  const configuration = createConfigService({
    source: input.configuration ?? { env: {}, readTextFile: NO_FILES },
    config,
    logger,
    prepare: hubReconfiguration({
      config,
      fleet: deps.fleet,
      newWatcher: deps.newWatcher,
      dockerHostFor: input.dockerHostFor,
      notifications: deps.notifications,
      actionTriggers: deps.actionTriggers,
      registries: deps.registries,
      fetch: (request, init) => fetch(request, init),
      now: deps.now,
      logger,
    }),
  });
  return { parts: { configuration } };
}

/** The `<NAME>__FILE` reader of a hub given no configuration source: there is no such variable to read. */
const NO_FILES = (path: string): string => {
  throw new Error(`no file ${path}: this hub was given no configuration source`);
};
