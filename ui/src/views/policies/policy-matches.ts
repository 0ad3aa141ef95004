// Which containers a policy or a selector applies to, from the containers the page holds. The API
// answers this per container only (GET /containers/{id}/group-policy, …/label-overrides), so the
// hub's rules are restated here (hub/src/policies, hub/src/store/label-override-store.ts).
import type { Container } from '../../api';
import type { GroupPolicy, LabelOverrideSelector } from './policies-api';

const LOCAL_AGENT = '__local__';

export function policyMatches(policy: Pick<GroupPolicy, 'scope' | 'name'>, container: Container): boolean {
  if (policy.scope === 'agent') return (container.agent ?? LOCAL_AGENT) === policy.name;
  return container.group === policy.name;
}

/** `*` any run of characters, `?` one; everything else literal, the whole text. */
export function globMatches(pattern: string, text: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's').test(text);
}

const imageOf = (container: Container) => {
  const { registry, name, tag } = container.image;
  return `${registry.url ? `${registry.url}/` : ''}${name}:${tag.value}`;
};

export function selectorMatches(selector: LabelOverrideSelector, container: Container): boolean {
  if (selector.agent !== undefined && selector.agent !== (container.agent ?? LOCAL_AGENT)) return false;
  if (selector.watcher !== undefined && selector.watcher !== container.watcher) return false;
  if (selector.name !== undefined && !globMatches(selector.name, container.name.replace(/^\//, ''))) return false;
  if (selector.image !== undefined && !globMatches(selector.image, imageOf(container))) return false;
  if (selector.group !== undefined) {
    // The group of the container's own labels: an override cannot move a container in or out of its selector.
    const group = container.labels['dd.group'] || container.labels['com.docker.compose.project'];
    if (selector.group !== group) return false;
  }
  return true;
}

/** The names of the matching containers, sorted, without the update engine's temporary ones. */
export function matchingNames(containers: readonly Container[], matches: (container: Container) => boolean): string[] {
  return containers
    .filter((container) => !/-old-\d{10,}$/.test(container.name) && matches(container))
    .map((container) => container.name)
    .sort();
}
