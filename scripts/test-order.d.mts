// Types for scripts/test-order.mjs, which stays plain JavaScript like the other test helpers.
import { BaseSequencer } from 'vitest/node';

export declare const DURATIONS_FILE: string;
export declare function keptDurations(file?: string): Record<string, number>;
export declare function slowestFirst<T>(files: readonly T[], secondsOf: (file: T) => number | undefined): T[];
export declare class SlowestFirstSequencer extends BaseSequencer {}
