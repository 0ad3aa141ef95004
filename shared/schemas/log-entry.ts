import * as v from 'valibot';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Numeric rank of a level, for "at or above" filters. */
export function logLevelRank(level: LogLevel): number {
  return LOG_LEVELS.indexOf(level);
}

/** One application log entry (http-interface §2.11). */
export const LogEntrySchema = v.object({
  timestamp: v.pipe(v.number(), v.integer()),
  level: v.picklist(LOG_LEVELS),
  component: v.string(),
  msg: v.string(),
});
export type LogEntry = v.InferOutput<typeof LogEntrySchema>;
