import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../shared/config/config-error';
import { loadHubConfig } from '../config/hub-config';

describe('DD_ACTION_DOCKER_* configuration', () => {
  const load = (env: Record<string, string>) => loadHubConfig({ DD_STORE_DRIVER: 'memory', ...env }, () => '');

  it('reads every key with its default, and the watcher list', () => {
    const config = load({
      DD_ACTION_DOCKER_UPDATE_PRUNE: 'true',
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '30',
      DD_ACTION_DOCKER_NIGHTLY_AUTO: 'true',
      DD_ACTION_DOCKER_NIGHTLY_WATCHER: 'local, NAS',
      DD_ACTION_DOCKER_NIGHTLY_BACKUPCOUNT: '0',
    });
    expect(config.actions).toEqual([
      {
        id: 'docker.update',
        type: 'docker',
        name: 'update',
        backupCount: 3,
        prune: true,
        healthTimeoutMs: 30_000,
        auto: false,
        watchers: undefined,
      },
      {
        id: 'docker.nightly',
        type: 'docker',
        name: 'nightly',
        backupCount: 0,
        prune: false,
        healthTimeoutMs: 120_000,
        auto: true,
        watchers: ['local', 'nas'],
      },
    ]);
    expect(config.unknownVariables).toEqual([]);
  });

  it('refuses an unknown type, an unknown key and a bad value, naming the variable', () => {
    expect(() => load({ DD_ACTION_COMPOSE_X_PRUNE: 'true' })).toThrow(ConfigError);
    expect(() => load({ DD_ACTION_COMPOSE_X_PRUNE: 'true' })).toThrow(
      /DD_ACTION_COMPOSE_X_PRUNE.*unknown action trigger type "compose"; known: docker/,
    );
    expect(() => load({ DD_ACTION_DOCKER_X_BACKUPS: '2' })).toThrow(
      /DD_ACTION_DOCKER_X_BACKUPS.*known: BACKUPCOUNT, PRUNE, HEALTHTIMEOUT, AUTO, WATCHER/,
    );
    expect(() => load({ DD_ACTION_DOCKER_X_HEALTHTIMEOUT: '0' })).toThrow(
      /DD_ACTION_DOCKER_X_HEALTHTIMEOUT.*from 1 to 3600/,
    );
    expect(() => load({ DD_ACTION_DOCKER_X_PRUNE: 'maybe' })).toThrow(/DD_ACTION_DOCKER_X_PRUNE.*true or false/);
  });
});
