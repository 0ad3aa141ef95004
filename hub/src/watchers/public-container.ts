import { isSensitiveKey, REDACTED } from '../../../shared/redact';
import type { Container } from '../../../shared/schemas/container';

/** A container as the API and the UI stream show it: sensitive environment values redacted. */
export function toPublicContainer(container: Container): Container {
  return {
    ...container,
    env: container.env.map(({ key, value }) => ({ key, value: isSensitiveKey(key) ? REDACTED : value })),
  };
}
