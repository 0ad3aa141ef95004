/**
 * Error codes of a store that has no room left: the disk is full (ENOSPC) or the user's quota is
 * spent (EDQUOT). The Node fs driver wraps them (`cause`, or an AggregateError of a batch), so the
 * whole chain is searched. The core names no Node type: the code is read as a plain property.
 */
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);
/** A cause chain deeper than this is not one a driver made; stop rather than loop on a cycle. */
const MAX_DEPTH = 8;

export function isStorageFull(error: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH || typeof error !== 'object' || error === null) return false;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && FULL_CODES.has(code)) return true;
  if (Array.isArray(errors) && errors.some((inner) => isStorageFull(inner, depth + 1))) return true;
  return isStorageFull(cause, depth + 1);
}
