import { groupProviderVariables, type ProviderVariables } from '../../hub/src/config/provider-variables';
import { ConfigError } from '../../shared/config/config-error';

/** One provider's variables from `DD_REGISTRY_*` entries, through the same parser the hub uses. */
export function variablesFromEnv(env: Record<string, string>): ProviderVariables {
  const [group] = groupProviderVariables(Object.entries(env), 'DD_REGISTRY_');
  if (!group) throw new Error('no DD_REGISTRY_<TYPE>_<NAME>_<KEY> variable given');
  return group;
}

/** The variables of provider `<type>.<name>` with these keys, e.g. `variablesOf('acr', 'prod', { clientid })`. */
export function variablesOf(type: string, name: string, values: Record<string, string>): ProviderVariables {
  if (Object.keys(values).length === 0) return { type, name, values: new Map() };
  return variablesFromEnv(
    Object.fromEntries(
      Object.entries(values).map(([key, value]) => [`DD_REGISTRY_${type}_${name}_${key}`.toUpperCase(), value]),
    ),
  );
}

/** The ConfigError a provider factory throws; fails the test when it throws nothing or something else. */
export function configErrorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
