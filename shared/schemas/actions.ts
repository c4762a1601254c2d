// Page actions: steps run in order in the rendered page (dynamic mode) before it is read — a "load more"
// button clicked until it is gone, an infinite list scrolled until nothing new appears, a form filled.
import { z } from 'zod';
import { isValidSelector } from '../cleaners.js';

export const MAX_ACTIONS = 20;
export const DEFAULT_ACTION_TIMEOUT_MS = 5_000;
export const MAX_ACTION_TIMEOUT_MS = 30_000;
/** All actions of one page together, on top of the page's own render time. */
export const ACTIONS_TOTAL_MS = 45_000;
export const MAX_REPEAT = 50;
export const MAX_SCROLLS = 50;
export const MAX_WAIT_MS = 10_000;
export const MAX_ITEMS = 10_000;
/** Screenshots of one page (actions and formats together). */
export const MAX_SCREENSHOTS = 5;
/** A full-page screenshot is cut at this height (CSS px; the viewport is 1280 × 900). */
export const MAX_SCREENSHOT_HEIGHT = 8_000;
/** A PNG larger than this fails the page with content_too_large. */
export const MAX_SCREENSHOT_BYTES = 4 * 1024 * 1024;

const selector = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .refine(isValidSelector, { message: 'not a valid CSS selector' })
  .meta({ description: 'CSS selector of the element', example: 'button.load-more' });

const timeoutMs = z
  .number()
  .int()
  .min(100)
  .max(MAX_ACTION_TIMEOUT_MS)
  .optional()
  .meta({
    description: `How long the step may wait for its selector and take, ms (a repeated click: each click). Default ${DEFAULT_ACTION_TIMEOUT_MS}, at most ${MAX_ACTION_TIMEOUT_MS}.`,
  });

/** Load more / infinite scroll: stop once the page shows this many items. */
const itemBound = {
  item_selector: selector.optional().meta({
    description:
      'With repeat or until_no_new_content: CSS selector of one listing item; the step stops once max_items ' +
      'match it (the outcome says how many were shown).',
    example: 'ul#list > li',
  }),
  max_items: z
    .number()
    .int()
    .min(1)
    .max(MAX_ITEMS)
    .optional()
    .meta({
      description: `With item_selector: stop at this many items (at most ${MAX_ITEMS}).`,
      example: 100,
    }),
};

const ClickActionSchema = z
  .object({
    kind: z.literal('click'),
    selector,
    repeat: z
      .boolean()
      .default(false)
      .meta({
        description:
          'Click again while the selector is still present (a "Load more" button), up to max times; the step ' +
          'ends without error when the element is gone. The first click needs the element.',
      }),
    max: z
      .number()
      .int()
      .min(1)
      .max(MAX_REPEAT)
      .default(10)
      .meta({ description: `With repeat: most clicks (default 10, at most ${MAX_REPEAT}).` }),
    wait_after_ms: z
      .number()
      .int()
      .min(0)
      .max(MAX_WAIT_MS)
      .default(500)
      .meta({ description: 'Pause after each click for the page to react, ms (default 500).' }),
    ...itemBound,
    timeout_ms: timeoutMs,
  })
  .strict();

const TypeActionSchema = z
  .object({
    kind: z.literal('type'),
    selector,
    text: z
      .string()
      .max(2_000)
      .optional()
      .meta({
        description:
          "Text to type. Never logged or captured (only its length is kept), but stored with the job's " +
          'request: for a password use secret.',
      }),
    secret: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/)
      .optional()
      .meta({
        description:
          "Instead of text: the name of a secret in the stored site's session (PUT /sites/{id}/session), typed " +
          "by the worker; only the name is in the request. Only in the site's login recipe, and typed only while " +
          "the page is on the site's origin: a job's or a site's page actions with secret are a 422, since what " +
          'they type could come back to any key of the tenant (a screenshot, a search box in the result). The ' +
          'login page is never captured: its screenshots are discarded, its content is not a result, and only ' +
          "the cookies it leaves for the site's origin are kept (sealed).",
        example: 'password',
      }),
    timeout_ms: timeoutMs,
  })
  .strict()
  .refine((a) => (a.text === undefined) !== (a.secret === undefined), {
    message: 'give text or secret, not both',
  });

const PressActionSchema = z
  .object({
    kind: z.literal('press'),
    key: z
      .string()
      .min(1)
      .max(40)
      .meta({ description: 'A key name as Chromium knows it, e.g. Enter, Tab, Escape, ArrowDown.' }),
    timeout_ms: timeoutMs,
  })
  .strict();

const ScrollActionSchema = z
  .object({
    kind: z.literal('scroll'),
    to: z
      .union([z.literal('bottom'), z.number().int().min(1).max(100_000)])
      .default('bottom')
      .meta({ description: "'bottom' (default) or a number of pixels to scroll down by." }),
    until_no_new_content: z
      .boolean()
      .default(false)
      .meta({
        description:
          'Infinite scroll: scroll to the bottom again and again until the page stops growing (no new content ' +
          'within wait_after_ms after a scroll), up to max_scrolls.',
      }),
    max_scrolls: z
      .number()
      .int()
      .min(1)
      .max(MAX_SCROLLS)
      .default(10)
      .meta({ description: `With until_no_new_content: most scrolls (default 10, at most ${MAX_SCROLLS}).` }),
    wait_after_ms: z
      .number()
      .int()
      .min(0)
      .max(MAX_WAIT_MS)
      .default(1_000)
      .meta({ description: 'How long to wait for new content after each scroll, ms (default 1000).' }),
    ...itemBound,
    timeout_ms: timeoutMs,
  })
  .strict();

const WaitActionSchema = z
  .object({
    kind: z.literal('wait'),
    ms: z.number().int().min(1).max(MAX_WAIT_MS).optional().meta({ description: 'Pause this long, ms.' }),
    selector: selector.optional().meta({ description: 'Wait until this element is present.' }),
    timeout_ms: timeoutMs,
  })
  .strict()
  .refine((a) => (a.ms === undefined) !== (a.selector === undefined), {
    message: 'give ms or selector, not both',
  });

const SelectActionSchema = z
  .object({
    kind: z.literal('select'),
    selector,
    value: z.string().max(500).meta({ description: 'The option value to select.' }),
    timeout_ms: timeoutMs,
  })
  .strict();

const ScreenshotActionSchema = z
  .object({
    kind: z.literal('screenshot'),
    full_page: z
      .boolean()
      .default(false)
      .meta({
        description:
          `false (default): the viewport, 1280 × 900. true: the whole page, 1280 px wide, cut at ` +
          `${MAX_SCREENSHOT_HEIGHT} px high (the outcome says clipped). The PNG is stored with the page; over ` +
          `${MAX_SCREENSHOT_BYTES / 1024 / 1024} MB it fails the page with content_too_large.`,
      }),
    timeout_ms: timeoutMs,
  })
  .strict();

export const PageActionSchema = z
  .discriminatedUnion('kind', [
    ClickActionSchema,
    TypeActionSchema,
    PressActionSchema,
    ScrollActionSchema,
    WaitActionSchema,
    SelectActionSchema,
    ScreenshotActionSchema,
  ])
  .meta({ id: 'PageAction' });
export type PageAction = z.infer<typeof PageActionSchema>;

export const ActionsSchema = z
  .array(PageActionSchema)
  .min(1)
  .max(MAX_ACTIONS)
  .meta({
    description:
      'Steps run in order in the rendered page before it is read (fetch_mode dynamic; auto becomes dynamic, ' +
      `static is a 422). At most ${MAX_ACTIONS} steps, each with its own timeout, all together at most ` +
      `${ACTIONS_TOTAL_MS / 1000} s. A step that fails fails the page with error_category action_failed and a ` +
      "message naming the step. Each step's outcome is in the page's metadata.actions. In a crawl they run on " +
      'every page.',
    example: [
      { kind: 'click', selector: '#cookie-accept' },
      { kind: 'click', selector: 'button.load-more', repeat: true, max: 10 },
      { kind: 'scroll', to: 'bottom', until_no_new_content: true, max_scrolls: 20 },
    ],
  });

/** Actions need the browser: static with actions is a 422 at body.actions. */
export function checkActionsMode(body: { actions?: unknown[]; fetch_mode?: string }, ctx: z.RefinementCtx) {
  if (body.actions?.length && body.fetch_mode === 'static')
    ctx.addIssue({
      code: 'custom',
      path: ['actions'],
      message: 'actions need fetch_mode dynamic (or auto): a static fetch runs no page',
    });
}

/** The fetch mode a request with actions runs in: actions need the browser. */
export function modeWithActions<M extends string>(mode: M, actions?: unknown[]): M | 'dynamic' {
  return actions?.length ? 'dynamic' : mode;
}

/** A screenshot a page's actions (or formats) took; the image itself is stored beside the page's content. */
export const ScreenshotInfoSchema = z
  .object({
    index: z
      .number()
      .int()
      .meta({ description: 'Its number on the page, from 0: ?index= of the screenshot route' }),
    width: z.number().int().meta({ description: 'Pixels', example: 1280 }),
    height: z.number().int().meta({ description: 'Pixels', example: 900 }),
    bytes: z.number().int().meta({ description: 'Size of the PNG', example: 48213 }),
    full_page: z.boolean(),
    clipped: z.boolean().meta({
      description: `A full-page shot of a page taller than ${MAX_SCREENSHOT_HEIGHT} px: cut at that height`,
    }),
  })
  .meta({ id: 'ScreenshotInfo' });
export type ScreenshotInfo = z.infer<typeof ScreenshotInfoSchema>;

/** A page's screenshot as its metadata lists it: with where to read it. */
export const PageScreenshotSchema = ScreenshotInfoSchema.extend({
  url: z.string().meta({
    description: 'Where to read it (GET, image/png; kept PAGE_RETENTION_DAYS like page contents)',
    example: '/api/v1/jobs/job_4f1c0b6e/pages/9b2f5c1e-6a7d-4e0c-9b8a-7f6e5d4c3b2a/screenshot?index=0',
  }),
}).meta({ id: 'PageScreenshot' });
export type PageScreenshot = z.infer<typeof PageScreenshotSchema>;

/** The route a page's screenshot is read at. */
export const screenshotPath = (jobId: string, pageId: string, index: number) =>
  `/api/v1/jobs/${encodeURIComponent(jobId)}/pages/${encodeURIComponent(pageId)}/screenshot?index=${index}`;

/** metadata.screenshots of a page: its actions' screenshots, with their URLs. */
export function pageScreenshots(jobId: string, pageId: string, actions?: ActionOutcome[]): PageScreenshot[] {
  return (actions ?? []).flatMap((a) =>
    a.screenshot ? [{ ...a.screenshot, url: screenshotPath(jobId, pageId, a.screenshot.index) }] : [],
  );
}

/** One step's outcome, kept in the page's metadata and debug capture (never the typed text). */
export const ActionOutcomeSchema = z
  .object({
    index: z.number().int(),
    kind: z.string(),
    ok: z.boolean(),
    ms: z.number().int(),
    clicks: z.number().int().optional(),
    scrolls: z.number().int().optional(),
    items: z
      .number()
      .int()
      .optional()
      .meta({ description: 'With item_selector: how many items the page showed' }),
    screenshot: ScreenshotInfoSchema.optional(),
    text_length: z.number().int().optional().meta({ description: 'type: how many characters were typed' }),
    error: z.string().optional(),
  })
  .meta({ id: 'ActionOutcome' });
export type ActionOutcome = z.infer<typeof ActionOutcomeSchema>;

/** Extra outputs of a page besides its data. */
export const FORMATS = ['screenshot', 'screenshot_full_page'] as const;
export const FormatsSchema = z
  .array(z.enum(FORMATS))
  .max(2)
  .meta({
    description:
      "Extra outputs besides the extracted data. 'screenshot': a PNG of the viewport (1280 × 900) once the page " +
      `is read (after any actions); 'screenshot_full_page': the whole page, cut at ${MAX_SCREENSHOT_HEIGHT} px ` +
      `high. A screenshot needs the browser (fetch_mode dynamic; auto becomes dynamic, static is a 422); a PNG ` +
      `over ${MAX_SCREENSHOT_BYTES / 1024 / 1024} MB fails the page with content_too_large. It runs as a last ` +
      'screenshot action (so a page with it is never taken from max_age, and a page read as a document or plain ' +
      "text has none), its outcome in metadata.actions; metadata.screenshots lists the page's " +
      'screenshots (size and URL: GET /api/v1/jobs/{id}/pages/{page_id}/screenshot?index=N, where page_id is ' +
      "the page result's id). Screenshots are kept PAGE_RETENTION_DAYS, like page contents.",
    example: ['screenshot'],
  });
export type Format = (typeof FORMATS)[number];

/** The actions a request runs: its own, then one screenshot step per screenshot format. */
export function actionsWithFormats(actions?: PageAction[], formats?: Format[]): PageAction[] | undefined {
  const shots: PageAction[] = [...new Set(formats ?? [])].map((format) => ({
    kind: 'screenshot',
    full_page: format === 'screenshot_full_page',
  }));
  const all = [...(actions ?? []), ...shots];
  return all.length ? all : undefined;
}

/** Screenshots need the browser, and a page takes at most MAX_SCREENSHOTS: 422s at body.formats / body.actions. */
export function checkFormats(
  body: { actions?: PageAction[]; formats?: Format[]; fetch_mode?: string },
  ctx: z.RefinementCtx,
) {
  if (body.formats?.length && body.fetch_mode === 'static')
    ctx.addIssue({
      code: 'custom',
      path: ['formats'],
      message: 'a screenshot needs fetch_mode dynamic (or auto): a static fetch runs no page',
    });
  const shots = actionsWithFormats(body.actions, body.formats)?.filter((a) => a.kind === 'screenshot');
  if ((shots?.length ?? 0) > MAX_SCREENSHOTS)
    ctx.addIssue({
      code: 'custom',
      path: ['actions'],
      message: `at most ${MAX_SCREENSHOTS} screenshots per page (screenshot actions and formats together)`,
    });
}

/** A request's fetch mode and actions as its workflow input takes them: formats become screenshot steps. */
export function actionsInput<M extends string>(body: {
  fetch_mode: M;
  actions?: PageAction[];
  formats?: Format[];
}): { fetchMode: M | 'dynamic'; actions?: PageAction[] } {
  const actions = actionsWithFormats(body.actions, body.formats);
  return { fetchMode: modeWithActions(body.fetch_mode, actions), ...(actions ? { actions } : {}) };
}
