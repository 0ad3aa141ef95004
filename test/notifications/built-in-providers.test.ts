import { describe, expect, it } from 'vitest';
import { nodeNotificationProviders } from '../../hub/src/adapter/node/notifications/node-notification-providers';
import { groupProviderVariables } from '../../hub/src/config/provider-variables';
import type { AnyNotificationProviderDefinition } from '../../hub/src/notifications/notification-provider';
import { loadNotificationTriggers } from '../../hub/src/notifications/notification-triggers';
import { BUILT_IN_NOTIFICATION_PROVIDERS } from '../../hub/src/notifications/providers/index';
import { recordingLogger } from '../support/notification-fixtures/provider-harness';

const nodeProviders = nodeNotificationProviders({ logger: recordingLogger().logger, audit: async () => undefined });
const all: AnyNotificationProviderDefinition[] = [...BUILT_IN_NOTIFICATION_PROVIDERS, ...nodeProviders];

/** The key names a definition's schema knows (its strict object, perhaps inside a pipe). */
function keyNames(definition: AnyNotificationProviderDefinition): string[] {
  const schema = definition.keys as unknown as { entries?: object; pipe?: { entries?: object }[] };
  return Object.keys(schema.entries ?? schema.pipe?.[0]?.entries ?? {});
}

function load(env: Record<string, string>) {
  return loadNotificationTriggers(groupProviderVariables(Object.entries(env), 'DD_NOTIFICATION_'), all);
}

describe('notification provider types', () => {
  it('are the fifteen built-in ones, once each', () => {
    expect(all.map((definition) => definition.type).sort()).toEqual([
      'apprise',
      'discord',
      'googlechat',
      'gotify',
      'http',
      'matrix',
      'mattermost',
      'mqtt',
      'ntfy',
      'pushover',
      'rocketchat',
      'slack',
      'smtp',
      'teams',
      'telegram',
    ]);
  });

  it.each(all.map((definition) => [definition.type, definition] as const))(
    '%s: lower-case one-word keys; secret keys among them',
    (_type, definition) => {
      const keys = keyNames(definition);
      expect(keys.length).toBeGreaterThan(0);
      // KEY is the last `_` segment of DD_NOTIFICATION_<TYPE>_<NAME>_<KEY>: it cannot hold one.
      for (const key of keys) expect(key).toMatch(/^[a-z]+$/);
      for (const secret of definition.secretKeys) expect(keys).toContain(secret);
    },
  );

  it('are configured from DD_NOTIFICATION_* through the core, which names the variable of a bad key', () => {
    const triggers = load({
      DD_NOTIFICATION_TELEGRAM_FAMILY_BOTTOKEN: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw',
      DD_NOTIFICATION_TELEGRAM_FAMILY_CHATID: '-1001234567890',
      DD_NOTIFICATION_NTFY_PHONE_TOPIC: 'dockwatch-updates',
    });
    expect(triggers.map((trigger) => trigger.id).sort()).toEqual(['ntfy.phone', 'telegram.family']);
    expect(() =>
      load({ DD_NOTIFICATION_TELEGRAM_FAMILY_BOTTOKEN: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw' }),
    ).toThrow(/^DD_NOTIFICATION_TELEGRAM_FAMILY_CHATID: /);
    expect(() => load({ DD_NOTIFICATION_SLACK_OPS_URL: 'hooks.slack.com/services/x' })).toThrow(
      /^DD_NOTIFICATION_SLACK_OPS_URL: /,
    );
    expect(() =>
      load({ DD_NOTIFICATION_GOTIFY_HOME_URL: 'https://g.example.com', DD_NOTIFICATION_GOTIFY_HOME_TOKNE: 'x' }),
    ).toThrow(/^DD_NOTIFICATION_GOTIFY_HOME_TOKEN: is required/);
    expect(() =>
      load({
        DD_NOTIFICATION_GOTIFY_HOME_URL: 'https://g.example.com',
        DD_NOTIFICATION_GOTIFY_HOME_TOKEN: 'x',
        DD_NOTIFICATION_GOTIFY_HOME_TOKNE: 'x',
      }),
    ).toThrow(/^DD_NOTIFICATION_GOTIFY_HOME_TOKNE: unknown key; known: url, token, priority, markdown/);
  });
});
