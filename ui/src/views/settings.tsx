import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../shared/error-message';
import { adminApi, type Settings as HubSettings } from '../admin-api';
import { ErrorText } from '../components/error-text';
import { ThemePicker } from '../components/theme-picker';
import { session } from '../state';
import { isTheme, keepTheme, keptTheme, preferencesApi, type Theme } from '../theme';
import { useAction } from '../use-action';

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
      {anonymous ? <BrowserPreferences /> : <PreferencesForm />}
    </main>
  );
}

function HubSettingsForm() {
  const [settings, setSettings] = useState<HubSettings | undefined>();
  const [saved, setSaved] = useState<string | undefined>();
  const { error, setError, run } = useAction();

  useEffect(() => {
    adminApi.settings().then(setSettings, (failure: unknown) => setError(errorMessage(failure)));
  }, []);

  async function patch(change: Partial<HubSettings>) {
    setSaved(undefined);
    await run(async () => {
      setSettings(await adminApi.patchSettings(change));
      setSaved('Saved.');
    });
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
      (preferences) => setTheme(isTheme(preferences.theme) ? preferences.theme : 'system'),
      (failure: unknown) => setError(errorMessage(failure)),
    );
  }, []);

  async function choose(next: Theme) {
    const previous = theme ?? 'system';
    setTheme(next);
    keepTheme(next, { synced: false });
    try {
      await preferencesApi.put({ theme: next });
      keepTheme(next, { synced: true });
      setError(undefined);
    } catch (failure) {
      setTheme(previous);
      keepTheme(previous, { synced: true });
      setError(errorMessage(failure));
    }
  }

  return (
    <section class="card" aria-labelledby="preferences">
      <h2 id="preferences">Your preferences</h2>
      <ErrorText message={error} />
      {theme && <ThemePicker value={theme} onChoose={choose} />}
    </section>
  );
}

/** Anonymous access has no preferences on the hub (403): the theme is kept in this browser only. */
function BrowserPreferences() {
  const [theme, setTheme] = useState<Theme>(keptTheme);
  const choose = (next: Theme) => {
    setTheme(next);
    keepTheme(next, { synced: false });
  };
  return (
    <section class="card" aria-labelledby="preferences">
      <h2 id="preferences">Your preferences</h2>
      <p class="hint">Anonymous access keeps no preferences on the hub: this browser keeps your theme.</p>
      <ThemePicker value={theme} onChoose={choose} />
    </section>
  );
}
