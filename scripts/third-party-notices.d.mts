// Types for scripts/third-party-notices.mjs.
import type { Metafile } from 'esbuild';

export interface BundledPackage {
  name: string;
  version: string;
  licence: string | undefined;
  licenceTexts: { file: string; text: string }[];
}
export declare const PERMISSIVE_LICENCES: ReadonlySet<string>;
export declare function licenceProblem(expression: unknown): string | undefined;
export declare function declaredLicence(manifest: Record<string, unknown>): string | undefined;
export declare function packagesOfMetafiles(metafiles: Metafile[], root: string): Promise<BundledPackage[]>;
export declare function renderNotices(packages: BundledPackage[]): string;
