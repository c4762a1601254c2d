// Monitors: create one (an extract of a URL, or a crawl of a stored site, on a schedule), pause, resume, run
// now, delete, and each one's change history.
import { useState } from 'preact/hooks';
import { type Api, call } from './api.js';
import { RemovableList, SubmitForm } from './forms.js';
import { schemaValue } from './playground.js';
import { ErrorBox, useAction, useLoad } from './ui.js';

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

/** "15m", "6h", "1d": an interval; anything else is read as a cron expression (the API checks both). */
const scheduleOf = (text: string) =>
  /^\d+[smhd]$/.test(text.trim()) ? { every: text.trim() } : { cron: text.trim() };

function NewMonitor({ api, created }: { api: Api; created: () => void }) {
  const sites = useLoad(() => call(api.api.GET('/api/v1/sites')));
  const [name, setName] = useState('');
  const [source, setSource] = useState(''); // '' = the URL below, else a stored site's id
  const [url, setUrl] = useState('');
  const [schema, setSchema] = useState('');
  const [schedule, setSchedule] = useState('1d');
  const [keyField, setKeyField] = useState('');
  const action = useAction();
  const create = () =>
    action.run(async () => {
      const runs = source ? { site_id: source } : { extract: { url, schema: schemaValue(schema) } };
      const body = {
        ...(name ? { name } : {}),
        schedule: scheduleOf(schedule),
        ...(keyField ? { key_field: keyField } : {}),
        ...runs,
      };
      await call(api.api.POST('/api/v1/monitors', { body: body as never }));
      setName('');
      setUrl('');
      setSchema('');
      created();
    });
  return (
    <SubmitForm
      layout="grid"
      onSubmit={create}
      submit="Create monitor"
      busy={action.busy}
      label="New monitor"
    >
      <ErrorBox error={action.error} />
      <label>
        Monitor name (optional) <input value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Each run
        <select value={source} onChange={(e) => setSource(e.currentTarget.value)}>
          <option value="">extracts the URL below</option>
          {sites.data?.sites.map((s) => (
            <option key={s.id} value={s.id}>
              crawls the stored site {s.name}
            </option>
          ))}
        </select>
      </label>
      {!source && (
        <>
          <label>
            Monitored URL
            <input required type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
          </label>
          <label>
            Monitor schema (a {'{field: type}'} map, a structured schema or a prompt)
            <textarea required rows={3} value={schema} onInput={(e) => setSchema(e.currentTarget.value)} />
          </label>
        </>
      )}
      <label>
        Schedule (every 15m, 6h, 1d… or a cron expression, UTC)
        <input required value={schedule} onInput={(e) => setSchedule(e.currentTarget.value)} />
      </label>
      <label>
        Key field (optional: matches records between runs by this field, e.g. sku)
        <input value={keyField} onInput={(e) => setKeyField(e.currentTarget.value)} />
      </label>
    </SubmitForm>
  );
}

export function Monitors({ api }: { api: Api }) {
  const monitors = useLoad(() => call(api.api.GET('/api/v1/monitors')));
  const action = useAction();
  const act = (id: string, what: 'pause' | 'resume' | 'trigger' | 'delete') =>
    action.run(async () => {
      if (what === 'delete') await call(api.api.DELETE('/api/v1/monitors/{id}', path(id)));
      else if (what === 'pause') await call(api.api.POST('/api/v1/monitors/{id}/pause', path(id)));
      else if (what === 'resume') await call(api.api.POST('/api/v1/monitors/{id}/resume', path(id)));
      else await call(api.api.POST('/api/v1/monitors/{id}/trigger', path(id)));
      monitors.reload();
    });
  return (
    <>
      <h3>Monitors</h3>
      <ErrorBox error={monitors.error ?? action.error} />
      <RemovableList
        testId="monitors"
        items={monitors.data?.monitors}
        keyOf={(m) => m.id}
        render={(m) => (
          <MonitorChanges
            api={api}
            id={m.id}
            label={`${m.name}: ${m.url} (${m.paused ? 'paused' : 'active'}, ${m.run_count} runs, ${m.change_count} changes)`}
          />
        )}
        actions={(m) => (
          <>
            {!m.paused && (
              <button type="button" class="link" onClick={() => void act(m.id, 'trigger')}>
                Run now
              </button>
            )}{' '}
            <button type="button" class="link" onClick={() => void act(m.id, m.paused ? 'resume' : 'pause')}>
              {m.paused ? 'Resume' : 'Pause'}
            </button>{' '}
          </>
        )}
        onRemove={(m) => act(m.id, 'delete')}
      />
      {monitors.data?.monitors.length === 0 && <p class="hint">No monitor yet.</p>}
      <h4>New monitor</h4>
      <NewMonitor api={api} created={monitors.reload} />
    </>
  );
}
