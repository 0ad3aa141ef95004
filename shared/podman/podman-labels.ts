import * as v from 'valibot';
import { withAutoUpdatePolicy } from './autoupdate-policy';

/**
 * What a Podman watcher adds to a container's labels (docs/sources.md "Podman"): its pod, as
 * `dockwatch.podman.pod` (shown, never read as policy) and as its group (`dd.group`, unless the
 * container names its own), and the `dd.*` keys its `io.containers.autoupdate` policy implies.
 */
export const POD_LABEL = 'dockwatch.podman.pod';
const GROUP_LABEL = 'dd.group';
const WATCH_LABEL = 'dd.watch';

/** One pod as `GET /libpod/pods/json` lists it (Podman 4.3), the fields read here. */
const PodSchema = v.object({
  Name: v.string(),
  InfraId: v.optional(v.nullable(v.string())),
  Containers: v.optional(v.nullable(v.array(v.object({ Id: v.string() })))),
});

export interface PodMembership {
  pod: string;
  /** The pod's infra container (`<pod id>-infra`, image `localhost/podman-pause`): Podman's own, not watched. */
  infra: boolean;
}

/**
 * Container id → pod, from `GET /libpod/pods/json`. An answer that is not a list of pods is an
 * error naming the endpoint (a Docker Engine answers 404 there: the socket is not Podman's).
 */
export function podMemberships(raw: unknown): Map<string, PodMembership> {
  const result = v.safeParse(v.array(PodSchema), raw);
  if (!result.success) throw new Error(`libpod pods: unexpected answer: ${result.issues[0]?.message ?? 'invalid'}`);
  const members = new Map<string, PodMembership>();
  for (const pod of result.output) {
    for (const { Id } of pod.Containers ?? []) members.set(Id, { pod: pod.Name, infra: Id === pod.InfraId });
  }
  return members;
}

/**
 * Podman's `localhost/` names images that were built, imported or committed on the host: no
 * registry holds them (`localhost:5000/…`, with a port, is a registry).
 */
export function isLocalOnlyImage(image: string): boolean {
  return image.startsWith('localhost/');
}

/** The labels a Podman container is watched with: the ones it has, plus its pod's and its policy's. */
export function podmanLabels(
  labels: Readonly<Record<string, string>>,
  image: string,
  membership: PodMembership | undefined,
): Record<string, string> {
  const pod = membership && { [POD_LABEL]: membership.pod, [GROUP_LABEL]: membership.pod };
  const local = isLocalOnlyImage(image) && { [WATCH_LABEL]: 'false' };
  // The container's own labels and its autoupdate policy come first; the pod and the image fill gaps.
  return { ...local, ...pod, ...withAutoUpdatePolicy(labels), ...(membership && { [POD_LABEL]: membership.pod }) };
}
