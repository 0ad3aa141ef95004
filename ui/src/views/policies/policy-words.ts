// A group policy in plain words, and the schedule windows' one-line text form.
import type { GroupPolicy } from './policies-api';

type Window = NonNullable<GroupPolicy['windows']>[number];
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
type Day = (typeof DAYS)[number];
const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;

export const windowText = (window: Window) =>
  `${window.days ? `${window.days.join(' ')} ` : ''}${window.start}-${window.end}`;

/** "sat sun 02:00-05:00" a line (days optional) into windows, or the first line that is not one, in words. */
export function parseWindows(text: string): { windows: Window[] } | { problem: string } {
  const windows: Window[] = [];
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  if (lines.length > 14) return { problem: 'At most 14 windows.' };
  for (const line of lines) {
    const words = line.toLowerCase().split(/[\s,]+/);
    const range = words.pop() ?? '';
    const [start = '', end = ''] = range.split('-');
    const bad = words.find((word) => !DAYS.includes(word as Day));
    if (!CLOCK.test(start) || !CLOCK.test(end) || bad !== undefined)
      return {
        problem: `“${line}” is not a window: write the days (mon … sun, optional) then HH:MM-HH:MM in UTC, such as “sat sun 02:00-05:00”.`,
      };
    windows.push({ ...(words.length > 0 && { days: [...new Set(words as Day[])] }), start, end });
  }
  return { windows };
}

/** What a policy sets, one phrase a field; the fields it leaves to the next level are not named. */
export function policySummary(policy: GroupPolicy): string {
  const parts: string[] = [];
  if (policy.updateMode) parts.push(`update mode ${policy.updateMode}`);
  if (policy.approvalRequired !== undefined)
    parts.push(policy.approvalRequired ? 'updates need an approval' : 'no approval needed');
  if (policy.maturityMode === 'mature') parts.push(`updates wait until ${policy.maturityMinAgeDays ?? 7} days old`);
  else if (policy.maturityMode === 'all') parts.push('no maturity wait');
  if (policy.windows?.length) parts.push(`only ${policy.windows.map(windowText).join(', ')} UTC`);
  if (policy.rollout) {
    const { waveSize, pauseSeconds, canaryHost, automatic } = policy.rollout;
    parts.push(
      `rolled out ${waveSize} host${waveSize === 1 ? '' : 's'} a wave${pauseSeconds ? `, ${pauseSeconds} s apart` : ''}${canaryHost ? `, canary ${canaryHost}` : ''}${automatic ? ', automatically' : ''}`,
    );
  }
  return parts.length > 0 ? parts.join('; ') : 'nothing set (every field falls to the next level)';
}
