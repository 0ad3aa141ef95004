import type Docker from 'dockerode';

/**
 * A hub process's variables for update tests on a private dockerd: its one local watcher on that
 * daemon, watching only what a test labels, cycles without jitter, and a health gate long enough
 * for a busy machine.
 */
export function localUpdateHubEnv(socketPath: string, storePath: string): Record<string, string> {
  return {
    DD_STORE_PATH: storePath,
    DD_WATCHER_LOCAL_SOCKET: socketPath,
    DD_WATCHER_LOCAL_JITTER: '0',
    DD_WATCHER_LOCAL_WATCHBYDEFAULT: 'false',
    DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '20',
  };
}

/** Every container's name on the daemon, stopped ones included. */
export async function containerNames(docker: Docker): Promise<string[]> {
  return (await docker.listContainers({ all: true })).map((c) => c.Names[0]?.slice(1) ?? '');
}
