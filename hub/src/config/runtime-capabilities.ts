import { ConfigError } from '../../../shared/config/config-error';
import type { Environment } from '../../../shared/config/env-source';

/** A variable the runtime cannot honour, and why, in words an operator can act on. */
export interface RuntimeRefusal {
  variable: string;
  reason: string;
}

interface Rule {
  applies: (name: string, value: string) => boolean;
  reason: string;
  /**
   * Whether going on without the variable could weaken the hub (a secret from a file left unset
   * may turn authentication off; a CA file left out turns a listen agent's https into http): those
   * stop the hub. The others only take a capability away, which fails closed.
   */
  fatal?: true;
}

const TRUE = /^(true|1|yes|on)$/i;

/**
 * What a Worker cannot do: open raw TCP sockets (SMTP, MQTT, Redis, a Docker Engine), read files, or
 * run processes. Each rule names the way that does work there, so the refusal is an instruction.
 */
const WORKERS_RULES: readonly Rule[] = [
  {
    applies: (name) => name.endsWith('__FILE'),
    reason: 'Workers have no file system; set the variable itself as a secret (wrangler secret put)',
    fatal: true,
  },
  {
    applies: (name) => name === 'DD_CONFIG_FILE',
    reason:
      'Workers have no file system; set the variables as vars and secrets (docs/configuration-file.md "On Workers")',
    fatal: true,
  },
  {
    applies: (name) => /_CAFILE$/.test(name),
    reason: 'Workers have no file system to read a CA file from; use a certificate from a public CA',
    fatal: true,
  },
  {
    // A scanner asked for and silently absent would leave every image unscanned: refused, not dropped.
    applies: (name, value) =>
      (name === 'DD_SECURITY_SCANNER' && /^(trivy|grype)$/i.test(value.trim())) || name === 'DD_SECURITY_SCANNER_PATH',
    reason:
      'trivy and grype run as processes, which Workers cannot start; use DD_SECURITY_SCANNER=osv with DD_SECURITY_OSV_URL (docs/security-scanning.md)',
    fatal: true,
  },
  {
    applies: (name) => name.startsWith('DD_NOTIFICATION_SMTP_'),
    reason:
      'smtp needs raw TCP sockets, which Workers do not offer; use an HTTP provider (an email API through http, or ntfy, gotify…)',
  },
  {
    applies: (name) => name.startsWith('DD_NOTIFICATION_MQTT_'),
    reason: 'mqtt needs a long-lived TCP connection, which Workers do not offer; use an HTTP provider',
  },
  {
    applies: (name) => name.startsWith('DD_WATCHER_'),
    reason:
      'Workers cannot reach a Docker Engine nor read files (file and dockerfile watchers, docs/sources.md); connect each host with an edge agent (docs/edge-protocol.md), or run the hub on Node',
  },
  {
    applies: (name, value) => name === 'DD_LOCAL_WATCHER' && TRUE.test(value),
    reason: 'Workers cannot reach a Docker Engine; connect each host with an edge agent (docs/edge-protocol.md)',
  },
  {
    applies: (name, value) => name === 'DD_HOOKS_ENABLED' && TRUE.test(value),
    reason: 'update hooks run commands on the hub, and Workers cannot run processes; run hooks on the edge agents',
  },
  {
    applies: (name) => name.startsWith('DD_STORE_'),
    reason: 'on Workers the hub stores its state in its Durable Object; the store variables do not apply',
  },
];

/**
 * The variables of `env` that `runtime` cannot honour (http-interface §2.12's triggers, decisions §2's
 * variables), for the hub to go on without. Throws ConfigError naming the variable and the runtime
 * where going on without it could weaken the hub. Node honours every one; tests run as Node does.
 */
export function runtimeRefusals(env: Environment, runtime: 'node' | 'workers' | 'test'): RuntimeRefusal[] {
  if (runtime !== 'workers') return [];
  const refusals: RuntimeRefusal[] = [];
  for (const [variable, value] of Object.entries(env)) {
    if (value === undefined || !variable.startsWith('DD_')) continue;
    const rule = WORKERS_RULES.find((candidate) => candidate.applies(variable, value));
    if (!rule) continue;
    if (rule.fatal) throw new ConfigError(variable, `not available on the workers runtime: ${rule.reason}`);
    refusals.push({ variable, reason: rule.reason });
  }
  return refusals.sort((a, b) => a.variable.localeCompare(b.variable));
}

/** `env` without the refused variables: what the runtime goes on with. */
export function withoutRefused(env: Environment, refusals: readonly RuntimeRefusal[]): Environment {
  const refused = new Set(refusals.map((refusal) => refusal.variable));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !refused.has(name)));
}
