import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ImportGraph, importCycles, readImportGraph } from '../../scripts/import-graph';

// The rules of docs/architecture.md "The dependency rule", held here so a change that breaks one
// fails `npm test` with the files that broke it.
const ROOT = join(import.meta.dirname, '..', '..');
const graph = readImportGraph(ROOT, ['hub/src', 'shared', 'edge-agent/src', 'ui/src']);
const isUi = (file: string) => file.startsWith('ui/src/');
const COMPOSITION_ROOT = 'hub/src/hub-capabilities.ts';
/**
 * The composition root's files: the capabilities' list and their foundation, each capability's own
 * module (`<folder>/<name>-capability.ts`), and the `compose-*.ts` roots (the hub's, its HTTP half).
 */
const isComposition = (file: string): boolean =>
  [COMPOSITION_ROOT, 'hub/src/hub-foundation.ts'].includes(file) ||
  /^hub\/src\/compose-[a-z-]+\.ts$/.test(file) ||
  /^hub\/src\/[a-z-]+\/[a-z-]+-capability\.ts$/.test(file);
const RUNTIME_BOUNDARY = 'hub/src/hub-deps.ts';

/** The constructors of the hub's capabilities and stores: called in the composition root's files only. */
const CAPABILITY_CONSTRUCTORS = [
  'createUpdateService',
  'createAutoUpdater',
  'createDependencyGroupUpdates',
  'createNotifications',
  'createFleet',
  'createMaturityLifts',
  'createWatcherFactory',
  'createInventoryExpectations',
  'createAgentRegistry',
  'createAgentEvents',
  'createEventBus',
  'createConnectedClients',
  'createHubMetrics',
  'createAuditStore',
  'createContainerStore',
  'createSettingsStore',
  'createApiKeyStore',
  'createNotificationRuleStore',
  'createPreferencesStore',
  'createSessionStore',
  'createScheduleStore',
  'createScheduler',
  'createLoginVerifier',
  'createWebSocketGate',
  'createOidcLogin',
  'createApiKeyAuthenticator',
  'createSignInLimits',
  'createBasicCredentialAuthenticator',
  'startListenAgents',
  'new AgentDirectory',
  'new EdgeSessions',
  'new RegistryService',
  'new FleetLookups',
];

describe('the dependency rules', () => {
  it('reads a graph of the whole source tree', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get(COMPOSITION_ROOT)?.length).toBeGreaterThan(15);
  });

  it('has no import cycle in hub/src, shared or edge-agent/src (type-only imports included)', () => {
    const server = new Map([...graph].filter(([file]) => !isUi(file)));
    expect(importCycles(server)).toEqual([]);
  });

  it('reads the web UI too, views included', () => {
    expect([...graph.keys()].filter(isUi).length).toBeGreaterThan(50);
    expect(graph.get('ui/src/views/container-detail.tsx')?.length).toBeGreaterThan(5);
  });

  it('keeps the web UI free of the hub and the agent: ui/src imports shared/ and itself only', () => {
    // Types included: a contract the UI reads belongs in shared/, where the hub's routes take it from
    // too; a value import would ship hub code in the bundle.
    const offending = [...graph]
      .filter(([file]) => isUi(file))
      .flatMap(([file, imports]) =>
        imports
          .filter((target) => !isUi(target) && !target.startsWith('shared/'))
          .map((target) => `${file} → ${target}`),
      );
    expect(offending).toEqual([]);
  });

  it('keeps the runtime boundary free of the hub features: it imports shared/ only', () => {
    const imported = graph.get(RUNTIME_BOUNDARY) ?? [];
    expect(imported.filter((file) => !file.startsWith('shared/'))).toEqual([]);
  });

  it('keeps shared/ free of the hub and the agent', () => {
    const offending = [...graph].filter(
      ([file, imports]) => file.startsWith('shared/') && imports.some((target) => !target.startsWith('shared/')),
    );
    expect(offending.map(([file]) => file)).toEqual([]);
  });

  it('lets only the Node runtime of the hub reach into the edge agent (its Docker module)', () => {
    const offending = [...graph].filter(
      ([file, imports]) =>
        file.startsWith('hub/src/') &&
        !file.startsWith('hub/src/adapter/node/') &&
        file !== 'hub/src/entry/node.ts' &&
        imports.some((target) => target.startsWith('edge-agent/')),
    );
    expect(offending.map(([file]) => file)).toEqual([]);
  });

  it('constructs every capability in the composition root and nowhere else', () => {
    const misplaced: string[] = [];
    const composition: string[] = [];
    for (const file of graph.keys()) {
      if (isComposition(file)) composition.push(readFileSync(join(ROOT, file), 'utf8'));
      if (!file.startsWith('hub/src/') || isComposition(file)) continue;
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const made of CAPABILITY_CONSTRUCTORS) {
        // A call, not the factory's own definition.
        if (new RegExp(`(?<!function\\s+)\\b${made.replace(' ', '\\s+')}\\s*[(<]`).test(text))
          misplaced.push(`${file}: ${made}`);
      }
    }
    expect(misplaced).toEqual([]);
    const missing = CAPABILITY_CONSTRUCTORS.filter((made) => !composition.some((text) => text.includes(made)));
    expect(missing).toEqual([]);
  });
});

describe('importCycles', () => {
  const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

  it('finds a cycle through three files and a file importing itself', () => {
    const cycles = importCycles(graphOf({ a: ['b'], b: ['c'], c: ['a', 'd'], d: [], e: ['e'] }));
    expect(cycles).toEqual([['a', 'b', 'c'], ['e']]);
  });

  it('finds none in a tree with shared leaves', () => {
    expect(importCycles(graphOf({ a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }))).toEqual([]);
  });
});
