import packageJson from '../../../../package.json' with { type: 'json' };
import { ConfigError } from '../../../../shared/config/config-error';
import { errorMessage } from '../../../../shared/error-message';
import { createLogRing } from '../../../../shared/logging/log-ring';
import { consoleJsonSink, createLogger } from '../../../../shared/logging/logger';
import { composeHub, type Hub, type HubOptions } from '../../compose-hub';
import { EDGE_AUTO_HEARTBEAT } from '../../edge/edge-session-record';
import { GATEWAY_PATH_PREFIX } from '../../edge/gateway/gateway-messages';
import { answerGatewayRequest } from '../../edge/gateway/gateway-requests';
import { errorBody } from '../../http/http-error';
import { platformCompression } from '../../http/response-compression';
import type { EdgeGatewayPort } from '../../hub-deps';
import { loadRegistryProvidersFromEnv } from '../../registries/load-registry-providers';
import { alarmWakeUp, type DurableObjectAlarmStorage } from './alarm-wake-up';
import { builtInUi } from './built-in-ui';
import { createDurableObjectStorage, type DurableObjectStorageLike } from './durable-object-driver';
import { gatewayPortOf } from './gateway-ports';
import {
  type HibernatableEdgeSockets,
  hibernatableEdgeSockets,
  type WebSocketHibernationState,
} from './hibernatable-edge-sockets';
import { upgradeWebSocket } from './upgrade-websocket';
import { loadWorkerConfig, readTextFile, refuseUnintendedAnonymousMode, type WorkerConfig } from './worker-config';

/** The part of a Durable Object's state the hub uses. */
export interface HubDurableObjectState extends WebSocketHibernationState {
  storage: DurableObjectStorageLike & DurableObjectAlarmStorage;
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
  setWebSocketAutoResponse(pair: unknown): void;
}

/** workerd's request/response pair for setWebSocketAutoResponse. */
declare const WebSocketRequestResponsePair: new (request: string, response: string) => unknown;

/**
 * The one Durable Object that hosts the hub on Workers: the portable app over Durable Object
 * storage. A bad configuration answers every request with a 500 naming the variable, since a
 * Durable Object has no start-up to abort. A variable that only Workers cannot honour (smtp, a
 * Docker socket, a file) is different: the hub runs without it, and says so in its log and in
 * GET /api/v1/server, so one Node-only trigger does not take the fleet's monitoring down.
 */
export class HubDurableObject {
  private hub: Hub | undefined;
  private configError: string | undefined;
  /** The scheduler's due-job runner, called by alarm(). */
  private runDueJobs: (() => Promise<void>) | undefined;
  private readonly edgeSockets: HibernatableEdgeSockets;

  constructor(state: HubDurableObjectState, env: Readonly<Record<string, unknown>>) {
    this.edgeSockets = hibernatableEdgeSockets(state);
    // The agents' pings are answered by the runtime, without waking the object (docs/workers.md "Edge sockets").
    state.setWebSocketAutoResponse(
      new WebSocketRequestResponsePair(EDGE_AUTO_HEARTBEAT.request, EDGE_AUTO_HEARTBEAT.response),
    );
    let loaded: WorkerConfig;
    try {
      loaded = loadWorkerConfig(env);
      refuseUnintendedAnonymousMode(loaded.config);
    } catch (error) {
      this.refuse(error);
      return;
    }
    const { config, variables, refused } = loaded;
    const logRing = createLogRing(1000, config.log.bufferEnabled);
    const logger = createLogger({ level: config.log.level, ring: logRing, sink: consoleJsonSink });
    for (const { variable, reason } of refused) {
      // The log buffer keeps the message alone, so the message names the variable and the runtime.
      logger.error(`${variable}: not available on the workers runtime, the hub runs without it: ${reason}`, {
        variable,
        runtime: 'workers',
      });
    }
    const storage = createDurableObjectStorage(state.storage);
    let gateways: EdgeGatewayPort | undefined;
    try {
      gateways = gatewayPortOf(env, config.edge.gatewayShards, logger);
    } catch (error) {
      this.refuse(error);
      return;
    }
    // Requests wait until the providers are loaded and stored state is read. A start failure is not
    // rethrown: that would reset the object and fail every request without a body, whereas /health
    // reports the failed gate.
    void state.blockConcurrencyWhile(async () => {
      try {
        const registries = await loadRegistryProvidersFromEnv(variables, readTextFile, {
          now: Date.now,
          fetch: (input, init) => fetch(input, init),
        });
        this.hub = composeHub({
          config,
          storage,
          logger,
          logRing,
          version: packageJson.version,
          runtime: 'workers',
          storageDriver: 'durable-object',
          refusedVariables: refused,
          // Cloudflare compresses on the way out (Miniflare too): compressing here would double the CPU.
          responseCompression: platformCompression,
          upgradeWebSocket,
          edgeSockets: this.edgeSockets,
          edgeGateways: gateways,
          registries,
          // Read and validate only: a Worker's variables change with a deploy (docs/configuration-file.md).
          configuration: { env: variables, readTextFile },
          // Cloudflare names the client; without it every caller would share one rate-limit bucket.
          clientAddress: (c) => c.req.header('cf-connecting-ip') ?? undefined,
          ui: builtInUi,
          wakeUp: alarmWakeUp(state.storage, (fire) => {
            this.runDueJobs = fire;
          }),
          ...this.tuning(),
        });
      } catch (error) {
        this.refuse(error);
        return;
      }
      const hub = this.hub;
      await hub.start().catch((error: unknown) => logger.error('hub failed to start', { error: errorMessage(error) }));
      // Woken from hibernation (or re-created) with agents' sockets still open: their sessions come
      // back before any event is delivered, so the agents are listed connected and their frames served.
      for (const socket of this.edgeSockets.all()) hub.parts.edge?.sockets.resume(socket);
    });
  }

  /**
   * Tuning the hub is composed with besides its configuration (the documented values when absent,
   * as here). Only a test's subclass (test/support/workers-*-entry.ts) gives any: shorter retries.
   * Called from the constructor, so an override returns constants.
   */
  protected tuning(): Pick<HubOptions, 'notificationTiming'> {
    return {};
  }

  /** A bad configuration answers every request with a 500 naming the variable: a Durable Object has no start-up to abort. */
  private refuse(error: unknown): void {
    if (!(error instanceof ConfigError)) throw error;
    this.configError = `configuration error: ${error.message}`;
    console.error(`hub: ${this.configError}`);
  }

  /**
   * The one alarm of the object (docs/workers.md "Schedules"): it runs the due jobs and the scheduler
   * sets the next one. It also fires after an eviction or a restart of workerd, re-creating the
   * object without any request. Never throws: the runtime would retry it, and the jobs' failures are
   * logged where they happen.
   */
  async alarm(): Promise<void> {
    await this.runDueJobs?.();
  }

  /** A frame on a hibernatable edge socket (the runtime answered the plain pings itself). */
  webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    const edge = this.hub?.parts.edge;
    if (edge) edge.sockets.message(this.edgeSockets.socketOf(ws), message);
    else this.edgeSockets.socketOf(ws).close(1011, 'hub not available');
  }

  webSocketClose(ws: WebSocket, code: number): void {
    this.hub?.parts.edge?.sockets.closed(this.edgeSockets.socketOf(ws), code);
    // The closing handshake completes when this side closes too.
    this.edgeSockets.socketOf(ws).close(1000, '');
  }

  webSocketError(ws: WebSocket): void {
    this.hub?.parts.edge?.sockets.closed(this.edgeSockets.socketOf(ws), 1006);
  }

  fetch(request: Request): Response | Promise<Response> {
    // Only the deployment's gateways reach these paths: the Worker refuses them from outside.
    if (this.hub && new URL(request.url).pathname.startsWith(GATEWAY_PATH_PREFIX))
      return answerGatewayRequest(this.hub.parts.edge?.gateways, request);
    if (this.hub) return this.hub.app.fetch(request);
    return Response.json(errorBody(500, this.configError), {
      status: 500,
      headers: { 'x-request-id': crypto.randomUUID() },
    });
  }
}
