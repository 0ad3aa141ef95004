import * as v from 'valibot';
import { type LogRing, matchesLogQuery } from '../../../shared/logging/log-ring';
import type { Logger } from '../../../shared/logging/logger';
import { LOG_LEVELS, LogEntrySchema } from '../../../shared/schemas/log-entry';
import { qEnum, qInt, qText } from '../http/query-params';
import type { RouteGroup } from '../http/route-group';
import type { WebSocketGate } from '../http/websocket-upgrade';

const RING_SIZE = 1000;
const componentParam = qText({
  maxLength: 100,
  pattern: /^[A-Za-z0-9._:/-]+$/,
  patternText: 'may hold only letters, digits and . _ : / -',
  description: 'Substring of the component name',
});
const levelParam = qEnum(LOG_LEVELS, { description: 'Minimum level' });
const tailParam = qInt({ min: 0, max: RING_SIZE, default: 100, description: 'Most recent entries to return' });

/** The hub's own log: its level, the buffered entries, and the WebSocket gate of the live stream. */
export interface LogRoutesDeps {
  webSockets: WebSocketGate;
  logRing: LogRing;
  logger: Pick<Logger, 'level'>;
}

export function registerLogRoutes(api: RouteGroup, deps: LogRoutesDeps): void {
  const { logRing } = deps;

  api.add(
    {
      method: 'get',
      path: '/log',
      access: 'read',
      tag: 'logs',
      summary: 'Current logger level',
      response: v.object({ level: v.picklist(LOG_LEVELS) }),
    },
    (c) => c.json({ level: deps.logger.level }),
  );

  api.add(
    {
      method: 'get',
      path: '/log/entries',
      access: 'read',
      tag: 'logs',
      summary: 'Buffered application log entries, oldest first',
      query: {
        level: levelParam,
        component: componentParam,
        tail: tailParam,
        since: qInt({ min: 0, max: Number.MAX_SAFE_INTEGER, description: 'Unix milliseconds; only later entries' }),
      },
      response: v.array(LogEntrySchema),
      statuses: { 400: 'Invalid level, component, tail or since' },
    },
    (c, { query }) => c.json(logRing.enabled ? logRing.query(query) : []),
  );

  api.add(
    {
      method: 'get',
      path: '/log/components',
      access: 'read',
      tag: 'logs',
      summary: 'Sorted unique component names',
      response: v.array(v.string()),
    },
    (c) => c.json(logRing.enabled ? logRing.components() : []),
  );

  api.add(
    {
      method: 'get',
      path: '/log/stream',
      access: 'session',
      tag: 'logs',
      websocket: true,
      summary: 'WebSocket: filtered backfill from the buffer, then live entries, one JSON entry per frame',
      query: { level: levelParam, component: componentParam, tail: tailParam },
      statuses: { 400: 'Invalid query', 403: 'Origin does not match the server', 426: 'Not a WebSocket upgrade' },
    },
    (c, { query }) => {
      const upgrade = deps.webSockets.accept(c);
      const live = { level: query.level, component: query.component };
      let unsubscribe: (() => void) | undefined;
      return upgrade(c, {
        onOpen(_event, ws) {
          const backfill = logRing.enabled ? logRing.query({ ...live, tail: query.tail }) : [];
          for (const entry of backfill) ws.send(JSON.stringify(entry));
          unsubscribe = logRing.subscribe((entry) => {
            if (matchesLogQuery(entry, live)) ws.send(JSON.stringify(entry));
          });
        },
        onClose: () => unsubscribe?.(),
        onError: () => unsubscribe?.(),
      });
    },
  );
}
