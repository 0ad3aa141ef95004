import type {
  AnyNotificationProviderDefinition,
  NotificationProviderHooks,
} from '../../../notifications/notification-provider';
import { createMqttProvider } from './mqtt';
import { smtpProvider } from './smtp';

/**
 * The notification trigger types that need Node sockets (nodemailer, mqtt.js): the Node entry hands
 * this to the core, which calls it once with its hooks and adds the result to the portable list.
 */
export function nodeNotificationProviders(hooks: NotificationProviderHooks): AnyNotificationProviderDefinition[] {
  return [smtpProvider, createMqttProvider(hooks)];
}
