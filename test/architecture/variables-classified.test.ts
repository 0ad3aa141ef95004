/**
 * Every DD_* variable the hub reads is classified by the secret table (hub/src/config/secret-variables.ts),
 * so none is shown by accident and none is masked for want of a row (issue 33 item 1). The table is
 * default-deny, so a variable it misses is masked whole: safe, but a row missing here is a bug.
 *
 * Two walks: the names the sources spell out (every quoted `DD_…` literal in hub/src and shared,
 * KNOWN_VARIABLES), and the families, key by key, as their readers know them (each registry type's
 * options, each notification type's keys, the action, watcher, listen-agent and sign-in keys). A
 * registry's option list is read from its own refusal of an unknown option, through the real factory.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMqttProvider } from '../../hub/src/adapter/node/notifications/mqtt';
import { smtpProvider } from '../../hub/src/adapter/node/notifications/smtp';
import { BASIC_KEYS } from '../../hub/src/auth/basic-users';
import { OIDC_KEYS } from '../../hub/src/auth/oidc-config';
import { KNOWN_VARIABLES } from '../../hub/src/config/hub-config';
import { classifyVariable } from '../../hub/src/config/secret-variables';
import { LISTEN_AGENT_KEYS } from '../../hub/src/listen/listen-agent-config';
import type { AnyNotificationProviderDefinition } from '../../hub/src/notifications/notification-provider';
import { NOTIFICATION_COMMON_KEYS } from '../../hub/src/notifications/notification-triggers';
import { BUILT_IN_NOTIFICATION_PROVIDERS } from '../../hub/src/notifications/providers';
import { REGISTRY_PROVIDER_TYPES } from '../../hub/src/registries/provider-map';
import { ACTION_KEYS, ACTION_TRIGGER_TYPES } from '../../hub/src/updates/action-triggers';
import { ConfigError } from '../../shared/config/config-error';
import { WATCHER_KEYS } from '../../shared/docker/watcher-config';
import { createLogRing } from '../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../shared/logging/logger';

const ROOT = join(import.meta.dirname, '..', '..');
const SOURCE_DIRS = ['hub/src', 'shared'];
/** Removed prefixes the hub refuses to start with (hub-config.ts), never read. */
const REFUSED = /^DD_TRIGGER_/;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !/\.(test|d)\.ts$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** Whole variable names written as literals (prefixes, ending in `_`, are the families below). */
function namedInSources(): Set<string> {
  const names = new Set<string>();
  for (const file of SOURCE_DIRS.flatMap(sourceFiles)) {
    for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(/['"`](DD_[A-Z0-9_]*[A-Z0-9])['"`]/g)) {
      const name = match[1] as string;
      if (!REFUSED.test(name)) names.add(name);
    }
  }
  return names;
}

/** The keys of a provider's `keys` schema: a strict object, perhaps inside a pipe of checks. */
function schemaKeys(schema: unknown): string[] {
  const node = schema as { type: string; entries?: Record<string, unknown>; pipe?: unknown[] };
  if (node.entries) return Object.keys(node.entries);
  const inner = node.pipe?.find((step) => (step as { entries?: unknown }).entries !== undefined);
  if (!inner) throw new Error(`no object schema in ${node.type}`);
  return schemaKeys(inner);
}

/** A registry type's options, from its refusal of an unknown one (`…; known: url, login, …`). */
async function registryKeys(type: string): Promise<string[]> {
  const factory = await (REGISTRY_PROVIDER_TYPES[type] as () => Promise<(...args: never[]) => unknown>)();
  const variable = `DD_REGISTRY_${type.toUpperCase()}_PROBE_NOSUCHOPTION`;
  const variables = { type, name: 'probe', values: new Map([['nosuchoption', { variable, value: 'x' }]]) };
  try {
    (factory as (variables: unknown, context: unknown) => unknown)(variables, { now: Date.now, fetch });
  } catch (error) {
    const known = error instanceof ConfigError ? /known: (.+)$/.exec(error.message)?.[1] : undefined;
    if (known) return known.split(', ');
    throw error;
  }
  throw new Error(`registry type ${type} accepted an unknown option`);
}

const logger = createLogger({ level: 'fatal', ring: createLogRing(1, false), sink: silentSink });
const NOTIFICATION_TYPES: readonly AnyNotificationProviderDefinition[] = [
  ...BUILT_IN_NOTIFICATION_PROVIDERS,
  smtpProvider,
  createMqttProvider({ logger, audit: async () => undefined }),
];

const unclassified = (names: Iterable<string>) => [...names].filter((name) => classifyVariable(name) === undefined);

describe('the secret table classifies every DD_* variable the hub reads', () => {
  it('finds the names the sources spell out, and the walk would catch a missing row', () => {
    const named = namedInSources();
    // The walk sees what it must: variables of several modules, and one the table would not know.
    for (const name of ['DD_SERVER_METRICS_TOKEN', 'DD_SECURITY_OSV_URL', 'DD_RELEASE_NOTES_GITHUB_TOKEN'])
      expect(named).toContain(name);
    expect(unclassified(['DD_LOG_LEVEL', 'DD_NOT_A_ROW_OF_THE_TABLE'])).toEqual(['DD_NOT_A_ROW_OF_THE_TABLE']);
    expect(unclassified([...named, ...KNOWN_VARIABLES])).toEqual([]);
  });

  it('classifies every option of every registry type', async () => {
    const missing: string[] = [];
    for (const type of Object.keys(REGISTRY_PROVIDER_TYPES)) {
      const keys = await registryKeys(type);
      expect(keys.length, type).toBeGreaterThan(3);
      missing.push(
        ...unclassified(keys.map((key) => `DD_REGISTRY_${type.toUpperCase()}_MY_MIRROR_${key.toUpperCase()}`)),
      );
    }
    expect(missing).toEqual([]);
  });

  it('classifies every key of every notification type, and never takes a provider’s secret key for plain', () => {
    const missing: string[] = [];
    const plainSecrets: string[] = [];
    for (const definition of NOTIFICATION_TYPES) {
      const variable = (key: string) => `DD_NOTIFICATION_${definition.type.toUpperCase()}_OPS_${key.toUpperCase()}`;
      missing.push(...unclassified([...NOTIFICATION_COMMON_KEYS, ...schemaKeys(definition.keys)].map(variable)));
      for (const key of definition.secretKeys)
        if (classifyVariable(variable(key))?.class === 'plain') plainSecrets.push(variable(key));
    }
    expect(missing).toEqual([]);
    expect(plainSecrets).toEqual([]);
    expect(NOTIFICATION_TYPES.map((definition) => definition.type)).toEqual(
      expect.arrayContaining(['http', 'slack', 'smtp', 'mqtt']),
    );
  });

  it('classifies the keys of actions, watchers, listen-mode agents and sign-in providers', () => {
    const names = [
      ...ACTION_TRIGGER_TYPES.flatMap((type) => ACTION_KEYS.map((key) => `DD_ACTION_${type}_UPDATE_${key}`)),
      ...WATCHER_KEYS.map((key) => `DD_WATCHER_MY_NAS_${key}`),
      ...LISTEN_AGENT_KEYS.map((key) => `DD_AGENT_NAS_${key}`),
      ...[...BASIC_KEYS].map((key) => `DD_AUTH_BASIC_BOB_${key}`),
      ...OIDC_KEYS.map((key) => `DD_AUTH_OIDC_DEX_${key}`),
    ].map((name) => name.toUpperCase());
    expect(unclassified(names)).toEqual([]);
  });
});
