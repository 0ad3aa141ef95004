import { readFileSync } from 'node:fs';

/** Docker bind-mounts each container's /etc/hostname, /etc/hosts and /etc/resolv.conf from its own directory. */
const CONTAINER_DIRECTORY = /\/containers\/([0-9a-f]{64})\/(?:hostname|hosts|resolv\.conf)\b/;

/** The container id in a /proc/self/mountinfo text, when the process runs in a Docker container. */
export function containerIdFromMountinfo(mountinfo: string): string | undefined {
  for (const line of mountinfo.split('\n')) {
    const found = CONTAINER_DIRECTORY.exec(line);
    if (found?.[1]) return found[1];
  }
  return undefined;
}

/** The id of the container this process runs in; undefined outside a container (or off Linux). */
export function readSelfContainerId(path = '/proc/self/mountinfo'): string | undefined {
  try {
    return containerIdFromMountinfo(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}
