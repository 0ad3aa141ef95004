/**
 * Runs a hook's shell command on the hub's host (issue 7 part 7). Injected through HubDeps by the
 * Node entry (hub/src/adapter/node/hook-runner.ts): the portable core never starts processes, and
 * a runtime without one (Workers) refuses hooks with a clear error.
 */
export interface HookRunner {
  run(command: string, options: HookRunOptions): Promise<HookResult>;
}

export interface HookRunOptions {
  /** The whole environment of the command (the runner adds PATH): no hub secret reaches it. */
  env: Record<string, string>;
  timeoutMs: number;
  /** Aborting ends the command (a cancelled update). */
  signal?: AbortSignal | undefined;
}

export interface HookResult {
  /** The exit code; null when a signal ended the command (a timeout or a cancel). */
  exitCode: number | null;
  timedOut: boolean;
  /** The last part of stdout and stderr together, for the audit entry and the operation's error. */
  output: string;
}
