// What the dashboard puts first (issue 28 item 1): pure, so the order is tested without a browser.
import type { Container } from '../../api';
import { updateKindOf } from '../../format';

/** An update's temporary old container (`<name>-old-<time>`, shared/update-engine/operation.ts): never listed. */
const TEMPORARY_NAME = /-old-\d{10,}$/;

const KIND_RANK: Record<string, number> = { major: 0, minor: 1, patch: 2, digest: 3 };

/** What an update fixes and introduces, when its candidate was scanned (docs/security-scanning.md). */
export interface SecurityDelta {
  fixed: number;
  introduced: number;
  /** It fixes a critical or high finding. */
  fixesSevere: boolean;
}

interface DeltaFinding {
  severity: string;
}
interface ServedDelta {
  fixed: DeltaFinding[];
  introduced: DeltaFinding[];
}

/** The `delta` the served `security` field carries after a scan of the candidate; undefined when unknown. */
export function securityDeltaOf(c: Container): SecurityDelta | undefined {
  const delta = (c.security as { delta?: ServedDelta } | undefined)?.delta;
  if (!delta || !Array.isArray(delta.fixed) || !Array.isArray(delta.introduced)) return undefined;
  return {
    fixed: delta.fixed.length,
    introduced: delta.introduced.length,
    fixesSevere: delta.fixed.some((finding) => finding.severity === 'critical' || finding.severity === 'high'),
  };
}

/**
 * The containers with a pending update, most important first: an update that fixes a critical or
 * high vulnerability above all; then major, minor, patch, digest; within a kind, one that fixes
 * anything first, then the oldest candidate (it has waited longest), then by name.
 */
export function rankPendingUpdates(all: readonly Container[]): Container[] {
  const pending = all.filter((c) => c.updateAvailable && !TEMPORARY_NAME.test(c.name));
  const key = (c: Container) => {
    const delta = securityDeltaOf(c);
    return {
      severe: delta?.fixesSevere ? 0 : 1,
      kind: KIND_RANK[updateKindOf(c)] ?? 4,
      fixes: delta && delta.fixed > 0 ? 0 : 1,
      published: Date.parse(c.result?.publishedAt ?? '') || Number.POSITIVE_INFINITY,
    };
  };
  const keys = new Map(pending.map((c) => [c.id, key(c)]));
  return pending.sort((a, b) => {
    const x = keys.get(a.id);
    const y = keys.get(b.id);
    if (!x || !y) return 0;
    return (
      x.severe - y.severe ||
      x.kind - y.kind ||
      x.fixes - y.fixes ||
      (x.published === y.published ? 0 : x.published < y.published ? -1 : 1) ||
      displayNameOf(a).localeCompare(displayNameOf(b))
    );
  });
}

/** `dd.display.name`, or the container's name. */
export const displayNameOf = (c: Pick<Container, 'name' | 'displayName'>): string => c.displayName || c.name;
