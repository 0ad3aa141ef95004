// Types for scripts/slowest-tests.mjs, which stays plain JavaScript like the other CI helpers.
export interface SlowFile {
  file: string;
  seconds: number;
  tests: number;
  status: string;
}
export declare function slowestFiles(report: unknown, count?: number, root?: string): SlowFile[];
export declare function renderSlowest(rows: SlowFile[]): string;
/** The part of vitest's TestModule the table reads. */
export interface SlowModuleLike {
  moduleId: string;
  diagnostic(): { duration: number };
  children: { allTests(): Iterable<unknown> };
  state(): string;
}
export declare function slowestModules(
  testModules: readonly SlowModuleLike[],
  count?: number,
  root?: string,
): SlowFile[];
export declare function slowestFilesReporter(options?: { count?: number; write?: (text: string) => void }): {
  onTestRunEnd(testModules: readonly SlowModuleLike[]): void;
};
