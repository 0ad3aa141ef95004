import type * as v from 'valibot';
import { httpUrl, providerKeys } from './provider-keys';
import { webhookProvider } from './webhook-provider';

const Keys = providerKeys({
  /**
   * The URL of a Teams Workflows flow "When a Teams webhook request is received" (or a legacy
   * incoming webhook); its `sig` query parameter is the credential.
   */
  url: httpUrl(),
});
type TeamsConfig = v.InferOutput<typeof Keys>;

/**
 * `DD_NOTIFICATION_TEAMS_<NAME>_*`: Microsoft Teams. Sends an Adaptive Card, not a MessageCard:
 * Microsoft is retiring the Office 365 connectors that MessageCards were made for, and their
 * replacement, a Workflows webhook ("Post to a channel when a webhook request is received"), posts
 * Adaptive Card attachments; the legacy incoming webhook accepts the same message too. Follows
 * "Send Adaptive Cards using an Incoming Webhook" (Microsoft Learn): `{type: "message",
 * attachments: [{contentType: "application/vnd.microsoft.card.adaptive", content: <card>}]}`,
 * card version 1.2 (rendered by every Teams client), TextBlocks with `wrap`. Workflows answer 202.
 */
export const teamsProvider = webhookProvider<TeamsConfig>({
  type: 'teams',
  keys: Keys,
  request: (_config, message) => {
    const body = [
      ...(message.title
        ? [{ type: 'TextBlock', text: message.title, weight: 'Bolder', size: 'Medium', wrap: true }]
        : []),
      ...(message.body ? [{ type: 'TextBlock', text: message.body, wrap: true }] : []),
    ];
    return {
      json: {
        type: 'message',
        attachments: [
          {
            contentType: 'application/vnd.microsoft.card.adaptive',
            contentUrl: null,
            content: {
              $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
              type: 'AdaptiveCard',
              version: '1.2',
              body,
              msteams: { width: 'Full' },
            },
          },
        ],
      },
    };
  },
});
