import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type {
  DockerContainerDetails,
  DockerContainerEvent,
  DockerEventHandlers,
  DockerHost,
  DockerImageDetails,
  DockerSubscription,
} from '../../../shared/docker/docker-host';
import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import { parseImageReference } from '../../../shared/registry/image-reference';
import { createConcurrencyLimiter } from '../../../shared/registry/request-limiter';
import { parseComposeFile, parseDockerfile, sourceFileKind } from '../../../shared/sources';
import { parseImageList } from '../../../shared/sources/image-list';
import type { ParsedSourceFile, SourceEntry, SourceProblem } from '../../../shared/sources/source-entry';
import type { SourceFiles } from '../../../shared/sources/source-files';

/** The labels that say where an entry comes from: shown with the record, never read as policy. */
export const SOURCE_LABELS = {
  type: 'dockwatch.source.type',
  file: 'dockwatch.source.file',
  line: 'dockwatch.source.line',
};

export interface FileSourceHostOptions {
  /** `file.<name>` or `dockerfile.<name>`: the watcher's id, which entry ids are made from. */
  sourceId: string;
  type: 'file' | 'dockerfile' | 'images';
  files: SourceFiles;
  now: () => number;
  logger?: Logger | undefined;
}

/** A host over files: their entries are its "containers", which nothing runs and nothing updates. */
export interface FileSourceHost extends DockerHost {
  /** What the files got wrong now, by file and line (GET /api/v1/watchers shows them). */
  problems(): SourceProblem[];
  /** How many times each file was read: a change to one file reads that file only (docs/sources.md). */
  readonly reads: number;
}

export function isFileSourceHost(host: DockerHost): host is FileSourceHost {
  return typeof (host as Partial<FileSourceHost>).problems === 'function';
}

interface FileState {
  entries: Map<string, SourceEntry>;
  problems: SourceProblem[];
}

const READ_CONCURRENCY = 16;

function parseFile(type: FileSourceHostOptions['type'], file: string, text: string): ParsedSourceFile {
  if (type !== 'dockerfile') return parseImageList(text, file);
  const kind = sourceFileKind(file.split('/').pop() ?? file);
  return kind === 'compose' ? parseComposeFile(text, file) : parseDockerfile(text, file);
}

const refused = (what: string) => async () => {
  throw new Error(`${what}: a file source runs no containers`);
};

/**
 * A DockerHost made of a file source's entries (docs/sources.md), so that they go through the
 * same watcher as containers: one registry lookup per reference across the fleet, the same labels,
 * policies, notifications and API. Files are read at the first listing; afterwards only the files
 * the port says changed are read again (each change an event, like Docker's), and every file again
 * at each listing while the port cannot tell changes. An entry's id follows its file, what it is in
 * the file, its reference and its policy keys: a changed reference or policy is a new entry, checked
 * at once. A file that fails as a whole keeps its last entries; its problems are shown meanwhile.
 */
export function createFileSourceHost(options: FileSourceHostOptions): FileSourceHost {
  const files = new Map<string, FileState>();
  const firstSeen = new Map<string, number>();
  let listingProblem: SourceProblem | undefined;
  let loaded = false;
  let subscription: { close(): void } | undefined;
  let handlers: DockerEventHandlers | undefined;
  let reads = 0;
  const limiter = createConcurrencyLimiter(READ_CONCURRENCY);
  const where = options.files;

  const idOf = (entry: SourceEntry) =>
    bytesToHex(
      sha256(utf8ToBytes(JSON.stringify([options.sourceId, entry.file, entry.key, entry.reference, entry.labels]))),
    );

  /** Reads and parses one file into its state; answers the ids it had before and has now. */
  async function readFile(file: string): Promise<void> {
    let text: string | undefined;
    let parsed: ParsedSourceFile;
    try {
      text = await where.read(file);
      reads += 1;
      if (text === undefined) {
        files.delete(file);
        return;
      }
      parsed = parseFile(options.type, file, text);
    } catch (error) {
      parsed = { entries: [], problems: [{ file, message: `cannot read: ${errorMessage(error)}` }], failed: true };
    }
    const before = files.get(file);
    const entries = parsed.failed && before ? before.entries : new Map<string, SourceEntry>();
    if (!parsed.failed || !before) {
      // The same key and reference twice in one file (two identical FROM lines) is one more entry each.
      for (const entry of parsed.entries) {
        let id = idOf(entry);
        for (let n = 2; entries.has(id); n += 1) id = idOf({ ...entry, key: `${entry.key}#${n}` });
        entries.set(id, entry);
        if (!firstSeen.has(id)) firstSeen.set(id, options.now());
      }
    }
    files.set(file, { entries, problems: parsed.problems });
    if (parsed.problems.length > 0)
      options.logger?.warn('a source file has problems', {
        source: options.sourceId,
        problems: parsed.problems.slice(0, 5),
      });
  }

  async function readAll(): Promise<void> {
    let listed: string[];
    try {
      listed = await where.list();
      listingProblem = undefined;
    } catch (error) {
      listingProblem = { file: '.', message: errorMessage(error) };
      throw new Error(`${options.sourceId}: ${errorMessage(error)}`);
    }
    const wanted = new Set(listed);
    for (const file of files.keys()) if (!wanted.has(file)) files.delete(file);
    await Promise.all(listed.map((file) => limiter.run(() => readFile(file))));
    loaded = true;
  }

  /** The files the port says changed, read again; their entries that came or went are told as events. */
  async function changed(changedFiles: readonly string[]): Promise<void> {
    const before = new Set(changedFiles.flatMap((file) => [...(files.get(file)?.entries.keys() ?? [])]));
    await Promise.all(changedFiles.map((file) => limiter.run(() => readFile(file))));
    const after = new Set(changedFiles.flatMap((file) => [...(files.get(file)?.entries.keys() ?? [])]));
    const time = options.now();
    const events: DockerContainerEvent[] = [
      ...[...before].filter((id) => !after.has(id)).map((id) => ({ id, action: 'destroy', time, attributes: {} })),
      ...[...after].filter((id) => !before.has(id)).map((id) => ({ id, action: 'create', time, attributes: {} })),
    ];
    for (const event of events) handlers?.onEvent(event);
  }

  const entryById = (id: string): SourceEntry | undefined => {
    for (const state of files.values()) {
      const entry = state.entries.get(id);
      if (entry) return entry;
    }
    return undefined;
  };

  const details = (id: string, entry: SourceEntry): DockerContainerDetails => ({
    id,
    name: entry.name,
    image: entry.reference,
    // The reference stands in for an image id: there is no local image, only what the file names.
    imageId: entry.reference,
    // Nothing runs it; `created` is Docker's word for a container that exists and is not running.
    state: 'created',
    labels: {
      ...entry.labels,
      [SOURCE_LABELS.type]: options.type,
      [SOURCE_LABELS.file]: entry.file,
      [SOURCE_LABELS.line]: String(entry.line),
    },
    createdAt: firstSeen.get(id) ?? options.now(),
    env: [],
    restartCount: 0,
  });

  return {
    endpoint: `${options.type}://${options.sourceId}`,
    get reads() {
      return reads;
    },
    problems: () => [
      ...(listingProblem ? [listingProblem] : []),
      ...[...files.values()].flatMap((state) => state.problems),
    ],
    async ping() {
      await where.list();
    },
    async listContainers() {
      if (!loaded || !subscription) await readAll();
      return [...files.values()].flatMap((state) =>
        [...state.entries].map(([id, entry]) => {
          const { env: _env, restartCount: _restarts, ...summary } = details(id, entry);
          return summary;
        }),
      );
    },
    async inspectContainer(id) {
      const entry = entryById(id);
      return entry && details(id, entry);
    },
    async inspectImage(reference): Promise<DockerImageDetails | undefined> {
      let digest: string | undefined;
      let repository = reference;
      try {
        const parsed = parseImageReference(reference);
        digest = parsed.digest;
        repository = reference.slice(0, reference.indexOf('@') === -1 ? undefined : reference.indexOf('@'));
      } catch {
        return undefined;
      }
      // A pinned reference (`name:tag@sha256:…`) is compared by its digest; others by their tags only.
      return {
        id: reference,
        repoTags: [repository],
        repoDigests: digest ? [`${repository.replace(/:[^/:]+$/, '')}@${digest}`] : [],
        os: 'linux',
        architecture: 'amd64',
      };
    },
    subscribeEvents(next): DockerSubscription {
      handlers = next;
      subscription = where.watch?.({
        onChange: (changedFiles) => {
          changed(changedFiles).catch((error: unknown) =>
            options.logger?.warn('reading changed source files failed', {
              source: options.sourceId,
              error: errorMessage(error),
            }),
          );
        },
        onClose: (error) => {
          subscription = undefined;
          next.onClose(error);
        },
      });
      return {
        close: () => {
          subscription?.close();
          subscription = undefined;
          handlers = undefined;
        },
      };
    },
    logs: () => {
      throw new Error(`${options.sourceId}: a file source runs no containers, so it has no logs`);
    },
    start: refused(options.sourceId),
    stop: refused(options.sourceId),
    restart: refused(options.sourceId),
    remove: refused(options.sourceId),
    stats: refused(options.sourceId),
    async close() {
      subscription?.close();
      subscription = undefined;
    },
  };
}
