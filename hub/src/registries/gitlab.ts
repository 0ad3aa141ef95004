import * as v from 'valibot';
import { ConfigError } from '../../../shared/config/config-error';
import type { ProviderVariables } from '../config/provider-variables';
import { defaultRateLimit } from './politeness';
import type { ProviderConnection, RegistryProvider, RegistryProviderContext } from './registry-provider';
import { CommonRegistryOptions, commonConnection, maskSecret, parseProviderOptions } from './registry-provider';

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'https:' || url.protocol === 'http:') &&
      url.username === '' &&
      url.password === '' &&
      url.search === ''
    );
  } catch {
    return false;
  }
}

const OptionsSchema = {
  ...CommonRegistryOptions,
  /** The registry of a self-managed instance (`https://registry.example.com`, `https://gitlab.example.com:5050`). */
  url: v.optional(
    v.pipe(v.string(), v.regex(/^https?:\/\/[^/\s@]+\/?$/, 'must be the registry URL, http(s)://host[:port]')),
  ),
  /** The GitLab instance whose `/jwt/auth` issues the registry's tokens, when on another domain than the registry. */
  authurl: v.optional(
    v.pipe(v.string(), v.check(isHttpUrl, 'must be the GitLab instance URL, http(s)://host[:port][/path]')),
  ),
  login: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  /** A personal, deploy or job token (or the account password), sent as the password of the token request. */
  token: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
};

/** Endpoints a test points elsewhere; by default gitlab.com's own. */
export interface GitlabEndpoints {
  /** The registry served when no `url` is configured. */
  registryUrl?: string;
  /** The instance that issues its tokens. */
  authUrl?: string;
}

const GITLAB_COM_REGISTRY = 'https://registry.gitlab.com';
const GITLAB_COM = 'https://gitlab.com';

/**
 * `DD_REGISTRY_GITLAB_<NAME>_LOGIN` + `_TOKEN` (and `_URL`, `_AUTHURL` for a self-managed instance):
 * GitLab's container registry. Its 401 names the instance's `/jwt/auth` as the token realm; the
 * login and token go there as Basic credentials (the distribution token flow), so the only thing
 * this provider adds is vouching for that realm host, which may live on another host (gitlab.com
 * for registry.gitlab.com) or even another domain than the registry.
 */
export function createGitlabProvider(
  variables: ProviderVariables,
  _context: RegistryProviderContext,
  endpoints: GitlabEndpoints = {},
): RegistryProvider {
  const options = parseProviderOptions(variables, OptionsSchema);
  checkCredentials(variables, options.login, options.token);
  const registryUrl = new URL(options.url ?? endpoints.registryUrl ?? GITLAB_COM_REGISTRY);
  // Only gitlab.com's instance is known without configuration; a self-managed one is vouched for by AUTHURL.
  const authUrl = options.authurl ?? (options.url === undefined ? (endpoints.authUrl ?? GITLAB_COM) : undefined);
  const trustedRealmHosts = authUrl === undefined ? [] : [new URL(authUrl).hostname];
  const host = registryUrl.host;
  return {
    type: 'gitlab',
    name: variables.name,
    matches: (registry) => registry.toLowerCase() === host,
    async connection(): Promise<ProviderConnection> {
      return {
        ...(options.login !== undefined &&
          options.token !== undefined && { credentials: { username: options.login, password: options.token } }),
        ...commonConnection(options, defaultRateLimit(host)),
        insecure: registryUrl.protocol === 'http:' || options.insecure === 'true',
        trustedRealmHosts,
      };
    },
    maskedConfiguration: () => ({
      url: registryUrl.origin,
      authurl: authUrl,
      login: options.login,
      token: maskSecret(options.token),
    }),
  };
}

/**
 * GitLab needs the user name with the token: a deploy token's own name, `gitlab-ci-token` for a
 * job token, any user name for a personal access token. Half a pair is a configuration error.
 */
function checkCredentials(variables: ProviderVariables, login: string | undefined, token: string | undefined): void {
  if ((login === undefined) === (token === undefined)) return;
  const missing = login === undefined ? 'login' : 'token';
  const variable = `DD_REGISTRY_GITLAB_${variables.name.replace(/-/g, '_')}_${missing}`.toUpperCase();
  throw new ConfigError(
    variable,
    missing === 'login'
      ? 'is required with TOKEN (the deploy token user name, gitlab-ci-token for a job token, or your user name)'
      : 'is required with LOGIN (a personal, deploy or job token)',
  );
}
