/**
 * The hub's own settings that hold no secret and are read by their whole name: hub-config.ts reads
 * them (GET /api/v1/config lists the unset ones as defaults) and secret-variables.ts classifies them
 * as plain settings. One list, so a setting added to one is never missing from the other.
 */
export const HUB_SETTING_VARIABLES = [
  'DD_SERVER_PORT',
  'DD_SERVER_HOST',
  'DD_SERVER_TRUSTPROXY',
  'DD_SERVER_COOKIE_SAMESITE',
  'DD_SERVER_METRICS_AUTH',
  'DD_SERVER_FEATURE_CONTAINERACTIONS',
  'DD_SERVER_FEATURE_DELETE',
  'DD_SERVER_RATELIMIT_MAX',
  'DD_SERVER_RATELIMIT_WEBSOCKET',
  'DD_SERVER_CORS_ORIGINS',
  'DD_STORE_DRIVER',
  'DD_LOG_LEVEL',
  'DD_LOG_FORMAT',
  'DD_LOG_BUFFER_ENABLED',
  'DD_AUDIT_RETENTION_DAYS',
  'DD_AUDIT_MAX_ENTRIES',
  'DD_UI_MATURITY_THRESHOLD_DAYS',
  'DD_COMPAT_WUDCARD',
  'DD_APPROVALS_SEPARATE',
  'DD_EXPERIMENTAL_EDGE',
  'DD_EDGE_SIGNIN_MAX_PER_ADDRESS',
  'DD_EDGE_SIGNIN_MAX',
  'DD_EDGE_GATEWAY_SHARDS',
  'DD_ICONS_TIMEOUT',
] as const;
