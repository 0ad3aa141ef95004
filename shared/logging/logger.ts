import { isSensitiveKey, REDACTED } from '../redact';
import { type LogEntry, type LogLevel, logLevelRank } from '../schemas/log-entry';
import type { LogRing } from './log-ring';

export type LogFields = Record<string, unknown>;

export interface Logger {
  readonly level: LogLevel;
  readonly component: string;
  child(component: string): Logger;
  isLevelEnabled(level: LogLevel): boolean;
  trace(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  fatal(msg: string, fields?: LogFields): void;
}

/** Where a runtime writes log lines (pino on Node, console on Workers). */
export type LogSink = (entry: LogEntry, fields: LogFields | undefined) => void;

export interface LoggerOptions {
  level: LogLevel;
  ring: LogRing;
  sink: LogSink;
  now?: () => number;
  component?: string;
}

/** Sensitive field values never reach a sink, whatever a caller passes (defence in depth). */
function redactFields(fields: LogFields | undefined): LogFields | undefined {
  if (!fields) return undefined;
  let out: LogFields | undefined;
  for (const key of Object.keys(fields)) {
    if (isSensitiveKey(key)) {
      out ??= { ...fields };
      out[key] = REDACTED;
    }
  }
  return out ?? fields;
}

/**
 * The logger of the hub and the edge agent: every line goes to the runtime's sink and into the ring that backs
 * /api/v1/log/entries and the live log stream, with the component it came from.
 */
export function createLogger(options: LoggerOptions): Logger {
  const now = options.now ?? Date.now;
  const threshold = logLevelRank(options.level);
  const make = (component: string): Logger => {
    const emit = (level: LogLevel) => (msg: string, fields?: LogFields) => {
      if (logLevelRank(level) < threshold) return;
      const entry: LogEntry = { timestamp: now(), level, component, msg };
      options.sink(entry, redactFields(fields));
      options.ring.push(entry);
    };
    return {
      level: options.level,
      component,
      child: (name) => make(name),
      isLevelEnabled: (level) => logLevelRank(level) >= threshold,
      trace: emit('trace'),
      debug: emit('debug'),
      info: emit('info'),
      warn: emit('warn'),
      error: emit('error'),
      fatal: emit('fatal'),
    };
  };
  return make(options.component ?? 'hub');
}

/** A sink for runtimes without pino: one JSON line per entry on the console. */
export const consoleJsonSink: LogSink = (entry, fields) => {
  const line = JSON.stringify({ ...fields, ...entry, time: entry.timestamp });
  if (logLevelRank(entry.level) >= logLevelRank('error')) console.error(line);
  else console.log(line);
};

/** Discards output; for tests that only read the ring. */
export const silentSink: LogSink = () => {};
