import type { AnyNotificationProviderDefinition } from '../notification-provider';
import { appriseProvider } from './apprise';
import { discordProvider } from './discord';
import { googlechatProvider } from './googlechat';
import { gotifyProvider } from './gotify';
import { httpProvider } from './http';
import { matrixProvider } from './matrix';
import { mattermostProvider } from './mattermost';
import { ntfyProvider } from './ntfy';
import { pushoverProvider } from './pushover';
import { rocketchatProvider } from './rocketchat';
import { slackProvider } from './slack';
import { teamsProvider } from './teams';
import { telegramProvider } from './telegram';

/**
 * Every portable notification trigger type (`DD_NOTIFICATION_<TYPE>_…`), one file each: add a
 * provider with one line here. Types that need Node sockets (smtp, mqtt) are not listed: the Node
 * entry hands them to the core through `HubDeps.notificationProviders`. Definitions are plain
 * objects with no side effects, imported eagerly because the hub is built synchronously.
 */
export const BUILT_IN_NOTIFICATION_PROVIDERS: readonly AnyNotificationProviderDefinition[] = [
  httpProvider,
  ntfyProvider,
  gotifyProvider,
  discordProvider,
  slackProvider,
  telegramProvider,
  pushoverProvider,
  appriseProvider,
  teamsProvider,
  matrixProvider,
  googlechatProvider,
  mattermostProvider,
  rocketchatProvider,
];
