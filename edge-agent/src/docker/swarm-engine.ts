import Docker from 'dockerode';
import type { SwarmEngine, SwarmService, SwarmTask } from '../../../shared/docker/swarm-engine';
import { type DockerEndpoint, describeEndpoint } from '../../../shared/docker/watcher-config';

/** A Swarm manager's Engine API through dockerode (the port of hub/src/swarm/, shared/docker/swarm-engine.ts). */
export function createSwarmEngine(endpoint: DockerEndpoint): SwarmEngine {
  const docker = new Docker(
    'socketPath' in endpoint
      ? { socketPath: endpoint.socketPath }
      : { host: endpoint.host, port: endpoint.port, protocol: endpoint.protocol },
  );
  return {
    endpoint: describeEndpoint(endpoint),
    listServices: async () => (await docker.listServices()) as unknown as SwarmService[],
    async inspectService(id) {
      try {
        return (await docker.getService(id).inspect()) as SwarmService;
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode === 404) return undefined;
        throw error;
      }
    },
    async updateService(id, update) {
      const { auth } = update;
      // `_query` and `_body` keep the version and rollback in the query string and the spec in the body (docker-modem).
      await docker.getService(id).update({
        _query: { version: update.version, ...(update.rollback && { rollback: update.rollback }) },
        _body: update.spec,
        ...(auth && {
          authconfig: { username: auth.username, password: auth.password, serveraddress: auth.serverAddress },
        }),
      });
    },
    listTasks: async (serviceId) =>
      (await docker.listTasks({ filters: JSON.stringify({ service: [serviceId] }) })) as SwarmTask[],
    close: async () => undefined,
  };
}
