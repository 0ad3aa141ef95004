import type { SwarmService, SwarmServiceSpec, SwarmUpdateConfig } from '../../../shared/docker/swarm-engine';
import { unpinnedImage } from './swarm-host';

/** The image a spec runs, without Swarm's `@sha256:` pin. */
export function specImage(spec: SwarmServiceSpec | undefined): string {
  return unpinnedImage(spec?.TaskTemplate.ContainerSpec?.Image ?? '').reference;
}

/**
 * The service's spec with a new image and everything else as it was (its UpdateConfig applies). A
 * reference equal to the one the spec names (a rebuilt image under the same tag) would change
 * nothing, so ForceUpdate is raised: the manager then replaces the tasks, which pull the tag again.
 */
export function specWithImage(spec: SwarmServiceSpec, image: string): SwarmServiceSpec {
  const template = spec.TaskTemplate;
  const unchanged = template.ContainerSpec?.Image === image;
  const force = typeof template.ForceUpdate === 'number' ? template.ForceUpdate : 0;
  return {
    ...spec,
    TaskTemplate: {
      ...template,
      ContainerSpec: { ...template.ContainerSpec, Image: image },
      ...(unchanged && { ForceUpdate: force + 1 }),
    },
  };
}

const NS_PER_MS = 1_000_000;

/**
 * How long an update (or rollback) of the service may take before the hub gives up on it: the
 * action trigger's health timeout for each batch of Parallelism tasks, plus the batch's Delay and
 * Monitor. `tasks` counts a global service's tasks (one per node).
 */
export function settleTimeoutMs(
  service: SwarmService,
  tasks: number,
  healthTimeoutMs: number,
  config: SwarmUpdateConfig | undefined,
): number {
  const replicas = service.Spec.Mode?.Replicated?.Replicas ?? Math.max(tasks, 1);
  const parallelism = config?.Parallelism ?? 1;
  const batches = parallelism <= 0 ? 1 : Math.ceil(Math.max(replicas, 1) / parallelism);
  const perBatch =
    healthTimeoutMs + (config?.Delay ?? 0) / NS_PER_MS + (config?.Monitor ?? 5_000 * NS_PER_MS) / NS_PER_MS;
  return Math.round(batches * perBatch);
}
