/** The agent name of containers on the hub's own Docker host (decisions §1). */
export const LOCAL_AGENT = '__local__';

export type ContainerIdentityInput = { agent?: string | null | undefined; watcher: string; name: string };

/**
 * The key that survives re-creation: an update gives the container a new id but keeps agent, watcher and
 * name, so policy, update clock and the UI's live update operations are kept under this key, never under
 * the id nor the name alone (two agents may each run an `nginx`). Same form as statusesByIdentity in
 * recent-status (http-interface §4.8): `agent::watcher::name`, with `__local__` for a local container so
 * that a missing, null and empty agent name read alike. Docker container names and watcher names cannot
 * hold `:`, so the separator is unambiguous. Free of valibot: the UI bundle imports it.
 */
export function containerIdentity(input: ContainerIdentityInput): string {
  const agent = input.agent ? input.agent : LOCAL_AGENT;
  // The Docker API lists names as `/name`; the same container must not get two keys.
  const name = input.name.startsWith('/') ? input.name.slice(1) : input.name;
  return `${agent}::${input.watcher}::${name}`;
}
