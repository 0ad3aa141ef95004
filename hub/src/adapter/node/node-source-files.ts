import { type FSWatcher, watch } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { sourceFileKind } from '../../../../shared/sources';
import type { FileSourceConfig } from '../../../../shared/sources/file-source-config';
import type { SourceFiles } from '../../../../shared/sources/source-files';

/** Directories a directory source never descends into: dependencies and VCS data hold no deployments of yours. */
const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git', '.hg', '.svn']);
/** Changes are gathered this long and told as one batch (an editor's save is several events). */
const GATHER_MS = 100;

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

async function readOrGone(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Gathers file names for GATHER_MS, then tells them once. */
function gatherer(onChange: (files: readonly string[]) => void) {
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  return {
    add(file: string) {
      pending.add(file);
      timer ??= setTimeout(() => {
        timer = undefined;
        const files = [...pending];
        pending = new Set();
        onChange(files);
      }, GATHER_MS);
    },
    stop() {
      if (timer) clearTimeout(timer);
    },
  };
}

type WatchHandlers = Parameters<NonNullable<SourceFiles['watch']>>[0];

/**
 * Runs the fs watch `start` makes, its changes gathered into batches; a watch that cannot start or
 * fails later is closed with its error (a full cycle then reads the files again).
 */
function watchFiles(handlers: WatchHandlers, start: (changed: (file: string) => void) => FSWatcher): { close(): void } {
  const changes = gatherer(handlers.onChange);
  let watcher: FSWatcher;
  try {
    watcher = start((file) => changes.add(file));
  } catch (error) {
    queueMicrotask(() => handlers.onClose(error as Error));
    return { close: () => undefined };
  }
  watcher.on('error', (error) => {
    changes.stop();
    handlers.onClose(error);
  });
  return {
    close() {
      changes.stop();
      watcher.close();
    },
  };
}

/** One image list: its directory is watched, since editors save by writing a new file over the old. */
function imageListFiles(path: string): SourceFiles {
  return {
    async list() {
      const info = await stat(path);
      if (!info.isFile()) throw new Error(`${path} is not a file`);
      return [path];
    },
    read: (file) => readOrGone(file),
    watch: (handlers) =>
      watchFiles(handlers, (changed) =>
        watch(dirname(path), (_event, name) => {
          if (name === null || name === basename(path)) changed(path);
        }),
      ),
  };
}

async function walk(root: string, directory: string, found: string[]): Promise<void> {
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) await walk(root, path, found);
    } else if (entry.isFile() && sourceFileKind(entry.name)) found.push(relative(root, path).split(sep).join('/'));
  }
}

/** Every Dockerfile and compose file under a directory; one recursive watch tells which changed. */
function directoryFiles(root: string): SourceFiles {
  const relevant = (file: string) =>
    sourceFileKind(basename(file)) !== undefined && !file.split('/').some((part) => SKIPPED_DIRECTORIES.has(part));
  return {
    async list() {
      const found: string[] = [];
      await walk(root, root, found);
      return found.sort();
    },
    read: (file) => readOrGone(join(root, file)),
    watch: (handlers) =>
      watchFiles(handlers, (changed) =>
        watch(root, { recursive: true }, (_event, name) => {
          const file = name?.split(sep).join('/');
          if (file && relevant(file)) changed(file);
        }),
      ),
  };
}

/** The files of a file source on this machine (docs/sources.md). */
export function nodeSourceFiles(config: Pick<FileSourceConfig, 'type' | 'path'>): SourceFiles {
  return config.type === 'file' ? imageListFiles(config.path) : directoryFiles(config.path);
}
