import { formatImageReference } from '../../../shared/registry/image-reference';
import type { Container } from '../../../shared/schemas/container';
import type { RolloutHost } from '../../../shared/schemas/rollout';
import { TEMPORARY_NAME } from '../../../shared/update-engine';
import { rolloutHostOf } from '../policies/effective-group-policy';
import { currentVersion, updateTargetOf } from '../updates/update-target';
import { type Refused, refused } from './rollout-refusal';

/** The repository a container runs, without tag or digest, as a rollout names its image. */
export function repositoryOf(container: Pick<Container, 'image'>): string {
  return formatImageReference({ registry: container.image.registry.url, repository: container.image.name });
}

/** What a caller may write for the image: the repository, or a reference with a tag or digest. */
export function repositoryOfInput(image: string): string {
  const withoutDigest = image.split('@')[0] as string;
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(0, colon) : withoutDigest;
}

export interface RolloutSelection {
  image: string;
  toVersion?: string | undefined;
  group?: string | undefined;
}

export interface RolloutShape {
  canaryHost?: string | undefined;
  waveSize: number;
}

export interface RolloutPlan {
  toVersion: string;
  hosts: RolloutHost[];
  waves: number;
}

export type PlanResult = { ok: true; plan: RolloutPlan } | Refused;

/**
 * Which containers a rollout updates and in what order (docs/group-policies.md "Staged rollouts"):
 * every container of that repository with that candidate pending (in the group, when one is named),
 * grouped by host; the canary host first (wave 0), then the other hosts by name in waves of
 * `waveSize`. Refused (`no-candidates`) when nothing matches, or (`candidates-differ`) when the
 * containers wait for different candidates and none was named.
 */
export function planRollout(
  containers: readonly Container[],
  selection: RolloutSelection,
  shape: RolloutShape,
): PlanResult {
  const image = repositoryOfInput(selection.image);
  const matching = containers.filter(
    (container) =>
      !TEMPORARY_NAME.test(container.name) &&
      repositoryOf(container) === image &&
      (selection.group === undefined || container.group === selection.group) &&
      updateTargetOf(container) !== undefined,
  );
  const candidates = [...new Set(matching.map((container) => updateTargetOf(container)?.toVersion as string))].sort();
  const toVersion = selection.toVersion ?? (candidates.length === 1 ? candidates[0] : undefined);
  if (toVersion === undefined) {
    if (candidates.length === 0)
      return refused({
        reason: 'no-candidates',
        message: `No container of ${image.slice(0, 200)} has an update pending`,
      });
    return refused({
      reason: 'candidates-differ',
      message: 'The containers of this image wait for different candidates: name one in toVersion',
      candidates: candidates.slice(0, 50),
    });
  }
  const byHost = new Map<string, Container[]>();
  for (const container of matching) {
    if (updateTargetOf(container)?.toVersion !== toVersion) continue;
    const host = rolloutHostOf(container);
    byHost.set(host, [...(byHost.get(host) ?? []), container]);
  }
  if (byHost.size === 0)
    return refused({
      reason: 'no-candidates',
      message: `No container of ${image.slice(0, 200)} waits for ${toVersion.slice(0, 100)}`,
    });
  const names = [...byHost.keys()].sort();
  const canary = shape.canaryHost !== undefined && byHost.has(shape.canaryHost) ? shape.canaryHost : names[0];
  const ordered = [canary as string, ...names.filter((name) => name !== canary)];
  const hosts = ordered.map(
    (host, index): RolloutHost => ({
      host,
      wave: index === 0 ? 0 : Math.ceil(index / shape.waveSize),
      state: 'pending',
      containers: (byHost.get(host) ?? [])
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((container) => ({
          containerId: container.id,
          containerName: container.name,
          fromVersion: currentVersion(container),
        })),
    }),
  );
  return { ok: true, plan: { toVersion, hosts, waves: (hosts.at(-1)?.wave ?? 0) + 1 } };
}
