import * as v from 'valibot';
import { ConfigError } from '../../../shared/config/config-error';
import type { BasicCredentials } from '../../../shared/registry/registry-auth';
import type { ProviderVariables } from '../config/provider-variables';
import type { ProviderConnection, RegistryProvider, RegistryProviderContext } from './registry-provider';
import { CommonRegistryOptions, commonConnection, maskSecret, parseProviderOptions } from './registry-provider';

/** `<name>.azurecr.io` (and the China and US Government clouds); registry names are 5–50 letters and digits. */
const ACR_HOST = /^[a-z0-9]{5,50}\.azurecr\.(?:io|cn|us)$/;

export function isAcrHost(registry: string): boolean {
  return ACR_HOST.test(registry.toLowerCase());
}

const OptionsSchema = {
  ...CommonRegistryOptions,
  /** Narrows the provider to one registry, for credentials that only work there (admin user, tokens). */
  url: v.optional(
    v.pipe(
      v.string(),
      v.check(
        (value) => /^https:\/\/[^/\s]+\/?$/.test(value) && isAcrHost(new URL(value).host),
        'must be https://<name>.azurecr.io',
      ),
    ),
  ),
  /** Service principal (application id and client secret). */
  clientid: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  clientsecret: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  /** Admin user, or a repository-scoped token's name. */
  login: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  password: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  /** A repository-scoped token's password (same as PASSWORD; the name many users look for). */
  token: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
};

/**
 * `DD_REGISTRY_ACR_<NAME>_CLIENTID` + `_CLIENTSECRET` (a service principal), or `_LOGIN` +
 * `_PASSWORD`/`_TOKEN` (admin user, repository-scoped token): Azure Container Registry. ACR's
 * 401 names its own `/oauth2/token` as the realm and accepts these as Basic credentials there,
 * so no Azure AD call is needed. Not a built-in: anonymous pull is opt-in per registry and the
 * generic fallback covers it; with no variables the provider is simply anonymous.
 */
export function createAcrProvider(variables: ProviderVariables, _context: RegistryProviderContext): RegistryProvider {
  const options = parseProviderOptions(variables, OptionsSchema);
  const credentials = acrCredentials(variables, options);
  const onlyHost = options.url === undefined ? undefined : new URL(options.url).host;
  return {
    type: 'acr',
    name: variables.name,
    matches: (registry) => (onlyHost === undefined ? isAcrHost(registry) : registry.toLowerCase() === onlyHost),
    async connection(): Promise<ProviderConnection> {
      return {
        ...(credentials && { credentials }),
        ...commonConnection(options, undefined),
      };
    },
    maskedConfiguration: () => ({
      url: options.url,
      // Client ids and user names identify, they do not authenticate: shown so users can tell providers apart.
      clientid: options.clientid,
      login: options.login,
      clientsecret: maskSecret(options.clientsecret),
      password: maskSecret(options.password),
      token: maskSecret(options.token),
    }),
  };
}

interface CredentialOptions {
  clientid: string | undefined;
  clientsecret: string | undefined;
  login: string | undefined;
  password: string | undefined;
  token: string | undefined;
}

/** One pair or none: CLIENTID + CLIENTSECRET, or LOGIN + PASSWORD (or TOKEN). */
function acrCredentials(variables: ProviderVariables, options: CredentialOptions): BasicCredentials | undefined {
  const variable = (key: string) => `DD_REGISTRY_ACR_${variables.name.replace(/-/g, '_')}_${key}`.toUpperCase();
  const { clientid, clientsecret, login, password, token } = options;
  if (password !== undefined && token !== undefined)
    throw new ConfigError(variable('token'), 'set PASSWORD or TOKEN, not both');
  const secret = password ?? token;
  const principal = clientid !== undefined || clientsecret !== undefined;
  const user = login !== undefined || secret !== undefined;
  if (principal && user)
    throw new ConfigError(
      variable(clientid !== undefined ? 'clientid' : 'clientsecret'),
      'set CLIENTID/CLIENTSECRET or LOGIN/PASSWORD, not both',
    );
  if (principal) {
    if (clientid === undefined) throw new ConfigError(variable('clientid'), 'is required with CLIENTSECRET');
    if (clientsecret === undefined) throw new ConfigError(variable('clientsecret'), 'is required with CLIENTID');
    return { username: clientid, password: clientsecret };
  }
  if (!user) return undefined;
  if (login === undefined)
    throw new ConfigError(variable('login'), `is required with ${password !== undefined ? 'PASSWORD' : 'TOKEN'}`);
  if (secret === undefined) throw new ConfigError(variable('password'), 'is required with LOGIN (or TOKEN)');
  return { username: login, password: secret };
}
