// Types for scripts/slowest-tests.mjs, which stays plain JavaScript like the other CI helpers.
export interface SlowFile {
  file: string;
  seconds: number;
  tests: number;
  status: string;
}
export declare function slowestFiles(report: unknown, count?: number, root?: string): SlowFile[];
export declare function renderSlowest(rows: SlowFile[]): string;
