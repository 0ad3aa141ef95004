import type { Container } from '../../api';
import { containerList } from '../../state';

/** An update's temporary old container (`<name>-old-<time>`): the container a person knows is the other one. */
const TEMPORARY_NAME = /-old-\d{10,}$/;

/**
 * Where a container named in an event or the audit is: its page when the hub lists it (the newest
 * record of that name, the one an update re-created), else the list searched for the name.
 */
export function containerHref(name: string, agent?: string): string {
  const found = findByName(name, agent);
  return found ? `/containers/${encodeURIComponent(found.id)}` : `/containers?q=${encodeURIComponent(name)}`;
}

export function findByName(name: string, agent?: string): Container | undefined {
  return containerList.value.find(
    (c) => c.name === name && !TEMPORARY_NAME.test(c.name) && (agent === undefined || c.agent === agent),
  );
}
