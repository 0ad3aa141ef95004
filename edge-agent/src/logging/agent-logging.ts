import pino from 'pino';
import { createLogRing, type LogRing } from '../../../shared/logging/log-ring';
import { createLogger, type Logger, type LogSink } from '../../../shared/logging/logger';
import type { LogLevel } from '../../../shared/schemas/log-entry';

/** The capacity of the ring behind `log.entries` (http-interface §4.6: the last 1,000 entries). */
export const LOG_RING_CAPACITY = 1000;

/** pino JSON lines, synchronous so nothing is lost at exit; levels are filtered by the logger. */
export function createPinoJsonSink(
  destination: pino.DestinationStream = pino.destination({ dest: 1, sync: true }),
): LogSink {
  const logger = pino({ level: 'trace', base: null, timestamp: false }, destination);
  return (entry, fields) =>
    logger[entry.level]({ time: entry.timestamp, component: entry.component, ...fields }, entry.msg);
}

/** The agent's logger (the same as the hub's, component `edge-agent`) and the ring it fills. */
export function createAgentLogging(
  level: LogLevel,
  sink: LogSink = createPinoJsonSink(),
): { logger: Logger; ring: LogRing } {
  const ring = createLogRing(LOG_RING_CAPACITY);
  return { logger: createLogger({ level, ring, sink, component: 'edge-agent' }), ring };
}
