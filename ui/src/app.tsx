import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { NavGroup } from './components/nav-group';
import { SelfUpdateBanner } from './components/self-update-banner';
import { disconnectLive } from './live';
import { onLinkClick, path } from './router';
import { pendingApprovals, session, signedOut, stream } from './state';
import { Agents } from './views/agents';
import { ApiKeys } from './views/api-keys';
import { AppLog } from './views/app-log';
import { Approvals } from './views/approvals';
import { Audit } from './views/audit';
import { ContainerDetail } from './views/container-detail';
import { Containers } from './views/containers';
import { openInPanel } from './views/containers/open-panel';
import { Dashboard } from './views/dashboard';
import { Images } from './views/images';
import { Notifications } from './views/notifications';
import { Policies } from './views/policies';
import { Rollouts } from './views/rollouts';
import { Security } from './views/security';
import { Settings } from './views/settings';
import { SignIn } from './views/sign-in';
import { System } from './views/system';

/**
 * The views past the fleet, in the order of the navigation: what a person looks at day to day in
 * the header, the hub's own administration behind "Manage" (one line at 1440 px, not fourteen links).
 */
const VIEWS = [
  { path: '/approvals', label: 'Approvals', View: Approvals },
  { path: '/agents', label: 'Agents', View: Agents },
  { path: '/images', label: 'Images', View: Images },
  { path: '/security', label: 'Security', View: Security },
  { path: '/rollouts', label: 'Rollouts', View: Rollouts, manage: true },
  { path: '/policies', label: 'Policies', View: Policies, manage: true },
  { path: '/notifications', label: 'Notifications', View: Notifications, manage: true },
  { path: '/audit', label: 'Audit log', View: Audit, manage: true },
  { path: '/api-keys', label: 'API keys', View: ApiKeys, manage: true },
  { path: '/log', label: 'Log', View: AppLog, manage: true },
  { path: '/settings', label: 'Settings', View: Settings, manage: true },
  { path: '/system', label: 'System', View: System, manage: true },
] as const;
type NavView = (typeof VIEWS)[number];
const isManaged = (view: NavView) => 'manage' in view;

function NavLink({ view, here }: { view: NavView; here: string }) {
  return (
    <a href={view.path} aria-current={here === view.path ? 'page' : undefined}>
      {view.label}
      {view.path === '/approvals' && pendingApprovals.value > 0 && (
        <span class="badge" title={`${pendingApprovals.value} waiting for a decision`}>
          {' '}
          {pendingApprovals.value}
        </span>
      )}
    </a>
  );
}

function View() {
  const current = path.value;
  const detail = /^\/containers\/([^/]+)$/.exec(current);
  if (detail?.[1]) return <ContainerDetail id={decodeURIComponent(detail[1])} />;
  if (current === '/containers') {
    // On a wide screen a container opens beside the list, which stays in view (issue 28).
    const open = openInPanel();
    if (!open) return <Containers />;
    return (
      <div class="with-panel">
        <Containers />
        <ContainerDetail id={open} panel key="panel" />
      </div>
    );
  }
  if (current === '/') return <Dashboard />;
  const view = VIEWS.find((entry) => entry.path === current);
  if (view) return <view.View />;
  return (
    <main id="main" tabIndex={-1}>
      <h1>Not found</h1>
      <p>
        There is no page at this address. <a href="/">Go to the dashboard</a>.
      </p>
    </main>
  );
}

async function signOut() {
  try {
    await api.logout();
  } finally {
    disconnectLive();
    signedOut('You have signed out.');
  }
}

export function App() {
  const current = session.value;
  // On a phone the navigation folds behind a Menu button (styles.css), closed again by each navigation.
  const [menuOpen, setMenuOpen] = useState(false);
  // Each view is a new page for a screen reader: move focus to its heading region.
  useEffect(() => {
    setMenuOpen(false);
    (document.getElementById('panel') ?? document.getElementById('main'))?.focus({ preventScroll: true });
  }, [path.value]);
  if (current.state === 'loading') return <p class="loading">Loading…</p>;
  if (current.state === 'signed-out') return <SignIn />;
  const anonymous = current.user.anonymous === true;
  const here = path.value;
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: one delegated handler turns same-origin links into History navigations
    // biome-ignore lint/a11y/useKeyWithClickEvents: links are followed with the keyboard too (Enter fires click)
    <div class="shell" onClick={onLinkClick}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class={menuOpen ? 'top menu-open' : 'top'}>
        <a class="brand" href="/">
          dockwatch
        </a>
        <button
          type="button"
          class="secondary menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen(!menuOpen)}
          onKeyDown={(event) => event.key === 'Escape' && setMenuOpen(false)}
        >
          Menu
        </button>
        <nav id="main-nav" aria-label="Main">
          <a href="/" aria-current={here === '/' ? 'page' : undefined}>
            Dashboard
          </a>
          <a href="/containers" aria-current={here.startsWith('/containers') ? 'page' : undefined}>
            Containers
          </a>
          {VIEWS.filter((view) => !isManaged(view)).map((view) => (
            <NavLink key={view.path} view={view} here={here} />
          ))}
          <NavGroup label="Manage" here={here} current={VIEWS.some((view) => isManaged(view) && view.path === here)}>
            {VIEWS.filter(isManaged).map((view) => (
              <NavLink key={view.path} view={view} here={here} />
            ))}
          </NavGroup>
        </nav>
        <span class="user">
          {anonymous ? 'Anonymous access' : current.user.username}
          {!anonymous && (
            <button type="button" class="secondary" onClick={signOut}>
              Sign out
            </button>
          )}
        </span>
      </header>
      <SelfUpdateBanner />
      {stream.value === 'lost' && (
        <div class="banner" role="alert">
          The hub cannot be reached. Reconnecting… Changes will appear again once it is back.
        </div>
      )}
      <View />
    </div>
  );
}
