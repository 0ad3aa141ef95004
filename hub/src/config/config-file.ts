import { type Document, isMap, isScalar, type Node, type Pair, parseDocument, Scalar, YAMLMap } from 'yaml';
import { ConfigError } from '../../../shared/config/config-error';
import type { Environment } from '../../../shared/config/env-source';
import { restoreMasked } from './masked-values';
import { showVariable } from './secret-variables';

/**
 * The configuration file of DD_CONFIG_FILE (docs/configuration-file.md): a YAML mapping whose keys
 * are DD_* variable names. A value is a scalar, or a mapping whose keys extend the name, joined
 * with `_` and upper-cased: `DD_WATCHER: {local: {cron: …}}` is DD_WATCHER_LOCAL_CRON. The file
 * holds the same variables as the environment, read by the same schemas; the environment wins.
 */

export const CONFIG_FILE_VARIABLE = 'DD_CONFIG_FILE';

/** A problem of the file: the variable (or YAML key path) it concerns, and what is wrong. */
export interface ConfigProblem {
  variable: string;
  message: string;
}

/** Thrown for a file that is not a mapping of DD_* variables; every problem found is listed. */
export class ConfigFileError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(problems.map((problem) => `${problem.variable}: ${problem.message}`).join('; '));
    this.name = 'ConfigFileError';
  }
}

const NAME_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_]*$/;

/** The variable name a key path spells: segments joined with `_`, upper-cased. */
function variableOf(path: readonly string[]): string {
  return path.join('_').toUpperCase();
}

/** One scalar leaf of the document: its variable, its text, and the node (to mask or replace it). */
interface Leaf {
  variable: string;
  value: string;
  node: Scalar;
}

/** Walks the mapping to its leaves; problems are collected, not thrown, so a validation lists them all. */
function leavesOf(doc: Document, problems: ConfigProblem[]): Leaf[] {
  const leaves: Leaf[] = [];
  const seen = new Set<string>();
  const walk = (map: YAMLMap, path: string[]) => {
    for (const pair of map.items as Pair<unknown, unknown>[]) {
      const key = isScalar(pair.key) ? pair.key.value : pair.key;
      const keyText = typeof key === 'string' || typeof key === 'number' ? String(key) : undefined;
      const where = path.length === 0 ? '(top level)' : variableOf(path);
      if (keyText === undefined || !NAME_SEGMENT.test(keyText)) {
        problems.push({ variable: where, message: 'a key must be letters, digits and underscores' });
        continue;
      }
      const next = [...path, keyText];
      const variable = variableOf(next);
      if (path.length === 0 && !variable.startsWith('DD_')) {
        problems.push({ variable: keyText, message: 'a top-level key must be a DD_* variable name' });
        continue;
      }
      if (isMap(pair.value)) {
        walk(pair.value, next);
        continue;
      }
      const node = pair.value;
      if (!isScalar(node) || !['string', 'number', 'boolean'].includes(typeof node.value)) {
        problems.push({ variable, message: 'must be a string, a number or a boolean (lists: comma-separated text)' });
        continue;
      }
      if (variable.endsWith('__FILE') || variable === CONFIG_FILE_VARIABLE) {
        problems.push({ variable, message: 'cannot be set in the configuration file' });
        continue;
      }
      if (seen.has(variable)) {
        problems.push({ variable, message: 'is set twice (a flat key and a nested one spell the same name)' });
        continue;
      }
      seen.add(variable);
      leaves.push({ variable, value: String(node.value), node });
    }
  };
  if (doc.contents === null) return leaves;
  if (!isMap(doc.contents)) {
    problems.push({ variable: '(top level)', message: 'the file must be a mapping of DD_* variables' });
    return leaves;
  }
  walk(doc.contents, []);
  return leaves;
}

function parse(text: string): { doc: Document; leaves: Leaf[]; problems: ConfigProblem[] } {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const problems: ConfigProblem[] = doc.errors.map((error) => ({
    variable: '(syntax)',
    message: error.message.split('\n')[0] ?? 'invalid YAML',
  }));
  const leaves = problems.length === 0 ? leavesOf(doc, problems) : [];
  return { doc, leaves, problems };
}

/** The file's variables; throws ConfigFileError listing every problem. */
export function readConfigFileVariables(text: string): Map<string, string> {
  const { leaves, problems } = parse(text);
  if (problems.length > 0) throw new ConfigFileError(problems);
  return new Map(leaves.map((leaf) => [leaf.variable, leaf.value]));
}

/** The file's variables, or its problems (a validation answers them rather than throwing). */
export function checkConfigFileText(text: string): { variables: Map<string, string>; problems: ConfigProblem[] } {
  const { leaves, problems } = parse(text);
  return { variables: new Map(leaves.map((leaf) => [leaf.variable, leaf.value])), problems };
}

/** The file's text with every value masked as GET /api/v1/config shows it; comments and layout kept. */
export function maskConfigFileText(text: string): string {
  const { doc, leaves, problems } = parse(text);
  if (problems.length > 0) return '';
  for (const leaf of leaves) {
    const shown = showVariable(leaf.variable, leaf.value);
    if (shown !== leaf.value) leaf.node.value = shown;
  }
  return doc.toString();
}

/**
 * A text sent back after a read: every value still masked takes the value the file holds now
 * (masked-values.ts). A mask with no value to keep, or a secret kept while its destination
 * changed, is a problem: the client must send the secret itself.
 */
export function unmaskConfigFileText(text: string, current: ReadonlyMap<string, string>): string {
  const { doc, leaves, problems } = parse(text);
  if (problems.length > 0) throw new ConfigFileError(problems);
  const restored = restoreMasked(new Map(leaves.map((leaf) => [leaf.variable, leaf.value])), current);
  if (restored.problems.length > 0) throw new ConfigFileError(restored.problems);
  for (const leaf of leaves) {
    const value = restored.values.get(leaf.variable);
    if (value !== undefined && value !== leaf.value) leaf.node.value = value;
  }
  return doc.toString();
}

/**
 * The file with every variable under `prefix` removed (nested keys included, emptied mappings
 * dropped) and `values` added as flat keys: an editor's change of one watcher, trigger or action.
 * A value sent as the read masked it keeps what the file holds, as unmaskConfigFileText says.
 */
export function editConfigFileText(
  text: string,
  prefix: string,
  values: ReadonlyMap<string, string> | undefined,
): string {
  const { doc, leaves, problems } = parse(text);
  if (problems.length > 0) throw new ConfigFileError(problems);
  const current = new Map(leaves.map((leaf) => [leaf.variable, leaf.value]));
  if (!isMap(doc.contents)) doc.contents = new YAMLMap() as never;
  const prune = (map: YAMLMap, path: string[]) => {
    map.items = (map.items as Pair<unknown, unknown>[]).filter((pair) => {
      const key = String(isScalar(pair.key) ? pair.key.value : pair.key);
      const variable = variableOf([...path, key]);
      if (isMap(pair.value)) {
        prune(pair.value, [...path, key]);
        return pair.value.items.length > 0;
      }
      return !variable.startsWith(prefix);
    }) as never;
  };
  const restored = restoreMasked(values ?? new Map(), current);
  if (restored.problems.length > 0) throw new ConfigFileError(restored.problems);
  prune(doc.contents as YAMLMap, []);
  for (const [variable, value] of restored.values) (doc.contents as YAMLMap).set(variable, new Scalar(value) as Node);
  return doc.toString();
}

/** Where a variable's value comes from. */
export type ConfigSource = 'env' | 'file' | 'default';

/**
 * The environment the hub reads: the file's variables, then the environment's over them (a
 * variable set as `<NAME>__FILE` in the environment also wins over the file's `<NAME>`).
 */
export function mergeConfigFile(env: Environment, fileVariables: ReadonlyMap<string, string>): Environment {
  const merged: Record<string, string | undefined> = {};
  for (const [name, value] of fileVariables) {
    if (env[name] === undefined && env[`${name}__FILE`] === undefined) merged[name] = value;
  }
  return { ...merged, ...env };
}

/** The source of each variable set in the environment or the file (the rest are defaults). */
export function configSources(env: Environment, fileVariables: ReadonlyMap<string, string>): Map<string, ConfigSource> {
  const sources = new Map<string, ConfigSource>();
  for (const name of fileVariables.keys()) sources.set(name, 'file');
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !name.startsWith('DD_')) continue;
    sources.set(name.endsWith('__FILE') ? name.slice(0, -'__FILE'.length) : name, 'env');
  }
  return sources;
}

/** A ConfigError the file caused, restated to name the file first (start-up and validation messages). */
export function inConfigFile(path: string, error: ConfigError): ConfigError {
  return new ConfigError(CONFIG_FILE_VARIABLE, `${path}: ${error.message}`);
}
