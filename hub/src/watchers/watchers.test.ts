import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../shared/config/config-error';
import { readContainerLabels } from '../../../shared/containers/container-labels';
import { queryContainers } from '../../../shared/containers/container-query';
import { composeFilesAreLocal, DEFAULT_CRON, loadWatcherConfigs } from '../../../shared/docker/watcher-config';
import type { Container } from '../../../shared/schemas/container';

const vars = (entries: Record<string, string>) => new Map(Object.entries(entries));

describe('watcher configuration', () => {
  it('has a local watcher on the default socket, unless DD_LOCAL_WATCHER=false', () => {
    expect(loadWatcherConfigs(vars({}))).toEqual([
      {
        name: 'local',
        endpoint: { socketPath: '/var/run/docker.sock' },
        cron: DEFAULT_CRON,
        jitterSeconds: 60,
        watchByDefault: true,
        watchAll: false,
      },
    ]);
    expect(loadWatcherConfigs(vars({ DD_LOCAL_WATCHER: 'false' }))).toEqual([]);
    expect(loadWatcherConfigs(vars({ DOCKER_HOST: 'unix:///run/user/1000/docker.sock' }))[0]?.endpoint).toEqual({
      socketPath: '/run/user/1000/docker.sock',
    });
    expect(loadWatcherConfigs(vars({ DOCKER_HOST: 'tcp://10.0.0.5:2376' }))[0]?.endpoint).toEqual({
      host: '10.0.0.5',
      port: 2376,
      protocol: 'http',
    });
  });

  it('reads several watchers and their keys', () => {
    const configs = loadWatcherConfigs(
      vars({
        DD_LOCAL_WATCHER: 'false',
        DD_WATCHER_NAS_HOST: 'nas.lan',
        DD_WATCHER_NAS_PORT: '2375',
        DD_WATCHER_NAS_CRON: '*/15 * * * *',
        DD_WATCHER_NAS_WATCHALL: 'true',
        DD_WATCHER_PI_SOCKET: '/tmp/pi.sock',
        DD_WATCHER_PI_JITTER: '0',
        DD_WATCHER_PROXIED_HOST: 'socket-proxy',
        DD_WATCHER_PROXIED_COMPOSEFILES: 'true',
      }),
    );
    expect(configs).toEqual([
      {
        name: 'nas',
        endpoint: { host: 'nas.lan', port: 2375, protocol: 'http' },
        cron: '*/15 * * * *',
        jitterSeconds: 60,
        watchByDefault: true,
        watchAll: true,
      },
      {
        name: 'pi',
        endpoint: { socketPath: '/tmp/pi.sock' },
        cron: DEFAULT_CRON,
        jitterSeconds: 0,
        watchByDefault: true,
        watchAll: false,
      },
      {
        name: 'proxied',
        endpoint: { host: 'socket-proxy', port: 2375, protocol: 'http' },
        cron: DEFAULT_CRON,
        jitterSeconds: 60,
        watchByDefault: true,
        watchAll: false,
        composeFiles: true,
      },
    ]);
    // Compose files are this machine's for a socket, another machine's for TCP unless said otherwise.
    expect(configs.map(composeFilesAreLocal)).toEqual([false, true, true]);
  });

  it.each([
    ['DD_WATCHER_NAS_CRON', 'every hour'],
    ['DD_WATCHER_NAS_PORT', '99999'],
    ['DD_WATCHER_NAS_COLOUR', 'red'],
    ['DD_WATCHER_NAS_WATCHALL', 'sometimes'],
    ['DD_WATCHER_NAS_SOCKET', 'relative.sock'],
    ['DD_WATCHER_NAS_COMPOSEFILES', 'maybe'],
  ])('refuses %s=%s, naming it', (name, value) => {
    expect(() => loadWatcherConfigs(vars({ [name]: value }))).toThrow(ConfigError);
    expect(() => loadWatcherConfigs(vars({ [name]: value }))).toThrow(new RegExp(`^${name}`));
  });
});

describe('container labels', () => {
  it('reads the dd.* labels, falls back to the compose project, and ignores legacy wud.* ones', () => {
    const labels = readContainerLabels({
      'dd.watch': 'false',
      'dd.watch.digest': 'true',
      'dd.tag.include': '^\\d+\\.\\d+\\.\\d+$',
      'dd.display.name': 'Web',
      'com.docker.compose.project': 'shop',
      'dd.webhook.enabled': 'false',
      'dd.updatePolicy.maturityMode': 'mature',
      'dd.updatePolicy.maturityMinAgeDays': '14',
      'wud.watch': 'true',
    });
    expect(labels).toMatchObject({
      watch: false,
      watchDigest: true,
      includeTags: '^\\d+\\.\\d+\\.\\d+$',
      displayName: 'Web',
      group: 'shop',
      webhookEnabled: false,
    });
    expect(labels.labelPolicy).toEqual({ maturityMode: 'mature', maturityMinAgeDays: 14 });
    expect(labels.problems).toEqual([]);
  });

  it('reports unreadable labels without failing', () => {
    const labels = readContainerLabels({
      'dd.watch': 'perhaps',
      'dd.registry.lookup.image': 'NOT A REF',
      'dd.updatePolicy.maturityMinAgeDays': '999',
    });
    expect(labels.watch).toBeUndefined();
    expect(labels.lookupImage).toBeUndefined();
    expect(labels.problems).toHaveLength(3);
  });
});

describe('container queries', () => {
  const base = (id: string, over: Partial<Container>): Container =>
    ({
      id,
      name: id,
      displayName: id,
      watcher: 'local',
      status: 'running',
      watched: true,
      updateAvailable: false,
      updateKind: { kind: 'unknown' },
      createdAt: '2026-01-01T00:00:00Z',
      image: { created: '2025-01-01T00:00:00Z' },
      ...over,
    }) as Container;
  const all = [
    base('b', {
      updateAvailable: true,
      updateKind: { kind: 'tag', localValue: '1', remoteValue: '2', semverDiff: 'major' },
      updateMaturityLevel: 'hot',
    }),
    base('a', { status: 'exited', watched: false, createdAt: '2026-02-01T00:00:00Z' }),
    base('c', {
      updateAvailable: true,
      updateKind: { kind: 'digest', localValue: 'x', remoteValue: 'y' },
      watcher: 'nas',
    }),
  ];
  const ids = (query: Partial<Parameters<typeof queryContainers>[1]>) =>
    queryContainers(all, { limit: 0, offset: 0, ...query }).data.map((c) => c.id);

  it('filters by status, kind, watcher, maturity and ids', () => {
    expect(ids({ status: 'update-available' })).toEqual(['b', 'c']);
    expect(ids({ status: 'stopped' })).toEqual(['a']);
    expect(ids({ kind: 'major' })).toEqual(['b']);
    expect(ids({ kind: 'digest' })).toEqual(['c']);
    expect(ids({ kind: 'unwatched' })).toEqual(['a']);
    expect(ids({ watcher: 'nas' })).toEqual(['c']);
    expect(ids({ maturity: 'hot' })).toEqual(['b']);
    expect(ids({ containerIds: 'c, a' })).toEqual(['a', 'c']);
  });

  it('sorts by name by default, with - or order for descending, and pages', () => {
    expect(ids({})).toEqual(['a', 'b', 'c']);
    expect(ids({ sort: '-name' })).toEqual(['c', 'b', 'a']);
    expect(ids({ sort: 'name', order: 'desc' })).toEqual(['c', 'b', 'a']);
    expect(ids({ sort: 'age' })).toEqual(['b', 'c', 'a']);
    expect(queryContainers(all, { limit: 2, offset: 1 })).toMatchObject({ total: 3, data: [{ id: 'b' }, { id: 'c' }] });
  });
});
