import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../shared/config/config-error';
import { runtimeRefusals, withoutRefused } from './runtime-capabilities';

describe('runtimeRefusals', () => {
  const nodeOnly = {
    DD_NOTIFICATION_SMTP_MAIL_HOST: 'smtp.example.test',
    DD_NOTIFICATION_MQTT_HOME_URL: 'mqtt://broker',
    DD_WATCHER_LOCAL_SOCKET: '/var/run/docker.sock',
    DD_LOCAL_WATCHER: 'true',
    DD_HOOKS_ENABLED: 'yes',
    DD_STORE_PATH: './data',
  };

  it('refuses nothing on Node or in tests', () => {
    expect(runtimeRefusals(nodeOnly, 'node')).toEqual([]);
    expect(runtimeRefusals({ DD_AUTH_BASIC_A_HASH__FILE: '/x' }, 'test')).toEqual([]);
  });

  it('lists each Node-only variable on Workers, sorted, with a reason', () => {
    const refusals = runtimeRefusals(nodeOnly, 'workers');
    expect(refusals.map((refusal) => refusal.variable)).toEqual(Object.keys(nodeOnly).sort());
    expect(refusals.every((refusal) => refusal.reason.length > 20)).toBe(true);
  });

  it('leaves portable variables, the switched-off options and other names alone', () => {
    const env = {
      DD_NOTIFICATION_NTFY_OPS_TOPIC: 'ops',
      DD_LOCAL_WATCHER: 'false',
      DD_HOOKS_ENABLED: 'false',
      // A notification trigger named after a protocol is still that trigger's type.
      DD_NOTIFICATION_GOTIFY_SMTP_URL: 'https://gotify.example.test',
      PATH: '/usr/bin',
      DD_LOG_LEVEL: undefined,
    };
    expect(runtimeRefusals(env, 'workers')).toEqual([]);
  });

  it.each(['DD_AUTH_BASIC_ADMIN_HASH__FILE', 'DD_REGISTRY_MINE_CAFILE', 'DD_AGENT_EDGE1_CAFILE', 'DD_CONFIG_FILE'])(
    'throws a ConfigError naming %s and the runtime where going on without it could weaken the hub',
    (variable) => {
      const run = () => runtimeRefusals({ [variable]: '/path' }, 'workers');
      expect(run).toThrow(ConfigError);
      expect(run).toThrow(new RegExp(`^${variable}: not available on the workers runtime: `));
    },
  );

  it.each([
    ['DD_SECURITY_SCANNER', 'trivy'],
    ['DD_SECURITY_SCANNER', 'grype'],
    ['DD_SECURITY_SCANNER_PATH', '/usr/local/bin/trivy'],
  ])('refuses %s=%s on Workers, which run no processes, and leaves osv alone', (variable, value) => {
    expect(() => runtimeRefusals({ [variable]: value }, 'workers')).toThrow(
      new RegExp(`^${variable}: not available on the workers runtime: trivy and grype run as processes`),
    );
    expect(runtimeRefusals({ DD_SECURITY_SCANNER: 'osv' }, 'workers')).toEqual([]);
  });

  it('withoutRefused removes exactly the refused variables', () => {
    const env = { ...nodeOnly, DD_LOG_LEVEL: 'debug' };
    expect(withoutRefused(env, runtimeRefusals(env, 'workers'))).toEqual({ DD_LOG_LEVEL: 'debug' });
  });
});
