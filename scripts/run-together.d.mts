// Types for scripts/run-together.mjs, which stays plain JavaScript like the other CI helpers.
export interface ScriptResult {
  name: string;
  code: number;
  signal: NodeJS.Signals | null;
  seconds: number;
  output: Buffer;
}
export declare function runTogether(names: readonly string[], options?: { cwd?: string }): Promise<ScriptResult[]>;
