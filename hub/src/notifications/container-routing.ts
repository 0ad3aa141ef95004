import { UPDATE_THRESHOLDS, type UpdateThreshold } from './update-threshold';

export const INCLUDE_LABEL = 'dd.notification.include';
export const EXCLUDE_LABEL = 'dd.notification.exclude';

interface RouteEntry {
  /** `http.ops` matches that trigger; `ops` matches every trigger named ops, whatever its type. */
  target: string;
  threshold: UpdateThreshold | undefined;
}

function parseEntries(value: string | undefined): RouteEntry[] | undefined {
  if (value === undefined) return undefined;
  const entries: RouteEntry[] = [];
  for (const raw of value.split(',')) {
    const item = raw.trim().toLowerCase();
    if (!item) continue;
    const colon = item.indexOf(':');
    const target = (colon === -1 ? item : item.slice(0, colon)).trim();
    const threshold = colon === -1 ? undefined : item.slice(colon + 1).trim();
    entries.push({
      target,
      // An unknown threshold in a label is ignored (the trigger's own applies): labels never fail a cycle.
      threshold: (UPDATE_THRESHOLDS as readonly string[]).includes(threshold ?? '')
        ? (threshold as UpdateThreshold)
        : undefined,
    });
  }
  return entries;
}

const matches = (entry: RouteEntry, trigger: { id: string; name: string }) =>
  entry.target === trigger.id.toLowerCase() ||
  (!entry.target.includes('.') && entry.target === trigger.name.toLowerCase());

/**
 * Per-container routing (http-interface §9.8): `dd.notification.include=http.ops,discord` sends this
 * container's notifications only to the trigger `http.ops` and to every trigger named `discord`;
 * `dd.notification.exclude=…` (same syntax) never sends them there, and wins over include. An
 * include entry may carry a threshold for this container, `http.ops:major-only`, which replaces
 * the trigger's THRESHOLD. An empty include label includes nothing in particular: it is ignored.
 */
export function routeContainer(
  labels: Readonly<Record<string, string>>,
  trigger: { id: string; name: string },
): { allowed: boolean; threshold?: UpdateThreshold } {
  const exclude = parseEntries(labels[EXCLUDE_LABEL]);
  if (exclude?.some((entry) => matches(entry, trigger))) return { allowed: false };
  const include = parseEntries(labels[INCLUDE_LABEL]);
  if (!include || include.length === 0) return { allowed: true };
  const entry = include.find((candidate) => matches(candidate, trigger));
  if (!entry) return { allowed: false };
  return entry.threshold ? { allowed: true, threshold: entry.threshold } : { allowed: true };
}
