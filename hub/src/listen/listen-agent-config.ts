import * as v from 'valibot';
import { ConfigError } from '../../../shared/config/config-error';
import { envChoice, envInteger } from '../../../shared/config/env-readers';
import { AGENT_NAME } from '../../../shared/edge/protocol';

/** A listen-mode agent the hub connects to (decisions §2: DD_AGENT_<NAME>_HOST, _PORT, _SECRET). */
export interface ListenAgentConfig {
  /** Lower-case, `_` written `-`: the name under which the agent is listed. */
  name: string;
  host: string;
  port: number;
  /** X-Dd-Agent-Secret; never logged nor shown (maskHubConfig shows `***`). */
  secret: string;
  protocol: 'http' | 'https';
  /** PEM file of a private CA the agent's certificate is signed by (Node only); implies https. */
  caFile: string | undefined;
}

const PREFIX = 'DD_AGENT_';
export const LISTEN_AGENT_KEYS = ['host', 'port', 'secret', 'protocol', 'cafile'] as const;
type Key = (typeof LISTEN_AGENT_KEYS)[number];
/** The agent's own variables (http-interface §5.7, listen mode): a hub sharing its environment skips them. */
const AGENT_SIDE = new Set(['DD_AGENT_SECRET', 'DD_AGENT_SECRET_FILE', 'DD_AGENT_LISTEN_HOST']);
export const DEFAULT_AGENT_PORT = 3000;

const HostSchema = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/, 'must be a host name or an IP address ([::1] for IPv6)'),
);

/**
 * The listen-mode agents of `DD_AGENT_<NAME>_<KEY>` (KEY: HOST and SECRET required, PORT default
 * 3000, PROTOCOL http or https, CAFILE). `<NAME>__FILE` forms are resolved before. Throws
 * ConfigError naming the variable.
 */
export function loadListenAgentConfigs(vars: ReadonlyMap<string, string>): ListenAgentConfig[] {
  const groups = new Map<string, Partial<Record<Key, { variable: string; value: string }>>>();
  for (const [variable, value] of vars) {
    if (!variable.startsWith(PREFIX) || AGENT_SIDE.has(variable)) continue;
    const parts = variable.slice(PREFIX.length).toLowerCase().split('_');
    const key = parts.pop() as string;
    const name = parts.join('-');
    if (!(LISTEN_AGENT_KEYS as readonly string[]).includes(key) || name === '') {
      throw new ConfigError(
        variable,
        `expected DD_AGENT_<NAME>_<KEY> with KEY one of ${LISTEN_AGENT_KEYS.join(', ').toUpperCase()}`,
      );
    }
    if (!AGENT_NAME.test(name))
      throw new ConfigError(variable, `the agent name "${name}" must be 1-63 of a-z, 0-9 and _ (written -)`);
    const group = groups.get(name) ?? {};
    group[key as Key] = { variable, value };
    groups.set(name, group);
  }
  return [...groups].map(([name, group]) => {
    const variableOf = (key: Key) => `${PREFIX}${name.replaceAll('-', '_').toUpperCase()}_${key.toUpperCase()}`;
    const read = <T>(key: Key, schema: v.GenericSchema<string, T>): T | undefined => {
      const entry = group[key];
      if (!entry) return undefined;
      const result = v.safeParse(schema, entry.value);
      if (!result.success) throw new ConfigError(entry.variable, result.issues[0]?.message ?? 'invalid value');
      return result.output;
    };
    const host = read('host', HostSchema);
    if (host === undefined) throw new ConfigError(variableOf('host'), `is required for the listen-mode agent ${name}`);
    const secret = group.secret?.value;
    if (secret === undefined || secret === '') {
      throw new ConfigError(
        variableOf('secret'),
        `is required for the listen-mode agent ${name} (the agent's DD_AGENT_SECRET)`,
      );
    }
    const caFile = read('cafile', v.pipe(v.string(), v.minLength(1, 'must not be empty')));
    const protocol = read('protocol', envChoice(['http', 'https'])) ?? (caFile !== undefined ? 'https' : 'http');
    if (caFile !== undefined && protocol === 'http')
      throw new ConfigError(variableOf('cafile'), 'goes with https (PROTOCOL=https)');
    return { name, host, port: read('port', envInteger(1, 65535)) ?? DEFAULT_AGENT_PORT, secret, protocol, caFile };
  });
}

/** `http://host:port` of the agent. */
export function listenAgentUrl(config: Pick<ListenAgentConfig, 'protocol' | 'host' | 'port'>): string {
  return `${config.protocol}://${config.host}:${config.port}`;
}
