import { describe, expect, it } from 'vitest';
import { loadWatcherConfigs } from '../docker/watcher-config';
import { loadFileSourceConfigs } from './file-source-config';

const vars = (entries: Record<string, string>) => new Map(Object.entries(entries));

describe('file source configuration (DD_WATCHER_<NAME>_TYPE)', () => {
  it('reads file and dockerfile watchers apart from the Docker ones, which keep the default local watcher', () => {
    const env = vars({
      DD_WATCHER_IMAGES_TYPE: 'file',
      DD_WATCHER_IMAGES_FILE: '/etc/dockwatch/images.yaml',
      DD_WATCHER_MY_BUILDS_TYPE: 'Dockerfile',
      DD_WATCHER_MY_BUILDS_DIRECTORY: '/srv/builds',
      DD_WATCHER_MY_BUILDS_CRON: '*/15 * * * *',
      DD_WATCHER_NAS_HOST: 'nas.lan',
    });
    expect(loadFileSourceConfigs(env)).toEqual([
      {
        type: 'file',
        name: 'images',
        path: '/etc/dockwatch/images.yaml',
        cron: '0 * * * *',
        jitterSeconds: 60,
        watchByDefault: true,
      },
      {
        type: 'dockerfile',
        name: 'my-builds',
        path: '/srv/builds',
        cron: '*/15 * * * *',
        jitterSeconds: 60,
        watchByDefault: true,
      },
    ]);
    expect(loadWatcherConfigs(env).map((watcher) => watcher.name)).toEqual(['nas', 'local']);
  });

  it('refuses an unknown type, a missing path, and keys of the other kind, naming the variable', () => {
    expect(() => loadFileSourceConfigs(vars({ DD_WATCHER_X_TYPE: 'kubernetes' }))).toThrow(
      /DD_WATCHER_X_TYPE.*unknown watcher type "kubernetes"; one of docker, file, dockerfile, swarm/,
    );
    expect(() => loadFileSourceConfigs(vars({ DD_WATCHER_X_TYPE: 'file' }))).toThrow(/DD_WATCHER_X_FILE.*needs it/);
    expect(() =>
      loadFileSourceConfigs(
        vars({ DD_WATCHER_X_TYPE: 'dockerfile', DD_WATCHER_X_DIRECTORY: '/d', DD_WATCHER_X_SOCKET: '/s' }),
      ),
    ).toThrow(/DD_WATCHER_X_SOCKET.*a dockerfile watcher does not take SOCKET/);
    expect(() =>
      loadFileSourceConfigs(vars({ DD_WATCHER_X_TYPE: 'file', DD_WATCHER_X_FILE: '/f', DD_WATCHER_X_DIRECTORY: '/d' })),
    ).toThrow(/DD_WATCHER_X_DIRECTORY/);
    expect(() => loadWatcherConfigs(vars({ DD_WATCHER_X_FILE: '/f' }))).toThrow(
      /DD_WATCHER_X_FILE.*a docker watcher does not take FILE/,
    );
  });
});
