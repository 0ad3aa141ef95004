import { ConfigError } from '../../../../shared/config/config-error';
import type { Environment } from '../../../../shared/config/env-source';
import { type HubConfig, loadHubConfig } from '../../config/hub-config';
import { type RuntimeRefusal, runtimeRefusals, withoutRefused } from '../../config/runtime-capabilities';

/**
 * The DD_* Worker vars and secrets; other bindings (the namespace) are not configuration. The
 * default local watcher is off: a Worker has no Docker Engine, its hosts are edge agents.
 */
function ddVariables(bindings: Readonly<Record<string, unknown>>): Environment {
  const env: Record<string, string> = { DD_LOCAL_WATCHER: 'false' };
  for (const [name, value] of Object.entries(bindings)) {
    if (!name.startsWith('DD_')) continue;
    // wrangler.toml [vars] may be TOML numbers or booleans; they mean what their text says.
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') env[name] = String(value);
    else throw new ConfigError(name, 'must be a string, number or boolean in [vars], or a secret');
  }
  return env;
}

export const readTextFile = (): string => {
  throw new Error('Workers have no file system; set the variable itself as a secret (wrangler secret put)');
};

/**
 * On Node, anonymous mode listens on 127.0.0.1 unless DD_SERVER_HOST says otherwise (decisions §4). A
 * Worker has no loopback: whatever it serves is on the internet. So without DD_AUTH_* it runs only
 * when DD_SERVER_HOST names a non-loopback address, the same words that open a Node hub on purpose.
 */
export function refuseUnintendedAnonymousMode(config: HubConfig): void {
  if (!config.anonymous || !LOOPBACK_HOSTS.has(config.server.host)) return;
  throw new ConfigError(
    'DD_SERVER_HOST',
    'no DD_AUTH_* is configured, and a Worker is reachable from the internet: set a basic user or an OIDC provider as secrets (docs/workers.md), or set DD_SERVER_HOST=0.0.0.0 to run it open on purpose',
  );
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

export interface WorkerConfig {
  config: HubConfig;
  /** The variables the hub runs with: the refused ones taken out. */
  variables: Environment;
  /** What only Workers cannot honour (smtp, a Docker socket, a file): logged and shown, not fatal. */
  refused: RuntimeRefusal[];
}

/** The hub's configuration from a Worker's bindings, as every object of the deployment reads it. */
export function loadWorkerConfig(bindings: Readonly<Record<string, unknown>>): WorkerConfig {
  const all = ddVariables(bindings);
  const refused = runtimeRefusals(all, 'workers');
  const variables = withoutRefused(all, refused);
  return { config: loadHubConfig(variables, readTextFile), variables, refused };
}
