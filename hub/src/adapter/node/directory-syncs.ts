/**
 * Group commit of directory fsyncs. A rename is durable once its directory is synced after it, so
 * every writer whose rename is done may share the next sync of that directory that has not started
 * yet: concurrent writes, and every record of a batch, cost one directory fsync between them
 * instead of one each. A sync already running may have begun before a caller's rename, so the
 * caller waits for the following one rather than joining it.
 */
export type SyncDirectory = (dir: string) => Promise<void>;

export function coalescedDirectorySyncs(sync: SyncDirectory): SyncDirectory {
  /** The next sync of each directory, not started yet: later callers join it. */
  const queued = new Map<string, Promise<void>>();
  /** The sync of each directory in progress: the next one starts after it. */
  const running = new Map<string, Promise<void>>();
  return (dir) => {
    const waiting = queued.get(dir);
    if (waiting) return waiting;
    const before = running.get(dir) ?? Promise.resolve();
    const next: Promise<void> = before
      .catch(() => undefined)
      .then(async () => {
        // From here on a rename may race the sync: callers that come now wait for the one after.
        queued.delete(dir);
        running.set(dir, next);
        try {
          await sync(dir);
        } finally {
          if (running.get(dir) === next) running.delete(dir);
        }
      });
    queued.set(dir, next);
    return next;
  };
}
