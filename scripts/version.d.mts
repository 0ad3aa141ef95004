// Types for scripts/version.mjs, npm's `version` lifecycle script (plain JavaScript, run by npm before any TypeScript tooling).
export declare function applyVersion(root: string, version: string, date?: string): string[];
