import { errorMessage } from '../error-message';
import { ConfigError } from './config-error';

export type Environment = Readonly<Record<string, string | undefined>>;
export type ReadTextFile = (path: string) => string;

const FILE_SUFFIX = '__FILE';

/**
 * The environment with every `<NAME>__FILE` resolved to the file's content (decisions §2), so
 * that the readers below never see the difference. Setting both forms of one variable is an
 * error: which one wins would be a guess.
 */
export function resolveFileVariables(env: Environment, readTextFile: ReadTextFile): Map<string, string> {
  const resolved = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !name.startsWith('DD_') || name.endsWith(FILE_SUFFIX)) continue;
    resolved.set(name, value);
  }
  for (const [fileVariable, path] of Object.entries(env)) {
    if (path === undefined || !fileVariable.startsWith('DD_') || !fileVariable.endsWith(FILE_SUFFIX)) continue;
    const name = fileVariable.slice(0, -FILE_SUFFIX.length);
    if (resolved.has(name)) throw new ConfigError(fileVariable, `cannot be set together with ${name}`);
    let content: string;
    try {
      content = readTextFile(path);
    } catch (error) {
      throw new ConfigError(fileVariable, `cannot read ${path}: ${errorMessage(error)}`);
    }
    resolved.set(name, content.replace(/\r?\n$/, ''));
  }
  return resolved;
}
