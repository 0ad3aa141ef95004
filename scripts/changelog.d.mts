// Types for scripts/changelog.mjs, which stays plain JavaScript so the release workflow runs it before installing anything.
export declare const UNRELEASED: string;
export declare function changelogSection(text: string, version: string): string;
export declare function releaseChangelog(text: string, version: string, date: string): string;
