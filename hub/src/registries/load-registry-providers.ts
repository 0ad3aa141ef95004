import { ConfigError } from '../../../shared/config/config-error';
import { type Environment, type ReadTextFile, resolveFileVariables } from '../../../shared/config/env-source';
import { groupProviderVariables } from '../config/provider-variables';
import { createGenericProvider } from './generic';
import { BUILT_IN_PUBLIC_TYPES, REGISTRY_PROVIDER_TYPES } from './provider-map';
import type { RegistryProvider, RegistryProviderContext, RegistryProviderFactory } from './registry-provider';

export interface LoadedRegistryProviders {
  configured: RegistryProvider[];
  builtIn: RegistryProvider[];
  fallback: RegistryProvider;
}

/**
 * Builds the registry providers from `DD_REGISTRY_*` (decisions §2): the configured ones, an
 * anonymous built-in for every public registry kind, and the generic fallback that reaches any
 * other host. Throws ConfigError naming the variable for an unknown type or a bad option.
 */
export async function loadRegistryProviders(
  vars: Iterable<[string, string]>,
  context: RegistryProviderContext,
): Promise<LoadedRegistryProviders> {
  const entries = [...vars];
  const insecureHosts = new Set(
    (entries.find(([name]) => name === 'DD_REGISTRY_INSECURE')?.[1] ?? '')
      .split(',')
      .map((host) => host.trim().toLowerCase())
      .filter(Boolean),
  );
  const configured: RegistryProvider[] = [];
  for (const variables of groupProviderVariables(entries, 'DD_REGISTRY_', ['INSECURE', 'TIMEOUT'])) {
    const load = REGISTRY_PROVIDER_TYPES[variables.type];
    if (!load) {
      const variable =
        variables.values.values().next().value?.variable ?? `DD_REGISTRY_${variables.type.toUpperCase()}`;
      throw new ConfigError(
        variable,
        `unknown registry type "${variables.type}"; known: ${Object.keys(REGISTRY_PROVIDER_TYPES).join(', ')}`,
      );
    }
    configured.push((await load())(variables, context));
  }
  // Public registries work with no configuration: each kind's provider, anonymous.
  const builtIn: RegistryProvider[] = [];
  for (const type of BUILT_IN_PUBLIC_TYPES) {
    const factory = await (REGISTRY_PROVIDER_TYPES[type] as () => Promise<RegistryProviderFactory>)();
    builtIn.push(factory({ type, name: 'public', values: new Map() }, context));
  }
  return { configured, builtIn, fallback: createGenericProvider(insecureHosts) };
}

/** The same, from the raw environment: `<NAME>__FILE` secrets resolved, only DD_REGISTRY_* read. */
export function loadRegistryProvidersFromEnv(
  env: Environment,
  readTextFile: ReadTextFile,
  context: RegistryProviderContext,
): Promise<LoadedRegistryProviders> {
  const resolved = resolveFileVariables(env, readTextFile);
  return loadRegistryProviders(
    [...resolved].filter(([name]) => name.startsWith('DD_REGISTRY_')),
    context,
  );
}

/** What GET /api/v1/registries shows of each provider: never a secret. */
export function describeRegistryProviders(loaded: LoadedRegistryProviders) {
  return [...loaded.configured, ...loaded.builtIn, loaded.fallback].map((provider) => ({
    id: `${provider.type}.${provider.name}`,
    type: provider.type,
    name: provider.name,
    configured: loaded.configured.includes(provider),
    configuration: provider.maskedConfiguration(),
  }));
}
