/**
 * `npm run dev:workers` and `npm run deploy:workers` run this first: the Worker's variables through
 * the hub's own runtime check, so a Node-only option is reported before the Worker starts rather than
 * in its log. Exits 78 (EX_CONFIG) where the hub would refuse to run; prints a warning per variable
 * the hub would run without.
 *
 * `check-workers-config.ts [--deploy] [wrangler.toml]`: for dev, wrangler.toml's [vars] and .dev.vars
 * (or .env) as `wrangler dev` reads them; with --deploy, [vars] alone (what `wrangler deploy`
 * uploads; secrets are set apart with `wrangler secret put`), and a credential found in [vars] stops
 * the deploy: it would be plain text in the repository and the dashboard.
 */
import { unstable_getVarsForDev, unstable_readConfig } from 'wrangler';
import { runtimeRefusals } from '../hub/src/config/runtime-capabilities';
import { secretKind } from '../hub/src/config/secret-variables';
import { ConfigError } from '../shared/config/config-error';

const EXIT_CONFIG = 78;

const args = process.argv.slice(2);
const deploy = args.includes('--deploy');
const configPath = args.find((arg) => !arg.startsWith('--')) ?? 'wrangler.toml';

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function workerVariables(): Record<string, string> {
  const config = unstable_readConfig({ config: configPath });
  if (deploy) {
    return Object.fromEntries(Object.entries(config.vars).map(([name, value]) => [name, asText(value)]));
  }
  const bindings = unstable_getVarsForDev(config.configPath, undefined, config.vars, undefined, true);
  const variables: Record<string, string> = {};
  for (const [name, binding] of Object.entries(bindings)) {
    const value = typeof binding === 'object' && binding !== null && 'value' in binding ? binding.value : binding;
    variables[name] = asText(value);
  }
  return variables;
}

try {
  const variables = workerVariables();
  if (deploy) {
    const secrets = Object.keys(variables).filter((name) => secretKind(name) !== undefined);
    if (secrets.length > 0) {
      throw new ConfigError(
        secrets.join(', '),
        `a credential in ${configPath} [vars], uploaded and shown in plain text (${secrets.map(secretKind).join(', ')}): remove it and set it with \`wrangler secret put <NAME>\``,
      );
    }
  }
  for (const { variable, reason } of runtimeRefusals(variables, 'workers')) {
    console.warn(`workers: ${variable}: not available on the workers runtime, the hub runs without it: ${reason}`);
  }
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`workers: configuration error: ${error.message}`);
  process.exit(EXIT_CONFIG);
}
