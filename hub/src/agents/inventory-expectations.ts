/**
 * Which inventory refresh each agent watcher waits for (`agent/watcher` → operationId). A refresh
 * answers with a snapshot tagged by its operation; only the awaited one is applied, so a superseded
 * or expired refresh never writes (docs/http-interface.md, inventory refresh).
 */
export interface InventoryExpectations {
  /** From now on only this operation's snapshot of the watcher is applied. */
  expect(agentName: string, watcherName: string, operationId: string): void;
  /** The operation ended (answered, timed out, failed): a late snapshot of it is ignored. */
  forget(agentName: string, watcherName: string, operationId: string): void;
  isAwaited(agentName: string, watcherName: string, operationId: string): boolean;
  /** The agent's link dropped: nothing it sends later answers a refresh begun before. */
  forgetAgent(agentName: string): void;
  /** How many refreshes are awaited now (none may leak once their routes answered). */
  pending(): number;
}

export function createInventoryExpectations(): InventoryExpectations {
  const expected = new Map<string, string>();
  const keyOf = (agentName: string, watcherName: string) => `${agentName}/${watcherName}`;
  return {
    expect: (agentName, watcherName, operationId) => {
      expected.set(keyOf(agentName, watcherName), operationId);
    },
    forget: (agentName, watcherName, operationId) => {
      const key = keyOf(agentName, watcherName);
      if (expected.get(key) === operationId) expected.delete(key);
    },
    isAwaited: (agentName, watcherName, operationId) => expected.get(keyOf(agentName, watcherName)) === operationId,
    forgetAgent: (agentName) => {
      for (const key of [...expected.keys()]) if (key.startsWith(`${agentName}/`)) expected.delete(key);
    },
    pending: () => expected.size,
  };
}
