import { WSContext } from 'hono/ws';
import * as v from 'valibot';
import { EDGE_CLOSE } from '../../../shared/edge/protocol';
import type { HibernatableEdgeSocket } from '../hub-deps';
import type { EdgeSession, EdgeSessionOptions } from './edge-session';
import { EdgeSessionRecordSchema } from './edge-session-record';
import type { SignInSlot } from './sign-in-slots';

/** An accepted upgrade, as EdgeSessions' EdgeConnection (not imported: EdgeSessions builds this class). */
interface SocketConnection {
  protocol: string;
  address: string | undefined;
  slot?: SignInSlot | undefined;
}

/** What EdgeSessions lends its socket side: sessions registered with it, and agents linked again. */
export interface SessionAdopter {
  adopt(
    ws: WSContext,
    connection: SocketConnection,
    options: Partial<EdgeSessionOptions>,
    signInTimer: boolean,
  ): EdgeSession | undefined;
  relink(session: EdgeSession, agentName: string, keyId: string, address: string | undefined): boolean;
}

/** A hibernatable socket as the session's WSContext: the session never sees the runtime's type. */
function contextOf(socket: HibernatableEdgeSocket): WSContext {
  return new WSContext({
    send: (data) => socket.send(String(data)),
    close: (code, reason) => socket.close(code ?? 1000, reason ?? ''),
    raw: socket,
    readyState: 1,
  });
}

function socketOptions(socket: HibernatableEdgeSocket): Partial<EdgeSessionOptions> {
  return {
    saveRecord: (record) => socket.saveRecord(record),
    autoAnsweredAt: () => socket.autoAnsweredAt(),
  };
}

/**
 * Edge sessions on sockets a hibernating runtime holds (Workers; docs/workers.md "Edge sockets";
 * issue 16 item 2): the runtime hands each socket event here; a socket the hub has not seen since
 * it started (it woke from hibernation) gets its session rebuilt from the record saved with it.
 */
export class EdgeSocketSessions {
  private readonly bySocket = new WeakMap<HibernatableEdgeSocket, EdgeSession>();

  constructor(private readonly edge: SessionAdopter) {}

  /** The socket of an accepted hibernatable upgrade: its session starts with the challenge. */
  open(socket: HibernatableEdgeSocket, connection: SocketConnection): void {
    const session = this.edge.adopt(contextOf(socket), connection, socketOptions(socket), true);
    if (!session) {
      socket.close(EDGE_CLOSE.goingAway, 'hub shutting down');
      return;
    }
    this.bySocket.set(socket, session);
    session.open();
  }

  /**
   * The socket's session, rebuilt if the hub has not seen it since it started: from the socket's
   * record and the agent's stored description, as the same session it was (a sign-in in progress
   * keeps its challenge). A record that does not validate closes the socket with 1001: the agent
   * reconnects. The runtime calls this for every socket when the object is re-created, so the
   * agents are listed connected before any event.
   */
  resume(socket: HibernatableEdgeSocket): EdgeSession | undefined {
    const known = this.bySocket.get(socket);
    if (known) return known;
    const parsed = v.safeParse(EdgeSessionRecordSchema, socket.loadRecord());
    if (!parsed.success) {
      socket.close(EDGE_CLOSE.goingAway, 'session lost, reconnect');
      return undefined;
    }
    const record = parsed.output;
    const connection = { protocol: record.protocol, address: record.address };
    const session = this.edge.adopt(contextOf(socket), connection, { ...socketOptions(socket), resume: record }, false);
    if (!session) {
      socket.close(EDGE_CLOSE.goingAway, 'hub shutting down');
      return undefined;
    }
    this.bySocket.set(socket, session);
    const { agentName, keyId } = record;
    if (agentName === undefined) return session;
    if (keyId === undefined) {
      session.close(EDGE_CLOSE.goingAway, 'session lost, reconnect');
      return undefined;
    }
    return this.edge.relink(session, agentName, keyId, record.address) ? session : undefined;
  }

  message(socket: HibernatableEdgeSocket, data: unknown): void {
    this.resume(socket)?.message(data);
  }

  closed(socket: HibernatableEdgeSocket, code: number): void {
    this.resume(socket)?.socketClosed(code);
  }
}
