// Types for scripts/build.mjs, which stays plain JavaScript like build-ui.mjs.
import type { Metafile } from 'esbuild';
import type { BundledPackage } from './third-party-notices.mjs';

export declare const DIST: string;
export declare function buildServers(options?: { outdir?: string }): Promise<Metafile>;
export declare function buildAll(options?: {
  outdir?: string;
}): Promise<{ packages: BundledPackage[]; servers: Metafile }>;
