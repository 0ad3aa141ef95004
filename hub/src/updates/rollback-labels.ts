export const ROLLBACK_AUTO_LABEL = 'dd.rollback.auto';
export const ROLLBACK_WINDOW_LABEL = 'dd.rollback.window';
export const DEFAULT_ROLLBACK_WINDOW_MS = 5 * 60_000;
const MAX_WINDOW_MS = 24 * 60 * 60_000;
const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** `90`, `90s`, `5m`, `1h`, `1500ms`: a bare number is seconds. Undefined when it is none of these. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,9})(ms|s|m|h)?$/.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  return Number(match[1]) * (UNITS[match[2] ?? 's'] ?? 1_000);
}

/**
 * The automatic-rollback window of a container (`dd.rollback.auto=true`, `dd.rollback.window`,
 * default 5 minutes, at most a day); undefined when it is off. A malformed window falls back to
 * the default: labels never fail an update.
 */
export function autoRollbackWindowMs(labels: Readonly<Record<string, string>>): number | undefined {
  if (labels[ROLLBACK_AUTO_LABEL]?.trim().toLowerCase() !== 'true') return undefined;
  const raw = labels[ROLLBACK_WINDOW_LABEL];
  const parsed = raw === undefined ? undefined : parseDuration(raw);
  return Math.min(MAX_WINDOW_MS, parsed && parsed > 0 ? parsed : DEFAULT_ROLLBACK_WINDOW_MS);
}
