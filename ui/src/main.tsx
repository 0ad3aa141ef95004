import { effect } from '@preact/signals';
import { render } from 'preact';
import { errorMessage } from '../../shared/error-message';
import { ApiError, api, setUnauthorizedHandler } from './api';
import { App } from './app';
import { connectLive, disconnectLive } from './live';
import { reloadState, session, signedOut } from './state';
import { applyTheme, keptTheme, syncTheme } from './theme';
import './styles.css';

setUnauthorizedHandler((message) => {
  if (session.value.state !== 'signed-in') return;
  disconnectLive();
  signedOut(message);
});

/** Anonymous hubs go straight in; otherwise a live session does, or the sign-in view shows. */
async function start(): Promise<void> {
  let status: Awaited<ReturnType<typeof api.authStatus>>;
  try {
    status = await api.authStatus();
  } catch (error) {
    session.value = { state: 'signed-out', status: undefined, message: errorMessage(error) };
    return;
  }
  if (status.providers.some((p) => p.type === 'anonymous')) {
    session.value = { state: 'signed-in', status, user: { username: 'anonymous', anonymous: true } };
    return;
  }
  try {
    session.value = { state: 'signed-in', status, user: await api.user() };
  } catch (error) {
    session.value = {
      state: 'signed-out',
      status,
      message: error instanceof ApiError && error.status !== 401 ? error.message : undefined,
    };
  }
}

// Signing in (at start or through the form) loads the state and opens the one event stream.
let live = false;
effect(() => {
  const signedIn = session.value.state === 'signed-in';
  if (signedIn && !live) {
    live = true;
    void reloadState();
    connectLive();
    if (session.value.state === 'signed-in' && !session.value.user.anonymous) void syncTheme();
  } else if (!signedIn && live) {
    live = false;
    disconnectLive();
    applyTheme(keptTheme());
  }
});

// The browser's theme from the first paint: the sign-in page too, before anyone is known.
applyTheme(keptTheme());

const root = document.getElementById('app');
if (root) render(<App />, root);
void start();
