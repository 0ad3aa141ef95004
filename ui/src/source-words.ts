import type { WatcherType } from '../../shared/sources/watcher-type-names';

/** A watcher type in words (docs/sources.md), as the list's Source filter and the container page name it. */
export const SOURCE_WORDS: Record<WatcherType, string> = {
  docker: 'Docker',
  podman: 'Podman',
  swarm: 'Swarm services',
  file: 'Image lists',
  dockerfile: 'Dockerfiles and compose files',
};
