import * as v from 'valibot';
import type { NotificationProviderDefinition, NotificationProviderHooks } from '../../../notifications/notification-provider';
import { boolean, choice, providerKeys, requireWith, text } from '../../../notifications/providers/provider-keys';
import { createMqttTransport } from './mqtt-transport';

function isBrokerUrl(value: string): boolean {
  try {
    return ['mqtt:', 'mqtts:', 'ws:', 'wss:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** A topic level path without wildcards, empty levels or surrounding slashes. */
const TopicPrefix = v.pipe(text(), v.regex(/^[^#+/\s]+(\/[^#+/\s]+)*$/, 'must be a topic like dockwatch or home/dockwatch (no wildcards)'));

const Keys = v.pipe(
  providerKeys({
    /** `mqtt://host:1883`, `mqtts://host:8883`, `ws://…` or `wss://…`. */
    url: v.pipe(text(), v.check(isBrokerUrl, 'must be an mqtt://, mqtts://, ws:// or wss:// URL')),
    user: v.optional(text()),
    password: v.optional(text()),
    /** Every topic of this trigger starts with it. */
    topic: v.optional(TopicPrefix, 'dockwatch'),
    /** Retain the per-container topics, so a new subscriber sees the current state at once. */
    retain: v.optional(boolean(), 'true'),
    qos: v.optional(
      v.pipe(
        choice(['0', '1', '2']),
        v.transform((value) => Number(value) as 0 | 1 | 2),
      ),
      '1',
    ),
    /** The MQTT client id; `dockwatch-<name>` when absent. */
    clientid: v.optional(text()),
    /** Home Assistant MQTT discovery: one update entity per container. */
    hass: v.optional(boolean(), 'false'),
    /** Home Assistant's discovery prefix. */
    hassprefix: v.optional(TopicPrefix, 'homeassistant'),
    /** Check the broker's certificate (mqtts, wss). */
    tlsverify: v.optional(boolean(), 'true'),
  }),
  requireWith('password', (c) => c.password === undefined || c.user !== undefined, 'needs USER'),
);
export type MqttConfig = v.InferOutput<typeof Keys>;

/**
 * `DD_NOTIFICATION_MQTT_<NAME>_*`: an MQTT broker, with mqtt.js (its README: `connect(url,
 * {username, password, clientId, will, reconnectPeriod, rejectUnauthorized})`, `publishAsync`,
 * `subscribeAsync`, `endAsync`). Topics under TOPIC:
 * - `<topic>/status`: `online`, or `offline` (the retained last will) — HA's availability topic;
 * - `<topic>/event/<event>`: each notification `{event, kind, title, body, containers}`, not retained;
 * - `<topic>/container/<object id>`: each container concerned, as notifications show it (RETAIN);
 * - with HASS=true, Home Assistant discovery (home-assistant-update.ts): a retained config per
 *   container under `<hassprefix>/update/<object id>/config`, its retained state under
 *   `<topic>/update/<object id>/state`, and the install command `<topic>/update/<object id>/install`,
 *   which calls the hub's `onInstall` hook and is audited as `mqtt-command-update`.
 */
export function createMqttProvider(hooks: NotificationProviderHooks): NotificationProviderDefinition<MqttConfig> {
  return {
    type: 'mqtt',
    keys: Keys,
    secretKeys: ['password'],
    create: (config, name) => createMqttTransport(config, name, hooks),
  };
}
