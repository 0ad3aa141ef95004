import packageJson from '../../../../package.json' with { type: 'json' };
import { ConfigError } from '../../../../shared/config/config-error';
import { createLogRing } from '../../../../shared/logging/log-ring';
import { consoleJsonSink, createLogger } from '../../../../shared/logging/logger';
import { EDGE_AUTO_HEARTBEAT } from '../../edge/edge-session-record';
import { DEFAULT_EDGE_TIMINGS } from '../../edge/edge-sessions';
import { EdgeGateway } from '../../edge/gateway/edge-gateway';
import { createGatewayApp } from '../../edge/gateway/gateway-endpoint';
import { GATEWAY_NAME_HEADER } from '../../edge/gateway/gateway-messages';
import { errorBody } from '../../http/http-error';
import type { DurableObjectNamespaceLike } from './durable-object-namespace';
import { hubPort } from './gateway-ports';
import {
  EDGE_SOCKET_TAG,
  type HibernatableEdgeSockets,
  hibernatableEdgeSockets,
  type WebSocketHibernationState,
} from './hibernatable-edge-sockets';
import { loadWorkerConfig } from './worker-config';

/** The part of a Durable Object's state a gateway uses. */
export interface EdgeGatewayObjectState extends WebSocketHibernationState {
  storage: {
    get(key: string): Promise<unknown>;
    put(key: string, value: unknown): Promise<void>;
    getAlarm(): Promise<number | null>;
    setAlarm(scheduledTime: number): Promise<void>;
  };
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
  setWebSocketAutoResponse(pair: unknown): void;
}

/** workerd's request/response pair for setWebSocketAutoResponse. */
declare const WebSocketRequestResponsePair: new (request: string, response: string) => unknown;

const NAME_KEY = 'gateway-name';

/**
 * An edge gateway object (docs/workers.md "Edge gateways"; issue 16 item 4): the Worker sends each
 * agent's upgrade to the gateway of its name's shard; the gateway holds the socket on the
 * hibernation API, runs the session, and forwards the hub only what it needs. Its alarm checks the
 * sockets' silence while any are open.
 */
export class EdgeGatewayObject {
  private readonly sockets: HibernatableEdgeSockets;
  private gateway: EdgeGateway | undefined;
  private app: ReturnType<typeof createGatewayApp> | undefined;
  private configError: string | undefined;
  /** Told by the Worker with the first upgrade, and kept: the hub addresses this gateway by it. */
  private name: string | undefined;

  constructor(
    private readonly state: EdgeGatewayObjectState,
    env: Readonly<Record<string, unknown>>,
  ) {
    this.sockets = hibernatableEdgeSockets(state);
    state.setWebSocketAutoResponse(
      new WebSocketRequestResponsePair(EDGE_AUTO_HEARTBEAT.request, EDGE_AUTO_HEARTBEAT.response),
    );
    let loaded: ReturnType<typeof loadWorkerConfig>;
    try {
      loaded = loadWorkerConfig(env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.configError = `configuration error: ${error.message}`;
      return;
    }
    const { config } = loaded;
    const logger = createLogger({
      level: config.log.level,
      ring: createLogRing(1, false),
      sink: consoleJsonSink,
    });
    const gateway = new EdgeGateway({
      name: () => this.name ?? 'edge-gateway-unnamed',
      hub: hubPort(env.HUB as DurableObjectNamespaceLike),
      logger,
      now: Date.now,
      version: packageJson.version,
      timings: DEFAULT_EDGE_TIMINGS,
      signInLimits: config.edge.signInLimits,
    });
    this.gateway = gateway;
    this.app = createGatewayApp({
      gateway,
      hibernatable: this.sockets,
      config,
      clientAddress: (c) => c.req.header('cf-connecting-ip') ?? undefined,
      now: Date.now,
    });
    void state.blockConcurrencyWhile(async () => {
      const stored = await state.storage.get(NAME_KEY);
      if (typeof stored === 'string') this.name = stored;
      // Woken with sockets open: their sessions come back before any event is delivered.
      for (const socket of this.sockets.all()) gateway.sockets.resume(socket);
    });
  }

  async fetch(request: Request): Promise<Response> {
    if (!this.app) return Response.json(errorBody(500, this.configError), { status: 500 });
    const named = request.headers.get(GATEWAY_NAME_HEADER);
    if (named !== null && named !== this.name) {
      this.name = named;
      await this.state.storage.put(NAME_KEY, named);
    }
    const response = await this.app.fetch(request);
    if (response.status === 101) await this.armLiveness();
    return response;
  }

  /** Sign-in deadlines and silence, every silence limit while sockets are open (the runtime answers pings). */
  async alarm(): Promise<void> {
    await this.gateway?.sweep();
    // This alarm is spent: the next one is set whatever getAlarm says while it runs.
    await this.armLiveness(true);
  }

  async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const gateway = this.gateway;
    if (!gateway) {
      this.sockets.socketOf(ws).close(1011, 'gateway not available');
      return;
    }
    gateway.sockets.message(this.sockets.socketOf(ws), message);
    await gateway.settled();
  }

  async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    this.gateway?.sockets.closed(this.sockets.socketOf(ws), code);
    this.sockets.socketOf(ws).close(1000, '');
    await this.gateway?.settled();
  }

  async webSocketError(ws: WebSocket): Promise<void> {
    this.gateway?.sockets.closed(this.sockets.socketOf(ws), 1006);
    await this.gateway?.settled();
  }

  private async armLiveness(fromAlarm = false): Promise<void> {
    if (this.state.getWebSockets(EDGE_SOCKET_TAG).length === 0) return;
    if (!fromAlarm && (await this.state.storage.getAlarm()) !== null) return;
    await this.state.storage.setAlarm(Date.now() + DEFAULT_EDGE_TIMINGS.silenceLimitMs);
  }
}
