import { groupProviderVariables, type ProviderVariables } from '../../hub/src/config/provider-variables';

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

export { configErrorOf } from './config-error-of';
