import { describe, expect, it } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import { agentView, containerCounts, deriveVersion } from './agent-view';

describe('deriveVersion (http-interface §2.3)', () => {
  it('drops a prerelease or build suffix from version and keeps the full identity as build', () => {
    expect(deriveVersion('1.4.0-rc.2')).toEqual({ version: '1.4.0', build: '1.4.0-rc.2' });
    expect(deriveVersion('1.4.0+sha.abc')).toEqual({ version: '1.4.0', build: '1.4.0+sha.abc' });
    expect(deriveVersion('1.4.0')).toEqual({ version: '1.4.0', build: '1.4.0' });
  });

  it("takes an older agent's own build identity", () => {
    expect(deriveVersion('1.3.9', '1.3.9-20250101.abc')).toEqual({ version: '1.3.9', build: '1.3.9-20250101.abc' });
  });
});

const record = (status: string, imageId: string) =>
  ({ status, image: { id: imageId, name: 'n', tag: { value: 't' } } }) as unknown as Container;

describe('agentView', () => {
  const description = {
    name: 'nas',
    keyId: '0123456789abcdef',
    info: {
      version: '2.0.0-beta.1',
      hostname: '',
      os: 'linux',
      arch: 'arm64',
      cpus: 2,
      memoryGb: 1,
      uptimeSeconds: 100,
      logLevel: 'debug' as const,
    },
    infoAt: 1_000_000,
    watchers: [
      {
        name: 'local',
        endpoint: 'unix:///var/run/docker.sock',
        cron: '*/10 * * * *',
        jitterSeconds: 0,
        watchAll: true,
        watchByDefault: true,
      },
    ],
    lastSeen: new Date(1_030_000).toISOString(),
    address: '192.0.2.7',
  };

  it('shows every http-interface §2.3 field, the address when there is no hostname, and uptime advanced to lastSeen when away', () => {
    const containers = [record('running', 'sha256:a'), record('exited', 'sha256:a'), record('running', 'sha256:b')];
    expect(agentView(description, { connected: false, now: 9_999_999, containers })).toEqual({
      name: 'nas',
      host: '192.0.2.7',
      port: 0,
      connected: false,
      version: '2.0.0',
      build: '2.0.0-beta.1',
      os: 'linux',
      arch: 'arm64',
      cpus: 2,
      memoryGb: 1,
      uptimeSeconds: 130,
      lastSeen: description.lastSeen,
      logLevel: 'debug',
      pollInterval: '*/10 * * * *',
      containers: { total: 3, running: 2, stopped: 1 },
      images: 2,
    });
    expect(agentView(description, { connected: true, now: 1_060_000, containers: [] }).uptimeSeconds).toBe(160);
  });

  it('counts an empty fleet as zeros', () => {
    expect(containerCounts([])).toEqual({ containers: { total: 0, running: 0, stopped: 0 }, images: 0 });
  });
});
