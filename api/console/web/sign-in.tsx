// Signing in with an API key that may manage keys (a sign-in link from the operator signs in by itself).
import { useState } from 'preact/hooks';
import { type SessionInfo, signIn } from './api.js';
import { ErrorBox, useAction } from './ui.js';

export function SignInPage(props: { error: unknown; onSignedIn: (s: SessionInfo) => void }) {
  const [key, setKey] = useState('');
  const { busy, error, run } = useAction();
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to the console</h1>
      <p>
        Open the one-time sign-in link that <code>npm start</code> (first start) or{' '}
        <code>npm run admin -- sign-in-link --tenant &lt;name&gt;</code> printed, or sign in with an API key
        of scope <em>full</em>. The key is sent once; the browser keeps only a session cookie.
      </p>
      <ErrorBox error={error ?? props.error} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => props.onSignedIn(await signIn({ api_key: key.trim() })));
        }}
      >
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
          required
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p>
        The API reference is at <a href="/docs">/docs</a>.
      </p>
    </main>
  );
}
