import * as v from 'valibot';
import { ConfigError } from '../../../shared/config/config-error';
import type { BasicCredentials } from '../../../shared/registry/registry-auth';
import type { ProviderVariables } from '../config/provider-variables';
import { defaultRateLimit } from './politeness';
import type { ProviderConnection, RegistryProvider, RegistryProviderContext } from './registry-provider';
import { CommonRegistryOptions, commonConnection, maskSecret, parseProviderOptions } from './registry-provider';

/** The user names Google documents for basic credentials to its registries. */
const JSON_KEY_USER = '_json_key';
const ACCESS_TOKEN_USER = 'oauth2accesstoken';

const OptionsSchema = {
  ...CommonRegistryOptions,
  /** Optional, since the user name follows from the secret; accepted because Google's docs spell it out. */
  login: v.optional(
    v.picklist(
      [JSON_KEY_USER, ACCESS_TOKEN_USER],
      `must be ${JSON_KEY_USER} (with PASSWORD) or ${ACCESS_TOKEN_USER} (with TOKEN)`,
    ),
  ),
  /** A service-account JSON key (best read from the key file with `_PASSWORD__FILE`). */
  password: v.optional(v.string()),
  /** An OAuth access token (`gcloud auth print-access-token`); it lives one hour. */
  token: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
};

/** gcr.io and its regional hosts (us., eu., asia., mirror.). */
const GCR_HOST = /^(?:[a-z0-9-]+\.)?gcr\.io$/;
/** Artifact Registry's Docker hosts: `<location>-docker.pkg.dev`. */
const ARTIFACT_REGISTRY_HOST = /^[a-z0-9-]+-docker\.pkg\.dev$/;

export function isGoogleRegistryHost(registry: string): boolean {
  const host = registry.toLowerCase();
  return GCR_HOST.test(host) || ARTIFACT_REGISTRY_HOST.test(host);
}

/**
 * `DD_REGISTRY_GCR_<NAME>_PASSWORD` (a service-account JSON key) or `_TOKEN` (an OAuth access
 * token): Google Container Registry and Artifact Registry. Both are basic credentials to the
 * registry's own token realm (`https://gcr.io/v2/token`, `https://<loc>-docker.pkg.dev/v2/token`),
 * so no Google API is called here. Without credentials (the built-in instance): public images.
 */
export function createGcrProvider(variables: ProviderVariables, _context: RegistryProviderContext): RegistryProvider {
  const options = parseProviderOptions(variables, OptionsSchema);
  const { credentials, serviceAccount } = gcrCredentials(variables, options);
  return {
    type: 'gcr',
    name: variables.name,
    matches: isGoogleRegistryHost,
    async connection(registry): Promise<ProviderConnection> {
      return {
        ...(credentials && { credentials }),
        ...commonConnection(options, defaultRateLimit(registry.toLowerCase())),
      };
    },
    maskedConfiguration: () => ({
      login: credentials?.username,
      serviceAccount,
      password: maskSecret(options.password),
      token: maskSecret(options.token),
    }),
  };
}

interface CredentialOptions {
  login: string | undefined;
  password: string | undefined;
  token: string | undefined;
}

function gcrCredentials(
  variables: ProviderVariables,
  { login, password, token }: CredentialOptions,
): { credentials?: BasicCredentials; serviceAccount?: string } {
  const variable = (key: string) => `DD_REGISTRY_GCR_${variables.name.replace(/-/g, '_')}_${key}`.toUpperCase();
  if (password !== undefined && token !== undefined)
    throw new ConfigError(variable('token'), 'set PASSWORD (a JSON key) or TOKEN, not both');
  if (password === undefined && token === undefined) {
    if (login !== undefined) throw new ConfigError(variable('login'), 'needs PASSWORD (a JSON key) or TOKEN');
    return {};
  }
  if (token !== undefined) {
    if (login === JSON_KEY_USER)
      throw new ConfigError(variable('login'), `${JSON_KEY_USER} goes with PASSWORD, not TOKEN`);
    return { credentials: { username: ACCESS_TOKEN_USER, password: token } };
  }
  if (login === ACCESS_TOKEN_USER)
    throw new ConfigError(variable('login'), `${ACCESS_TOKEN_USER} goes with TOKEN, not PASSWORD`);
  const clientEmail = serviceAccountEmail(password as string);
  if (clientEmail === undefined) {
    // Never the parser's message: it quotes the beginning of the secret.
    throw new ConfigError(
      variable('password'),
      'must be a service-account JSON key with client_email and private_key (read the key file with the __FILE form)',
    );
  }
  return { credentials: { username: JSON_KEY_USER, password: password as string }, serviceAccount: clientEmail };
}

/** The key's `client_email` when it is a usable service-account key, else undefined. */
function serviceAccountEmail(key: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(key);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { client_email: email, private_key: privateKey } = parsed as Record<string, unknown>;
  if (
    typeof email !== 'string' ||
    !email.includes('@') ||
    typeof privateKey !== 'string' ||
    !privateKey.includes('PRIVATE KEY')
  ) {
    return undefined;
  }
  return email;
}
