// Monitors: a stored site, crawl or extract request run on a schedule, its results compared run by run.
import { z } from 'zod';
import { TimestampSchema } from './common.js';
import { CrawlRequestSchema, SiteCrawlRequestSchema } from './crawl.js';
import { ExtractRequestSchema } from './extract.js';

/** Most monitors a tenant may have. */
export const MAX_MONITORS_PER_TENANT = 100;
/** Shortest interval between two scheduled runs (a cron expression has minute resolution anyway). */
export const MIN_MONITOR_INTERVAL_MS = 60_000;
const MAX_MONITOR_INTERVAL_MS = 366 * 86_400_000;
/** Most added, removed and changed records one run's change lists (the rest are counted in `omitted`). */
export const MAX_CHANGES_PER_RUN = 100;

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `every` as milliseconds: an integer and a unit (s, m, h, d), e.g. 15m; null when not one. */
export function parseInterval(text: string): number | null {
  const match = /^(\d{1,6})(s|m|h|d)$/.exec(text);
  if (!match) return null;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** Five cron fields (minute, hour, day of month, month, day of week): no seconds field, so at most once a minute. */
const CRON_FIELDS = /^[0-9A-Za-z*,/?#-]{1,64}( [0-9A-Za-z*,/?#-]{1,64}){4}$/;

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const MonitorScheduleSchema = z
  .object({
    cron: z
      .string()
      .max(200)
      .regex(CRON_FIELDS, 'must be five cron fields: minute hour day-of-month month day-of-week')
      .nullable()
      .optional()
      .meta({
        description:
          'A cron expression of five fields (minute, hour, day of month, month, day of week), e.g. "0 * * * *" ' +
          'for every hour on the hour. Give cron or every.',
        example: '*/30 * * * *',
      }),
    every: z
      .string()
      .refine((v) => {
        const ms = parseInterval(v);
        return ms !== null && ms >= MIN_MONITOR_INTERVAL_MS && ms <= MAX_MONITOR_INTERVAL_MS;
      }, 'must be an integer and a unit (s, m, h, d), at least 1m and at most 366d, e.g. 15m')
      .nullable()
      .optional()
      .meta({ description: 'An interval between runs, at least 1m, e.g. 15m, 6h or 1d.', example: '6h' }),
    timezone: z
      .string()
      .max(64)
      .refine(isTimeZone, 'must be an IANA time zone name, e.g. Europe/Berlin')
      .default('UTC')
      .meta({
        description: 'IANA time zone a cron expression is read in (default UTC).',
        example: 'Europe/Berlin',
      }),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (Boolean(s.cron) === Boolean(s.every)) {
      ctx.addIssue({ code: 'custom', path: ['cron'], message: 'give exactly one of cron and every' });
    }
  })
  .meta({
    id: 'MonitorSchedule',
    description: 'When the monitor runs: a cron expression or an interval.',
    // For the document: what the refinement above checks (exactly one of cron and every, not null).
    oneOf: [
      { required: ['cron'], properties: { cron: { type: 'string' } } },
      { required: ['every'], properties: { every: { type: 'string' } } },
    ],
  });
export type MonitorSchedule = z.infer<typeof MonitorScheduleSchema>;

const KeyFieldSchema = z
  .string()
  .min(1)
  .max(100)
  .nullable()
  .optional()
  .meta({
    description:
      'How records are matched between runs. Without it, each page is one record matched by its URL. With it, ' +
      "the records are the objects of each page's data (a list of objects, or the objects in the lists of an " +
      'object, else the data itself) matched by the value of this field (e.g. sku); records without it are ' +
      'matched by page URL and position.',
    example: 'sku',
  });

export const MonitorRequestSchema = z
  .object({
    name: z.string().min(1).max(100).optional().meta({
      description: 'A name for the monitor (default: the URL it watches).',
      example: 'Widget price',
    }),
    schedule: MonitorScheduleSchema,
    paused: z.boolean().default(false).meta({
      description: 'Create (or keep) the monitor paused: its schedule takes no action until resumed.',
    }),
    key_field: KeyFieldSchema,
    extract: ExtractRequestSchema.optional().meta({
      description: 'Each run is an extract job with this request (as POST /extract).',
    }),
    crawl: CrawlRequestSchema.optional().meta({
      description: 'Each run is a crawl job with this request (as POST /crawl).',
    }),
    site_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({
        description:
          'Each run is a crawl of this stored site with its settings (as POST /sites/{id}/crawl), read when the ' +
          'monitor is created or updated.',
        example: 'site_0b8d2f7c9e1a4b3c8d5e6f7a8b9c0d1e',
      }),
    site_crawl: SiteCrawlRequestSchema.optional().meta({
      description: "With site_id: overrides of the site's settings (as the body of POST /sites/{id}/crawl).",
    }),
  })
  .strict()
  .superRefine((body, ctx) => {
    const given = [body.extract, body.crawl, body.site_id].filter((v) => v !== undefined).length;
    if (given !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['extract'],
        message: 'give exactly one of extract, crawl and site_id',
      });
    }
    if (body.site_crawl !== undefined && body.site_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['site_crawl'], message: 'site_crawl needs site_id' });
    }
  })
  .meta({
    id: 'MonitorRequest',
    // For the document: what the refinement above checks.
    oneOf: [{ required: ['extract'] }, { required: ['crawl'] }, { required: ['site_id'] }],
    dependentRequired: { site_crawl: ['site_id'] },
    description:
      'A monitor: one of extract, crawl or site_id, and a schedule. Secrets in the request (llm_config.api_key, ' +
      "webhook.secret, webhook header values) are stored sealed and never shown again. The request's webhooks " +
      '(webhook, webhook_url, webhook_id and your active saved webhooks, resolved when the monitor is created or ' +
      "updated) receive each run's job events and monitor.changed.",
    example: {
      name: 'Widget price',
      schedule: { every: '1h' },
      key_field: null,
      extract: {
        url: 'https://shop.example.com/widget',
        schema: { name: 'string', price: 'number' },
        webhook: {
          url: 'https://hooks.example.com/monitor',
          secret: 'whsec_c2VjcmV0',
          events: ['monitor.changed'],
        },
      },
    },
  });
export type MonitorRequest = z.infer<typeof MonitorRequestSchema>;

export const MONITOR_RUN_OUTCOMES = ['running', 'baseline', 'unchanged', 'changed', 'job_failed'] as const;

export const MonitorSchema = z
  .object({
    id: z.string().meta({ example: 'mon_3f2a9c1e0b7d4e5f8a6b1c2d3e4f5a6b' }),
    name: z.string(),
    kind: z.enum(['extract', 'crawl']).meta({ description: 'The type of job each run is.' }),
    url: z.string().meta({ description: 'The URL each run starts from.' }),
    site_id: z.string().nullable(),
    schedule: z.object({
      cron: z.string().nullable(),
      every: z.string().nullable(),
      timezone: z.string(),
    }),
    paused: z.boolean(),
    key_field: z.string().nullable(),
    request: z.record(z.string(), z.unknown()).meta({
      description:
        'The extract, crawl or site_crawl request as given, without its secrets (an api_key or webhook secret ' +
        'is left out, header values are "****").',
    }),
    schedule_id: z.string().meta({
      description:
        "The Temporal Schedule's id (visible in the Temporal UI); its runs are monitorRunWorkflow.",
      example: 'monitor-ten_1-mon_3f2a9c1e0b7d4e5f8a6b1c2d3e4f5a6b',
    }),
    next_run_at: TimestampSchema.nullable()
      .optional()
      .meta({ description: 'GET /monitors/{id} only: when the schedule runs next (null when paused).' }),
    run_count: z.number().int().meta({ description: 'Runs started (scheduled and triggered).' }),
    change_count: z.number().int().meta({ description: 'Runs that found a change.' }),
    last_run: z
      .object({
        job_id: z.string(),
        started_at: TimestampSchema,
        outcome: z.enum(MONITOR_RUN_OUTCOMES).meta({
          description:
            'running; baseline (the first compared run: nothing to compare with); unchanged; changed (a change ' +
            'was recorded and monitor.changed sent); job_failed (the job did not complete: nothing compared, the ' +
            'next run is compared with the last completed one).',
        }),
        change_id: z.string().nullable(),
      })
      .nullable(),
    baseline_job_id: z.string().nullable().meta({
      description: 'The completed run the next run is compared with (reset when the request changes).',
    }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .meta({
    id: 'Monitor',
    example: {
      id: 'mon_3f2a9c1e0b7d4e5f8a6b1c2d3e4f5a6b',
      name: 'Widget price',
      kind: 'extract',
      url: 'https://shop.example.com/widget',
      site_id: null,
      schedule: { cron: null, every: '1h', timezone: 'UTC' },
      paused: false,
      key_field: null,
      request: {
        extract: {
          url: 'https://shop.example.com/widget',
          schema: { name: 'string', price: 'number' },
          webhook: {
            url: 'https://hooks.example.com/monitor',
            has_secret: true,
            events: ['monitor.changed'],
          },
        },
      },
      schedule_id: 'monitor-ten_1-mon_3f2a9c1e0b7d4e5f8a6b1c2d3e4f5a6b',
      next_run_at: '2026-11-25T14:00:00.000Z',
      run_count: 2,
      change_count: 1,
      last_run: {
        job_id: 'job_8c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f',
        started_at: '2026-11-25T13:00:00.000Z',
        outcome: 'changed',
        change_id: 'chg_mon_3f2a9c1e0b7d4e5f8a6b1c2d3e4f5a6b_0000000001',
      },
      baseline_job_id: 'job_8c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f',
      created_at: '2026-11-25T12:00:00.000Z',
      updated_at: '2026-11-25T12:00:00.000Z',
    },
  });
export type Monitor = z.infer<typeof MonitorSchema>;

export const MonitorListSchema = z
  .object({ monitors: z.array(MonitorSchema), total: z.number().int() })
  .meta({ id: 'MonitorList' });

const RecordEntrySchema = z.object({
  key: z
    .string()
    .meta({ description: 'The record key: the page URL, or the key_field value.', example: 'W-1' }),
  url: z.string().meta({ description: 'The page the record is on.' }),
  record: z.unknown().meta({ description: 'The record (a string cut to 4,000 characters when larger).' }),
});

export const MonitorChangeSchema = z
  .object({
    id: z.string().meta({ example: 'chg_mon_3f2a9c1e0b7d4e5f8a6b1c2d3e4f5a6b_0000000002' }),
    monitor_id: z.string(),
    job_id: z.string().meta({ description: "The run's job." }),
    previous_job_id: z.string().meta({ description: 'The run it was compared with.' }),
    at: TimestampSchema,
    counts: z.object({ added: z.number().int(), removed: z.number().int(), changed: z.number().int() }),
    added: z.array(RecordEntrySchema),
    removed: z.array(RecordEntrySchema),
    changed: z.array(
      z.object({
        key: z.string(),
        url: z.string(),
        fields: z
          .array(
            z.object({
              field: z.string().meta({ description: 'Dotted path of the field', example: 'price' }),
              old: z
                .unknown()
                .meta({ description: 'Value in the previous run (null when absent)', example: 19.99 }),
              new: z.unknown().meta({ description: 'Value in this run (null when absent)', example: 24.99 }),
            }),
          )
          .meta({
            description: 'At most 50 fields per record; values over 2,000 characters of JSON are cut.',
          }),
      }),
    ),
    omitted: z
      .number()
      .int()
      .meta({
        description: `Changes counted but not listed: at most ${MAX_CHANGES_PER_RUN} records are listed per run.`,
      }),
  })
  .meta({
    id: 'MonitorChange',
    example: {
      id: 'chg_mon_3f2a9c1e0b7d4e5f8a6b1c2d3e4f5a6b_0000000001',
      monitor_id: 'mon_3f2a9c1e0b7d4e5f8a6b1c2d3e4f5a6b',
      job_id: 'job_8c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f',
      previous_job_id: 'job_1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d',
      at: '2026-11-25T13:00:04.000Z',
      counts: { added: 0, removed: 0, changed: 1 },
      added: [],
      removed: [],
      changed: [
        {
          key: 'https://shop.example.com/widget',
          url: 'https://shop.example.com/widget',
          fields: [{ field: 'price', old: 19.99, new: 24.99 }],
        },
      ],
      omitted: 0,
    },
    description:
      'What one run found changed since the run before: records added, removed (pages that failed in this run ' +
      'are not counted as removed) and changed field by field.',
  });
export type MonitorChange = z.infer<typeof MonitorChangeSchema>;

export const MonitorChangeListSchema = z
  .object({ changes: z.array(MonitorChangeSchema), total: z.number().int() })
  .meta({ id: 'MonitorChangeList' });
