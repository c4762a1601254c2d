// Stored sites: add by URL, edit in place (PUT /sites/{id}: name, fetch mode, crawl limits and follow
// pattern, learning), delete.
import { useState } from 'preact/hooks';
import { type Api, call, type components } from './api.js';
import { RemovableList, SubmitForm } from './forms.js';
import { ErrorBox, useAction, useLoad } from './ui.js';

type Site = components['schemas']['Site'];
type FetchMode = Site['fetch_mode'];
const FETCH_MODES: FetchMode[] = ['auto', 'static', 'dynamic'];
const path = (id: string) => ({ params: { path: { id } } });
const numberOrNull = (text: string) => (text.trim() === '' ? null : Number(text));

function EditSite({ api, site, done }: { api: Api; site: Site; done: (saved: boolean) => void }) {
  const [name, setName] = useState(site.name);
  const [fetchMode, setFetchMode] = useState<FetchMode>(site.fetch_mode);
  const [maxPages, setMaxPages] = useState(String(site.crawl_options.max_pages ?? ''));
  const [maxDepth, setMaxDepth] = useState(String(site.crawl_options.max_depth ?? ''));
  const [follow, setFollow] = useState(site.crawl_options.follow_pattern ?? '');
  const [learn, setLearn] = useState(site.learn_extractors);
  const action = useAction();
  const save = () =>
    action.run(async () => {
      const crawl_options = {
        ...site.crawl_options, // the options replace the stored ones as a whole: keep those not edited here
        max_pages: numberOrNull(maxPages),
        max_depth: numberOrNull(maxDepth),
        follow_pattern: follow.trim() || null,
      };
      const body = { name, fetch_mode: fetchMode, learn_extractors: learn, crawl_options };
      await call(api.api.PUT('/api/v1/sites/{id}', { ...path(site.id), body }));
      done(true);
    });
  return (
    <SubmitForm
      layout="grid"
      label={`Edit site ${site.name}`}
      onSubmit={save}
      submit="Save site"
      busy={action.busy}
      onCancel={() => done(false)}
    >
      <ErrorBox error={action.error} />
      <label>
        Site name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Fetch mode
        <select value={fetchMode} onChange={(e) => setFetchMode(e.currentTarget.value as FetchMode)}>
          {FETCH_MODES.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
      </label>
      <label>
        Max pages per crawl
        <input
          type="number"
          min={1}
          max={10000}
          value={maxPages}
          onInput={(e) => setMaxPages(e.currentTarget.value)}
        />
      </label>
      <label>
        Max depth
        <input
          type="number"
          min={0}
          max={10}
          value={maxDepth}
          onInput={(e) => setMaxDepth(e.currentTarget.value)}
        />
      </label>
      <label>
        Follow pattern (RE2 on absolute URLs)
        <input value={follow} onInput={(e) => setFollow(e.currentTarget.value)} />
      </label>
      <label class="check">
        <input type="checkbox" checked={learn} onChange={(e) => setLearn(e.currentTarget.checked)} /> Learn
        extractors
      </label>
    </SubmitForm>
  );
}

export function Sites({ api }: { api: Api }) {
  const sites = useLoad(() => call(api.api.GET('/api/v1/sites')));
  const [url, setUrl] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
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
  const done = (saved: boolean) => {
    setEditing(null);
    if (saved) sites.reload();
  };
  return (
    <>
      <h3>Sites</h3>
      <ErrorBox error={sites.error ?? action.error} />
      <RemovableList
        testId="stored-sites"
        items={sites.data?.sites}
        keyOf={(s) => s.id}
        render={(s) =>
          editing === s.id ? (
            <EditSite api={api} site={s} done={done} />
          ) : (
            <>
              {s.name} — {s.url} ({s.fetch_mode}
              {s.crawl_options.max_pages ? `, at most ${s.crawl_options.max_pages} pages` : ''})
            </>
          )
        }
        actions={(s) =>
          editing !== s.id && (
            <button type="button" class="link" onClick={() => setEditing(s.id)}>
              Edit
            </button>
          )
        }
        onRemove={(s) => remove(s.id)}
      />
      <SubmitForm onSubmit={add} submit="Add site" busy={action.busy} label="Add a site">
        <label>
          Site URL <input required type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
      </SubmitForm>
    </>
  );
}
