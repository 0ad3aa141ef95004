import { ConfigError } from '../../../shared/config/config-error';
import { groupProviderVariables } from '../config/provider-variables';
import { type Argon2idHash, parseArgon2id } from './argon2-phc';
import { type OidcProviderConfig, parseOidcProvider } from './oidc-config';
import { decodeBase32 } from './totp';

/** One DD_AUTH_BASIC_<ID>_* user (decisions §4). Holds secrets: never logged nor shown. */
export interface BasicUser {
  id: string;
  username: string;
  hash: Argon2idHash;
  totpSecret: Uint8Array | undefined;
  recoveryCodes: string[];
}

export interface AuthProviders {
  basic: BasicUser[];
  /** OpenID Connect providers (DD_AUTH_OIDC_*), signed in through the authorization-code flow with PKCE. */
  oidc: OidcProviderConfig[];
}

export const BASIC_KEYS = new Set(['user', 'hash', 'totp', 'recovery']);

/** Reads and validates DD_AUTH_*; every ConfigError names its variable, never a secret's value. */
export function loadAuthProviders(vars: ReadonlyMap<string, string>): AuthProviders {
  const providers = groupProviderVariables(vars, 'DD_AUTH_');
  const basic: BasicUser[] = [];
  const oidc: OidcProviderConfig[] = [];
  for (const provider of providers) {
    const prefix = `DD_AUTH_${provider.type.toUpperCase()}_${provider.name.toUpperCase().replace(/-/g, '_')}`;
    if (provider.type === 'oidc') {
      oidc.push(parseOidcProvider(provider, prefix));
      continue;
    }
    if (provider.type !== 'basic')
      throw new ConfigError(`${prefix}_*`, `unknown authentication provider type "${provider.type}"`);
    for (const [key, { variable }] of provider.values) {
      if (!BASIC_KEYS.has(key))
        throw new ConfigError(variable, 'unknown key; expected _USER, _HASH, _TOTP or _RECOVERY');
    }
    const username = provider.values.get('user')?.value.trim();
    if (!username) throw new ConfigError(`${prefix}_USER`, 'is required for a basic user');
    const rawHash = provider.values.get('hash')?.value;
    if (!rawHash) throw new ConfigError(`${prefix}_HASH`, 'is required for a basic user');
    const hash = parseArgon2id(rawHash);
    if (!hash)
      throw new ConfigError(`${prefix}_HASH`, 'must be an argon2id PHC string ($argon2id$v=19$m=…,t=…,p=…$salt$hash)');
    const totp = provider.values.get('totp');
    const totpSecret = totp === undefined ? undefined : decodeBase32(totp.value);
    if (totp && !totpSecret)
      throw new ConfigError(totp.variable, 'must be a base32 TOTP secret of at least 16 characters');
    const recovery = provider.values.get('recovery');
    const recoveryCodes = recovery
      ? recovery.value
          .split(',')
          .map((code) => code.trim())
          .filter((code) => code.length > 0)
      : [];
    if (recovery && recoveryCodes.length === 0)
      throw new ConfigError(recovery.variable, 'must list at least one recovery code');
    if (basic.some((user) => user.username === username))
      throw new ConfigError(`${prefix}_USER`, `the user "${username}" is configured twice`);
    basic.push({ id: provider.name, username, hash, totpSecret, recoveryCodes });
  }
  return { basic, oidc };
}
