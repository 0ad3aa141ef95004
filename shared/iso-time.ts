let last: { at: number; iso: string } | undefined;

/**
 * `at` (Unix ms) as an ISO string, the last answer kept: a watch cycle checks and records all its
 * containers at one `now`, and they share one string instead of building and holding a copy each
 * (issue 30 item 3).
 */
export function isoTime(at: number): string {
  if (last?.at !== at) last = { at, iso: new Date(at).toISOString() };
  return last.iso;
}
