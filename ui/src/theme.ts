import { call } from './api';

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];
/** The synced UI preferences (http-interface §4.12): a free-form record; this UI keeps its theme there. */
export type Preferences = Record<string, unknown> & { theme?: Theme };

export const preferencesApi = {
  get: () => call<Preferences>('/preferences'),
  put: (preferences: Preferences) => call<Preferences>('/preferences', { method: 'PATCH', body: preferences }),
};

/** `system` follows prefers-color-scheme (the stylesheet's default); light or dark override it. */
export function applyTheme(theme: unknown): void {
  const root = document.documentElement;
  if (theme === 'light' || theme === 'dark') root.dataset['theme'] = theme;
  else delete root.dataset['theme'];
}

/** A signed-in person's theme, once per sign-in; anonymous sessions have no preferences (403), so the system's applies. */
export async function loadTheme(): Promise<void> {
  try {
    applyTheme((await preferencesApi.get()).theme);
  } catch {
    applyTheme('system');
  }
}
