import type { ContainerSpec } from '../../../../shared/docker/docker-host';

/** Marks the helper container, so nothing watches or updates it and an operator can tell what it is. */
export const HELPER_LABEL = 'dd.self-update.helper';
/** The helper reads the operation it runs from the store under this id. */
export const HELPER_OPERATION_VARIABLE = 'DD_SELF_UPDATE_OPERATION';

/**
 * The short-lived helper that swaps the hub's container (docs/updates.md "Self-update"): the hub's
 * own configuration (its Docker socket or endpoint, its store volume, its user and groups, its
 * environment, so it opens the same store and Docker) run from the image the hub runs now (known to
 * work, and holding the helper) with the helper's command. Nothing is published, no health check,
 * no restart, no network alias: it must not be taken for the hub. Docker removes it once it exits.
 */
export function helperContainerSpec(
  hub: ContainerSpec,
  input: { operationId: string; imageId: string; command: readonly string[]; now: number },
): ContainerSpec {
  const [entry, ...args] = input.command;
  // Docker's own host name for it (its short id), not the hub's.
  const { hostname: _hubHostname, ...rest } = hub;
  return {
    ...rest,
    name: `${hub.name}-self-update-${input.now}`,
    image: input.imageId,
    ...(entry !== undefined && { entrypoint: [entry] }),
    cmd: args,
    env: [
      ...hub.env.filter((entry) => !entry.startsWith(`${HELPER_OPERATION_VARIABLE}=`)),
      `${HELPER_OPERATION_VARIABLE}=${input.operationId}`,
    ],
    labels: { [HELPER_LABEL]: input.operationId, 'dd.watch': 'false' },
    exposedPorts: [],
    portBindings: {},
    publishAllPorts: false,
    networks: hub.networks.map(({ name }) => ({ name, aliases: [] })),
    restartPolicy: { name: 'no', maximumRetryCount: 0 },
    healthcheck: { test: ['NONE'] },
    otherHostConfig: { ...hub.otherHostConfig, AutoRemove: true },
  };
}
