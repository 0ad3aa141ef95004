/**
 * The runtime's access to the configuration file of DD_CONFIG_FILE (docs/configuration-file.md):
 * the core reads no file itself (Node: hub/src/adapter/node/node-config-file.ts). Absent (Workers,
 * or no DD_CONFIG_FILE): the configuration routes read and validate, and refuse to write or reload.
 */
export interface ConfigFilePort {
  /** The file's path, as DD_CONFIG_FILE names it. */
  readonly path: string;
  /** The file's text now; an absent file reads as empty (a file to be written by the API). */
  read(): Promise<string>;
  /** False when the file (or, for a file to be created, its directory) cannot be written. */
  writable(): Promise<boolean>;
  /**
   * Replaces the file atomically (a new file renamed over it), after copying the previous one to
   * a backup beside it; answers the backup's path (undefined when there was no previous file).
   */
  write(text: string): Promise<{ backup: string | undefined }>;
}
