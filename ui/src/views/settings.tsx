import { useEffect, useState } from 'preact/hooks';
import { adminApi, type Settings as HubSettings } from '../admin-api';
import { ErrorText } from '../components/error-text';
import { session } from '../state';
import { applyTheme, preferencesApi, THEMES, type Theme } from '../theme';

const UPDATE_MODES: readonly { value: HubSettings['updateMode']; label: string }[] = [
  { value: 'notify', label: 'Notify only: never update' },
  { value: 'manual', label: 'Manual: a person starts each update' },
  { value: 'auto', label: 'Automatic: update when a policy allows' },
];

/** The hub's settings (http-interface §2.13, §4.12) and this person's preferences, synced across browsers. */
export function Settings() {
  const current = session.value;
  const anonymous = current.state === 'signed-in' && current.user.anonymous === true;
  return (
    <main id="main" tabIndex={-1}>
      <h1>Settings</h1>
      <HubSettingsForm />
      {anonymous ? (
        <section class="card" aria-labelledby="preferences">
          <h2 id="preferences">Your preferences</h2>
          <p>Anonymous access keeps no preferences: the theme follows your system.</p>
        </section>
      ) : (
        <PreferencesForm />
      )}
    </main>
  );
}

function HubSettingsForm() {
  const [settings, setSettings] = useState<HubSettings | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [saved, setSaved] = useState<string | undefined>();

  useEffect(() => {
    adminApi.settings().then(setSettings, (failure: Error) => setError(failure.message));
  }, []);

  async function patch(change: Partial<HubSettings>) {
    setSaved(undefined);
    try {
      setSettings(await adminApi.patchSettings(change));
      setError(undefined);
      setSaved('Saved.');
    } catch (failure) {
      setError((failure as Error).message);
    }
  }

  return (
    <section class="card" aria-labelledby="hub-settings">
      <h2 id="hub-settings">Hub</h2>
      <ErrorText message={error} />
      {settings && (
        <div class="stack">
          <label>
            Updates
            <select
              value={settings.updateMode}
              onChange={(e) => patch({ updateMode: e.currentTarget.value as HubSettings['updateMode'] })}
            >
              {UPDATE_MODES.map((mode) => (
                <option key={mode.value} value={mode.value}>
                  {mode.label}
                </option>
              ))}
            </select>
          </label>
          <label class="check">
            <input
              type="checkbox"
              checked={settings.internetlessMode}
              onChange={(e) => patch({ internetlessMode: e.currentTarget.checked })}
            />
            No internet: skip registry icon look-ups and other outside requests
          </label>
          {saved && <p role="status">{saved}</p>}
        </div>
      )}
    </section>
  );
}

function PreferencesForm() {
  const [theme, setTheme] = useState<Theme | undefined>();
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    preferencesApi.get().then(
      (preferences) => setTheme(THEMES.includes(preferences.theme as Theme) ? (preferences.theme as Theme) : 'system'),
      (failure: Error) => setError(failure.message),
    );
  }, []);

  async function choose(next: Theme) {
    const previous = theme;
    setTheme(next);
    applyTheme(next);
    try {
      await preferencesApi.put({ theme: next });
      setError(undefined);
    } catch (failure) {
      setTheme(previous);
      applyTheme(previous);
      setError((failure as Error).message);
    }
  }

  return (
    <section class="card" aria-labelledby="preferences">
      <h2 id="preferences">Your preferences</h2>
      <ErrorText message={error} />
      {theme && (
        <fieldset class="inline-checks">
          <legend>Theme</legend>
          {THEMES.map((option) => (
            <label class="check" key={option}>
              <input
                type="radio"
                name="theme"
                value={option}
                checked={theme === option}
                onChange={() => choose(option)}
              />
              {option === 'system' ? 'As the system' : option === 'light' ? 'Light' : 'Dark'}
            </label>
          ))}
        </fieldset>
      )}
    </section>
  );
}
