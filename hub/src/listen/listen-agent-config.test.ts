import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../shared/config/config-error';
import { loadHubConfig, maskHubConfig } from '../config/hub-config';
import { loadListenAgentConfigs } from './listen-agent-config';

const load = (vars: Record<string, string>) => loadListenAgentConfigs(new Map(Object.entries(vars)));

function failure(vars: Record<string, string>): ConfigError {
  try {
    load(vars);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('no error');
}

describe('DD_AGENT_<NAME>_* (listen-mode agents)', () => {
  it('reads each agent with port 3000 and http by default; CAFILE implies https', () => {
    expect(
      load({
        DD_AGENT_NAS_HOST: 'nas.lan',
        DD_AGENT_NAS_SECRET: 's1',
        DD_AGENT_MY_PI_HOST: '10.0.0.7',
        DD_AGENT_MY_PI_PORT: '3001',
        DD_AGENT_MY_PI_SECRET: 's2',
        DD_AGENT_MY_PI_CAFILE: '/etc/ca.pem',
        DD_WATCHER_LOCAL_SOCKET: '/run/docker.sock',
      }),
    ).toEqual([
      { name: 'nas', host: 'nas.lan', port: 3000, secret: 's1', protocol: 'http', caFile: undefined },
      { name: 'my-pi', host: '10.0.0.7', port: 3001, secret: 's2', protocol: 'https', caFile: '/etc/ca.pem' },
    ]);
  });

  it("skips the agent's own variables, which a shared environment may hold", () => {
    expect(load({ DD_AGENT_SECRET: 'x', DD_AGENT_SECRET_FILE: '/s', DD_AGENT_LISTEN_HOST: '0.0.0.0' })).toEqual([]);
  });

  it.each([
    [{ DD_AGENT_NAS_SECRET: 's' }, 'DD_AGENT_NAS_HOST', /is required/],
    [{ DD_AGENT_NAS_HOST: 'nas' }, 'DD_AGENT_NAS_SECRET', /is required/],
    [
      { DD_AGENT_NAS_HOST: 'nas', DD_AGENT_NAS_SECRET: 's', DD_AGENT_NAS_PORT: '0' },
      'DD_AGENT_NAS_PORT',
      /integer from 1/,
    ],
    [{ DD_AGENT_NAS_HOST: 'http://nas', DD_AGENT_NAS_SECRET: 's' }, 'DD_AGENT_NAS_HOST', /host name/],
    [
      { DD_AGENT_NAS_HOST: 'nas', DD_AGENT_NAS_SECRET: 's', DD_AGENT_NAS_PROTOCOL: 'ftp' },
      'DD_AGENT_NAS_PROTOCOL',
      /http, https/,
    ],
    [
      { DD_AGENT_NAS_HOST: 'nas', DD_AGENT_NAS_SECRET: 's', DD_AGENT_NAS_PROTOCOL: 'http', DD_AGENT_NAS_CAFILE: '/ca' },
      'DD_AGENT_NAS_CAFILE',
      /https/,
    ],
    [{ DD_AGENT_NAS_COLOUR: 'red' }, 'DD_AGENT_NAS_COLOUR', /KEY one of HOST, PORT, SECRET/],
    [{ DD_AGENT_HOST: 'nas' }, 'DD_AGENT_HOST', /DD_AGENT_<NAME>_<KEY>/],
  ])('%j fails naming %s', (vars, variable, message) => {
    const error = failure(vars);
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(message);
  });

  it('never echoes a secret in an error', () => {
    const error = failure({ DD_AGENT_NAS_SECRET: 'hunter2-secret' });
    expect(error.message).not.toContain('hunter2');
  });

  it('reaches the hub configuration, shown with the secret masked', () => {
    const config = loadHubConfig(
      { DD_AGENT_NAS_HOST: 'nas', DD_AGENT_NAS_SECRET__FILE: '/run/secrets/nas' },
      () => 'hunter2-secret\n',
    );
    expect(config.agents).toEqual([expect.objectContaining({ name: 'nas', secret: 'hunter2-secret' })]);
    expect(config.unknownVariables).toEqual([]);
    const shown = JSON.stringify(maskHubConfig(config));
    expect(shown).toContain('"secret":"***"');
    expect(shown).not.toContain('hunter2');
  });
});
