import type { ProviderVariables } from '../config/provider-variables';
import { PublicRegistryOptions, publicProviderSettings } from './public-provider-support';
import {
  type ProviderConnection,
  parseProviderOptions,
  type RegistryProvider,
  type RegistryProviderContext,
} from './registry-provider';

/** `_LOGIN` is a robot account (`org+robot`) or a user; `_TOKEN` the robot's token. */
export const QuayOptionsSchema = PublicRegistryOptions;

/**
 * `DD_REGISTRY_QUAY_<NAME>_LOGIN` + `_PASSWORD` or `_TOKEN`: quay.io, anonymous without them. Its
 * token realm is quay.io itself. No publishedAt: quay has no push-date source trusted by
 * http-interface §2.4, so candidates fall back to the image's own, untrusted, `created`.
 */
export function createQuayProvider(variables: ProviderVariables, _context: RegistryProviderContext): RegistryProvider {
  const options = parseProviderOptions(variables, QuayOptionsSchema);
  const { connection, masked } = publicProviderSettings(variables, options, 'quay.io');
  return {
    type: 'quay',
    name: variables.name,
    matches: (registry) => registry === 'quay.io',
    async connection(): Promise<ProviderConnection> {
      return { ...connection };
    },
    maskedConfiguration: () => masked,
  };
}
