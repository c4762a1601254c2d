// Stored sites (sites.tsx), schemas (stored-schemas.tsx) and monitors (monitors.tsx), in one section.
import type { Api } from './api.js';
import { Monitors } from './monitors.js';
import { Sites } from './sites.js';
import { Schemas } from './stored-schemas.js';
import { Section } from './ui.js';

export function Stored({ api, tenantId }: { api: Api; tenantId: string }) {
  return (
    <Section title="Sites, schemas and monitors">
      <Sites api={api} />
      <Schemas api={api} tenantId={tenantId} />
      <Monitors api={api} />
    </Section>
  );
}
