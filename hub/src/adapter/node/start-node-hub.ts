import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, upgradeWebSocket } from '@hono/node-server';
import type { UpgradeWebSocket } from 'hono/ws';
import { WebSocketServer } from 'ws';
import { createComposeFileEditor } from '../../../../edge-agent/src/compose';
import { createDockerHost, createPodmanHost, createSwarmEngine } from '../../../../edge-agent/src/docker';
import { readSelfContainerId } from '../../../../edge-agent/src/docker/self-container';
import packageJson from '../../../../package.json' with { type: 'json' };
import { ConfigError } from '../../../../shared/config/config-error';
import type { Environment } from '../../../../shared/config/env-source';
import { EDGE_SIGN_IN_MAX_FRAME_BYTES } from '../../../../shared/edge/protocol';
import { errorMessage } from '../../../../shared/error-message';
import { createLogRing } from '../../../../shared/logging/log-ring';
import { createLogger, type LogSink } from '../../../../shared/logging/logger';
import { composeHub, type Hub, type HubInput } from '../../compose-hub';
import { type HubConfig, loadHubConfig } from '../../config/hub-config';
import { type AuthorizedKey, parseAuthorizedKeys } from '../../edge/authorized-keys';
import { selectEdgeSubprotocol } from '../../edge/edge-endpoint';
import { loadRegistryProvidersFromEnv } from '../../registries/load-registry-providers';
import { createNodeStorage } from './create-node-storage';
import { createNodeEd25519Verify } from './ed25519-verify';
import { createNodeHookRunner } from './hook-runner';
import { createHttpDrain } from './http-drain';
import { answerParserErrorsInJson, jsonErrorServerFactory } from './json-http-errors';
import { loadUiBundle } from './load-ui-bundle';
import { nodeCompression } from './node-compression';
import { blameConfigFile, loadNodeConfiguration } from './node-config-file';
import { dropNodeConnection, nodeClientAddress } from './node-connection';
import { nodeSourceFiles } from './node-source-files';
import { nodeNotificationProviders } from './notifications/node-notification-providers';
import { createPinoSink } from './pino-sink';
import { processMetricsOnDemand } from './process-metrics';
import { createRegistryFetchFactory } from './registry-fetch';
import { nodeScannerProcessFor } from './scanner-process';
import { SELF_UPDATE_HELPER_ARGUMENT } from './self-update-helper';
import { startupLine } from './startup-line';
import { releaseUpgradeContext } from './upgrade-context-release';
import { createUpgradePacer, pacedUpgrades, UPGRADE_SLICE_MS } from './upgrade-pacer';
import { answerRefusedUpgrades } from './upgrade-refusal-bodies';
import { setWsFrameLimit } from './ws-frame-limit';
import { pauseWsReading } from './ws-read-pause';

export interface NodeHub {
  hub: Hub;
  config: HubConfig;
  port: number;
  /** http://host:port of the listener. */
  url: string;
  close(): Promise<void>;
}

export interface StartNodeHubOptions {
  env: Environment;
  /** Where log lines go; pino on stdout by default. */
  sink?: LogSink;
  /** Test seams of the portable core (shorter edge heartbeats and deadlines, an inventory deadline, fast notification retries). */
  deps?: Pick<
    Partial<HubInput>,
    | 'edge'
    | 'inventoryDeadlineMs'
    | 'now'
    | 'wakeUp'
    | 'updates'
    | 'hookRunner'
    | 'selfContainerId'
    | 'selfUpdateHelper'
    | 'ui'
    | 'notificationTiming'
    | 'security'
    | 'signInWait'
  >;
}

const readTextFile = (path: string) => readFileSync(path, 'utf8');

/**
 * How long a shutdown waits for each part (docs/operations.md "Shutdown"), inside the entry's 10 s:
 * requests in flight and running updates side by side, then the WebSocket clients' close handshakes.
 */
export const SHUTDOWN_LIMITS = {
  requestsMs: 5_000,
  /** Running updates go on unsignalled for this long, then roll back at their next phase boundary... */
  updateGraceMs: 4_000,
  /** ...for at most this long; what still runs is left as journalled, for recovery at the next start. */
  updateSignalledMs: 2_000,
  socketsMs: 1_000,
} as const;

/** Every remaining WebSocket client (log streams, UI sockets) gets 1001; those that do not answer the close are cut. */
async function closeWebSocketClients(wss: WebSocketServer, ms: number): Promise<void> {
  const clients = [...wss.clients];
  if (clients.length === 0) return;
  const closed = Promise.all(clients.map((client) => new Promise((resolve) => client.once('close', resolve))));
  for (const client of clients) client.close(1001, 'server shutting down');
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
  for (const client of wss.clients) client.terminate();
}

/** DD_EDGE_AUTHORIZED_KEYS names a file: read and parsed here, so a bad file stops start-up (exit 78). */
function readAuthorizedKeys(config: HubConfig): AuthorizedKey[] | undefined {
  const path = config.edge.authorizedKeysFile;
  if (path === undefined || !config.edge.enabled) return undefined;
  let content: string;
  try {
    content = readTextFile(path);
  } catch (error) {
    throw new ConfigError('DD_EDGE_AUTHORIZED_KEYS', `cannot read ${path}: ${errorMessage(error)}`);
  }
  try {
    return parseAuthorizedKeys(content);
  } catch (error) {
    throw new ConfigError('DD_EDGE_AUTHORIZED_KEYS', `${path}: ${errorMessage(error)}`);
  }
}

/**
 * ws's subprotocol choice: the edge endpoint answers with the edge version the route selected
 * (the same function), every other stream with the first offered, as ws does by default.
 */
function handleProtocols(protocols: Set<string>, request: { url?: string | undefined }): string | false {
  if (request.url?.split('?')[0]?.endsWith('/api/v1/edge/ws')) return selectEdgeSubprotocol(protocols) ?? false;
  return protocols.values().next().value ?? false;
}

/**
 * Builds and starts the hub on Node: configuration (throws ConfigError naming the variable),
 * storage, pino, prom-client process metrics (from the first scrape), and an HTTP server with
 * WebSocket upgrades via ws.
 * The listener opens before stored state is loaded, so /health can report 503 meanwhile.
 */
export async function startNodeHub(options: StartNodeHubOptions): Promise<NodeHub> {
  // DD_CONFIG_FILE's variables under the environment's; an error of a variable the file set names the file.
  const configuration = loadNodeConfiguration(options.env, readTextFile);
  const blamed = <T>(read: () => T): T => {
    try {
      return read();
    } catch (error) {
      throw blameConfigFile(error, configuration.source);
    }
  };
  const config = blamed(() => loadHubConfig(configuration.env, readTextFile));
  const authorizedKeys = readAuthorizedKeys(config);
  // DD_SECURITY_SCANNER=trivy|grype: the binary must be there now, not at the first scan.
  const scannerProcess = blamed(() => nodeScannerProcessFor(config.security, configuration.env));
  const logRing = createLogRing(1000, config.log.bufferEnabled);
  const logger = createLogger({
    level: config.log.level,
    ring: logRing,
    sink: options.sink ?? (await createPinoSink(config.log.format)),
  });
  const registries = await loadRegistryProvidersFromEnv(configuration.env, readTextFile, {
    now: Date.now,
    fetch: (input, init) => fetch(input, init),
  }).catch((error: unknown) => {
    throw blameConfigFile(error, configuration.source);
  });
  const { storage, close: closeStorage } = await createNodeStorage(config.store);
  // Read here rather than taken from deps: only a hub really in a container has an image to run the helper from.
  const selfContainerId = readSelfContainerId();
  // The web UI: built by scripts/build-ui.mjs; without it the page says how to build it.
  const ui = options.deps?.ui ?? loadUiBundle();
  if ('unavailable' in ui) logger.warn('web UI not available', { reason: ui.unavailable });

  // Lets refused upgrades carry their JSON error body; the hub's routes upgrade through it. The
  // hub is only called once requests arrive, after it exists.
  const upgrades = answerRefusedUpgrades(
    (request, env) => hub.app.fetch(request, env),
    // An open socket keeps only what node-server reads of its upgrade, not the whole Context.
    releaseUpgradeContext(upgradeWebSocket as UpgradeWebSocket<unknown>),
  );
  // A burst of WebSocket upgrades (a fleet dialling at once) reaches the hub a slice a loop turn.
  const upgradePacer = createUpgradePacer({
    budgetMs: UPGRADE_SLICE_MS,
    now: () => performance.now(),
    nextTurn: (work) => setImmediate(work),
  });
  const hub = blamed(() =>
    composeHub({
      config,
      storage,
      logger,
      logRing,
      version: packageJson.version,
      runtime: 'node',
      upgradeWebSocket: upgrades.upgradeWebSocket,
      // Edge sockets start at the pre-sign-in frame cap (below) and are raised at the welcome.
      setWebSocketFrameLimit: setWsFrameLimit,
      // Edge sign-ins verified by OpenSSL: noble in JS held the event loop through a large fleet's sign-in.
      verifyEd25519: createNodeEd25519Verify(),
      nextTurn: (work) => setImmediate(work),
      pauseWebSocketReading: pauseWsReading,
      registries,
      registryFetch: createRegistryFetchFactory(),
      dockerHostFor: (endpoint) => createDockerHost(endpoint),
      // DD_WATCHER_<NAME>_TYPE=podman: a Podman service's Docker-compatible socket.
      podmanHostFor: (endpoint) => createPodmanHost(endpoint),
      // DD_WATCHER_<NAME>_TYPE=swarm: a Swarm manager's services.
      swarmEngineFor: createSwarmEngine,
      // DD_WATCHER_<NAME>_TYPE=file|dockerfile: image lists, Dockerfiles and compose files on this machine.
      sourceFilesFor: nodeSourceFiles,
      runtimeMetrics: processMetricsOnDemand(),
      // UI event stream: per-address limits (the socket peer, or X-Forwarded-For behind
      // DD_SERVER_TRUSTPROXY hops), and cutting off a client that stopped reading.
      clientAddress: nodeClientAddress(config.server.trustProxy),
      dropConnection: dropNodeConnection,
      // smtp and mqtt need Node sockets, so they come from here rather than from the portable core.
      notificationProviders: nodeNotificationProviders,
      // dd.hook.pre / dd.hook.post run as shell commands on this host (only with DD_HOOKS_ENABLED=true).
      hookRunner: createNodeHookRunner(),
      // The hub's own container is updated through a helper container run from this same bundle (docs/updates.md "Self-update").
      selfContainerId,
      ...(selfContainerId !== undefined &&
        process.argv[1] !== undefined && {
          selfUpdateHelper: [process.execPath, process.argv[1], SELF_UPDATE_HELPER_ARGUMENT],
        }),
      // An updated compose service's file names the new image afterwards (docs/updates.md "Compose files").
      composeFiles: createComposeFileEditor(),
      // Brotli as well as gzip: CompressionStream has no brotli on Node 20.
      responseCompression: nodeCompression,
      ui,
      configuration: configuration.source,
      ...options.deps,
      edge: { ...options.deps?.edge, authorizedKeys },
      // DD_SECURITY_OSV_FILE: the OSV export is read from this host's files; trivy and grype run as its processes.
      security: {
        readFile: async (path) => new Uint8Array(await readFile(path)),
        ...(scannerProcess && { scannerProcess }),
        ...options.deps?.security,
      },
    }),
  );

  // Every socket starts at the edge protocol's pre-sign-in cap of 32 KiB: ws refuses a larger frame
  // from its announced length (1009), before buffering it, so strangers cannot fill the hub's
  // memory. A signed-in agent's socket is raised to 4 MiB (ws-frame-limit.ts). The UI streams
  // receive nothing of substance, so the small cap costs them nothing.
  const wss = new WebSocketServer({ noServer: true, maxPayload: EDGE_SIGN_IN_MAX_FRAME_BYTES, handleProtocols });
  // node-server types `noServer` as required boolean; ws's own options type has it optional.
  const websocketServer = wss as unknown as Parameters<typeof serve>[0] extends { websocket?: { server: infer S } }
    ? S
    : never;
  const requests = createHttpDrain();
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const listening = serve(
      {
        fetch: pacedUpgrades(upgradePacer, upgrades.fetch),
        port: config.server.port,
        hostname: config.server.host,
        websocket: { server: websocketServer },
        createServer: jsonErrorServerFactory(hub.app.fetch, config.server.host, requests.listener),
      },
      () => resolve(listening),
    );
    upgrades.attach(listening as Server);
    listening.once('error', reject);
  });
  answerParserErrorsInJson(server as Server);
  const port = (server.address() as AddressInfo).port;
  const host = config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host;

  try {
    await hub.start();
  } catch (error) {
    server.close();
    await closeStorage();
    throw error;
  }
  // The one start-up line (docs/operations.md "Start-up line"); warnings stay lines of their own.
  logger.info(
    'hub listening',
    startupLine(config, {
      host: config.server.host,
      port,
      version: packageJson.version,
      nodeVersion: process.version,
    }),
  );

  return {
    hub,
    config,
    port,
    url: `http://${host}:${port}`,
    async close() {
      // Nothing new is accepted; answers in flight and running updates get their time side by side.
      await Promise.all([
        requests.drain(server as Server, SHUTDOWN_LIMITS.requestsMs),
        hub.drain({ graceMs: SHUTDOWN_LIMITS.updateGraceMs, signalledMs: SHUTDOWN_LIMITS.updateSignalledMs }),
      ]);
      // Edge agents are told 1001 here (the agent directory), then the other sockets.
      await hub.stop();
      await closeWebSocketClients(wss, SHUTDOWN_LIMITS.socketsMs);
      (server as Server).closeAllConnections();
      // Pending writes done (fs), the connection closed (redis).
      await closeStorage();
    },
  };
}
