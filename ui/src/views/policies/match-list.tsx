/** The containers a policy or selector applies to now: a count and the first names, the rest on request. */
export function MatchList({ names }: { names: readonly string[] }) {
  if (names.length === 0) return <span class="hint">No container now</span>;
  const shown = names.slice(0, 5);
  return (
    <span class="matches">
      {names.length} container{names.length === 1 ? '' : 's'}: {shown.join(', ')}
      {names.length > shown.length && `, and ${names.length - shown.length} more`}
    </span>
  );
}
