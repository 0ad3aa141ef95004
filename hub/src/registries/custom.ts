import * as v from 'valibot';
import { ConfigError } from '../../../shared/config/config-error';
import type { ProviderConnection, RegistryProviderFactory } from './registry-provider';
import { CommonRegistryOptions, commonConnection, maskSecret, parseProviderOptions } from './registry-provider';

const OptionsSchema = {
  ...CommonRegistryOptions,
  url: v.pipe(v.string('is required'), v.regex(/^https?:\/\/[^/\s]+\/?$/, 'must be http(s)://host[:port]')),
  login: v.optional(v.string()),
  password: v.optional(v.string()),
  /** An access token used as the password (registries such as Harbor robot accounts, Gitea). */
  token: v.optional(v.string()),
};

/** `DD_REGISTRY_CUSTOM_<NAME>_URL` (+ `_LOGIN`, `_PASSWORD` or `_TOKEN`): any self-hosted registry. */
export const createCustomProvider: RegistryProviderFactory = (variables) => {
  const options = parseProviderOptions(variables, OptionsSchema);
  const url = new URL(options.url);
  const password = options.password ?? options.token;
  if ((options.login === undefined) !== (password === undefined)) {
    const variable = variables.values.get(options.login === undefined ? 'password' : 'login')?.variable ?? 'LOGIN';
    throw new ConfigError(variable, 'LOGIN and PASSWORD (or TOKEN) go together');
  }
  return {
    type: 'custom',
    name: variables.name,
    matches: (registry) => registry === url.host,
    async connection(): Promise<ProviderConnection> {
      return {
        ...(options.login !== undefined &&
          password !== undefined && { credentials: { username: options.login, password } }),
        scheme: url.protocol === 'http:' ? 'http' : 'https',
        ...commonConnection(options, undefined),
      };
    },
    maskedConfiguration: () => ({ url: options.url, login: options.login, password: maskSecret(password) }),
  };
};
