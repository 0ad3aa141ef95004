import { ConfigError } from '../../../shared/config/config-error';
import { type Environment, type ReadTextFile, resolveFileVariables } from '../../../shared/config/env-source';
import type { Logger } from '../../../shared/logging/logger';
import {
  CONFIG_FILE_VARIABLE,
  ConfigFileError,
  type ConfigProblem,
  type ConfigSource,
  checkConfigFileText,
  configSources,
  editConfigFileText,
  maskConfigFileText,
  mergeConfigFile,
  readConfigFileVariables,
  unmaskConfigFileText,
} from './config-file';
import type { ConfigFilePort } from './config-file-port';
import { type HubConfig, KNOWN_VARIABLES, loadHubConfig, maskHubConfig } from './hub-config';
import { showVariable } from './secret-variables';

/**
 * Where the configuration comes from, as the runtime entry read it at start: its environment
 * (without the file's variables), the `<NAME>__FILE` reader, and the file, where there is one.
 */
export interface ConfigurationSource {
  env: Environment;
  readTextFile: ReadTextFile;
  /** DD_CONFIG_FILE's port (Node); absent where there is no file to read or write. */
  file?: ConfigFilePort | undefined;
  /** The file's variables the hub started with. */
  fileVariables?: ReadonlyMap<string, string> | undefined;
}

/**
 * What a reload re-creates (hub-reconfiguration.ts): `prepare` builds the new watchers', triggers'
 * and registries' parts and throws a ConfigError naming the variable when one is refused; nothing
 * changes before `commit`.
 */
export type PrepareReconfiguration = (
  next: HubConfig,
  variables: ReadonlyMap<string, string>,
) => Promise<PreparedReconfiguration>;

export interface PreparedReconfiguration {
  commit(): Promise<void>;
  /** Ends what prepare built (a validation's triggers: an MQTT one connects when created). */
  discard(): Promise<void>;
}

/** Variables a reload applies; any other change waits for a restart, and is reported as such. */
export function reloadableVariable(name: string): boolean {
  if (name === 'DD_NOTIFICATION_TIMEOUT' || name === 'DD_REGISTRY_TIMEOUT') return false;
  return (
    name.startsWith('DD_WATCHER_') ||
    name === 'DD_LOCAL_WATCHER' ||
    name.startsWith('DD_NOTIFICATION_') ||
    name.startsWith('DD_ACTION_') ||
    name.startsWith('DD_REGISTRY_')
  );
}

export interface ConfigVariableView {
  name: string;
  /** Masked where it is a secret; absent for a default (the effective configuration shows it). */
  value?: string;
  source: ConfigSource;
}

export interface ConfigView {
  file: { path: string; writable: boolean; content: string } | null;
  variables: ConfigVariableView[];
  /** Variables whose file value differs from what the hub runs with until it restarts. */
  restartRequired: string[];
  /** The configuration the hub runs with, masked. */
  effective: Record<string, unknown>;
}

export interface ValidationResult {
  valid: boolean;
  problems: ConfigProblem[];
  /** The variables the body sets, sorted. */
  variables: string[];
  /** Those of them the environment sets too: the environment's value wins. */
  overridden: string[];
}

export interface ReloadResult {
  /** Changed variables the reload applied (watchers, triggers, actions, registries re-created). */
  applied: string[];
  /** Changed variables that take effect at the next restart (listen address, storage, …). */
  restartRequired: string[];
  /** The previous file's copy, after a write. */
  backup?: string | undefined;
}

/** Why a write or reload is refused: the HTTP layer maps each to its status. */
export class ConfigUnavailableError extends Error {
  constructor(
    readonly reason: 'no-file' | 'read-only' | 'not-in-file',
    message: string,
  ) {
    super(message);
    this.name = 'ConfigUnavailableError';
  }
}

export interface ConfigService {
  read(): Promise<ConfigView>;
  /** The DD_* variables the hub runs with, secrets resolved: never to be shown (the debug dump scrubs them). */
  variables(): ReadonlyMap<string, string>;
  validate(text: string): Promise<ValidationResult>;
  reload(by: string): Promise<ReloadResult>;
  /** Writes the text (masked secrets kept), then reloads. */
  write(text: string, by: string): Promise<ReloadResult>;
  /**
   * Replaces (values) or removes (undefined) every variable under `prefix`, then writes and reloads.
   * A removal of what the file does not hold is refused (`not-in-file`).
   */
  edit(prefix: string, values: ReadonlyMap<string, string> | undefined, by: string): Promise<ReloadResult>;
}

export interface ConfigServiceDeps {
  source: ConfigurationSource;
  /** The running configuration: a reload replaces its reloadable sections in place. */
  config: HubConfig;
  prepare: PrepareReconfiguration;
  logger: Logger;
}

const DD_NAMES = (variables: ReadonlyMap<string, string>) =>
  new Map([...variables].filter(([name]) => name.startsWith('DD_')));

export function createConfigService(deps: ConfigServiceDeps): ConfigService {
  const { source, logger } = deps;
  const port = source.file;
  let fileVariables: ReadonlyMap<string, string> = source.fileVariables ?? new Map();
  /** The variables the running configuration was read from (file and environment, secrets resolved). */
  let running = resolve(fileVariables);
  // Writes and reloads one at a time: two writers must not interleave their read-modify-write.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const next = queue.then(task, task);
    queue = next.catch(() => undefined);
    return next;
  };

  function resolve(variables: ReadonlyMap<string, string>): Map<string, string> {
    return DD_NAMES(resolveFileVariables(mergeConfigFile(source.env, variables), source.readTextFile));
  }

  /** The configuration the file's variables give, checked as start-up checks it; problems instead of a throw. */
  async function evaluate(variables: ReadonlyMap<string, string>) {
    const problems: ConfigProblem[] = [];
    try {
      const merged = mergeConfigFile(source.env, variables);
      const next = loadHubConfig(merged, source.readTextFile);
      const resolved = resolve(variables);
      const prepared = await deps.prepare(next, resolved);
      return { next, resolved, prepared, problems };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push({ variable: error.variable, message: error.message.slice(error.variable.length + 2) });
      return { problems };
    }
  }

  function requirePort(): ConfigFilePort {
    if (!port)
      throw new ConfigUnavailableError(
        'no-file',
        `no configuration file is set (${CONFIG_FILE_VARIABLE}): the environment changes only with a restart`,
      );
    return port;
  }

  function changes(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
    const names = new Set([...before.keys(), ...after.keys()]);
    return [...names].filter((name) => before.get(name) !== after.get(name)).sort();
  }

  /** Applies the file's variables: the reloadable parts re-created, the rest reported. */
  async function apply(
    variables: ReadonlyMap<string, string>,
    by: string,
    what: string,
    evaluated?: Awaited<ReturnType<typeof evaluate>>,
  ): Promise<ReloadResult> {
    const result = evaluated ?? (await evaluate(variables));
    if (!result.prepared) throw new ConfigFileError(result.problems);
    await result.prepared.commit();
    const changed = changes(running, result.resolved);
    fileVariables = variables;
    running = new Map([...running].filter(([name]) => !reloadableVariable(name)));
    for (const [name, value] of result.resolved) if (reloadableVariable(name)) running.set(name, value);
    const applied = changed.filter(reloadableVariable);
    const restartRequired = pendingRestart();
    // No audit action of http-interface §4.10 names a configuration change: the hub's log records it.
    logger.info(`configuration ${what}`, { by, file: port?.path, applied, restartRequired });
    return { applied, restartRequired };
  }

  function pendingRestart(): string[] {
    return changes(running, resolve(fileVariables)).filter((name) => !reloadableVariable(name));
  }

  async function writeAndApply(text: string, by: string, what: string): Promise<ReloadResult> {
    const file = requirePort();
    if (!(await file.writable()))
      throw new ConfigUnavailableError('read-only', `the configuration file ${file.path} is read-only`);
    const variables = readConfigFileVariables(text);
    const checked = await evaluate(variables);
    if (!checked.prepared) throw new ConfigFileError(checked.problems);
    let backup: string | undefined;
    try {
      ({ backup } = await file.write(text));
    } catch (error) {
      await checked.prepared.discard();
      throw error;
    }
    return { ...(await apply(variables, by, what, checked)), backup };
  }

  return {
    variables: () => running,
    async read() {
      const sources = configSources(source.env, fileVariables);
      const resolved = resolve(fileVariables);
      const variables: ConfigVariableView[] = [...sources]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, from]) => {
          const value = resolved.get(name);
          return { name, ...(value !== undefined && { value: showVariable(name, value) }), source: from };
        });
      for (const name of [...KNOWN_VARIABLES].sort()) {
        if (!sources.has(name)) variables.push({ name, source: 'default' });
      }
      return {
        file: port
          ? { path: port.path, writable: await port.writable(), content: maskConfigFileText(await port.read()) }
          : null,
        variables,
        restartRequired: pendingRestart(),
        effective: maskHubConfig(deps.config),
      };
    },
    async validate(text) {
      const checked = checkConfigFileText(text);
      const variables = [...checked.variables.keys()].sort();
      const sources = configSources(source.env, new Map());
      const overridden = variables.filter((name) => sources.get(name) === 'env');
      if (checked.problems.length > 0) return { valid: false, problems: checked.problems, variables, overridden };
      const { problems, prepared } = await evaluate(checked.variables);
      await prepared?.discard();
      return { valid: problems.length === 0, problems, variables, overridden };
    },
    reload: (by) =>
      serial(async () => {
        const file = requirePort();
        return apply(readConfigFileVariables(await file.read()), by, 'reloaded');
      }),
    write: (text, by) =>
      serial(async () => {
        const current = readConfigFileVariables(await requirePort().read());
        return writeAndApply(unmaskConfigFileText(text, current), by, 'written');
      }),
    edit: (prefix, values, by) =>
      serial(async () => {
        const text = await requirePort().read();
        if (!values && ![...readConfigFileVariables(text).keys()].some((name) => name.startsWith(prefix)))
          throw new ConfigUnavailableError('not-in-file', `the file sets no ${prefix}* variable`);
        return writeAndApply(editConfigFileText(text, prefix, values), by, `edited (${prefix}*)`);
      }),
  };
}
