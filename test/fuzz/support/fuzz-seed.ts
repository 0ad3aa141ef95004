import { seedFromEnv, seedHex } from '../generators';

/** The one seed of a fuzz run (FUZZ_SEED, else the default) and its tag for suite names, shared by every fuzz file. */
export const SEED = seedFromEnv(process.env['FUZZ_SEED']);
export const SEED_TAG = `seed ${seedHex(SEED)}`;
