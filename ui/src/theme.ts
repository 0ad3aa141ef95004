import { call } from './api';

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];
/** The synced UI preferences (http-interface §4.12): a free-form record; this UI keeps its theme there. */
export type Preferences = Record<string, unknown> & { theme?: Theme };

export const preferencesApi = {
  get: () => call<Preferences>('/preferences'),
  put: (preferences: Preferences) => call<Preferences>('/preferences', { method: 'PATCH', body: preferences }),
};

/** This browser's copy of the theme, so it applies before sign-in and on the sign-in page itself. */
const KEPT = 'dockwatch.theme';
/** Set while a theme chosen here (signed out, or anonymous) has not reached the hub's preferences. */
const UNSYNCED = 'dockwatch.theme.unsynced';

export const isTheme = (value: unknown): value is Theme => THEMES.includes(value as Theme);

/** A private window or a browser with storage switched off throws: the theme then lives for the page only. */
function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

/** `system` follows prefers-color-scheme (the stylesheet's default); light or dark override it. */
export function applyTheme(theme: unknown): void {
  const root = document.documentElement;
  if (theme === 'light' || theme === 'dark') root.dataset['theme'] = theme;
  else delete root.dataset['theme'];
}

/** The theme this browser keeps: chosen here, or the synced one last seen. */
export function keptTheme(): Theme {
  const kept = storage()?.getItem(KEPT);
  return isTheme(kept) ? kept : 'system';
}

/**
 * Applies a theme and keeps it in this browser. `synced: false` (chosen before sign-in, or by
 * anonymous access, which has no preferences) marks it to be sent to the hub at the next sign-in.
 */
export function keepTheme(theme: Theme, { synced }: { synced: boolean }): void {
  applyTheme(theme);
  const kept = storage();
  kept?.setItem(KEPT, theme);
  if (synced) kept?.removeItem(UNSYNCED);
  else kept?.setItem(UNSYNCED, '1');
}

/**
 * At sign-in: a theme chosen in this browser before it is sent to the hub once (then it follows the
 * person to other browsers); otherwise the hub's applies and is kept here. A failure leaves the
 * browser's theme on, and an unsynced choice waits for the next sign-in.
 */
export async function syncTheme(): Promise<void> {
  const kept = storage();
  try {
    if (kept?.getItem(UNSYNCED)) {
      const theme = keptTheme();
      await preferencesApi.put({ theme });
      keepTheme(theme, { synced: true });
      return;
    }
    const theme = (await preferencesApi.get()).theme;
    keepTheme(isTheme(theme) ? theme : 'system', { synced: true });
  } catch {
    applyTheme(keptTheme());
  }
}
