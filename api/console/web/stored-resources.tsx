// Stored sites and schemas (create, delete) and monitors (pause, resume, delete, change history).
import { useState } from 'preact/hooks';
import { type Api, call } from './api.js';
import { ErrorBox, Section, useAction, useLoad } from './ui.js';

const path = (id: string) => ({ params: { path: { id } } });

function MonitorChanges({ api, id, label }: { api: Api; id: string; label: string }) {
  const [open, setOpen] = useState(false);
  const changes = useLoad(
    async () => (open ? call(api.api.GET('/api/v1/monitors/{id}/changes', path(id))) : null),
    [open],
  );
  return (
    <details onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{label}</summary>
      <ErrorBox error={changes.error} />
      <pre class="json">{changes.data ? JSON.stringify(changes.data, null, 2) : '…'}</pre>
    </details>
  );
}

function Sites({ api }: { api: Api }) {
  const sites = useLoad(() => call(api.api.GET('/api/v1/sites')));
  const [url, setUrl] = useState('');
  const action = useAction();
  const add = () =>
    action.run(async () => {
      await call(api.api.POST('/api/v1/sites', { body: { url } as never }));
      setUrl('');
      sites.reload();
    });
  const remove = (id: string) =>
    action.run(async () => {
      await call(api.api.DELETE('/api/v1/sites/{id}', path(id)));
      sites.reload();
    });
  return (
    <>
      <h3>Sites</h3>
      <ErrorBox error={sites.error ?? action.error} />
      <ul>
        {sites.data?.sites.map((s) => (
          <li key={s.id}>
            {s.name} — {s.url}{' '}
            <button type="button" class="link" onClick={() => void remove(s.id)}>
              Delete
            </button>
          </li>
        ))}
      </ul>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <label>
          Site URL <input required type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={action.busy}>
          Add site
        </button>
      </form>
    </>
  );
}

function Schemas({ api }: { api: Api }) {
  const schemas = useLoad(() => call(api.api.GET('/api/v1/schemas')));
  const [name, setName] = useState('');
  const [yaml, setYaml] = useState('');
  const action = useAction();
  const add = () =>
    action.run(async () => {
      await call(api.api.POST('/api/v1/schemas', { body: { name, schema_yaml: yaml } as never }));
      setName('');
      setYaml('');
      schemas.reload();
    });
  const remove = (id: string) =>
    action.run(async () => {
      await call(api.api.DELETE('/api/v1/schemas/{id}', path(id)));
      schemas.reload();
    });
  return (
    <>
      <h3>Schemas</h3>
      <ErrorBox error={schemas.error ?? action.error} />
      <ul data-testid="stored-schemas">
        {schemas.data?.schemas.map((s) => (
          <li key={s.id}>
            {s.name}
            {s.description ? ` — ${s.description}` : ''}{' '}
            <button type="button" class="link" onClick={() => void remove(s.id)}>
              Delete
            </button>
          </li>
        ))}
      </ul>
      <form
        class="grid"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <label>
          Schema name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Schema (YAML or JSON: a structured schema or a {'{field: type}'} map)
          <textarea required rows={4} value={yaml} onInput={(e) => setYaml(e.currentTarget.value)} />
        </label>
        <div>
          <button type="submit" disabled={action.busy}>
            Save schema
          </button>
        </div>
      </form>
    </>
  );
}

function Monitors({ api }: { api: Api }) {
  const monitors = useLoad(() => call(api.api.GET('/api/v1/monitors')));
  const action = useAction();
  const act = (id: string, what: 'pause' | 'resume' | 'delete') =>
    action.run(async () => {
      if (what === 'delete') await call(api.api.DELETE('/api/v1/monitors/{id}', path(id)));
      else if (what === 'pause') await call(api.api.POST('/api/v1/monitors/{id}/pause', path(id)));
      else await call(api.api.POST('/api/v1/monitors/{id}/resume', path(id)));
      monitors.reload();
    });
  return (
    <>
      <h3>Monitors</h3>
      <ErrorBox error={monitors.error ?? action.error} />
      <ul>
        {monitors.data?.monitors.map((m) => (
          <li key={m.id}>
            <MonitorChanges
              api={api}
              id={m.id}
              label={`${m.name}: ${m.url} (${m.paused ? 'paused' : 'active'}, ${m.run_count} runs, ${m.change_count} changes)`}
            />
            <button type="button" class="link" onClick={() => void act(m.id, m.paused ? 'resume' : 'pause')}>
              {m.paused ? 'Resume' : 'Pause'}
            </button>{' '}
            <button type="button" class="link" onClick={() => void act(m.id, 'delete')}>
              Delete
            </button>
          </li>
        ))}
      </ul>
      {monitors.data?.monitors.length === 0 && (
        <p class="hint">No monitor yet (create one with POST /api/v1/monitors).</p>
      )}
    </>
  );
}

export function Stored({ api }: { api: Api }) {
  return (
    <Section title="Sites, schemas and monitors">
      <Sites api={api} />
      <Schemas api={api} />
      <Monitors api={api} />
    </Section>
  );
}
