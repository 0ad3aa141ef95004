import type { DockerContainerDetails, DockerImageDetails } from '../../shared/docker/docker-host';
import { EDGE_PROTOCOL, type EdgeWatcher } from '../../shared/edge/protocol';
import { signChallenge } from '../../shared/edge/sign-in';

/**
 * The synthetic fleet of the edge benchmark, shared by the benchmark (which registers the keys)
 * and the load generator (which plays the agents). Images live on a closed loopback port and the
 * watcher is unwatched by default, so the hub never asks a registry anything.
 */
export interface FleetAgent {
  name: string;
  keyId: string;
  /** Raw 32-byte Ed25519 secret key, hex. */
  secretKey: string;
}

export interface FleetPlan {
  hubUrl: string;
  agents: FleetAgent[];
  containersPerAgent: number;
  /** Connections opened but not yet welcomed, at most. */
  connectConcurrency: number;
}

/** Distinct image references across the fleet: agents share images, as real fleets do. */
const DISTINCT_IMAGES = 50;

export const FLEET_WATCHER: EdgeWatcher = {
  name: 'local',
  endpoint: 'unix:///var/run/docker.sock',
  cron: '0 * * * *',
  jitterSeconds: 60,
  watchAll: false,
  // As DD_WATCHER_LOCAL_WATCHBYDEFAULT=false: listed, never looked up (registry costs have their own benchmarks).
  watchByDefault: false,
};

const hex = (value: number, digits: number) => value.toString(16).padStart(digits, '0');

function imageOf(index: number): DockerImageDetails {
  return {
    id: `sha256:${hex(index, 8).repeat(8)}`,
    repoTags: [`127.0.0.1:9/bench/app-${index}:1.0.${index % 7}`],
    repoDigests: [],
    os: 'linux',
    architecture: 'amd64',
  };
}

/** The inventory of agent `agentIndex`: ids unique across the fleet (the hub keys records by Docker id). */
export function fleetInventory(
  agentIndex: number,
  count: number,
): { containers: DockerContainerDetails[]; images: DockerImageDetails[] } {
  const images = new Map<string, DockerImageDetails>();
  const containers = Array.from({ length: count }, (_, j): DockerContainerDetails => {
    const image = imageOf((agentIndex * 7 + j) % DISTINCT_IMAGES);
    images.set(image.id, image);
    return {
      id: `${hex(agentIndex, 8)}${hex(j, 8)}${'c'.repeat(48)}`,
      name: `app-${j}`,
      image: image.repoTags[0] as string,
      imageId: image.id,
      // All running: a watcher that does not watch all lists running containers only.
      state: 'running',
      labels: { 'com.docker.compose.project': `stack-${j % 4}` },
      createdAt: Date.UTC(2026, 0, 1) + j * 1000,
      env: ['PATH=/usr/local/bin:/usr/bin', `APP_ID=${j}`],
      restartCount: 0,
      startedAt: '2026-01-01T00:00:00.000Z',
    };
  });
  return { containers, images: [...images.values()] };
}

/**
 * The `hello` a simulated agent answers the hub's challenge with, signed with its key, as the real
 * agent sends it: its name, its one watcher, a small host description under `hostname`.
 */
export async function fleetHello(agent: FleetAgent, challenge: string, hostname: string): Promise<string> {
  const secretKey = Uint8Array.from(Buffer.from(agent.secretKey, 'hex'));
  const signature = await signChallenge(secretKey, challenge, EDGE_PROTOCOL, agent.keyId, agent.name);
  return JSON.stringify({
    type: 'hello',
    protocol: EDGE_PROTOCOL,
    keyId: agent.keyId,
    agentName: agent.name,
    signature,
    agent: {
      version: '1.0.0',
      hostname,
      os: 'linux',
      arch: 'x64',
      cpus: 2,
      memoryGb: 4,
      uptimeSeconds: 1000,
      logLevel: 'info' as const,
    },
    watchers: [FLEET_WATCHER],
  });
}
