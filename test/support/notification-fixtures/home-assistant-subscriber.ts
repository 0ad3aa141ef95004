import { connectAsync, type MqttClient } from 'mqtt';

export interface UpdateEntity {
  objectId: string;
  config: {
    name: string;
    unique_id: string;
    state_topic: string;
    command_topic?: string;
    payload_install?: string;
    availability_topic: string;
    device: { identifiers: string[] };
  };
  /** The latest state published on its state_topic. */
  state?: {
    installed_version: string;
    latest_version: string;
    title: string;
    in_progress: boolean;
    release_url?: string;
  };
}

export interface HomeAssistantSubscriber {
  entities: Map<string, UpdateEntity>;
  /** The latest payload of each availability topic. */
  availability: Map<string, string>;
  /** How many discovery configs arrived in all. */
  configsReceived: number;
  /** Resolves once `check` holds, re-checked at every message; rejects after `timeoutMs`. */
  until(check: () => boolean, timeoutMs?: number): Promise<void>;
  /** What the Install button does: publish `payload_install` to `command_topic`. */
  pressInstall(objectId: string): Promise<void>;
  /** What Home Assistant publishes when it starts (its birth message). */
  announceOnline(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Behaves like Home Assistant's MQTT integration for update entities: subscribes to
 * `<prefix>/update/+/config`, follows each entity's `state_topic` and `availability_topic`, and
 * presses Install by publishing the entity's `payload_install` to its `command_topic`.
 */
export async function startHomeAssistant(
  brokerUrl: string,
  account: { user: string; password: string },
  prefix = 'homeassistant',
): Promise<HomeAssistantSubscriber> {
  const client: MqttClient = await connectAsync(brokerUrl, {
    username: account.user,
    password: account.password,
    reconnectPeriod: 0,
  });
  const entities = new Map<string, UpdateEntity>();
  const availability = new Map<string, string>();
  const stateTopics = new Map<string, string>();
  const waiters = new Set<() => void>();
  const subscriber: HomeAssistantSubscriber = {
    entities,
    availability,
    configsReceived: 0,
    until(check, timeoutMs = 5_000) {
      if (check()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error('home assistant: the expected messages did not arrive'));
        }, timeoutMs);
        const waiter = () => {
          if (!check()) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve();
        };
        waiters.add(waiter);
      });
    },
    async pressInstall(objectId) {
      const entity = entities.get(objectId);
      if (!entity?.config.command_topic || entity.config.payload_install === undefined)
        throw new Error(`${objectId} has no Install button`);
      await client.publishAsync(entity.config.command_topic, entity.config.payload_install, { qos: 1 });
    },
    announceOnline: async () => {
      await client.publishAsync(`${prefix}/status`, 'online', { qos: 1 });
    },
    close: () => client.endAsync(),
  };
  client.on('message', (topic, payload) => {
    const text = payload.toString();
    const config = new RegExp(`^${prefix}/update/([^/]+)/config$`).exec(topic);
    if (config?.[1]) {
      const objectId = config[1];
      const parsed = JSON.parse(text) as UpdateEntity['config'];
      subscriber.configsReceived++;
      entities.set(objectId, { ...entities.get(objectId), objectId, config: parsed });
      if (!stateTopics.has(parsed.state_topic)) {
        stateTopics.set(parsed.state_topic, objectId);
        // A config may still arrive while the test ends this client: nothing to follow then.
        client.subscribeAsync([parsed.state_topic, parsed.availability_topic], { qos: 1 }).catch(() => undefined);
      }
    } else if (stateTopics.has(topic)) {
      const entity = entities.get(stateTopics.get(topic) as string);
      if (entity) entity.state = JSON.parse(text) as NonNullable<UpdateEntity['state']>;
    } else {
      availability.set(topic, text);
    }
    for (const waiter of [...waiters]) waiter();
  });
  await client.subscribeAsync(`${prefix}/update/+/config`, { qos: 1 });
  return subscriber;
}
