// Small pieces every screen uses: the error box, a JSON view, a busy indicator, and async helpers.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describeError } from './api.js';

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const { title, detail, fields } = describeError(error);
  return (
    <div class="error" role="alert">
      <strong>{title}</strong>
      <span> {detail}</span>
      {fields.length > 0 && (
        <ul>
          {fields.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A scrolling box; keyboard users reach it with Tab to scroll it (axe: scrollable-region-focusable). */
export const Scroll = ({
  label,
  children,
  cls,
}: {
  label: string;
  children: ComponentChildren;
  cls?: string;
}) => (
  // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable to be scrolled by keyboard
  <section class={cls ?? 'scroll'} aria-label={label} tabIndex={0}>
    {children}
  </section>
);

export const Json = ({ value, label }: { value: unknown; label: string }) => (
  <Scroll label={label} cls="json">
    <pre>{JSON.stringify(value, null, 2)}</pre>
  </Scroll>
);

export const Busy = ({ text }: { text: string }) => (
  <p class="busy" role="status">
    <span class="spinner" aria-hidden="true" /> {text}
  </p>
);

export const Section = ({ title, children }: { title: string; children: ComponentChildren }) => (
  <section class="card">
    <h2>{title}</h2>
    {children}
  </section>
);

export const usd = (n: number | null | undefined) => (n == null ? '–' : `$${n.toFixed(n < 0.01 ? 6 : 4)}`);
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '–');

/** Loads once (and on `reload()`); keeps the last data while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (d) => {
        if (!live) return;
        setData(d);
        setError(null);
      },
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [tick, ...deps]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, reload };
}

/** Runs an action, holding its busy flag and its error. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}
