import { signal } from '@preact/signals';

/** Wide enough for the container list and a container side by side (docs/ui.md "The side panel"). */
const WIDE = '(min-width: 1200px)';
/** A phone: the container page folds its longer sections. */
const NARROW = '(max-width: 640px)';

function watched(query: string) {
  const media = matchMedia(query);
  const value = signal(media.matches);
  media.addEventListener('change', (event) => {
    value.value = event.matches;
  });
  return value;
}

let wide: ReturnType<typeof watched> | undefined;
let narrow: ReturnType<typeof watched> | undefined;

/** Whether the container opens beside the list (read lazily: no listener before the page asks). */
export function isWideScreen(): boolean {
  wide ??= watched(WIDE);
  return wide.value;
}

export function isNarrowScreen(): boolean {
  narrow ??= watched(NARROW);
  return narrow.value;
}
