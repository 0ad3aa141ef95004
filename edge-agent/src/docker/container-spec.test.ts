import { describe, expect, it } from 'vitest';
import { type InspectedContainer, type RawConfig, toContainerSpec, toCreateRequest } from './container-spec';

const ID = '1e8ea27d361c79cf7b10adbbcb97c1c6d1764d8d89f4e2a17c5ee6178b5a3fe5';
const IMAGE: RawConfig = {
  Env: ['PATH=/usr/bin', 'VERSION=1'],
  Cmd: ['httpd', '-f'],
  Entrypoint: null,
  Labels: { 'org.opencontainers.image.version': '1' },
  WorkingDir: '/srv',
  ExposedPorts: { '80/tcp': {} },
  Healthcheck: { Test: ['CMD', 'true'], Interval: 500_000_000 },
};

/** Shaped like dockerd 20.10's inspect of a container created with docker run / compose. */
function inspected(
  over: { Config?: RawConfig; HostConfig?: Record<string, unknown>; Mounts?: InspectedContainer['Mounts'] } = {},
): InspectedContainer {
  return {
    Id: ID,
    Name: '/web',
    Config: {
      Hostname: ID.slice(0, 12),
      Env: ['PATH=/usr/bin', 'VERSION=1', 'MODE=prod'],
      Cmd: ['httpd', '-f'],
      Entrypoint: null,
      Image: 'registry.local/web:1',
      Labels: { 'org.opencontainers.image.version': '1', 'com.docker.compose.project': 'shop' },
      WorkingDir: '/srv',
      ExposedPorts: { '80/tcp': {}, '9000/tcp': {} },
      Healthcheck: { Test: ['CMD', 'true'], Interval: 500_000_000 },
      ...over.Config,
    },
    HostConfig: {
      NetworkMode: 'front',
      Binds: ['data:/data'],
      PortBindings: { '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '8080' }] },
      RestartPolicy: { Name: 'always', MaximumRetryCount: 0 },
      Memory: 0,
      Sysctls: { 'net.core.somaxconn': '1024' },
      MaskedPaths: ['/proc/kcore'],
      ShmSize: 67108864,
      Privileged: false,
      Init: null,
      ...over.HostConfig,
    },
    Mounts: over.Mounts ?? [
      { Type: 'volume', Name: 'data', Destination: '/data', RW: true },
      { Type: 'volume', Name: 'f00d', Destination: '/cache', RW: true },
    ],
    NetworkSettings: {
      Networks: {
        front: { Aliases: ['web', ID.slice(0, 12)], IPAMConfig: null },
        back: { Aliases: ['api', ID.slice(0, 12)], IPAMConfig: { IPv4Address: '10.5.0.9' } },
      },
    },
  };
}

describe('toContainerSpec', () => {
  it('keeps what the container set itself and leaves the image defaults to the new image', () => {
    const spec = toContainerSpec(inspected(), IMAGE);
    expect(spec.env).toEqual(['MODE=prod']);
    expect(spec.labels).toEqual({ 'com.docker.compose.project': 'shop' });
    expect(spec.exposedPorts).toEqual(['9000/tcp']);
    expect(spec).not.toHaveProperty('cmd');
    expect(spec).not.toHaveProperty('entrypoint');
    expect(spec).not.toHaveProperty('workingDir');
    expect(spec).not.toHaveProperty('healthcheck');
    expect(spec).not.toHaveProperty('hostname');
    expect(spec).not.toHaveProperty('init');
    expect(spec.otherHostConfig).toEqual({ Sysctls: { 'net.core.somaxconn': '1024' }, ShmSize: 67108864 });
  });

  it('re-attaches anonymous volumes by name and every network with its own aliases and static address', () => {
    const spec = toContainerSpec(inspected(), IMAGE);
    expect(spec.binds).toEqual(['data:/data', 'f00d:/cache']);
    expect(spec.networks).toEqual([
      { name: 'front', aliases: ['web'] },
      { name: 'back', aliases: ['api'], ipv4Address: '10.5.0.9' },
    ]);
    const { body, laterNetworks } = toCreateRequest(spec);
    expect(body['NetworkingConfig']).toEqual({ EndpointsConfig: { front: { Aliases: ['web'] } } });
    expect(laterNetworks.map((network) => network.name)).toEqual(['back']);
    expect((body['HostConfig'] as Record<string, unknown>)['NetworkMode']).toBe('front');
    expect(body['ExposedPorts']).toEqual({ '9000/tcp': {}, '80/tcp': {} });
  });

  it('keeps an explicit command, entrypoint, healthcheck, user and host name', () => {
    const spec = toContainerSpec(
      inspected({
        Config: {
          Cmd: ['--verbose'],
          Entrypoint: ['/bin/app'],
          User: '1000',
          Hostname: 'shop',
          Healthcheck: { Test: ['CMD-SHELL', 'wget -q localhost'], Interval: 1_000_000_000, Retries: 3 },
        },
        HostConfig: { Init: true },
      }),
      IMAGE,
    );
    expect(spec).toMatchObject({
      cmd: ['--verbose'],
      entrypoint: ['/bin/app'],
      user: '1000',
      hostname: 'shop',
      init: true,
      healthcheck: { test: ['CMD-SHELL', 'wget -q localhost'], intervalNs: 1_000_000_000, retries: 3 },
    });
  });

  it('gives host and container network modes no endpoints, and passes --rm through for the engine to refuse', () => {
    const spec = toContainerSpec(inspected({ HostConfig: { NetworkMode: 'host', AutoRemove: true } }), IMAGE);
    expect(spec.networks).toEqual([]);
    expect(spec.otherHostConfig['AutoRemove']).toBe(true);
    expect(toCreateRequest(spec).body).not.toHaveProperty('NetworkingConfig');
  });

  it('keeps a container without networking (NetworkDisabled) so, and leaves others as the engine defaults them', () => {
    const disabled = toContainerSpec(inspected({ Config: { NetworkDisabled: true } }), IMAGE);
    expect(disabled.networkDisabled).toBe(true);
    expect(toCreateRequest(disabled).body).toMatchObject({ NetworkDisabled: true });
    const enabled = toContainerSpec(inspected({ Config: { NetworkDisabled: false } }), IMAGE);
    expect(enabled).not.toHaveProperty('networkDisabled');
    expect(toCreateRequest(enabled).body).not.toHaveProperty('NetworkDisabled');
  });
});
