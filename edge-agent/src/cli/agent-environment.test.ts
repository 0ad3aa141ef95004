import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../shared/config/config-error';
import { loadAgentEnvironment } from './agent-environment';

const noFiles = (path: string): string => {
  throw new Error(`no file ${path}`);
};

function failure(env: Record<string, string>): ConfigError {
  try {
    loadAgentEnvironment(env, noFiles);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('no error');
}

describe('agent variables', () => {
  it('watches a Podman socket as podman beside the Docker watchers (TYPE podman, its default socket)', () => {
    const { watchers } = loadAgentEnvironment(
      { DD_LOCAL_WATCHER: 'false', DD_WATCHER_PM_TYPE: 'podman', DD_WATCHER_BOX_SOCKET: '/run/box.sock' },
      noFiles,
    );
    expect(watchers.map(({ name, type, endpoint }) => ({ name, type, endpoint }))).toEqual([
      { name: 'box', type: undefined, endpoint: { socketPath: '/run/box.sock' } },
      { name: 'pm', type: 'podman', endpoint: { socketPath: '/run/podman/podman.sock' } },
    ]);
  });

  it('refuses the hub-only watcher types, naming the variable, instead of ignoring them', () => {
    for (const type of ['swarm', 'file', 'dockerfile']) {
      const error = failure({ DD_WATCHER_SVC_TYPE: type });
      expect(error.variable).toBe('DD_WATCHER_SVC_TYPE');
      expect(error.message).toContain(`${type} watchers run on the hub`);
    }
    expect(failure({ DD_WATCHER_SVC_TYPE: 'kubernetes' }).message).toContain('unknown watcher type');
  });

  it('has the default local watcher on /var/run/docker.sock, info logs and 1 s to 60 s reconnects', () => {
    expect(loadAgentEnvironment({}, noFiles)).toEqual({
      watchers: [
        {
          name: 'local',
          endpoint: { socketPath: '/var/run/docker.sock' },
          cron: '0 * * * *',
          jitterSeconds: 60,
          watchByDefault: true,
          watchAll: false,
        },
      ],
      logLevel: 'info',
      reconnect: { minMs: 1_000, maxMs: 60_000 },
      listen: {
        secret: undefined,
        host: undefined,
        featureDelete: false,
        featureContainerActions: true,
        updateJournal: undefined,
      },
      hooks: { enabled: false, timeoutMs: 60_000 },
      unknown: [],
    });
  });

  it("reads the agent's own DD_HOOKS_ENABLED and DD_HOOKS_TIMEOUT (seconds), which are not unknown", () => {
    const environment = loadAgentEnvironment({ DD_HOOKS_ENABLED: 'true', DD_HOOKS_TIMEOUT: '90' }, noFiles);
    expect(environment.hooks).toEqual({ enabled: true, timeoutMs: 90_000 });
    expect(environment.unknown).toEqual([]);
  });

  it("reads listen mode's secret from DD_AGENT_SECRET, its __FILE form or http-interface §5.7's DD_AGENT_SECRET_FILE", () => {
    const files = (path: string) => (path === '/run/secrets/agent' ? 's3cret\n' : noFiles(path));
    expect(loadAgentEnvironment({ DD_AGENT_SECRET: 'a' }, noFiles).listen.secret).toEqual({
      value: 'a',
      variable: 'DD_AGENT_SECRET',
    });
    expect(loadAgentEnvironment({ DD_AGENT_SECRET__FILE: '/run/secrets/agent' }, files).listen.secret).toEqual({
      value: 's3cret',
      variable: 'DD_AGENT_SECRET',
    });
    expect(loadAgentEnvironment({ DD_AGENT_SECRET_FILE: '/run/secrets/agent' }, files).listen.secret).toEqual({
      value: 's3cret',
      variable: 'DD_AGENT_SECRET_FILE',
    });
    const listen = loadAgentEnvironment(
      {
        DD_AGENT_LISTEN_HOST: '0.0.0.0',
        DD_SERVER_FEATURE_DELETE: 'true',
        DD_SERVER_FEATURE_CONTAINERACTIONS: 'false',
        DD_AGENT_UPDATE_JOURNAL: '/var/lib/agent/updates.json',
      },
      noFiles,
    ).listen;
    expect(listen).toEqual({
      secret: undefined,
      host: '0.0.0.0',
      featureDelete: true,
      featureContainerActions: false,
      updateJournal: '/var/lib/agent/updates.json',
    });
  });

  it('never echoes the secret in its errors', () => {
    const both = failure({ DD_AGENT_SECRET: 'hunter2-secret', DD_AGENT_SECRET_FILE: '/run/secrets/agent' });
    expect(both.variable).toBe('DD_AGENT_SECRET_FILE');
    expect(both.message).not.toContain('hunter2-secret');
    expect(failure({ DD_AGENT_SECRET: '' }).variable).toBe('DD_AGENT_SECRET');
    expect(failure({ DD_AGENT_SECRET_FILE: '/missing' }).message).toMatch(
      /^DD_AGENT_SECRET_FILE: cannot read \/missing/,
    );
  });

  it('reads watchers as the hub does, DOCKER_HOST included, and its own variables', () => {
    const environment = loadAgentEnvironment(
      {
        DOCKER_HOST: 'tcp://docker-proxy:2375',
        DD_WATCHER_LOCAL_WATCHALL: 'true',
        DD_WATCHER_PI_SOCKET: '/run/pi.sock',
        DD_WATCHER_PI_CRON: '*/5 * * * *',
        DD_LOG_LEVEL: 'debug',
        DD_EDGE_RECONNECT_MIN_MS: '50',
        DD_EDGE_RECONNECT_MAX_MS: '400',
        DD_SOMETHING_ELSE: '1',
        PATH: '/usr/bin',
      },
      noFiles,
    );
    expect(environment.watchers).toEqual([
      expect.objectContaining({
        name: 'local',
        endpoint: { host: 'docker-proxy', port: 2375, protocol: 'http' },
        watchAll: true,
      }),
      expect.objectContaining({ name: 'pi', endpoint: { socketPath: '/run/pi.sock' }, cron: '*/5 * * * *' }),
    ]);
    expect(environment.logLevel).toBe('debug');
    expect(environment.reconnect).toEqual({ minMs: 50, maxMs: 400 });
    expect(environment.unknown).toEqual(['DD_SOMETHING_ELSE']);
  });

  it('reads <NAME>__FILE variables', () => {
    const environment = loadAgentEnvironment({ DD_LOG_LEVEL__FILE: '/run/secrets/level' }, (path) =>
      path === '/run/secrets/level' ? 'warn\n' : '',
    );
    expect(environment.logLevel).toBe('warn');
  });

  it.each([
    [{ DD_LOG_LEVEL: 'loud' }, 'DD_LOG_LEVEL'],
    [{ DD_WATCHER_LOCAL_CRON: 'often' }, 'DD_WATCHER_LOCAL_CRON'],
    [{ DD_WATCHER_X_COLOUR: 'red' }, 'DD_WATCHER_X_COLOUR'],
    [{ DOCKER_HOST: 'ssh://box' }, 'DOCKER_HOST'],
    [{ DD_EDGE_RECONNECT_MIN_MS: '5' }, 'DD_EDGE_RECONNECT_MIN_MS'],
    [{ DD_EDGE_RECONNECT_MIN_MS: '500', DD_EDGE_RECONNECT_MAX_MS: '100' }, 'DD_EDGE_RECONNECT_MAX_MS'],
    [{ DD_SERVER_FEATURE_DELETE: 'maybe' }, 'DD_SERVER_FEATURE_DELETE'],
    [{ DD_AGENT_LISTEN_HOST: '' }, 'DD_AGENT_LISTEN_HOST'],
    [{ DD_HOOKS_ENABLED: 'yes please' }, 'DD_HOOKS_ENABLED'],
    [{ DD_HOOKS_TIMEOUT: '0' }, 'DD_HOOKS_TIMEOUT'],
    [{ DD_HOOKS_TIMEOUT: '5m' }, 'DD_HOOKS_TIMEOUT'],
  ])('%j fails naming %s', (env, variable) => {
    const error = failure(env);
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable}: `)).toBe(true);
  });

  it('refuses more watchers than hello may list', () => {
    const env = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`DD_WATCHER_W${i}_SOCKET`, `/run/${i}.sock`]));
    expect(failure({ ...env, DD_LOCAL_WATCHER: 'false' }).variable).toBe('DD_WATCHER_*');
  });
});
