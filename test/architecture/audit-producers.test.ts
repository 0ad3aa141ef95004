/**
 * Every audit action type of http-interface §4.10 has a producer in the code, or is named below as
 * owned by a feature not built yet. Regression: issue 15 item 8 found 18 action types that nothing
 * wrote; a new type added to AUDIT_ACTIONS with neither a producer nor an owner fails here.
 *
 * Why a source scan rather than driving a hub: the producers sit behind dockerd, registries, edge
 * agents, MQTT brokers and hook processes; the suites that drive those (named in test/README.md)
 * assert the entries they write. This test answers the other question, "does anything write this
 * type at all?", for all of them at once and in milliseconds. The TypeScript in node_modules is the
 * native compiler, with no checker API to ask, so the scan reads the text. Its rule is narrow on
 * purpose: a type counts as produced only where its quoted literal is the value (or one branch of
 * the value) of an `action:` property, the first argument of a helper named `audit…`
 * (`auditContainer('webhook-update', …)`), or a value of an object declared
 * `satisfies Record<…, AuditAction>` (how the container actions and the hooks spell theirs). A
 * literal that merely appears elsewhere (a notification rule id, a query filter) does not count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, type AuditAction } from '../../shared/schemas/audit-entry';

const ROOT = join(import.meta.dirname, '..', '..');
const SOURCE_DIRS = ['hub/src', 'shared', 'edge-agent/src'];
const SCHEMA_FILE = 'shared/schemas/audit-entry.ts';

/** Action types whose feature is not built yet, by the feature that will write them. */
const UNBUILT: Partial<Record<AuditAction, string>> = {
  'update-applied-dryrun': 'dry-run action triggers (a Docker action that only reports what it would do)',
  // No scanner asset is warmed: the OSV database is imported (scanner-asset-pull-*), nothing else is cached ahead.
  'scanner-asset-warm-started': 'vulnerability scanning',
  'scanner-asset-warm-succeeded': 'vulnerability scanning',
  'scanner-asset-warm-failed': 'vulnerability scanning',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !/\.(test|d)\.ts$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** The expression after `action:` up to the `,`, `;`, `}` or `)` that ends it at its own depth. */
function valueAfter(text: string, start: number): string {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') {
      if (depth === 0) return text.slice(start, i);
      depth--;
    } else if ((ch === ',' || ch === ';') && depth === 0) return text.slice(start, i);
  }
  return text.slice(start);
}

/** The audit action literals that one file's text writes, by the rule in the header. */
function producedIn(text: string): Set<string> {
  const found = new Set<string>();
  const literals = (expression: string) => {
    for (const match of expression.matchAll(/'([a-z][a-z-]*)'/g)) found.add(match[1] as string);
  };
  for (const match of text.matchAll(/\baction:\s*/g)) literals(valueAfter(text, match.index + match[0].length));
  for (const match of text.matchAll(/=\s*(\{[^;]*?\})\s*(?:as const\s*)?satisfies\s+Record<[^;]*?AuditAction>/g))
    literals(match[1] as string);
  for (const match of text.matchAll(/\baudit[A-Za-z]*\(\s*'([a-z][a-z-]*)'/g)) found.add(match[1] as string);
  return found;
}

/** Each action type of AUDIT_ACTIONS with the files that produce it. */
function producers(): Map<string, string[]> {
  const byAction = new Map<string, string[]>(AUDIT_ACTIONS.map((action) => [action, []]));
  for (const file of SOURCE_DIRS.flatMap(sourceFiles)) {
    if (file === SCHEMA_FILE) continue;
    for (const action of producedIn(readFileSync(join(ROOT, file), 'utf8'))) byAction.get(action)?.push(file);
  }
  return byAction;
}

describe('audit action producers (http-interface §4.10)', () => {
  it('recognises producers by the rule and only by it', () => {
    const sample = `
      await audit.append({ action: 'container-added', containerName });
      await audit.append({
        action:
          kind === 'rollback' ? (auto ? 'auto-rollback' : 'rollback') : 'container-update',
        details: 'update-failed',
      });
      const MAP = { a: { x: 'hook-pre-success' } } as const satisfies Record<Stage, Record<'x', AuditAction>>;
      await auditContainer('webhook-update', container, 'queued');
      const rules = ['update-available'];
      query({ actions: ['maturity-cleared'] });`;
    expect([...producedIn(sample)].sort()).toEqual([
      'auto-rollback',
      'container-added',
      'container-update',
      'hook-pre-success',
      'rollback',
      'webhook-update',
    ]);
  });

  const byAction = producers();

  it('has a producer for every action type, or names the unbuilt feature that will write it', () => {
    const orphans = AUDIT_ACTIONS.filter((action) => byAction.get(action)?.length === 0 && !(action in UNBUILT));
    expect(orphans, 'action types with no producer and no owner in UNBUILT').toEqual([]);
  });

  it('lists in UNBUILT only action types that exist and that nothing writes yet', () => {
    const stale = Object.keys(UNBUILT).filter(
      (action) => !(AUDIT_ACTIONS as readonly string[]).includes(action) || (byAction.get(action)?.length ?? 0) > 0,
    );
    expect(stale, 'produced now (or no longer an action type): remove from UNBUILT').toEqual([]);
  });
});
