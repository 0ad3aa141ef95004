const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** A duration label (`90`, `90s`, `5m`, `1h`, `1500ms`; a bare number is seconds) in ms; undefined when it is none of these. */
export function parseLabelDuration(text: string): number | undefined {
  const match = /^(\d{1,9})(ms|s|m|h)?$/.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  return Number(match[1]) * (UNITS[match[2] ?? 's'] ?? 1_000);
}
