import { ConfigError } from '../../../shared/config/config-error';

/** The variables of one configured provider: `DD_REGISTRY_GHCR_PRIVATE_TOKEN` → ghcr / private / token. */
export interface ProviderVariables {
  type: string;
  name: string;
  /** Lower-case key → value, with the variable's name kept for error messages. */
  values: Map<string, { variable: string; value: string }>;
}

const NAME = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Groups `<prefix><TYPE>_<NAME>_<KEY>` variables by provider (the What's Up Docker convention).
 * TYPE is the first segment and KEY the last, so a NAME may itself hold underscores
 * (`DD_REGISTRY_CUSTOM_MY_MIRROR_URL` → name `my_mirror`, written back as `my-mirror`).
 * `reserved` names whole variables under the prefix that are not providers (DD_REGISTRY_INSECURE).
 */
export function groupProviderVariables(
  vars: Iterable<[string, string]>,
  prefix: string,
  reserved: readonly string[] = [],
): ProviderVariables[] {
  const providers = new Map<string, ProviderVariables>();
  for (const [variable, value] of vars) {
    if (!variable.startsWith(prefix) || reserved.includes(variable.slice(prefix.length))) continue;
    const parts = variable.slice(prefix.length).toLowerCase().split('_');
    if (parts.length < 3) {
      throw new ConfigError(variable, `expected ${prefix}<TYPE>_<NAME>_<KEY>`);
    }
    const type = parts[0] as string;
    const key = parts.at(-1) as string;
    const name = parts.slice(1, -1).join('-');
    if (!NAME.test(name))
      throw new ConfigError(variable, `the name "${name}" may hold only letters, digits and underscores`);
    const id = `${type}.${name}`;
    let provider = providers.get(id);
    if (!provider) {
      provider = { type, name, values: new Map() };
      providers.set(id, provider);
    }
    provider.values.set(key, { variable, value });
  }
  return [...providers.values()];
}
