import type { Container } from '../../api';

/** A wave of the preview: its hosts, each with the containers it would update. */
export interface PreviewWave {
  wave: number;
  hosts: { host: string; containers: string[] }[];
}

export interface RolloutPreview {
  toVersion: string | undefined;
  /** Candidates pending among the matching containers: more than one needs a version named. */
  candidates: string[];
  waves: PreviewWave[];
}

// Restated from hub/src (which the UI may not import): the update engine's temporary name, the
// repository as rollouts name it, the host a container counts as, its pending candidate.
const TEMPORARY_NAME = /-old-\d{10,}$/;
const repositoryOf = (container: Container) => {
  const { registry, name } = container.image;
  return registry.url === 'docker.io' ? name.replace(/^library\//, '') : `${registry.url}/${name}`;
};
/** What the person typed, without tag or digest. */
export function repositoryOfInput(image: string): string {
  const withoutDigest = image.trim().split('@')[0] ?? '';
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(0, colon) : withoutDigest;
}
export const hostOf = (container: Container) => container.agent ?? `__local__:${container.watcher}`;
const candidateOf = (container: Container) =>
  container.updateAvailable && container.updateKind.kind !== 'unknown' && container.image.tag.value !== ''
    ? container.updateKind.remoteValue
    : undefined;

/** Repositories with an update pending somewhere: what a rollout can be started for. */
export function rolloutImages(containers: readonly Container[]): string[] {
  const images = containers.filter((c) => candidateOf(c) !== undefined && !TEMPORARY_NAME.test(c.name));
  return [...new Set(images.map(repositoryOf))].sort();
}

/**
 * The waves the hub would plan (hub/src/rollouts/rollout-plan.ts), from the containers this page
 * holds: the canary host first, then the other hosts by name, `waveSize` a wave. The hub plans
 * again when the rollout starts; this only shows the person what to expect.
 */
export function previewRollout(
  containers: readonly Container[],
  input: { image: string; toVersion?: string; group?: string; canaryHost?: string; waveSize: number },
): RolloutPreview {
  const image = repositoryOfInput(input.image);
  const matching = containers.filter(
    (c) =>
      !TEMPORARY_NAME.test(c.name) &&
      repositoryOf(c) === image &&
      (input.group === undefined || c.group === input.group) &&
      candidateOf(c) !== undefined,
  );
  const candidates = [...new Set(matching.map((c) => candidateOf(c) as string))].sort();
  const toVersion = input.toVersion ?? (candidates.length === 1 ? candidates[0] : undefined);
  if (toVersion === undefined) return { toVersion, candidates, waves: [] };
  const byHost = new Map<string, string[]>();
  for (const c of matching)
    if (candidateOf(c) === toVersion) byHost.set(hostOf(c), [...(byHost.get(hostOf(c)) ?? []), c.name]);
  const hosts = [...byHost.keys()].sort();
  const canary = input.canaryHost && byHost.has(input.canaryHost) ? input.canaryHost : hosts[0];
  const ordered = canary === undefined ? [] : [canary, ...hosts.filter((host) => host !== canary)];
  const waves: PreviewWave[] = [];
  ordered.forEach((host, index) => {
    const wave = index === 0 ? 0 : Math.ceil(index / input.waveSize);
    const entry = { host, containers: (byHost.get(host) ?? []).sort() };
    const last = waves.at(-1);
    if (last?.wave === wave) last.hosts.push(entry);
    else waves.push({ wave, hosts: [entry] });
  });
  return { toVersion, candidates, waves };
}
