import { AGENT_NAME } from '../../../shared/edge/protocol';

/**
 * The default agent name from a host name: lower-cased, every run of characters outside
 * [a-z0-9-] (dots of an FQDN included) turned into one `-`, trimmed to 63 characters, starting and
 * ending alphanumeric. Undefined when nothing usable is left (the user must give --name).
 */
export function agentNameFromHostname(hostname: string): string | undefined {
  const name = hostname
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+/, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return AGENT_NAME.test(name) ? name : undefined;
}

export function isValidAgentName(name: string): boolean {
  return AGENT_NAME.test(name);
}
