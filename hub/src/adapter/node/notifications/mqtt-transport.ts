import { connect, type MqttClient } from 'mqtt';
import { imageOf } from '../../../../../shared/containers/container-record';
import { errorMessage } from '../../../../../shared/error-message';
import type { AuditRecord } from '../../../../../shared/schemas/audit-entry';
import type { Container } from '../../../../../shared/schemas/container';
import { notificationContainerView } from '../../../notifications/container-view';
import {
  DeliveryError,
  type NotificationProviderHooks,
  type NotificationTransport,
} from '../../../notifications/notification-provider';
import { scrubSecrets, secretFragments } from '../../../notifications/providers/secret-fragments';
import { abortable } from './abortable';
import {
  discoveryConfig,
  INSTALL_PAYLOAD,
  objectIdOf,
  updateState,
  updateTopics,
  versionsOf,
} from './home-assistant-update';
import type { MqttConfig } from './mqtt-config';

const RECONNECT_MS = 5_000;
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * One broker connection per trigger, opened at once and kept (mqtt.js reconnects by itself);
 * `send` waits for it within the delivery timeout. Every (re)connection announces `online`,
 * subscribes to the install commands and publishes discovery and state of the known containers.
 */
export function createMqttTransport(
  config: MqttConfig,
  name: string,
  hooks: NotificationProviderHooks,
): NotificationTransport {
  const component = `mqtt.${name}`;
  const logger = hooks.logger.child(component);
  const secrets = secretFragments([config.password]);
  const statusTopic = `${config.topic}/status`;
  const hassStatusTopic = `${config.hassprefix}/status`;
  const commandPrefix = `${config.topic}/update/`;
  /** The latest view of every container this trigger has published, by object id. */
  const known = new Map<string, Container>();
  /** Object ids whose discovery config went out on the current connection. */
  const announced = new Set<string>();
  let lastError: string | undefined;

  const client: MqttClient = connect(config.url, {
    ...(config.user !== undefined && { username: config.user }),
    ...(config.password !== undefined && { password: config.password }),
    clientId: config.clientid ?? `dockwatch-${name}`,
    will: { topic: statusTopic, payload: Buffer.from('offline'), qos: config.qos, retain: true },
    reconnectPeriod: RECONNECT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    rejectUnauthorized: config.tlsverify,
  });

  const publish = (topic: string, payload: string, retain: boolean) =>
    client.publishAsync(topic, payload, { qos: config.qos, retain });

  async function publishContainer(container: Container, inProgress = false): Promise<void> {
    const objectId = objectIdOf(container);
    known.set(objectId, container);
    await publish(
      `${config.topic}/container/${objectId}`,
      JSON.stringify(notificationContainerView(container)),
      config.retain,
    );
    if (!config.hass) return;
    const topics = updateTopics(config.topic, objectId);
    if (!announced.has(objectId)) {
      const discovery = discoveryConfig(container, topics, {
        installable: hooks.onInstall !== undefined,
        availabilityTopic: statusTopic,
        deviceId: `dockwatch_${config.topic.replace(/[^a-zA-Z0-9_-]/g, '_')}`,
      });
      await publish(`${config.hassprefix}/update/${objectId}/config`, JSON.stringify(discovery), true);
      announced.add(objectId);
    }
    // Home Assistant reads the state at start from the retained message.
    await publish(topics.state, JSON.stringify(updateState(container, inProgress)), true);
  }

  async function publishAll(): Promise<void> {
    const containers = hooks.containers ? await hooks.containers() : [...known.values()];
    for (const container of containers) await publishContainer(container);
  }

  async function onConnect(): Promise<void> {
    announced.clear();
    lastError = undefined;
    try {
      await publish(statusTopic, 'online', true);
      if (!config.hass) return;
      await client.subscribeAsync([`${commandPrefix}+/install`, hassStatusTopic], { qos: config.qos });
      await publishAll();
    } catch (error) {
      logger.warn('publishing at connect failed', { error: describe(error) });
    }
  }

  const audit = (record: Omit<AuditRecord, 'action' | 'triggerName'>) =>
    hooks.audit({ action: 'mqtt-command-update', triggerName: component, ...record }).catch((error: unknown) => {
      logger.error('audit failed', { error: describe(error) });
    });

  async function onInstallCommand(objectId: string): Promise<void> {
    const container = known.get(objectId);
    if (!container) {
      await audit({ status: 'refused', details: `no container is published as ${objectId}` });
      return;
    }
    const { installed, latest } = versionsOf(container);
    const record = {
      containerName: container.name,
      containerImage: imageOf(container),
      fromVersion: installed,
      toVersion: latest,
    };
    if (!hooks.onInstall) {
      await audit({ ...record, status: 'refused', details: 'this hub cannot start updates' });
      return;
    }
    if (!container.updateAvailable) {
      await audit({ ...record, status: 'refused', details: 'no update is available' });
      return;
    }
    await publishContainer(container, true).catch(() => undefined);
    try {
      await hooks.onInstall(container.id);
      await audit({ ...record, status: 'success', details: `update started from ${component}` });
    } catch (error) {
      await audit({ ...record, status: 'failed', details: describe(error) });
    }
    // The update re-creates the container: publish what the hub knows now (in_progress cleared).
    const fresh = (await hooks.containers?.().catch(() => undefined))?.find(
      (candidate) => objectIdOf(candidate) === objectId,
    );
    await publishContainer(fresh ?? container).catch(() => undefined);
  }

  function onMessage(topic: string, payload: Buffer, retained: boolean): void {
    if (topic === hassStatusTopic) {
      // Home Assistant restarted: announce everything again (its birth message, `online`).
      if (payload.toString() === 'online') {
        announced.clear();
        publishAll().catch((error: unknown) =>
          logger.warn('republishing discovery failed', { error: describe(error) }),
        );
      }
      return;
    }
    if (!topic.startsWith(commandPrefix) || !topic.endsWith('/install')) return;
    // A retained command would start the update again at every reconnection.
    if (retained) {
      logger.warn('ignored a retained install command', { topic });
      return;
    }
    if (payload.toString() !== INSTALL_PAYLOAD) return;
    void onInstallCommand(topic.slice(commandPrefix.length, -'/install'.length));
  }

  client.on('connect', () => void onConnect());
  client.on('message', (topic, payload, packet) => onMessage(topic, payload, packet.retain));
  client.on('error', (error) => {
    lastError = describe(error);
    logger.warn('broker connection failed', { error: lastError });
  });

  function describe(error: unknown): string {
    return scrubSecrets(errorMessage(error), secrets);
  }

  return {
    secrets,
    async send(message, context) {
      try {
        await waitForConnection(client, context.signal);
        for (const container of message.containers) await abortable(publishContainer(container), context.signal);
        const event = {
          event: message.event,
          kind: message.kind,
          title: message.title,
          body: message.body,
          containers: message.containers.map((container) => ({
            id: container.id,
            name: container.name,
            watcher: container.watcher,
            agent: container.agent,
          })),
        };
        await abortable(
          publish(`${config.topic}/event/${message.event}`, JSON.stringify(event), false),
          context.signal,
        );
      } catch (error) {
        if (!client.connected)
          throw new DeliveryError(
            `${component}: not connected to the broker${lastError ? `: ${lastError}` : ''}`,
            true,
          );
        if (context.signal.aborted)
          throw new DeliveryError(`${component}: no acknowledgement before the delivery timeout`, true);
        throw new DeliveryError(`${component}: publish failed: ${describe(error)}`, true);
      }
    },
    async close() {
      if (client.connected) await publish(statusTopic, 'offline', true).catch(() => undefined);
      await client.endAsync();
    },
  };
}

/** Resolves at the next connection (mqtt.js reconnects by itself), or rejects when the signal aborts. */
function waitForConnection(client: MqttClient, signal: AbortSignal): Promise<void> {
  if (client.connected) return Promise.resolve();
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onConnect = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      client.removeListener('connect', onConnect);
      reject(signal.reason);
    };
    client.once('connect', onConnect);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
