/** One bell entry (GET /notifications/bell, http-interface §2.8): the fields a sentence is made of. */
export interface BellWordsEntry {
  event: string;
  containerName?: string | undefined;
  fromVersion?: string | undefined;
  toVersion?: string | undefined;
  details?: string | undefined;
}

/**
 * A bell entry as a sentence ("web can be updated from 1.0.0 to 2.0.0") instead of the event's
 * id; pure, so each event's wording is tested without a browser.
 */
export function bellSentence(entry: BellWordsEntry): string {
  const name = entry.containerName ?? 'A container';
  const from = entry.fromVersion;
  const to = entry.toVersion;
  const span = from && to ? ` from ${from} to ${to}` : to ? ` to ${to}` : '';
  switch (entry.event) {
    case 'update-available':
      return `${name} can be updated${span}`;
    case 'update-applied':
      return `${name} was updated${span}`;
    case 'update-failed':
      return `The update of ${name}${to ? ` to ${to}` : ''} failed`;
    case 'security-alert':
      return `${name} has critical or high vulnerabilities`;
    case 'maturity-cleared':
      return `The update of ${name}${to ? ` to ${to}` : ''} is now old enough to be applied`;
    case 'container-unhealthy':
      return `${name} turned unhealthy`;
    // The hub writes these details as a sentence already ("agent edge-1 disconnected (…)").
    case 'agent-disconnect':
      return entry.details ? capitalised(entry.details) : 'An agent lost its connection to the hub';
    case 'agent-reconnect':
      return entry.details ? capitalised(entry.details) : 'An agent connected again';
    default:
      return `${entry.event.replace(/-/g, ' ')}${entry.containerName ? `: ${entry.containerName}` : ''}${span}`;
  }
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Where a bell entry leads: its container's page, the agents for an agent's event. */
export function bellTarget(entry: BellWordsEntry): 'agents' | 'container' | undefined {
  if (entry.event.startsWith('agent-')) return 'agents';
  return entry.containerName ? 'container' : undefined;
}
