import type {
  NotificationProviderDefinition,
  NotificationProviderHooks,
} from '../../../notifications/notification-provider';
import { type MqttConfig, MqttKeys } from './mqtt-config';
import { createMqttTransport } from './mqtt-transport';

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
    keys: MqttKeys,
    secretKeys: ['password'],
    create: (config, name) => createMqttTransport(config, name, hooks),
  };
}
