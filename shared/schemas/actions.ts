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
      .meta({
        description:
          'Text to type. Never logged or captured (only its length is kept); not for secrets yet: it is stored ' +
          "with the job's request.",
      }),
    timeout_ms: timeoutMs,
  })
  .strict();

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

export const PageActionSchema = z
  .discriminatedUnion('kind', [
    ClickActionSchema,
    TypeActionSchema,
    PressActionSchema,
    ScrollActionSchema,
    WaitActionSchema,
    SelectActionSchema,
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

/** One step's outcome, kept in the page's metadata and debug capture (never the typed text). */
export const ActionOutcomeSchema = z
  .object({
    index: z.number().int(),
    kind: z.string(),
    ok: z.boolean(),
    ms: z.number().int(),
    clicks: z.number().int().optional(),
    scrolls: z.number().int().optional(),
    text_length: z.number().int().optional().meta({ description: 'type: how many characters were typed' }),
    error: z.string().optional(),
  })
  .meta({ id: 'ActionOutcome' });
export type ActionOutcome = z.infer<typeof ActionOutcomeSchema>;
