import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import type { DockerContainerDetails, DockerImageDetails } from '../../shared/docker/docker-host';
import { EDGE_PROTOCOL, type EdgeWatcher } from '../../shared/edge/protocol';
import { signInMessage, toBase64Url } from '../../shared/edge/sign-in';

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

// An Ed25519 seed as PKCS #8 DER: this fixed prefix, then the 32 bytes.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const signingKeys = new Map<string, KeyObject>();

/**
 * The agent's signature of a challenge, through node:crypto: the same bytes @noble/ed25519 gives
 * (Ed25519 is deterministic), in 0.05 ms instead of 3. Ten thousand agents share the generator's
 * process and the hub's two cores; real agents each sign on a host of their own, so the
 * generator's signing time would be counted against the hub.
 */
function signedChallenge(agent: FleetAgent, challenge: string): string {
  let key = signingKeys.get(agent.keyId);
  if (!key) {
    const seed = Buffer.from(agent.secretKey, 'hex');
    key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
    signingKeys.set(agent.keyId, key);
  }
  const message = signInMessage(challenge, EDGE_PROTOCOL, agent.keyId, agent.name);
  return toBase64Url(new Uint8Array(sign(null, message, key)));
}

/**
 * The `hello` a simulated agent answers the hub's challenge with, signed with its key, as the real
 * agent sends it: its name, its one watcher, a small host description under `hostname`.
 */
export async function fleetHello(agent: FleetAgent, challenge: string, hostname: string): Promise<string> {
  const signature = signedChallenge(agent, challenge);
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
