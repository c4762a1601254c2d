// Saved webhooks: list, add (with a signing secret), delete, and a test delivery of one (POST
// /webhooks/{id}/test: one signed webhook.test event sent now, its outcome shown).
import { useState } from 'preact/hooks';
import { type Api, call, type components } from './api.js';
import { RemovableList, SubmitForm } from './forms.js';
import { ErrorBox, Section, useAction, useLoad } from './ui.js';

type TestResult = components['schemas']['WebhookTestResult'];
const path = (id: string) => ({ params: { path: { id } } });

function Outcome({ result }: { result: TestResult }) {
  const status = result.status_code === null ? 'no answer' : `HTTP ${result.status_code}`;
  return (
    <p class={result.success ? 'notice' : 'error'} role="status" data-testid="webhook-test-result">
      {result.success ? 'Test delivered' : 'Test failed'}: {status} in {result.response_time_ms} ms
      {result.signed ? ', signed' : ', unsigned'}
      {result.error_message ? ` — ${result.error_message}` : ''}
    </p>
  );
}

export function Webhooks({ api }: { api: Api }) {
  const list = useLoad(() => call(api.api.GET('/api/v1/webhooks')));
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [tested, setTested] = useState<TestResult | null>(null);
  const action = useAction();
  const add = () =>
    action.run(async () => {
      const body = { name, url, events: ['*' as const], is_active: true, ...(secret ? { secret } : {}) };
      await call(api.api.POST('/api/v1/webhooks', { body }));
      setName('');
      setUrl('');
      setSecret(''); // write only: never kept, never shown back
      list.reload();
    });
  const remove = (id: string) =>
    action.run(async () => {
      await call(api.api.DELETE('/api/v1/webhooks/{id}', path(id)));
      list.reload();
    });
  const test = (id: string) =>
    action.run(async () => {
      setTested(null);
      setTested(await call(api.api.POST('/api/v1/webhooks/{id}/test', path(id))));
    });
  return (
    <Section title="Saved webhooks">
      <ErrorBox error={list.error ?? action.error} />
      {tested && <Outcome result={tested} />}
      <RemovableList
        testId="webhooks"
        items={list.data?.webhooks}
        keyOf={(w) => w.id}
        render={(w) => (
          <>
            <strong>{w.name}</strong> → {w.url} ({(w.events ?? ['*']).join(', ')}
            {w.has_secret ? ', signed' : ''}
            {w.is_active ? '' : ', inactive'})
          </>
        )}
        actions={(w) => (
          <button type="button" class="link" disabled={action.busy} onClick={() => void test(w.id)}>
            Send test
          </button>
        )}
        onRemove={(w) => remove(w.id)}
      />
      <SubmitForm onSubmit={add} submit="Add webhook" busy={action.busy} label="Add a webhook">
        <label>
          Name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          URL <input required type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        <label>
          Signing secret (optional)
          <input
            type="password"
            autocomplete="off"
            value={secret}
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
        </label>
      </SubmitForm>
    </Section>
  );
}
