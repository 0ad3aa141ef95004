import type { AgentContainer } from '../../../shared/agent-api/listen-schemas';
import { readContainerLabels } from '../../../shared/containers/container-labels';
import { buildContainerRecord } from '../../../shared/containers/container-record';
import type { DockerContainerDetails, DockerImageDetails } from '../../../shared/docker/docker-host';
import type { WatcherConfig } from '../../../shared/docker/watcher-config';
import { type CompiledTagPolicy, compileTagPolicy, NO_TAG_POLICY, TagPolicyError } from '../../../shared/tags';

/** Compiled tag filters by their text: a host runs few distinct ones, and compiling re2 patterns is not free. */
const policies = new Map<string, CompiledTagPolicy>();
const MAX_CACHED_POLICIES = 500;

function tagPolicyOf(labels: {
  includeTags?: string | undefined;
  excludeTags?: string | undefined;
  transformTags?: string | undefined;
}) {
  if (!labels.includeTags && !labels.excludeTags && !labels.transformTags) return NO_TAG_POLICY;
  const key = JSON.stringify([labels.includeTags, labels.excludeTags, labels.transformTags]);
  let policy = policies.get(key);
  if (!policy) {
    try {
      policy = compileTagPolicy({
        includeTags: labels.includeTags,
        excludeTags: labels.excludeTags,
        transformTags: labels.transformTags,
      });
    } catch (error) {
      // A bad filter only changes `tag.semver` here; the hub reports it when it checks the container.
      if (!(error instanceof TagPolicyError)) throw error;
      policy = NO_TAG_POLICY;
    }
    if (policies.size >= MAX_CACHED_POLICIES) policies.clear();
    policies.set(key, policy);
  }
  return policy;
}

/**
 * The container object the agent serves: the hub's own record builder (shared/containers) over
 * Docker's views, so the fields mean what they mean in the hub's API, and the raw views under
 * `docker`, from which the hub builds its record. Update fields stay at their defaults: registry
 * checks run in the hub. `firstSeenAt` is kept from the previous object of the same container.
 */
export function buildAgentContainer(
  details: DockerContainerDetails,
  image: DockerImageDetails | undefined,
  watcher: Pick<WatcherConfig, 'name' | 'watchByDefault'>,
  previous: AgentContainer | undefined,
  now: number,
): AgentContainer {
  const labels = readContainerLabels(details.labels);
  const record = buildContainerRecord({
    details,
    image,
    watcher: watcher.name,
    labels,
    tagPolicy: tagPolicyOf(labels),
    watchByDefault: watcher.watchByDefault,
    previous,
    now,
  });
  return { ...record, docker: { container: details, ...(image && { image }) } };
}

/** True when the two objects say the same of the container (what an `updated` event would change). */
export function sameContainer(a: AgentContainer, b: AgentContainer): boolean {
  return JSON.stringify(a.docker) === JSON.stringify(b.docker);
}
