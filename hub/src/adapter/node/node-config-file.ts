import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { access, copyFile, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ConfigError } from '../../../../shared/config/config-error';
import type { Environment } from '../../../../shared/config/env-source';
import { errorMessage } from '../../../../shared/error-message';
import {
  CONFIG_FILE_VARIABLE,
  ConfigFileError,
  inConfigFile,
  mergeConfigFile,
  readConfigFileVariables,
} from '../../config/config-file';
import type { ConfigFilePort } from '../../config/config-file-port';
import type { ConfigurationSource } from '../../config/config-service';

/** The previous file's copy, beside it: one backup, replaced by each write. */
export const BACKUP_SUFFIX = '.bak';

/**
 * DD_CONFIG_FILE on Node (docs/configuration-file.md): read at start (a bad file stops start-up,
 * naming the file and the variable), written through a temporary file renamed over it, after the
 * previous one is copied to `<file>.bak`.
 */
export function nodeConfigFile(path: string): ConfigFilePort {
  return {
    path,
    read: async () => {
      try {
        return await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
        throw error;
      }
    },
    writable: async () => {
      try {
        await access(existsSync(path) ? path : dirname(path), constants.W_OK);
        return true;
      } catch {
        return false;
      }
    },
    async write(text) {
      let backup: string | undefined;
      if (existsSync(path)) {
        backup = `${path}${BACKUP_SUFFIX}`;
        await copyFile(path, backup);
      }
      const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
      const handle = await open(temp, 'w', 0o600);
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      try {
        await rename(temp, path);
      } catch (error) {
        await unlink(temp).catch(() => undefined);
        throw error;
      }
      return { backup };
    },
  };
}

/**
 * The environment the hub starts with: DD_CONFIG_FILE's variables under the process's own. A file
 * that cannot be read or parsed is a ConfigError naming DD_CONFIG_FILE, the file and the key.
 */
export function loadNodeConfiguration(
  env: Environment,
  readTextFile: (path: string) => string,
): { env: Environment; source: ConfigurationSource } {
  const path = env[CONFIG_FILE_VARIABLE];
  if (path === undefined || path === '') return { env, source: { env, readTextFile } };
  let text: string;
  try {
    accessSync(path, constants.R_OK);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(CONFIG_FILE_VARIABLE, `cannot read ${path}: ${errorMessage(error)}`);
  }
  let fileVariables: Map<string, string>;
  try {
    fileVariables = readConfigFileVariables(text);
  } catch (error) {
    if (error instanceof ConfigFileError) throw new ConfigError(CONFIG_FILE_VARIABLE, `${path}: ${error.message}`);
    throw error;
  }
  return {
    env: mergeConfigFile(env, fileVariables),
    source: { env, readTextFile, file: nodeConfigFile(path), fileVariables },
  };
}

/** A ConfigError of a variable the file set, restated to name the file (start-up refuses it, exit 78). */
export function blameConfigFile(error: unknown, source: ConfigurationSource): unknown {
  if (!(error instanceof ConfigError) || !source.file || !source.fileVariables?.has(error.variable)) return error;
  if (source.env[error.variable] !== undefined) return error;
  return inConfigFile(source.file.path, error);
}
