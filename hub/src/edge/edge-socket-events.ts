import type { WSContext, WSEvents, WSMessageReceive } from 'hono/ws';
import type { EdgeSession } from './edge-session';

/** What the events ask of EdgeSessions when the socket opens: its session, or none while the hub stops. */
export interface SocketOpener<Connection> {
  opened(ws: WSContext, connection: Connection): EdgeSession | undefined;
}

/**
 * The socket events of one accepted upgrade (EdgeSessions.connect), handed to its session once it
 * exists. A class rather than an object of four closures: there is one per agent's socket, and
 * each closure took its own few hundred bytes (issue 30 item 3). Runtimes call these as methods
 * of the events object (`events.onOpen?.(...)`).
 */
export class EdgeSocketEvents<Connection> implements WSEvents {
  private session: EdgeSession | undefined;

  constructor(
    private readonly opener: SocketOpener<Connection>,
    private readonly connection: Connection,
  ) {}

  onOpen(_event: Event, ws: WSContext): void {
    this.session = this.opener.opened(ws, this.connection);
  }

  onMessage(event: MessageEvent<WSMessageReceive>): void {
    this.session?.message(event.data);
  }

  onClose(event: CloseEvent): void {
    this.session?.socketClosed(event.code ?? 1006);
  }

  onError(): void {
    this.session?.socketClosed(1006);
  }
}
