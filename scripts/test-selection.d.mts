// Types for scripts/test-selection.mjs, which stays plain JavaScript like the other scripts.
export declare const TEST_ROOTS: readonly string[];
export declare const TEST_BEDS: readonly string[];
export declare function createBedFinder(root?: string): (file: string) => string | undefined;
export declare function selectTests(root?: string): { fast: string[]; slow: Map<string, string> };
