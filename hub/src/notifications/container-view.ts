import { imageOf } from '../../../shared/containers/container-record';
import type { Container } from '../../../shared/schemas/container';

/**
 * What a notification says about a container outside the hub (the http trigger's JSON body):
 * identity, image and the update, never the environment or the labels, which may hold secrets
 * that only `env/reveal` may show.
 */
export function notificationContainerView(container: Container) {
  return {
    id: container.id,
    name: container.name,
    displayName: container.displayName,
    watcher: container.watcher,
    ...(container.agent !== undefined && { agent: container.agent }),
    ...(container.group !== undefined && { group: container.group }),
    status: container.status,
    image: {
      registry: container.image.registry.url,
      name: container.image.name,
      tag: container.image.tag.value,
      ...(container.image.digest.repo !== undefined && { digest: container.image.digest.repo }),
    },
    updateAvailable: container.updateAvailable,
    updateKind: container.updateKind,
    ...(container.result && { result: container.result }),
    ...(container.updateMaturityLevel && { updateMaturityLevel: container.updateMaturityLevel }),
  };
}
export type NotificationContainerView = ReturnType<typeof notificationContainerView>;

/** The outbox's safe projection of a container (http-interface §2.9): enough to tell which one, nothing more. */
export function outboxContainerView(container: Container) {
  return {
    id: container.id,
    name: container.name,
    watcher: container.watcher,
    ...(container.agent !== undefined && { agent: container.agent }),
    image: imageOf(container),
    updateKind: container.updateKind,
  };
}
