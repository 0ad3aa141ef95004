import type { NotificationMessage, NotificationProviderDefinition } from '../notification-provider';
import { deliverHttp, type HttpDeliveryRequest } from './http-delivery';
import { secretFragments } from './secret-fragments';

interface WebhookProviderOptions<Config> {
  type: string;
  keys: NotificationProviderDefinition<Config>['keys'];
  /** What one message is sent as (JSON body, headers, the service's wait hint), to the configured URL. */
  request(config: Config, message: NotificationMessage): Omit<HttpDeliveryRequest, 'url'>;
}

/**
 * A service reached through one webhook URL that holds its credential (Discord, Google Chat,
 * Mattermost, Teams): the URL is the only secret, and each message is one POST to it.
 */
export function webhookProvider<Config extends { url: string }>(
  options: WebhookProviderOptions<Config>,
): NotificationProviderDefinition<Config> {
  return {
    type: options.type,
    keys: options.keys,
    secretKeys: ['url'],
    create(config, name) {
      const target = { component: `${options.type}.${name}`, secrets: secretFragments([config.url]) };
      return {
        secrets: target.secrets,
        async send(message, context) {
          await deliverHttp(context, target, { ...options.request(config, message), url: config.url });
        },
      };
    },
  };
}
