// Model settings: the tenant's provider keys (written, never shown back) and the ordered fallback chain with
// each model's list price.
import { useState } from 'preact/hooks';
import { type Api, call } from './api.js';
import { RemovableList, SubmitForm } from './forms.js';
import { ErrorBox, Section, useAction, useLoad } from './ui.js';

export const PROVIDERS = ['openai', 'anthropic', 'openrouter', 'ollama', 'openai_compatible'] as const;
type Provider = (typeof PROVIDERS)[number];

export function ModelKeys({ api }: { api: Api }) {
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
      <RemovableList
        testId="model-keys"
        items={keys.data?.keys}
        keyOf={(k) => k.id}
        render={(k) => (
          <>
            <strong>{k.provider}</strong>: {k.has_key ? 'key stored' : 'no key'}
            {k.base_url ? ` (${k.base_url})` : ''}, {k.is_enabled ? 'enabled' : 'disabled'}
          </>
        )}
        removeLabel="Remove"
        onRemove={(k) => remove(k.provider)}
      />
      <SubmitForm onSubmit={save} submit="Save key" busy={action.busy} label="Save a model key">
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
      </SubmitForm>
    </Section>
  );
}

interface ChainRow {
  provider: string;
  model: string;
}

export function Chain({ api }: { api: Api }) {
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
