import type { FileSourceConfig } from './file-source-config';

/**
 * The files a file source reads (docs/sources.md), behind a port: the runtime that has a file
 * system implements it (hub/src/adapter/node/node-source-files.ts); Workers have none, and refuse
 * DD_WATCHER_* (hub/src/config/runtime-capabilities.ts).
 */
export interface SourceFiles {
  /**
   * The files to read, as the names entries and problems give (relative to the directory; the
   * image list's own path). Throws when the configured path itself cannot be read.
   */
  list(): Promise<string[]>;
  /** One file's text; undefined when it is gone; throws (the message naming why) when it cannot be read. */
  read(file: string): Promise<string | undefined>;
  /**
   * Tells which of the files were added, changed or removed, as they change. Optional: without it
   * (or once it closes) every full watch cycle reads every file again.
   */
  watch?(handlers: { onChange(files: readonly string[]): void; onClose(error: Error | undefined): void }): {
    close(): void;
  };
}

/** The runtime's way to reach a file source's files. */
export type SourceFilesFor = (config: FileSourceConfig) => SourceFiles;
