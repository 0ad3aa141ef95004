import { describe, expect, it } from 'vitest';
import { type InspectedContainer, type RawConfig, toContainerSpec } from './container-spec';
import { imageHealthcheck, withoutPodmanDefaults } from './podman-spec';

const ID = 'ef4a7ad6cca12c637ab305fc9c7fd81a6ddafddeb9c49a311baa8fbe90e8fed4';
/** An image imported without Env, Entrypoint or StopSignal (as the test bed's busybox images). */
const IMAGE: RawConfig = { Cmd: ['/bin/sh'] };

/** Shaped like Podman 4.3.1's compatible inspect of `POST /containers/create {Image, Cmd, Labels}` (trimmed). */
function podmanInspect(config: Partial<RawConfig> = {}): InspectedContainer {
  return {
    Id: ID,
    Name: '/web',
    Config: {
      Hostname: ID.slice(0, 12),
      Env: [
        'TERM=xterm',
        'container=podman',
        'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        `HOSTNAME=${ID.slice(0, 12)}`,
      ],
      Cmd: ['sleep', '3600'],
      Image: '127.0.0.1:5000/app:1.0.0',
      Entrypoint: [],
      Labels: { 'io.containers.autoupdate': 'registry' },
      StopSignal: '15',
      StopTimeout: 0,
      WorkingDir: '/',
      ...config,
    },
    HostConfig: {
      NetworkMode: 'none',
      RestartPolicy: { Name: '', MaximumRetryCount: 0 },
      LogConfig: { Type: 'json-file', Config: null },
      IpcMode: 'shareable',
      PidMode: 'private',
      UTSMode: 'private',
      ShmSize: 65536000,
      Runtime: 'oci',
      PidsLimit: 2048,
    },
    Mounts: [],
    NetworkSettings: { Networks: null },
  } as unknown as InspectedContainer;
}

describe('withoutPodmanDefaults', () => {
  it('leaves out what Podman adds to every container, so a new image brings its own', () => {
    const spec = withoutPodmanDefaults(toContainerSpec(podmanInspect(), IMAGE));
    expect(spec.env).toEqual([]);
    expect(spec.entrypoint).toBeUndefined();
    expect(spec.stopTimeout).toBeUndefined();
    expect(spec.stopSignal).toBeUndefined();
    expect(spec.cmd).toEqual(['sleep', '3600']);
    expect(spec.labels).toEqual({ 'io.containers.autoupdate': 'registry' });
    // Passed back as they were: Podman accepts its own values on create (checked against 4.3.1).
    expect(spec.otherHostConfig).toMatchObject({ Runtime: 'oci', IpcMode: 'shareable' });
  });

  it('keeps what the container set itself: its environment, entrypoint, stop timeout and signal', () => {
    const spec = withoutPodmanDefaults(
      toContainerSpec(
        podmanInspect({
          Env: ['TERM=xterm', 'container=podman', 'MODE=prod', 'PATH=/opt/bin:/usr/bin', 'HOSTNAME=web'],
          Entrypoint: ['/entry.sh'],
          StopTimeout: 30,
          StopSignal: '3',
        }),
        IMAGE,
      ),
    );
    expect(spec.env).toEqual(['MODE=prod', 'PATH=/opt/bin:/usr/bin']);
    expect(spec.entrypoint).toEqual(['/entry.sh']);
    expect(spec.stopTimeout).toBe(30);
    expect(spec.stopSignal).toBe('3');
  });

  it("leaves out the image's health check, which Podman copies into the container (regression: an update kept the old image's check)", () => {
    // `HEALTHCHECK CMD true` in the image: Podman fills in its default interval and timeout.
    const copied = toContainerSpec(
      podmanInspect({ Healthcheck: { Test: ['CMD-SHELL', 'true'], Interval: 30e9, Timeout: 30e9 } }),
      IMAGE,
    );
    expect(copied.healthcheck).toBeDefined();
    const image = imageHealthcheck({ Id: ID, Healthcheck: { Test: ['CMD-SHELL', 'true'] } });
    expect(withoutPodmanDefaults(copied, image).healthcheck).toBeUndefined();
    // The container's own (`--health-cmd`, or other timings than the image's): kept.
    expect(
      withoutPodmanDefaults(copied, imageHealthcheck({ Healthcheck: { Test: ['CMD', 'false'] } })).healthcheck,
    ).toEqual({ test: ['CMD-SHELL', 'true'], intervalNs: 30e9, timeoutNs: 30e9 });
    const timed = imageHealthcheck({ Healthcheck: { Test: ['CMD-SHELL', 'true'], Interval: 1e9 } });
    expect(withoutPodmanDefaults(copied, timed).healthcheck).toMatchObject({ intervalNs: 30e9 });
    expect(withoutPodmanDefaults(copied, undefined).healthcheck).toMatchObject({ test: ['CMD-SHELL', 'true'] });
  });

  it("reads an image's health check from libpod's image inspect", () => {
    expect(
      imageHealthcheck({ Healthcheck: { Test: ['CMD', 'true'], Interval: 1e9, Timeout: 5e9, Retries: 1 } }),
    ).toEqual({
      test: ['CMD', 'true'],
      intervalNs: 1e9,
      timeoutNs: 5e9,
      retries: 1,
    });
    expect(imageHealthcheck({ Id: ID })).toBeUndefined();
    expect(() => imageHealthcheck({ Healthcheck: { Test: 'true' } })).toThrow(
      /libpod image inspect: unexpected answer/,
    );
  });
});
