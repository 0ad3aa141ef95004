import pino from 'pino';
import pretty from 'pino-pretty';
import type { LogSink } from '../../../../shared/logging/logger';

/**
 * Log output on Node: pino JSON lines on stdout, or pino-pretty for humans. Levels are already
 * filtered by the hub's logger, so pino passes everything it is given.
 */
export function createPinoSink(
  format: 'json' | 'pretty',
  destination: pino.DestinationStream = pino.destination(1),
): LogSink {
  const stream = format === 'pretty' ? pretty({ sync: true, colorize: process.stdout.isTTY ?? false }) : destination;
  const logger = pino({ level: 'trace', base: null, timestamp: false }, stream);
  return (entry, fields) => {
    logger[entry.level]({ time: entry.timestamp, component: entry.component, ...fields }, entry.msg);
  };
}
