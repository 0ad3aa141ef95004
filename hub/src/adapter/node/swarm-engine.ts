import Docker from 'dockerode';
import { type DockerEndpoint, describeEndpoint } from '../../../../shared/docker/watcher-config';
import type { SwarmEngine, SwarmService } from '../../swarm/swarm-host';

/** A Swarm manager's Engine API through dockerode (the swarm watcher's port, hub/src/swarm/swarm-host.ts). */
export function createSwarmEngine(endpoint: DockerEndpoint): SwarmEngine {
  const docker = new Docker(
    'socketPath' in endpoint
      ? { socketPath: endpoint.socketPath }
      : { host: endpoint.host, port: endpoint.port, protocol: endpoint.protocol },
  );
  return {
    endpoint: describeEndpoint(endpoint),
    listServices: async () => (await docker.listServices()) as unknown as SwarmService[],
    close: async () => undefined,
  };
}
