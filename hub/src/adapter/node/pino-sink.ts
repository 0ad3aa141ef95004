import pino from 'pino';
import type { LogSink } from '../../../../shared/logging/logger';

/**
 * Log output on Node: pino JSON lines on stdout, or pino-pretty for humans (imported only then).
 * Levels are already filtered by the hub's logger, so pino passes everything it is given.
 */
export async function createPinoSink(
  format: 'json' | 'pretty',
  destination: pino.DestinationStream = pino.destination(1),
): Promise<LogSink> {
  const stream =
    format === 'pretty'
      ? (await import('pino-pretty')).default({ sync: true, colorize: process.stdout.isTTY ?? false })
      : destination;
  const logger = pino({ level: 'trace', base: null, timestamp: false }, stream);
  return (entry, fields) => {
    logger[entry.level]({ time: entry.timestamp, component: entry.component, ...fields }, entry.msg);
  };
}
