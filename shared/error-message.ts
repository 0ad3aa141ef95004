/**
 * The message of anything thrown or rejected: an Error's own, anything else as text (a rejected
 * string, a value a library threw). The one place this is written: the hub, the agent and the UI
 * all show or log failures through it.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
