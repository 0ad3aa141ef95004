import type { DockerHost } from '../../shared/docker/docker-host';

const unused = () => {
  throw new Error('not expected in this test');
};

/**
 * A Docker host for unit tests of the watchers: the listing, inspect and image calls a test gives,
 * and every other call (events, logs, lifecycle, stats) failing the test if it is made.
 */
export function fakeDockerHost(
  calls: Pick<DockerHost, 'listContainers' | 'inspectContainer' | 'inspectImage'> & Partial<DockerHost>,
): DockerHost {
  return {
    endpoint: 'unix:///fake.sock',
    ping: async () => undefined,
    subscribeEvents: unused,
    logs: unused,
    start: unused,
    stop: unused,
    restart: unused,
    remove: unused,
    stats: unused,
    close: async () => undefined,
    ...calls,
  };
}
