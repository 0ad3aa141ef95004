import { relative, when } from '../format-time';

/** "3 hours ago", the full date on hover, the instant machine-readable. */
export function TimeAgo({ at }: { at: string }) {
  return (
    <time dateTime={at} title={when(at)}>
      {relative(at)}
    </time>
  );
}
