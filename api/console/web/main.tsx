// The console's shell: who is signed in, the navigation, and the screen the location's hash names
// (#/jobs, #/jobs/<id>, #/playground, #/keys, #/settings). A sign-in link opens it at #sign-in=<token>.
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { type Api, clientFor, currentSession, type SessionInfo, signIn, signOut } from './api.js';
import { JobPage } from './job-page.js';
import { JobsPage } from './jobs.js';
import { KeysPage } from './keys.js';
import { PlaygroundPage } from './playground.js';
import { SettingsPage } from './settings.js';
import { SignInPage } from './sign-in.js';
import { Busy, ErrorBox } from './ui.js';

const NAV = [
  ['#/playground', 'Playground'],
  ['#/jobs', 'Jobs'],
  ['#/keys', 'API keys'],
  ['#/settings', 'Settings'],
] as const;

function useHash() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function Screen({ hash, api, tenantId }: { hash: string; api: Api; tenantId: string }) {
  const [, page, id] = hash.split('/');
  if (page === 'jobs' && id) return <JobPage api={api} id={decodeURIComponent(id)} />;
  if (page === 'playground') return <PlaygroundPage api={api} />;
  if (page === 'keys') return <KeysPage api={api} />;
  if (page === 'settings') return <SettingsPage api={api} tenantId={tenantId} />;
  return <JobsPage api={api} />;
}

function App() {
  const hash = useHash();
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const api = useMemo(() => (session ? clientFor(session) : null), [session]);

  // A sign-in link (#sign-in=<token>), on load or pasted into a tab already open here.
  const link = /^#sign-in=([\w-]+)$/.exec(hash)?.[1];
  useEffect(() => {
    if (link) {
      history.replaceState(null, '', '/#/jobs'); // the token leaves the address bar and the history
      dispatchEvent(new HashChangeEvent('hashchange'));
      signIn({ link_token: link }).then(
        (s) => {
          setError(null);
          setSession(s);
        },
        (err) => {
          setError(err);
          setSession(null);
        },
      );
      return;
    }
    if (session !== undefined) return;
    currentSession().then(setSession, (err) => {
      setError(err);
      setSession(null);
    });
  }, [link, session]);

  if (session === undefined) return <Busy text="Loading the console…" />;
  if (session === null || !api) return <SignInPage error={error} onSignedIn={setSession} />;
  const current = `#/${hash.split('/')[1] || 'jobs'}`;
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href="#/jobs">
          Extraction console
        </a>
        <nav aria-label="Main">
          {NAV.map(([href, label]) => (
            <a key={href} href={href} aria-current={current === href ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="who">
          {session.tenant.name}
          <button
            type="button"
            class="link"
            onClick={() => signOut(session).then(() => setSession(null), setError)}
          >
            Sign out
          </button>
        </span>
      </header>
      <main id="main">
        <ErrorBox error={error} />
        <Screen hash={hash} api={api} tenantId={session.tenant.id} />
      </main>
    </div>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
