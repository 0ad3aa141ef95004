import type { RegistryProviderFactory } from './registry-provider';

/**
 * Every registry provider type, each in its own file, loaded only when used. The keys are the
 * TYPE of `DD_REGISTRY_<TYPE>_<NAME>_<KEY>`.
 */
export const REGISTRY_PROVIDER_TYPES: Record<string, () => Promise<RegistryProviderFactory>> = {
  hub: async () => (await import('./hub')).createHubProvider,
  ghcr: async () => (await import('./ghcr')).createGhcrProvider,
  lscr: async () => (await import('./lscr')).createLscrProvider,
  quay: async () => (await import('./quay')).createQuayProvider,
  gitlab: async () => (await import('./gitlab')).createGitlabProvider,
  gcr: async () => (await import('./gcr')).createGcrProvider,
  ecr: async () => (await import('./ecr')).createEcrProvider,
  acr: async () => (await import('./acr')).createAcrProvider,
  custom: async () => (await import('./custom')).createCustomProvider,
};

/** Types that serve a public registry anonymously with no configuration at all. */
export const BUILT_IN_PUBLIC_TYPES = ['hub', 'ghcr', 'lscr', 'quay', 'gitlab', 'gcr', 'ecr'] as const;
