import type { DockerHost } from '../../../shared/docker/docker-host';
import type { DockerEndpoint, WatcherConfig } from '../../../shared/docker/watcher-config';
import type { Logger } from '../../../shared/logging/logger';
import type { ConfiguredNotifications } from '../notifications/create-notifications';
import { type LoadedRegistryProviders, loadRegistryProviders } from '../registries/load-registry-providers';
import type { RegistryService } from '../registries/registry-service';
import type { DockerActionTrigger } from '../updates/action-triggers';
import type { DockerWatcher } from '../watchers/docker-watcher';
import type { Fleet } from '../watchers/fleet';
import type { PrepareReconfiguration } from './config-service';
import type { HubConfig } from './hub-config';

/** The parts a configuration reload re-creates, as the composition root built them. */
export interface ReconfigurableParts {
  /** The running configuration: its watchers, actions and notification triggers are replaced in place. */
  config: HubConfig;
  fleet: Fleet;
  newWatcher: (config: WatcherConfig, host: DockerHost) => DockerWatcher;
  /** Undefined where the runtime reaches no Docker (Workers): the watcher list changes, no watcher runs. */
  dockerHostFor: ((endpoint: DockerEndpoint) => DockerHost) | undefined;
  notifications: ConfiguredNotifications;
  /** The array the update service reads its action triggers from. */
  actionTriggers: DockerActionTrigger[];
  registries: { providers: LoadedRegistryProviders; service: RegistryService } | undefined;
  fetch: typeof fetch;
  now: () => number;
  logger: Logger;
}

/**
 * A reload (docs/configuration-file.md "Reload"): the triggers and registries of the new
 * configuration are built first (a refused one changes nothing), then the hub's watchers whose
 * configuration changed are stopped (their stored schedule forgotten, so a new cron counts) and
 * started anew, the triggers and registries swapped. UI streams, sessions and agents are untouched.
 */
export function hubReconfiguration(parts: ReconfigurableParts): PrepareReconfiguration {
  return async (next, variables) => {
    const triggers = parts.notifications.buildTriggers(next.notifications.triggers);
    let registries: LoadedRegistryProviders | undefined;
    try {
      registries =
        parts.registries &&
        (await loadRegistryProviders(
          [...variables].filter(([name]) => name.startsWith('DD_REGISTRY_')),
          { now: parts.now, fetch: parts.fetch },
        ));
    } catch (error) {
      await closeAll(triggers);
      throw error;
    }
    return {
      discard: () => closeAll(triggers),
      async commit() {
        await replaceWatchers(parts, next.watchers);
        parts.config.watchers = next.watchers;
        await parts.notifications.replaceTriggers(triggers);
        parts.config.notifications.triggers = next.notifications.triggers;
        parts.actionTriggers.splice(0, parts.actionTriggers.length, ...next.actions);
        parts.config.actions = next.actions;
        if (parts.registries && registries) {
          parts.registries.service.replaceProviders({
            providers: registries.configured,
            builtIn: registries.builtIn,
            fallback: registries.fallback,
          });
          Object.assign(parts.registries.providers, registries);
        }
      },
    };
  };
}

async function closeAll(triggers: readonly { transport: { close?: () => Promise<void> } }[]): Promise<void> {
  await Promise.all(triggers.map((trigger) => trigger.transport.close?.().catch(() => undefined)));
}

/** The hub's own watchers (not agents'): the changed and removed ones stopped, the changed and new ones started. */
async function replaceWatchers(parts: ReconfigurableParts, next: readonly WatcherConfig[]): Promise<void> {
  if (!parts.dockerHostFor) return;
  const wanted = new Map(next.map((config) => [config.name, config]));
  const before = new Map(parts.config.watchers.map((config) => [config.name, config]));
  // File sources (docs/sources.md) are not Docker watchers: a reload leaves them running.
  for (const watcher of parts.fleet.all().filter((each) => each.agent === undefined && each.type === 'docker')) {
    const config = wanted.get(watcher.name);
    if (config && sameConfig(config, before.get(watcher.name))) continue;
    await watcher.stop({ forgetSchedule: true });
    await watcher.host.close();
    parts.fleet.remove(watcher);
    parts.logger.info('watcher stopped by a configuration reload', { watcher: watcher.id });
  }
  for (const config of next) {
    if (parts.fleet.find(config.name, undefined)) continue;
    const watcher = parts.newWatcher(config, parts.dockerHostFor(config.endpoint));
    parts.fleet.add(watcher);
    watcher.start();
    parts.logger.info('watcher started by a configuration reload', { watcher: watcher.id, cron: config.cron });
  }
}

function sameConfig(a: WatcherConfig, b: WatcherConfig | undefined): boolean {
  return b !== undefined && JSON.stringify(a) === JSON.stringify(b);
}
