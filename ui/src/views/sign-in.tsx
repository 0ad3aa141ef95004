import { useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { ThemePicker } from '../components/theme-picker';
import { session } from '../state';
import { keepTheme, keptTheme, type Theme } from '../theme';
import { useAction } from '../use-action';

/** Basic sign-in (the code field is for users with TOTP or a recovery code) and one button per OIDC provider. */
export function SignIn() {
  const current = session.value;
  const status = current.state === 'signed-out' ? current.status : undefined;
  const notice = current.state === 'signed-out' ? current.message : undefined;
  const { busy, error, run } = useAction();
  const [theme, setTheme] = useState<Theme>(keptTheme);
  const basic = status?.providers.some((p) => p.type === 'basic') ?? false;
  const oidc = status?.providers.filter((p) => p.type === 'oidc') ?? [];

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const code = String(form.get('code') ?? '').trim();
    await run(async () => {
      const user = await api
        .login({
          username: String(form.get('username') ?? ''),
          password: String(form.get('password') ?? ''),
          ...(code && (/^\d{6,8}$/.test(code) ? { otp: code } : { recoveryCode: code })),
        })
        .catch((failure: unknown) => {
          if (failure instanceof ApiError && failure.status === 401)
            throw new Error('The username, password or code is not right. Please try again.');
          throw failure;
        });
      if (status) session.value = { state: 'signed-in', status, user };
    });
  }
  // Kept in this browser, and sent to the hub's preferences once signed in (theme.ts syncTheme).
  const chooseTheme = (next: Theme) => {
    setTheme(next);
    keepTheme(next, { synced: false });
  };

  return (
    <main id="main" class="sign-in" tabIndex={-1}>
      <h1>Sign in to dockwatch</h1>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {status?.errors.map((problem) => (
        <p class="notice" key={problem}>
          {problem}
        </p>
      ))}
      {basic && (
        <form onSubmit={submit} class="card stack" aria-describedby={error ? 'sign-in-error' : undefined}>
          <label>
            Username
            <input name="username" autocomplete="username" required />
          </label>
          <label>
            Password
            <input name="password" type="password" autocomplete="current-password" required />
          </label>
          <label>
            Two-factor or recovery code <span class="hint">(only if your account has one)</span>
            <input name="code" autocomplete="one-time-code" inputMode="text" maxLength={200} />
          </label>
          {error && (
            <p id="sign-in-error" class="error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      )}
      {oidc.length > 0 && (
        <div class="stack">
          {oidc.map((provider) => (
            <a
              class="button secondary"
              key={provider.name}
              href={`/api/v1/auth/oidc/${encodeURIComponent(provider.name)}/redirect`}
              rel="external"
            >
              Sign in with {provider.name}
            </a>
          ))}
        </div>
      )}
      {!basic && oidc.length === 0 && status && <p>No sign-in method is configured on this hub.</p>}
      <ThemePicker value={theme} onChoose={chooseTheme} />
    </main>
  );
}
