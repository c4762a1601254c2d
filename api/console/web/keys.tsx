// API keys: the tenant's keys, a new key (shown once, with its scopes), revoking one.
import { useState } from 'preact/hooks';
import { type Api, call, type components } from './api.js';
import { ErrorBox, Section, useAction, useLoad, when } from './ui.js';

type Scope = components['schemas']['ApiKeyScope'];
const SCOPES: Scope[] = ['full', 'read', 'extract', 'crawl', 'jobs'];

export function KeysPage({ api }: { api: Api }) {
  const keys = useLoad(() => call(api.api.GET('/api/v1/keys')));
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['extract']);
  const [created, setCreated] = useState<components['schemas']['CreatedApiKey'] | null>(null);
  const action = useAction();

  const create = () =>
    action.run(async () => {
      const body = { name: name || 'console key', scopes };
      setCreated(await call(api.api.POST('/api/v1/keys', { body })));
      setName('');
      keys.reload();
    });
  const revoke = (id: string) =>
    action.run(async () => {
      await call(api.api.DELETE('/api/v1/keys/{id}', { params: { path: { id } } }));
      keys.reload();
    });
  const toggle = (scope: Scope) =>
    setScopes((s) => (s.includes(scope) ? s.filter((x) => x !== scope) : [...s, scope]));

  return (
    <>
      <h1>API keys</h1>
      <ErrorBox error={keys.error ?? action.error} />
      <Section title="Create a key">
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
        >
          <label>
            Name{' '}
            <input value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="my script" />
          </label>
          <fieldset>
            <legend>Scopes</legend>
            {SCOPES.map((scope) => (
              <label key={scope} class="check">
                <input type="checkbox" checked={scopes.includes(scope)} onChange={() => toggle(scope)} />{' '}
                {scope}
              </label>
            ))}
          </fieldset>
          <button type="submit" disabled={action.busy || scopes.length === 0}>
            Create key
          </button>
        </form>
        {created && (
          <div class="notice" role="status">
            <p>
              New key <strong>{created.name}</strong> ({created.scopes.join(', ')}). Copy it now: it is not
              shown again.
            </p>
            <code class="secret" data-testid="new-key">
              {created.key}
            </code>
          </div>
        )}
      </Section>
      <Section title="Your keys">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data?.keys.map((k) => (
              <tr key={k.id} data-key-id={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.key_prefix}…</code>
                </td>
                <td>{k.scopes.join(', ')}</td>
                <td>{when(k.created_at)}</td>
                <td>{k.expires_at ? when(k.expires_at) : 'never'}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Revoke key ${k.name}`}
                    onClick={() => confirm(`Revoke the key "${k.name}"?`) && void revoke(k.id)}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
    </>
  );
}
