import { ConfigError } from '../../shared/config/config-error';

/** The ConfigError `run` throws; fails the test when it throws nothing or something else. */
export function configErrorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
