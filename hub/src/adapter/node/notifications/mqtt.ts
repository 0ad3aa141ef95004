import type {
  NotificationProviderDefinition,
  NotificationProviderHooks,
} from '../../../notifications/notification-provider';
import { secretFragments } from '../../../notifications/providers/secret-fragments';
import { lazyTransport } from './lazy-transport';
import { type MqttConfig, MqttKeys } from './mqtt-config';

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
    // mqtt.js is imported only when an mqtt trigger is configured; the connection opens as it loads.
    create: (config, name) =>
      lazyTransport(
        () => import('./mqtt-transport').then(({ createMqttTransport }) => createMqttTransport(config, name, hooks)),
        secretFragments([config.password]),
      ),
  };
}
