// Types for scripts/build-workers.mjs, which stays plain JavaScript so it runs before any TypeScript tooling.
import type { BuildOptions } from 'esbuild';

export declare const ROOT: string;
export declare const WORKERS_ENTRY: string;
export declare const DEFAULT_OUTFILE: string;
export declare const WORKERD_BUILD_OPTIONS: BuildOptions;
export declare function buildWorkersBundle(options?: { outfile?: string }): Promise<string>;
export declare function buildWorkersBundleWithInputs(options?: {
  outfile?: string;
}): Promise<{ outfile: string; inputs: string[] }>;
