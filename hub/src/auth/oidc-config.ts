import { ConfigError } from '../../../shared/config/config-error';
import type { ProviderVariables } from '../config/provider-variables';

/** One DD_AUTH_OIDC_<ID>_* provider (decisions §4). Holds the client secret: never logged nor shown. */
export interface OidcProviderConfig {
  id: string;
  /** The provider's discovery document (…/.well-known/openid-configuration); https only (http-interface §9.7). */
  discovery: string;
  clientId: string;
  clientSecret: string;
  /** The hub's callback as registered at the provider (absolute). */
  redirect: string;
}

export const OIDC_KEYS = ['discovery', 'clientid', 'clientsecret', 'redirect'] as const;
type Key = (typeof OIDC_KEYS)[number];

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** Reads one OIDC provider's variables; every ConfigError names its variable and never quotes the secret. */
export function parseOidcProvider(provider: ProviderVariables, prefix: string): OidcProviderConfig {
  for (const [key, { variable }] of provider.values) {
    if (!(OIDC_KEYS as readonly string[]).includes(key)) {
      throw new ConfigError(variable, 'unknown key; expected _DISCOVERY, _CLIENTID, _CLIENTSECRET or _REDIRECT');
    }
  }
  const required = (key: Key): string => {
    const value = provider.values.get(key)?.value.trim();
    if (!value) throw new ConfigError(`${prefix}_${key.toUpperCase()}`, 'is required for an OIDC provider');
    return value;
  };

  const discovery = required('discovery');
  const discoveryUrl = parseUrl(discovery);
  // http discovery URLs were removed (http-interface §9.7): a network attacker could swap every endpoint and key.
  if (discoveryUrl?.protocol !== 'https:') {
    throw new ConfigError(
      `${prefix}_DISCOVERY`,
      'must be an https:// URL of the provider discovery document (http is refused)',
    );
  }
  if (discoveryUrl.username || discoveryUrl.password) {
    throw new ConfigError(`${prefix}_DISCOVERY`, 'must not carry credentials in the URL');
  }
  const redirect = required('redirect');
  const redirectUrl = parseUrl(redirect);
  if (!redirectUrl || (redirectUrl.protocol !== 'https:' && redirectUrl.protocol !== 'http:') || redirectUrl.hash) {
    throw new ConfigError(
      `${prefix}_REDIRECT`,
      'must be the absolute http(s) URL of the hub callback (…/api/v1/auth/oidc/<id>/callback)',
    );
  }
  return {
    id: provider.name,
    discovery: discoveryUrl.href,
    clientId: required('clientid'),
    clientSecret: required('clientsecret'),
    redirect: redirectUrl.href,
  };
}
