// Types for scripts/build-manifest.mjs, which stays plain JavaScript like build.mjs.
export declare const MANIFEST_NAME: string;
export declare const RUN_OUTPUTS: readonly string[];
export declare function buildInputs(
  metafiles: readonly { inputs: Readonly<Record<string, unknown>> }[],
  root: string,
): string[];
export declare function writeBuildManifest(
  outdir: string,
  manifest: { startedAt: number; inputs: readonly string[] },
): void;
export declare function staleReason(outdir: string, root: string): string | undefined;
export declare function changedInput(outdir: string, root: string): string | undefined;
