import { describe, expect, it } from 'vitest';
import { loadSwarmWatcherConfigs } from './swarm-watcher-config';
import { loadWatcherConfigs } from './watcher-config';

const vars = (entries: Record<string, string>) => new Map(Object.entries(entries));

describe('swarm watcher configuration', () => {
  it('reads DD_WATCHER_<NAME>_TYPE=swarm apart from the Docker watchers', () => {
    const env = vars({
      DD_WATCHER_CLUSTER_TYPE: 'swarm',
      DD_WATCHER_CLUSTER_HOST: 'manager',
      DD_LOCAL_WATCHER: 'false',
    });
    expect(loadWatcherConfigs(env)).toEqual([]);
    expect(loadSwarmWatcherConfigs(env)).toEqual([
      {
        name: 'cluster',
        endpoint: { host: 'manager', port: 2375, protocol: 'http' },
        cron: '0 * * * *',
        jitterSeconds: 60,
        watchByDefault: true,
        watchAll: true,
        composeFiles: false,
      },
    ]);
  });

  it('refuses the keys a service has no use for, naming the variable', () => {
    expect(() => loadSwarmWatcherConfigs(vars({ DD_WATCHER_C_TYPE: 'swarm', DD_WATCHER_C_WATCHALL: 'true' }))).toThrow(
      /DD_WATCHER_C_WATCHALL.*a swarm watcher does not take WATCHALL/,
    );
  });
});
