/** Keys whose values are secrets in API output and logs (decisions §7). */
export const SENSITIVE_KEY_PATTERN = /(pass|secret|token|key|auth|credential|private)/i;

export const REDACTED = '***';

export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEY_PATTERN.test(key);
}
