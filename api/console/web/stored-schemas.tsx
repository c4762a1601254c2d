// Stored schemas: the tenant's own (save, edit in place through PUT /schemas/{id}, delete) and other tenants'
// public ones (listed, read only).
import { useState } from 'preact/hooks';
import { type Api, call, type components } from './api.js';
import { RemovableList, SubmitForm } from './forms.js';
import { ErrorBox, useAction, useLoad } from './ui.js';

type StoredSchema = components['schemas']['StoredSchema'];
type Visibility = StoredSchema['visibility'];
const path = (id: string) => ({ params: { path: { id } } });

/** Name, description, YAML and visibility: the fields both the new-schema and the edit form hold. */
function SchemaFields({ value, set }: { value: SchemaDraft; set: (next: SchemaDraft) => void }) {
  return (
    <>
      <label>
        Schema name{' '}
        <input required value={value.name} onInput={(e) => set({ ...value, name: e.currentTarget.value })} />
      </label>
      <label>
        Description
        <input
          value={value.description}
          onInput={(e) => set({ ...value, description: e.currentTarget.value })}
        />
      </label>
      <label>
        Schema (YAML or JSON: a structured schema or a {'{field: type}'} map)
        <textarea
          required
          rows={4}
          value={value.schema_yaml}
          onInput={(e) => set({ ...value, schema_yaml: e.currentTarget.value })}
        />
      </label>
      <label>
        Visibility
        <select
          value={value.visibility}
          onChange={(e) => set({ ...value, visibility: e.currentTarget.value as Visibility })}
        >
          <option value="private">private (this account only)</option>
          <option value="public">public (every account may use it)</option>
        </select>
      </label>
    </>
  );
}

type SchemaDraft = Pick<StoredSchema, 'name' | 'description' | 'schema_yaml' | 'visibility'>;
const EMPTY: SchemaDraft = { name: '', description: '', schema_yaml: '', visibility: 'private' };

function EditSchema({
  api,
  schema,
  done,
}: {
  api: Api;
  schema: StoredSchema;
  done: (saved: boolean) => void;
}) {
  const [draft, setDraft] = useState<SchemaDraft>({
    name: schema.name,
    description: schema.description,
    schema_yaml: schema.schema_yaml,
    visibility: schema.visibility,
  });
  const action = useAction();
  const save = () =>
    action.run(async () => {
      await call(api.api.PUT('/api/v1/schemas/{id}', { ...path(schema.id), body: draft }));
      done(true);
    });
  return (
    <SubmitForm
      layout="grid"
      label={`Edit schema ${schema.name}`}
      onSubmit={save}
      submit="Save changes"
      busy={action.busy}
      onCancel={() => done(false)}
    >
      <ErrorBox error={action.error} />
      <SchemaFields value={draft} set={setDraft} />
    </SubmitForm>
  );
}

export function Schemas({ api, tenantId }: { api: Api; tenantId: string }) {
  const schemas = useLoad(() => call(api.api.GET('/api/v1/schemas')));
  const [draft, setDraft] = useState<SchemaDraft>(EMPTY);
  const [editing, setEditing] = useState<string | null>(null);
  const action = useAction();
  const add = () =>
    action.run(async () => {
      await call(api.api.POST('/api/v1/schemas', { body: draft as never }));
      setDraft(EMPTY);
      schemas.reload();
    });
  const remove = (id: string) =>
    action.run(async () => {
      await call(api.api.DELETE('/api/v1/schemas/{id}', path(id)));
      schemas.reload();
    });
  const done = (saved: boolean) => {
    setEditing(null);
    if (saved) schemas.reload();
  };
  const ours = (s: StoredSchema) => s.organization_id === tenantId;
  return (
    <>
      <h3>Schemas</h3>
      <ErrorBox error={schemas.error ?? action.error} />
      <RemovableList
        testId="stored-schemas"
        items={schemas.data?.schemas}
        keyOf={(s) => s.id}
        render={(s) =>
          editing === s.id ? (
            <EditSchema api={api} schema={s} done={done} />
          ) : (
            <>
              {s.name}
              {s.description ? ` — ${s.description}` : ''} (
              {ours(s) ? s.visibility : 'public, shared with you'})
            </>
          )
        }
        actions={(s) =>
          ours(s) &&
          editing !== s.id && (
            <button type="button" class="link" onClick={() => setEditing(s.id)}>
              Edit
            </button>
          )
        }
        removable={ours}
        onRemove={(s) => remove(s.id)}
      />
      <h4>New schema</h4>
      <SubmitForm layout="grid" onSubmit={add} submit="Save schema" busy={action.busy} label="New schema">
        <SchemaFields value={draft} set={setDraft} />
      </SubmitForm>
    </>
  );
}
