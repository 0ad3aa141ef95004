/**
 * Variables whose values are credentials. On Workers they are set with `wrangler secret put`
 * (encrypted, never shown again), not in wrangler.toml's `[vars]` (plain text in the repository and
 * the dashboard): `npm run deploy:workers` refuses a deploy that has one in `[vars]` (docs/workers.md).
 */
const SECRET_VARIABLE_RULES: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /^DD_AUTH_BASIC_[A-Z0-9]+_HASH$/, what: 'a password hash' },
  { pattern: /^DD_AUTH_OIDC_[A-Z0-9]+_CLIENTSECRET$/, what: 'an OpenID client secret' },
  // Registries, triggers, listen agents, server tokens: every *_PASSWORD, *_TOKEN(S_*), *_SECRET...
  { pattern: /_(PASSWORD|TOKEN|SESSIONTOKEN|SECRET|CLIENTSECRET|SECRETACCESSKEY|BEARER)$/, what: 'a credential' },
  { pattern: /^DD_SERVER_WEBHOOK_TOKENS_[A-Z]+$/, what: 'a webhook token' },
  // Webhook-style notification URLs carry their token in the path (Slack, Discord, Teams...).
  { pattern: /^DD_NOTIFICATION_[A-Z0-9]+_[A-Z0-9]+_URL$/, what: 'a notification URL, which may hold a token' },
  { pattern: /^DD_NOTIFICATION_[A-Z0-9]+_[A-Z0-9]+_HEADERS$/, what: 'notification headers, which may hold a token' },
  { pattern: /^DD_STORE_URL$/, what: 'a store URL with credentials' },
];

/** What the variable holds when it is a secret, else undefined. */
export function secretKind(name: string): string | undefined {
  return SECRET_VARIABLE_RULES.find((rule) => rule.pattern.test(name))?.what;
}
