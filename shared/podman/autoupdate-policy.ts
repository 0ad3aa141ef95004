/**
 * Podman's own update policy, the `io.containers.autoupdate` label that `podman auto-update` reads
 * (podman-auto-update(1)), read as the `dd.*` policy keys it names (docs/sources.md "Podman"):
 *
 * - `registry` (and `image`, its older spelling): Podman pulls the same tag again when the registry
 *   has a new digest for it and re-creates the container. Here: watched whatever WATCHBYDEFAULT says,
 *   the tag's digest watched too (`dd.watch.digest`), and opted in to automatic updates
 *   (`dd.action.auto`), which still need an action trigger covering the watcher (docs/updates.md).
 * - `local`: Podman compares with an image built or pulled on the host, never a registry. Here: not
 *   checked against a registry (`dd.watch=false`); the container stays listed.
 *
 * A `dd.*` label the container sets itself wins over what the policy implies. Any other value
 * (`disabled`, a typo) implies nothing.
 */
export const AUTOUPDATE_LABEL = 'io.containers.autoupdate';

export type PodmanAutoUpdatePolicy = 'registry' | 'local';

const IMPLIED: Record<PodmanAutoUpdatePolicy, Readonly<Record<string, string>>> = {
  registry: { 'dd.watch': 'true', 'dd.watch.digest': 'true', 'dd.action.auto': 'true' },
  local: { 'dd.watch': 'false' },
};

export function autoUpdatePolicyOf(labels: Readonly<Record<string, string>>): PodmanAutoUpdatePolicy | undefined {
  const value = labels[AUTOUPDATE_LABEL]?.trim().toLowerCase();
  if (value === 'registry' || value === 'image') return 'registry';
  if (value === 'local') return 'local';
  return undefined;
}

/** The labels with the `dd.*` keys the policy implies added where the container has none of its own. */
export function withAutoUpdatePolicy(labels: Readonly<Record<string, string>>): Record<string, string> {
  const policy = autoUpdatePolicyOf(labels);
  if (!policy) return { ...labels };
  return { ...IMPLIED[policy], ...labels };
}
