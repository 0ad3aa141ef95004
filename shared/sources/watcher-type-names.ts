/**
 * The watcher types (docs/sources.md), on their own so that records, queries and the UI can name
 * them without the configuration readers (cron parsing) watcher-config.ts brings.
 */
export const WATCHER_TYPES = ['docker', 'file', 'dockerfile', 'swarm', 'podman'] as const;
export type WatcherType = (typeof WATCHER_TYPES)[number];
