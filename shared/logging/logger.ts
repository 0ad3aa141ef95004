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

/** What every logger of one createLogger shares. */
interface LoggerCore {
  level: LogLevel;
  threshold: number;
  now: () => number;
  sink: LogSink;
  ring: LogRing;
}

/**
 * One component's logger. Methods on a class rather than closures in an object: the hub makes a
 * child per watcher, 10,000 of them for an edge fleet, and each closure cost its own memory
 * (issue 30 item 3). Callers always call them on the logger (`logger.warn(...)`), never detached.
 */
class ComponentLogger implements Logger {
  constructor(
    readonly component: string,
    private readonly core: LoggerCore,
  ) {}

  get level(): LogLevel {
    return this.core.level;
  }

  child(component: string): Logger {
    return new ComponentLogger(component, this.core);
  }

  isLevelEnabled(level: LogLevel): boolean {
    return logLevelRank(level) >= this.core.threshold;
  }

  trace(msg: string, fields?: LogFields): void {
    this.emit('trace', msg, fields);
  }

  debug(msg: string, fields?: LogFields): void {
    this.emit('debug', msg, fields);
  }

  info(msg: string, fields?: LogFields): void {
    this.emit('info', msg, fields);
  }

  warn(msg: string, fields?: LogFields): void {
    this.emit('warn', msg, fields);
  }

  error(msg: string, fields?: LogFields): void {
    this.emit('error', msg, fields);
  }

  fatal(msg: string, fields?: LogFields): void {
    this.emit('fatal', msg, fields);
  }

  private emit(level: LogLevel, msg: string, fields: LogFields | undefined): void {
    const { core } = this;
    if (logLevelRank(level) < core.threshold) return;
    const entry: LogEntry = { timestamp: core.now(), level, component: this.component, msg };
    core.sink(entry, redactFields(fields));
    core.ring.push(entry);
  }
}

/**
 * The logger of the hub and the edge agent: every line goes to the runtime's sink and into the ring that backs
 * /api/v1/log/entries and the live log stream, with the component it came from.
 */
export function createLogger(options: LoggerOptions): Logger {
  const core: LoggerCore = {
    level: options.level,
    threshold: logLevelRank(options.level),
    now: options.now ?? Date.now,
    sink: options.sink,
    ring: options.ring,
  };
  return new ComponentLogger(options.component ?? 'hub', core);
}

/** A sink for runtimes without pino: one JSON line per entry on the console. */
export const consoleJsonSink: LogSink = (entry, fields) => {
  const line = JSON.stringify({ ...fields, ...entry, time: entry.timestamp });
  if (logLevelRank(entry.level) >= logLevelRank('error')) console.error(line);
  else console.log(line);
};

/** Discards output; for tests that only read the ring. */
export const silentSink: LogSink = () => {};
