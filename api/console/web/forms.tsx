// The two shapes every settings list repeats: a list whose items each end with a remove button (and any
// other actions), and a form that submits through a handler instead of navigating.
import type { ComponentChildren } from 'preact';

export function RemovableList<T>({
  items,
  keyOf,
  render,
  actions,
  onRemove,
  removable = () => true,
  removeLabel = 'Delete',
  testId,
}: {
  items: readonly T[] | undefined;
  keyOf: (item: T) => string;
  render: (item: T) => ComponentChildren;
  /** Buttons shown before the remove button. */
  actions?: (item: T) => ComponentChildren;
  onRemove: (item: T) => unknown;
  /** Whether this item has the remove button (default: every item). */
  removable?: (item: T) => boolean;
  removeLabel?: string;
  testId?: string;
}) {
  return (
    <ul data-testid={testId}>
      {(items ?? []).map((item) => (
        <li key={keyOf(item)} data-item-id={keyOf(item)}>
          {render(item)} {actions?.(item)}{' '}
          {removable(item) && (
            <button type="button" class="link" onClick={() => void onRemove(item)}>
              {removeLabel}
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

export function SubmitForm({
  onSubmit,
  submit,
  busy = false,
  layout = 'row',
  label,
  children,
  onCancel,
}: {
  onSubmit: () => unknown;
  /** The submit button's text. */
  submit: string;
  busy?: boolean;
  layout?: 'row' | 'grid';
  /** The form's accessible name, when the page holds several alike. */
  label?: string;
  children: ComponentChildren;
  /** An edit form's way out without saving: a Cancel button beside the submit button. */
  onCancel?: () => void;
}) {
  return (
    <form
      class={layout}
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        void onSubmit();
      }}
    >
      {children}
      <div class="row">
        <button type="submit" disabled={busy}>
          {submit}
        </button>
        {onCancel && (
          <button type="button" class="link" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
