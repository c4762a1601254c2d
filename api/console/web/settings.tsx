// Settings: model keys and chain (model-settings.tsx), saved webhooks (webhooks.tsx), stored sites, schemas
// and monitors (stored-resources.tsx), and usage and cost over time.
import { type Api, call, type components } from './api.js';
import { Chain, ModelKeys } from './model-settings.js';
import { Stored } from './stored-resources.js';
import { ErrorBox, Section, usd, useLoad } from './ui.js';
import { Webhooks } from './webhooks.js';

type Usage = components['schemas']['Usage'];

/** Every day of the period (UTC), the days without jobs at zero. */
function daysOf(usage: Usage) {
  const byDate = new Map(usage.by_day.map((d) => [d.date, d]));
  const days: { date: string; jobs: number; charged_usd: number }[] = [];
  for (
    let t = Date.parse(`${usage.from}T00:00:00Z`);
    t <= Date.parse(`${usage.to}T00:00:00Z`);
    t += 86_400_000
  ) {
    const date = new Date(t).toISOString().slice(0, 10);
    days.push(byDate.get(date) ?? { date, jobs: 0, charged_usd: 0 });
  }
  return days;
}

/** Charged USD per day as bars (an SVG drawn here: no chart library, no inline styles). */
function UsageChart({ usage }: { usage: Usage }) {
  const days = daysOf(usage);
  const max = Math.max(0.000001, ...days.map((d) => d.charged_usd));
  const width = Math.max(300, days.length * 24);
  return (
    <svg class="chart" viewBox={`0 0 ${width} 120`} role="img" aria-label="Charged USD per day">
      {days.map((d, i) => {
        const h = d.charged_usd > 0 ? Math.max(1, (d.charged_usd / max) * 100) : 0;
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
      <line x1={0} x2={width} y1={105} y2={105} />
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
            charged {usd(u.total_charged_usd)} (model list price {usd(u.llm_cost_usd)}), {u.from} – {u.to}
          </p>
          <UsageChart usage={u} />
        </>
      )}
    </Section>
  );
}

export function SettingsPage({ api, tenantId }: { api: Api; tenantId: string }) {
  return (
    <>
      <h1>Settings</h1>
      <ModelKeys api={api} />
      <Chain api={api} />
      <Webhooks api={api} />
      <Stored api={api} tenantId={tenantId} />
      <UsageView api={api} />
    </>
  );
}
