import type { ProviderVariables } from '../config/provider-variables';
import { createGithubBackedProvider, type GhcrProvider, type GithubEndpoints } from './ghcr';
import type { RegistryProviderContext } from './registry-provider';

/**
 * `DD_REGISTRY_LSCR_<NAME>_LOGIN` + `_TOKEN` (or `_PASSWORD`): lscr.io, LinuxServer.io's front for
 * ghcr.io/linuxserver. Tags and manifests are read from lscr.io itself, but its 401 challenge names
 * `realm="https://ghcr.io/token",service="ghcr.io"`: ghcr.io must be vouched for as a token host, and
 * the credentials are GitHub ones. Publication dates come from GitHub's packages API for
 * `ghcr.io/linuxserver/<image>`, which needs the token; nothing else is known to map 1:1.
 */
export function createLscrProvider(
  variables: ProviderVariables,
  context: RegistryProviderContext,
  endpoints: GithubEndpoints = {},
): GhcrProvider {
  return createGithubBackedProvider(
    {
      type: 'lscr',
      registry: 'lscr.io',
      trustedRealmHosts: ['ghcr.io'],
      hasGithubPackage: (repository) => repository.startsWith('linuxserver/'),
    },
    variables,
    context,
    endpoints,
  );
}
