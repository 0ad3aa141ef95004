import type { Container } from '../../../../../shared/schemas/container';

/**
 * Home Assistant's MQTT update entities, as https://www.home-assistant.io/integrations/update.mqtt
 * and https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery document them: a retained
 * config at `<discovery prefix>/update/<object id>/config` naming `state_topic` (JSON with
 * `installed_version`, `latest_version`, `title`, `release_url`, `in_progress`), `command_topic` +
 * `payload_install` (the Install button), `availability_topic`, `unique_id`, `device`, `origin`.
 */

export const INSTALL_PAYLOAD = 'install';

export interface UpdateTopics {
  state: string;
  command: string;
}

/**
 * The object id of a container's entity: its identity (agent, watcher, name), not its Docker id,
 * so the entity survives the re-creation that an update is — an entity keyed by the Docker id
 * would vanish with each install. Discovery allows only `[a-zA-Z0-9_-]`.
 */
export function objectIdOf(container: Pick<Container, 'agent' | 'watcher' | 'name'>): string {
  const identity = [container.agent, container.watcher, container.name].filter((part) => part !== undefined).join('_');
  return identity.replace(/[^a-zA-Z0-9_-]/g, '_');
}

export function updateTopics(prefix: string, objectId: string): UpdateTopics {
  return { state: `${prefix}/update/${objectId}/state`, command: `${prefix}/update/${objectId}/install` };
}

export interface DiscoveryOptions {
  /** The entity gets an Install button only when the hub can start updates. */
  installable: boolean;
  availabilityTopic: string;
  /** Groups every entity of this trigger under one device. */
  deviceId: string;
}

export function discoveryConfig(container: Container, topics: UpdateTopics, options: DiscoveryOptions) {
  const objectId = objectIdOf(container);
  return {
    name: container.displayName,
    unique_id: `dockwatch_${objectId}`,
    state_topic: topics.state,
    ...(options.installable && { command_topic: topics.command, payload_install: INSTALL_PAYLOAD }),
    availability_topic: options.availabilityTopic,
    ...(container.displayIcon?.startsWith('https://') && { entity_picture: container.displayIcon }),
    device: {
      identifiers: [options.deviceId],
      name: 'dockwatch',
      manufacturer: 'dockwatch',
      model: 'container update monitor',
    },
    origin: { name: 'dockwatch' },
  };
}

/** Versions as Home Assistant compares them: an update is offered while they differ. */
export function versionsOf(container: Container): { installed: string; latest: string } {
  const kind = container.updateKind;
  if (kind.kind === 'tag') {
    return { installed: kind.localValue, latest: container.updateAvailable ? kind.remoteValue : kind.localValue };
  }
  if (kind.kind === 'digest') {
    const tag = container.image.tag.value;
    const installed = `${tag}@${shortDigest(kind.localValue)}`;
    return { installed, latest: container.updateAvailable ? `${tag}@${shortDigest(kind.remoteValue)}` : installed };
  }
  return { installed: container.image.tag.value, latest: container.image.tag.value };
}

export function updateState(container: Container, inProgress = false) {
  const { installed, latest } = versionsOf(container);
  return {
    installed_version: installed,
    latest_version: latest,
    title: `${container.displayName} (${container.image.name})`,
    ...(container.result?.link?.startsWith('http') && { release_url: container.result.link }),
    in_progress: inProgress,
  };
}

/** `sha256:0123456789ab…` → `sha256:0123456789ab`: enough to tell builds apart on a card. */
function shortDigest(digest: string): string {
  const [algorithm, hex] = digest.includes(':') ? digest.split(':', 2) : ['sha256', digest];
  return `${algorithm}:${(hex ?? '').slice(0, 12)}`;
}
