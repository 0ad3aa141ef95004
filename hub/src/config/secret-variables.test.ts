import { describe, expect, it } from 'vitest';
import { secretKind } from './secret-variables';

describe('secretKind', () => {
  it.each([
    'DD_AUTH_BASIC_ADMIN_HASH',
    'DD_AUTH_OIDC_DEX_CLIENTSECRET',
    'DD_REGISTRY_HUB_PRIVATE_PASSWORD',
    'DD_REGISTRY_GHCR_MINE_TOKEN',
    'DD_REGISTRY_ECR_AWS_SECRETACCESSKEY',
    'DD_REGISTRY_ECR_AWS_SESSIONTOKEN',
    'DD_SERVER_WEBHOOK_TOKEN',
    'DD_SERVER_WEBHOOK_TOKENS_UPDATE',
    'DD_SERVER_WEBHOOK_SECRET',
    'DD_SERVER_METRICS_TOKEN',
    'DD_NOTIFICATION_HTTP_OPS_URL',
    'DD_NOTIFICATION_HTTP_OPS_BEARER',
    'DD_NOTIFICATION_HTTP_OPS_PASSWORD',
    'DD_NOTIFICATION_HTTP_OPS_HEADERS',
    'DD_AGENT_NAS_SECRET',
  ])('takes %s for a secret', (name) => {
    expect(secretKind(name)).toBeTypeOf('string');
  });

  it.each([
    'DD_LOG_LEVEL',
    'DD_AUTH_BASIC_ADMIN_USER',
    'DD_AUTH_OIDC_DEX_DISCOVERY',
    'DD_REGISTRY_HUB_PRIVATE_LOGIN',
    'DD_NOTIFICATION_NTFY_OPS_TOPIC',
    'DD_SERVER_RATELIMIT_MAX',
    'DD_PUBLIC_URL',
  ])('leaves %s in plain variables', (name) => {
    expect(secretKind(name)).toBeUndefined();
  });
});
