import { parseLabelDuration } from '../../../shared/update/label-duration';

export const ROLLBACK_AUTO_LABEL = 'dd.rollback.auto';
export const ROLLBACK_WINDOW_LABEL = 'dd.rollback.window';
export const DEFAULT_ROLLBACK_WINDOW_MS = 5 * 60_000;
const MAX_WINDOW_MS = 24 * 60 * 60_000;

/**
 * The automatic-rollback window of a container (`dd.rollback.auto=true`, `dd.rollback.window`,
 * default 5 minutes, at most a day); undefined when it is off. A malformed window falls back to
 * the default: labels never fail an update.
 */
export function autoRollbackWindowMs(labels: Readonly<Record<string, string>>): number | undefined {
  if (labels[ROLLBACK_AUTO_LABEL]?.trim().toLowerCase() !== 'true') return undefined;
  const raw = labels[ROLLBACK_WINDOW_LABEL];
  const parsed = raw === undefined ? undefined : parseLabelDuration(raw);
  return Math.min(MAX_WINDOW_MS, parsed && parsed > 0 ? parsed : DEFAULT_ROLLBACK_WINDOW_MS);
}
