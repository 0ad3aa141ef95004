import { describe, expect, it } from 'vitest';
import { loadWatcherConfigs } from '../docker/watcher-config';
import { loadFileSourceConfigs } from '../sources/file-source-config';
import { loadPodmanWatcherConfigs } from './podman-watcher-config';

const vars = (entries: Record<string, string>) => new Map(Object.entries(entries));

describe('podman watcher configuration', () => {
  it('reads DD_WATCHER_<NAME>_TYPE=podman apart from Docker watchers and file sources', () => {
    const env = vars({
      DD_WATCHER_PM_TYPE: 'podman',
      DD_WATCHER_PM_SOCKET: '/run/user/1000/podman/podman.sock',
      DD_WATCHER_PM_WATCHALL: 'true',
      DD_LOCAL_WATCHER: 'false',
    });
    expect(loadWatcherConfigs(env)).toEqual([]);
    expect(loadFileSourceConfigs(env)).toEqual([]);
    expect(loadPodmanWatcherConfigs(env)).toEqual([
      {
        name: 'pm',
        endpoint: { socketPath: '/run/user/1000/podman/podman.sock' },
        cron: '0 * * * *',
        jitterSeconds: 60,
        watchByDefault: true,
        watchAll: true,
      },
    ]);
  });

  it("defaults to the rootful service's socket, and takes HOST and PORT for a TCP service", () => {
    expect(loadPodmanWatcherConfigs(vars({ DD_WATCHER_P_TYPE: 'Podman' }))[0]?.endpoint).toEqual({
      socketPath: '/run/podman/podman.sock',
    });
    expect(
      loadPodmanWatcherConfigs(
        vars({ DD_WATCHER_P_TYPE: 'podman', DD_WATCHER_P_HOST: 'box', DD_WATCHER_P_PORT: '8888' }),
      )[0]?.endpoint,
    ).toEqual({ host: 'box', port: 8888, protocol: 'http' });
  });

  it('refuses the keys of file sources, naming the variable', () => {
    expect(() => loadPodmanWatcherConfigs(vars({ DD_WATCHER_P_TYPE: 'podman', DD_WATCHER_P_FILE: '/x' }))).toThrow(
      /DD_WATCHER_P_FILE.*a podman watcher does not take FILE/,
    );
  });
});
