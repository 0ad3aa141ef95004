import { bearerOf, type FixtureServer, startFixtureServer } from './fixture-server';

/**
 * A Matrix homeserver's `PUT /_matrix/client/v3/rooms/{roomId}/send/{eventType}/{txnId}`
 * (Client-Server API): `Authorization: Bearer <access token>`; answers `{event_id}`, the same one
 * again for a repeated transaction id. Errors are `{errcode, error}`: 401 `M_MISSING_TOKEN` or
 * `M_UNKNOWN_TOKEN`, 403 `M_FORBIDDEN` (not joined to the room), 400 `M_BAD_JSON`.
 */
export function startMatrixServer(accessToken: string, joinedRooms: string[]): Promise<FixtureServer> {
  const events = new Map<string, string>();
  return startFixtureServer((request) => {
    const match = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/send\/([^/]+)\/([^/]+)$/.exec(request.path);
    if (request.method !== 'PUT' || !match)
      return { status: 404, body: { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' } };
    const token = bearerOf(request);
    if (token === undefined)
      return { status: 401, body: { errcode: 'M_MISSING_TOKEN', error: 'Missing access token' } };
    if (token !== accessToken)
      return { status: 401, body: { errcode: 'M_UNKNOWN_TOKEN', error: 'Unknown access token', soft_logout: false } };
    const roomId = decodeURIComponent(match[1] as string);
    if (!joinedRooms.includes(roomId))
      return { status: 403, body: { errcode: 'M_FORBIDDEN', error: `User @bot:example.org not in room ${roomId}` } };
    const content = request.json as { msgtype?: unknown; body?: unknown } | undefined;
    if (typeof content?.msgtype !== 'string' || typeof content.body !== 'string') {
      return { status: 400, body: { errcode: 'M_BAD_JSON', error: 'Content must have msgtype and body' } };
    }
    const txn = `${token}/${match[3]}`;
    const eventId = events.get(txn) ?? `$event${events.size + 1}`;
    events.set(txn, eventId);
    return { status: 200, body: { event_id: eventId } };
  });
}
