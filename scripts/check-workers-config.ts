/**
 * `npm run dev:workers` runs this first: the Worker's variables (wrangler.toml [vars], and .dev.vars
 * or .env as `wrangler dev` reads them) through the hub's own runtime check, so a Node-only option
 * is reported before the Worker starts rather than in its log. Exits 78 (EX_CONFIG) where the hub
 * would refuse to run; prints a warning per variable the hub would run without.
 */
import { unstable_getVarsForDev, unstable_readConfig } from 'wrangler';
import { runtimeRefusals } from '../hub/src/config/runtime-capabilities';
import { ConfigError } from '../shared/config/config-error';

const EXIT_CONFIG = 78;

function workerVariables(configPath: string): Record<string, string> {
  const config = unstable_readConfig({ config: configPath });
  const bindings = unstable_getVarsForDev(config.configPath, undefined, config.vars, undefined, true);
  const variables: Record<string, string> = {};
  for (const [name, binding] of Object.entries(bindings)) {
    const value = typeof binding === 'object' && binding !== null && 'value' in binding ? binding.value : binding;
    variables[name] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return variables;
}

try {
  for (const { variable, reason } of runtimeRefusals(workerVariables(process.argv[2] ?? 'wrangler.toml'), 'workers')) {
    console.warn(`workers: ${variable}: not available on the workers runtime, the hub runs without it: ${reason}`);
  }
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`workers: configuration error: ${error.message}`);
  process.exit(EXIT_CONFIG);
}
