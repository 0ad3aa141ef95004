import type { UpdatableDockerHost } from '../../../shared/docker/docker-host';
import type { WatcherConfig } from '../../../shared/docker/watcher-config';
import { createDockerHost } from './dockerode-host';
import { createPodmanHost } from './podman-host';

/** The host of a watcher's Engine: Podman's compatible socket has its own differences (podman-host.ts). */
export function createEngineHost(config: Pick<WatcherConfig, 'endpoint' | 'type'>): UpdatableDockerHost {
  return config.type === 'podman' ? createPodmanHost(config.endpoint) : createDockerHost(config.endpoint);
}
