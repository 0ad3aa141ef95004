/**
 * Compose awareness for updates (docs/updates.md "Compose files"): after an update re-created a container that a
 * compose file describes, the file's `image:` line is brought in line, so that a later
 * `docker compose up` does not put the old image back. The engine only knows this interface; the
 * runtime that can read files (the hub on Node, an edge agent) provides it.
 */

/** One change of a compose service's image, in the files compose read the project from. */
export interface ComposeImageChange {
  /** The project's compose files in compose's order (base first, then overrides). */
  files: readonly string[];
  /** `services.<service>` in those files. */
  service: string;
  /** What the files are expected to name now: the old container's `Config.Image`. */
  oldImage: string;
  /** What they should name afterwards. */
  newImage: string;
  /** The action trigger that ran the update (a runtime may honour its options). */
  triggerName?: string | undefined;
}

/**
 * What became of the file: `rewritten` (a backup was made first), `unchanged` (nothing to write: a
 * digest-only update, or the file already names the new image), `skipped` with the reason
 * (opted out, unreadable, or a value this hub will not touch). Never file contents.
 */
export interface ComposeRewriteOutcome {
  path: string;
  backupPath?: string;
  status: 'rewritten' | 'unchanged' | 'skipped';
  reason?: string;
}

export interface ComposeFileEditor {
  /** Never rejects: every problem is a `skipped` outcome. */
  setServiceImage(change: ComposeImageChange): Promise<ComposeRewriteOutcome>;
}
