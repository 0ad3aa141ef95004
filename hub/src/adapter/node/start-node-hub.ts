import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, upgradeWebSocket } from '@hono/node-server';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { WebSocketServer } from 'ws';
import { createDockerHost } from '../../../../edge-agent/src/docker';
import packageJson from '../../../../package.json' with { type: 'json' };
import { createHubApp, type Hub } from '../../app';
import type { Environment } from '../../config/env-source';
import { type HubConfig, loadHubConfig } from '../../config/hub-config';
import { createLogRing } from '../../logging/log-ring';
import { createLogger, type LogSink } from '../../logging/logger';
import { loadRegistryProvidersFromEnv } from '../../registries/load-registry-providers';
import { createNodeStorage } from './create-node-storage';
import { answerParserErrorsInJson, jsonErrorServerFactory } from './json-http-errors';
import { dropNodeConnection, nodeClientAddress } from './node-connection';
import { createPinoSink } from './pino-sink';
import { createRegistryFetchFactory } from './registry-fetch';

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
}

const readTextFile = (path: string) => readFileSync(path, 'utf8');

/**
 * Builds and starts the hub on Node: configuration (throws ConfigError naming the variable),
 * storage, pino, prom-client process metrics, and an HTTP server with WebSocket upgrades via ws.
 * The listener opens before stored state is loaded, so /health can report 503 meanwhile.
 */
export async function startNodeHub(options: StartNodeHubOptions): Promise<NodeHub> {
  const config = loadHubConfig(options.env, readTextFile);
  const logRing = createLogRing(1000, config.log.bufferEnabled);
  const logger = createLogger({ level: config.log.level, ring: logRing, sink: options.sink ?? createPinoSink(config.log.format) });
  const registries = await loadRegistryProvidersFromEnv(options.env, readTextFile, {
    now: Date.now,
    fetch: (input, init) => fetch(input, init),
  });
  const { storage, close: closeStorage } = await createNodeStorage(config.store);

  const processMetrics = new Registry();
  collectDefaultMetrics({ register: processMetrics });

  const hub = createHubApp({
    config,
    storage,
    logger,
    logRing,
    version: packageJson.version,
    runtime: 'node',
    upgradeWebSocket,
    registries,
    registryFetch: createRegistryFetchFactory(),
    dockerHostFor: (endpoint) => createDockerHost(endpoint),
    runtimeMetrics: () => processMetrics.metrics(),
    // UI event stream: per-address limits (the socket peer, or X-Forwarded-For behind
    // DD_SERVER_TRUSTPROXY hops), and cutting off a client that stopped reading.
    clientAddress: nodeClientAddress(config.server.trustProxy),
    dropConnection: dropNodeConnection,
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  // node-server types `noServer` as required boolean; ws's own options type has it optional.
  const websocketServer = wss as unknown as Parameters<typeof serve>[0] extends { websocket?: { server: infer S } } ? S : never;
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const listening = serve(
      {
        fetch: hub.app.fetch,
        port: config.server.port,
        hostname: config.server.host,
        websocket: { server: websocketServer },
        createServer: jsonErrorServerFactory(hub.app.fetch, config.server.host),
      },
      () => resolve(listening),
    );
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
  logger.info('hub listening', { host: config.server.host, port, storeDriver: config.store.driver });

  return {
    hub,
    config,
    port,
    url: `http://${host}:${port}`,
    async close() {
      await hub.stop();
      for (const client of wss.clients) client.close(1001, 'server shutting down');
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive sockets would hold close() open.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await closeStorage();
    },
  };
}
