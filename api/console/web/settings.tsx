// Settings: model keys (never shown back), the fallback chain with each model's price, saved webhooks, stored
// sites and schemas, monitors with their change history, and usage and cost over time.
import { useState } from 'preact/hooks';
import { type Api, call, type components } from './api.js';
import { ErrorBox, Section, usd, useAction, useLoad, when } from './ui.js';

type Usage = components['schemas']['Usage'];
const PROVIDERS = ['openai', 'anthropic', 'openrouter', 'ollama', 'openai_compatible'] as const;
type Provider = (typeof PROVIDERS)[number];

function ModelKeys({ api }: { api: Api }) {
  const keys = useLoad(() => call(api.api.GET('/api/v1/llm/keys')));
  const [provider, setProvider] = useState<Provider>('openai');
  const [secret, setSecret] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const action = useAction();
  const save = () =>
    action.run(async () => {
      const body = { provider, api_key: secret, is_enabled: true, ...(baseUrl ? { base_url: baseUrl } : {}) };
      await call(api.api.PUT('/api/v1/llm/keys', { body }));
      setSecret(''); // never kept, never shown back
      keys.reload();
    });
  const remove = (name: string) =>
    action.run(async () => {
      await call(api.api.DELETE('/api/v1/llm/keys/{provider}', { params: { path: { provider: name } } }));
      keys.reload();
    });
  return (
    <Section title="Model keys">
      <ErrorBox error={keys.error ?? action.error} />
      <ul data-testid="model-keys">
        {keys.data?.keys.map((k) => (
          <li key={k.id}>
            <strong>{k.provider}</strong>: {k.has_key ? 'key stored' : 'no key'}
            {k.base_url ? ` (${k.base_url})` : ''}, {k.is_enabled ? 'enabled' : 'disabled'}{' '}
            <button type="button" class="link" onClick={() => void remove(k.provider)}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label>
          Provider
          <select value={provider} onChange={(e) => setProvider(e.currentTarget.value as Provider)}>
            {PROVIDERS.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>
        <label>
          API key
          <input
            type="password"
            autocomplete="off"
            value={secret}
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
        </label>
        <label>
          Base URL (optional)
          <input type="url" value={baseUrl} onInput={(e) => setBaseUrl(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={action.busy}>
          Save key
        </button>
      </form>
    </Section>
  );
}

interface ChainRow {
  provider: string;
  model: string;
}

function Chain({ api }: { api: Api }) {
  const [rows, setRows] = useState<ChainRow[] | null>(null);
  const chain = useLoad(async () => {
    const c = await call(api.api.GET('/api/v1/llm/chain'));
    setRows(c.chain.map((e) => ({ provider: e.provider, model: e.model })));
    return c;
  });
  const providers = [...new Set((rows ?? []).map((r) => r.provider))].sort();
  const prices = useLoad(async () => {
    const all = await Promise.all(
      providers.map((provider) =>
        call(api.api.GET('/api/v1/llm/models/{provider}', { params: { path: { provider } } })).catch(
          () => null,
        ),
      ),
    );
    const map = new Map<string, string>();
    for (const list of all)
      for (const m of list?.models ?? [])
        map.set(
          `${list?.provider}/${m.id}`,
          m.input_price_per_mtok == null
            ? 'price unknown'
            : `$${m.input_price_per_mtok} / $${m.output_price_per_mtok} per Mtok`,
        );
    return map;
  }, [providers.join()]);
  const action = useAction();
  const edit = (i: number, patch: Partial<ChainRow>) =>
    setRows((r) => (r ?? []).map((row, j) => (j === i ? { ...row, ...patch } : row)));
  const move = (i: number, by: number) =>
    setRows((r) => {
      const next = [...(r ?? [])];
      const [row] = next.splice(i, 1);
      if (row) next.splice(Math.max(0, i + by), 0, row);
      return next;
    });
  const save = () =>
    action.run(async () => {
      await call(
        api.api.PUT('/api/v1/llm/chain', { body: { chain: (rows ?? []).map((r) => ({ ...r })) } as never }),
      );
      chain.reload();
    });
  return (
    <Section title="Fallback chain">
      <p>Tried in order; empty means the service's default chain.</p>
      <ErrorBox error={chain.error ?? action.error} />
      <ol class="chain">
        {(rows ?? []).map((row, i) => (
          <li key={i} class="row">
            <label>
              Provider
              <select value={row.provider} onChange={(e) => edit(i, { provider: e.currentTarget.value })}>
                {PROVIDERS.map((p) => (
                  <option key={p}>{p}</option>
                ))}
              </select>
            </label>
            <label>
              Model
              <input value={row.model} onInput={(e) => edit(i, { model: e.currentTarget.value })} />
            </label>
            <span class="hint">{prices.data?.get(`${row.provider}/${row.model}`) ?? ''}</span>
            <button type="button" aria-label={`Move entry ${i + 1} up`} onClick={() => move(i, -1)}>
              ↑
            </button>
            <button
              type="button"
              aria-label={`Remove entry ${i + 1}`}
              onClick={() => setRows((r) => (r ?? []).filter((_, j) => j !== i))}
            >
              ✕
            </button>
          </li>
        ))}
      </ol>
      <div class="row">
        <button
          type="button"
          onClick={() => setRows((r) => [...(r ?? []), { provider: 'openai', model: '' }])}
        >
          Add model
        </button>
        <button type="button" disabled={action.busy} onClick={() => void save()}>
          Save chain
        </button>
      </div>
      {chain.data && (
        <p class="hint" data-testid="saved-chain">
          Saved: {chain.data.chain.map((e) => `${e.provider}/${e.model}`).join(' → ') || 'service default'}
        </p>
      )}
    </Section>
  );
}

function Webhooks({ api }: { api: Api }) {
  const list = useLoad(() => call(api.api.GET('/api/v1/webhooks')));
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const action = useAction();
  const add = () =>
    action.run(async () => {
      await call(api.api.POST('/api/v1/webhooks', { body: { name, url, events: ['*'] } as never }));
      setName('');
      setUrl('');
      list.reload();
    });
  const remove = (id: string) =>
    action.run(async () => {
      await call(api.api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } }));
      list.reload();
    });
  return (
    <Section title="Saved webhooks">
      <ErrorBox error={list.error ?? action.error} />
      <ul>
        {list.data?.webhooks.map((w) => (
          <li key={w.id}>
            <strong>{w.name}</strong> → {w.url} ({(w.events ?? []).join(', ')}){' '}
            <button type="button" class="link" onClick={() => void remove(w.id)}>
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
          Name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          URL <input required type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        <button type="submit">Add webhook</button>
      </form>
    </Section>
  );
}

function Stored({ api }: { api: Api }) {
  const sites = useLoad(() => call(api.api.GET('/api/v1/sites')));
  const schemas = useLoad(() => call(api.api.GET('/api/v1/schemas')));
  const monitors = useLoad(() => call(api.api.GET('/api/v1/monitors')));
  return (
    <Section title="Sites, schemas and monitors">
      <ErrorBox error={sites.error ?? schemas.error ?? monitors.error} />
      <h3>Sites</h3>
      <ul>
        {sites.data?.sites.map((s) => (
          <li key={s.id}>
            {s.name} — {s.url}
          </li>
        ))}
      </ul>
      {sites.data?.sites.length === 0 && <p class="hint">No stored site (POST /api/v1/sites).</p>}
      <h3>Schemas</h3>
      <ul>
        {schemas.data?.schemas.map((s) => (
          <li key={s.id}>
            {s.name}
            {s.description ? ` — ${s.description}` : ''}
          </li>
        ))}
      </ul>
      {schemas.data?.schemas.length === 0 && <p class="hint">No stored schema (POST /api/v1/schemas).</p>}
      <h3>Monitors</h3>
      <ul>
        {monitors.data?.monitors.map((m) => (
          <li key={m.id}>
            <MonitorChanges
              api={api}
              id={m.id}
              label={`${m.name}: ${m.url} (${m.paused ? 'paused' : 'active'}, ${m.run_count} runs, ${m.change_count} changes)`}
            />
          </li>
        ))}
      </ul>
      {monitors.data?.monitors.length === 0 && <p class="hint">No monitor (POST /api/v1/monitors).</p>}
    </Section>
  );
}

function MonitorChanges({ api, id, label }: { api: Api; id: string; label: string }) {
  const [open, setOpen] = useState(false);
  const changes = useLoad(
    async () =>
      open ? call(api.api.GET('/api/v1/monitors/{id}/changes', { params: { path: { id } } })) : null,
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

/** Charged USD per day as bars (an SVG drawn here: no chart library, no inline styles). */
function UsageChart({ usage }: { usage: Usage }) {
  const days = usage.by_day;
  const max = Math.max(0.000001, ...days.map((d) => d.charged_usd));
  const width = Math.max(300, days.length * 24);
  return (
    <svg class="chart" viewBox={`0 0 ${width} 120`} role="img" aria-label="Charged USD per day">
      {days.map((d, i) => {
        const h = Math.max(1, (d.charged_usd / max) * 100);
        return (
          <g key={d.date}>
            <title>{`${d.date}: ${usd(d.charged_usd)}, ${d.jobs} jobs`}</title>
            <rect x={i * 24 + 4} y={105 - h} width={16} height={h} />
            <text x={i * 24 + 12} y={117} text-anchor="middle">
              {d.date.slice(8)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

function UsageView({ api }: { api: Api }) {
  const usage = useLoad(() => call(api.api.GET('/api/v1/usage')));
  const u = usage.data;
  return (
    <Section title="Usage this month">
      <ErrorBox error={usage.error} />
      {u && (
        <>
          <p>
            {u.total_jobs} jobs ({u.byok_jobs} on your keys), {u.input_tokens} / {u.output_tokens} tokens,
            charged {usd(u.total_charged_usd)} (model list price {usd(u.llm_cost_usd)}),{' '}
            {when(`${u.from}T00:00:00Z`)} – {u.to}
          </p>
          <UsageChart usage={u} />
        </>
      )}
    </Section>
  );
}

export function SettingsPage({ api }: { api: Api }) {
  return (
    <>
      <h1>Settings</h1>
      <ModelKeys api={api} />
      <Chain api={api} />
      <Webhooks api={api} />
      <Stored api={api} />
      <UsageView api={api} />
    </>
  );
}
