import { ConfigError } from '../../../shared/config/config-error';
import { errorMessage } from '../../../shared/error-message';
import { agentNameFromHostname, isValidAgentName } from '../agent/agent-name';
import { edgeSocketUrl } from '../link/hub-url';

export type AgentCommand =
  | { command: 'help' }
  | { command: 'version' }
  | { command: 'healthcheck'; keyFile: string }
  | { command: 'healthcheck'; port: number; host?: string }
  | { command: 'keygen'; keyFile: string; force: boolean; json: boolean; name?: string; hub?: string }
  | { command: 'run'; hub: string; url: string; keyFile: string; name?: string }
  | { command: 'listen'; port: number; host?: string; secret?: string };

export const USAGE = `usage:
  npm run agent -- keygen --key FILE [--force] [--name NAME] [--hub URL] [--json]
      writes a new Ed25519 key (PKCS#8 PEM, mode 0600) and prints its public key, key id and
      the POST /api/v1/edge/keys call that registers it on the hub
  npm run agent -- --hub URL --key FILE [--name NAME]
      runs the agent: dials the hub (wss://host:3000, https://host, ...), signs in with the key
      as NAME (default: this host's name, lower-cased, [a-z0-9-] only) and serves the Docker
      watchers configured like the hub's (DD_WATCHER_<NAME>_*, DOCKER_HOST, DD_LOCAL_WATCHER)
  npm run agent -- --listen PORT [--secret SECRET] [--listen-host HOST]
      listen mode: serves the agent interface on HOST:PORT (default host 127.0.0.1, or
      DD_AGENT_LISTEN_HOST) for a hub configured with DD_AGENT_<NAME>_HOST/_PORT/_SECRET; the
      secret comes from --secret, DD_AGENT_SECRET or DD_AGENT_SECRET_FILE (prefer the
      variables: a command line is visible to every user of the host)
  npm run agent -- --healthcheck --key FILE | --healthcheck --listen PORT [--listen-host HOST]
      exits 0 when the agent is healthy, else 1 (a container's HEALTHCHECK): with --key, the key
      and the variables are valid and the agent's link status file (FILE.link.json) says it is
      connected to the hub; with --listen, GET /health of the listen-mode agent answers 200
  npm run agent -- --version
      prints the version`;

const VALUE_FLAGS = new Set(['--hub', '--key', '--name', '--listen', '--secret', '--listen-host']);
const LISTEN_FLAGS = ['--secret', '--listen-host'];
const SWITCHES = new Set(['--force', '--json', '--healthcheck']);

/**
 * The agent's command line. Throws ConfigError naming the flag (the entry exits 78, as the hub
 * does for a bad variable). `--flag value` and `--flag=value` both work.
 */
export function parseArguments(argv: readonly string[]): AgentCommand {
  if (argv.includes('--version')) return { command: 'version' };
  const args = [...argv];
  let command: 'keygen' | 'run' = 'run';
  if (args[0] === 'keygen') {
    command = 'keygen';
    args.shift();
  }
  const values = new Map<string, string>();
  const switches = new Set<string>();
  while (args.length > 0) {
    const arg = args.shift() as string;
    if (arg === '--help' || arg === '-h' || arg === 'help') return { command: 'help' };
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    if (SWITCHES.has(flag) && inline === undefined) {
      switches.add(flag);
      continue;
    }
    if (!VALUE_FLAGS.has(flag)) throw new ConfigError(flag, `unknown argument\n${USAGE}`);
    const value = inline ?? args.shift();
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('--')))
      throw new ConfigError(flag, 'needs a value');
    if (values.has(flag)) throw new ConfigError(flag, 'given twice');
    values.set(flag, value);
  }
  if (switches.has('--healthcheck') && command === 'run') return healthcheckCommand(values, switches);
  if (values.has('--listen') && command === 'run') return listenCommand(values, switches);
  for (const flag of LISTEN_FLAGS) if (values.has(flag)) throw new ConfigError(flag, 'only goes with --listen');
  if (values.has('--listen')) throw new ConfigError('--listen', 'does not go with keygen');
  const keyFile = values.get('--key');
  if (!keyFile) throw new ConfigError('--key', `is required (the agent's key file)\n${USAGE}`);
  const name = values.get('--name');
  if (name !== undefined && !isValidAgentName(name))
    throw new ConfigError('--name', 'must be 1-63 of a-z, 0-9 and -, starting with a letter or digit');
  const hub = values.get('--hub');
  const url = hub === undefined ? undefined : socketUrlOf(hub);
  const named = name !== undefined ? { name } : {};
  if (command === 'keygen') {
    if (switches.has('--healthcheck')) throw new ConfigError('--healthcheck', 'does not go with keygen');
    return {
      command,
      keyFile,
      force: switches.has('--force'),
      json: switches.has('--json'),
      ...named,
      ...(hub !== undefined ? { hub } : {}),
    };
  }
  for (const flag of switches) throw new ConfigError(flag, 'only goes with keygen');
  if (hub === undefined || url === undefined)
    throw new ConfigError('--hub', `is required (the hub's URL, wss://host:3000)\n${USAGE}`);
  return { command, hub, url, keyFile, ...named };
}

/** `--healthcheck --key FILE` (edge mode) or `--healthcheck --listen PORT [--listen-host H]`. */
function healthcheckCommand(values: ReadonlyMap<string, string>, switches: ReadonlySet<string>): AgentCommand {
  if (values.has('--listen')) {
    const listen = listenCommand(values, new Set([...switches].filter((flag) => flag !== '--healthcheck')));
    if (listen.command !== 'listen') throw new Error('unreachable: listenCommand answers listen');
    return { command: 'healthcheck', port: listen.port, ...(listen.host !== undefined && { host: listen.host }) };
  }
  const keyFile = values.get('--key');
  if (!keyFile) throw new ConfigError('--healthcheck', 'needs --key FILE (edge mode) or --listen PORT (listen mode)');
  return { command: 'healthcheck', keyFile };
}

/** `--listen PORT [--secret S] [--listen-host H]`: nothing of edge mode goes with it. */
function listenCommand(values: ReadonlyMap<string, string>, switches: ReadonlySet<string>): AgentCommand {
  for (const flag of ['--hub', '--key', '--name']) {
    if (values.has(flag))
      throw new ConfigError(flag, 'does not go with --listen (the hub names a listen-mode agent: DD_AGENT_<NAME>_*)');
  }
  for (const flag of switches) throw new ConfigError(flag, 'only goes with keygen');
  const text = values.get('--listen') as string;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 0 && port <= 65535))
    throw new ConfigError('--listen', 'must be a port number from 0 to 65535 (0 picks a free one)');
  const host = values.get('--listen-host');
  const secret = values.get('--secret');
  return { command: 'listen', port, ...(host !== undefined && { host }), ...(secret !== undefined && { secret }) };
}

function socketUrlOf(hub: string): string {
  try {
    return edgeSocketUrl(hub);
  } catch (error) {
    throw new ConfigError('--hub', errorMessage(error));
  }
}

/** The explicit --name, else the host name made into an agent name. */
export function resolveAgentName(explicit: string | undefined, hostname: string): string {
  if (explicit !== undefined) return explicit;
  const derived = agentNameFromHostname(hostname);
  if (!derived)
    throw new ConfigError('--name', `the host name "${hostname}" gives no valid agent name; give one with --name`);
  return derived;
}
