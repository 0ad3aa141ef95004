import * as v from 'valibot';
import { boolean, choice, providerKeys, requireWith, text } from '../../../notifications/providers/provider-keys';

function isBrokerUrl(value: string): boolean {
  try {
    return ['mqtt:', 'mqtts:', 'ws:', 'wss:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** A topic level path without wildcards, empty levels or surrounding slashes. */
const TopicPrefix = v.pipe(
  text(),
  v.regex(/^[^#+/\s]+(\/[^#+/\s]+)*$/, 'must be a topic like dockwatch or home/dockwatch (no wildcards)'),
);

/** The keys of DD_NOTIFICATION_MQTT_<NAME>_*: their own module, so the transport reads the type without a cycle. */
export const MqttKeys = v.pipe(
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
export type MqttConfig = v.InferOutput<typeof MqttKeys>;
