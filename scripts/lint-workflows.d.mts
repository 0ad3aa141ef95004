// Types for scripts/lint-workflows.mjs, which stays plain JavaScript like the other lint and build scripts.
export declare function pinProblems(text: string, file: string): string[];
export declare function lintWorkflows(options?: { root?: string; shellcheckBinary?: string }): Promise<string[]>;
