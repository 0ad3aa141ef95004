import type { ProviderVariables } from '../config/provider-variables';
import { createGithubPackageDates, GhcrOptionsSchema, type GhcrProvider, type GithubEndpoints } from './ghcr';
import { publicProviderSettings } from './public-provider-support';
import { type ProviderConnection, parseProviderOptions, type RegistryProviderContext } from './registry-provider';

/**
 * `DD_REGISTRY_LSCR_<NAME>_LOGIN` + `_TOKEN` (or `_PASSWORD`): lscr.io, LinuxServer.io's front for
 * ghcr.io/linuxserver. Tags and manifests are read from lscr.io itself, but its 401 challenge names
 * `realm="https://ghcr.io/token",service="ghcr.io"`: ghcr.io must be vouched for as a token host, and
 * the credentials are GitHub ones. Publication dates come from GitHub's packages API for
 * `ghcr.io/linuxserver/<image>`, which needs the token.
 */
export function createLscrProvider(
  variables: ProviderVariables,
  context: RegistryProviderContext,
  endpoints: GithubEndpoints = {},
): GhcrProvider {
  const options = parseProviderOptions(variables, GhcrOptionsSchema);
  const { credentials, rateLimit, concurrency, apiLimiter, masked } = publicProviderSettings(variables, options, 'lscr.io');
  const githubDates =
    credentials &&
    createGithubPackageDates({
      ...endpoints,
      token: credentials.password,
      fetch: context.fetch,
      now: context.now,
      limiter: apiLimiter(context.now),
    });
  return {
    type: 'lscr',
    name: variables.name,
    matches: (registry) => registry === 'lscr.io',
    async connection(): Promise<ProviderConnection> {
      return {
        ...(credentials && { credentials }),
        insecure: false,
        caFile: options.cafile,
        trustedRealmHosts: ['ghcr.io'],
        rateLimit,
        concurrency,
      };
    },
    // lscr.io/linuxserver/<image> is ghcr.io/linuxserver/<image>; nothing else is known to map 1:1.
    ...(githubDates && {
      publishedAt: async (repository: string, tag: string, digest?: string) =>
        repository.startsWith('linuxserver/') ? githubDates(repository, tag, digest) : undefined,
    }),
    maskedConfiguration: () => masked,
  };
}
