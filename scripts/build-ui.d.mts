// Types for scripts/build-ui.mjs, which stays plain JavaScript so it runs before any TypeScript tooling.
import type { Metafile } from 'esbuild';
import type { UiBundle } from '../hub/src/ui/ui-bundle';

export declare const ROOT: string;
export declare const UI_ENTRY: string;
export declare const DEFAULT_UI_OUTFILE: string;
export declare const FIRST_LOAD_JS_BUDGET: number;
export declare const UI_CSP: string;
export declare function buildUi(options?: {
  outfile?: string;
  write?: boolean;
}): Promise<{ bundle: UiBundle; outfile: string; jsPath: string; metafile: Metafile }>;
