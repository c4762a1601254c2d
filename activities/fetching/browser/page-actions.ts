// Page actions (dynamic mode): the request's steps run in order in the rendered page before it is read.
// Every step is bounded by its own timeout and all of them by ACTIONS_TOTAL_MS; the first step that fails
// ends the page with action_failed, naming the step. Typed text is never put into a message or an outcome:
// only its length.
import type { ElementHandle, KeyInput, Page } from 'puppeteer-core';
import { CategorizedError } from '../../../shared/errors.js';
import {
  ACTIONS_TOTAL_MS,
  type ActionOutcome,
  DEFAULT_ACTION_TIMEOUT_MS,
  type PageAction,
} from '../../../shared/schemas/actions.js';
import { type Screenshot, takeScreenshot } from './screenshot.js';

/** A step that could not be done; the runner adds which step it was. */
class StepError extends Error {}

interface StepResult {
  clicks?: number;
  scrolls?: number;
  items?: number;
  textLength?: number;
  shot?: Screenshot;
}

/** A screenshot may take longer than a click: its own default timeout. */
const SCREENSHOT_TIMEOUT_MS = 15_000;

/** "click #more", "type #q", "press Enter", "scroll bottom", "wait 500 ms", "select #size": for messages. */
export function describeAction(action: PageAction): string {
  switch (action.kind) {
    case 'press':
      return `press ${action.key}`;
    case 'scroll':
      return `scroll ${action.to === 'bottom' ? 'bottom' : `${action.to} px`}`;
    case 'wait':
      return action.selector === undefined ? `wait ${action.ms} ms` : `wait ${action.selector}`;
    case 'screenshot':
      return action.full_page ? 'screenshot full page' : 'screenshot';
    default:
      return `${action.kind} ${action.selector}`;
  }
}

/**
 * Runs the actions in order; each outcome is returned (and, on a failure, in the error's details). `alive`
 * rejects when the render fails meanwhile (a bound hit), which ends the actions too. Screenshots taken go
 * to `shots`.
 */
export async function runPageActions(
  page: Page,
  actions: PageAction[],
  alive: Promise<never>,
  shots: Screenshot[] = [],
): Promise<ActionOutcome[]> {
  const outcomes: ActionOutcome[] = [];
  const deadline = Date.now() + ACTIONS_TOTAL_MS;
  for (const [index, action] of actions.entries()) {
    const started = Date.now();
    const left = deadline - started;
    const fallback = action.kind === 'screenshot' ? SCREENSHOT_TIMEOUT_MS : DEFAULT_ACTION_TIMEOUT_MS;
    const timeoutMs = Math.min(action.timeout_ms ?? fallback, left);
    const label = `action ${index} (${describeAction(action)})`;
    try {
      if (left <= 0) throw new StepError(`the actions took longer than ${ACTIONS_TOTAL_MS} ms in all`);
      const stepLeft = () => deadline - Date.now();
      const result = await Promise.race([runStep(page, action, timeoutMs, stepLeft, shots.length), alive]);
      if (result.shot) shots.push(result.shot);
      outcomes.push(outcome(index, action, started, result));
    } catch (err) {
      if (err instanceof CategorizedError) throw err; // the render's own failure (a bound hit)
      const reason = err instanceof Error ? err.message : String(err);
      outcomes.push({ ...outcome(index, action, started, {}), ok: false, error: reason });
      throw new CategorizedError('action_failed', `${label}: ${reason}`, false, {
        action: index,
        actions: outcomes,
      });
    }
  }
  return outcomes;
}

function outcome(index: number, action: PageAction, started: number, result: StepResult): ActionOutcome {
  return {
    index,
    kind: action.kind,
    ok: true,
    ms: Date.now() - started,
    ...(result.clicks === undefined ? {} : { clicks: result.clicks }),
    ...(result.scrolls === undefined ? {} : { scrolls: result.scrolls }),
    ...(result.items === undefined ? {} : { items: result.items }),
    ...(result.shot ? { screenshot: result.shot.info } : {}),
    ...(result.textLength === undefined ? {} : { text_length: result.textLength }),
  };
}

async function runStep(
  page: Page,
  action: PageAction,
  timeoutMs: number,
  left: () => number,
  shotIndex: number,
): Promise<StepResult> {
  switch (action.kind) {
    case 'screenshot':
      return {
        shot: await bounded(takeScreenshot(page, action.full_page, shotIndex), timeoutMs, 'the screenshot'),
      };
    case 'click':
      return click(page, action, timeoutMs, left);
    case 'scroll':
      return scroll(page, action, left);
    case 'wait':
      if (action.selector !== undefined) {
        await element(page, action.selector, timeoutMs);
        return {};
      }
      await delay(Math.min(action.ms ?? 0, Math.max(0, left())));
      return {};
    case 'type': {
      const el = await element(page, action.selector, timeoutMs);
      // A secret's value was put in text by the activity (activities/fetching/site-session.ts); unresolved,
      // it is an error.
      if (action.text === undefined) throw new StepError(`no value for secret "${action.secret}"`);
      const origin = secretOriginOf(action);
      if (origin !== undefined && originOf(page.url()) !== origin)
        throw new StepError(`the page is not on ${origin}: secret "${action.secret}" is typed only there`);
      await bounded(el.type(action.text), timeoutMs, 'typing');
      return { textLength: action.text.length };
    }
    case 'press':
      await bounded(page.keyboard.press(action.key as KeyInput), timeoutMs, 'the key press').catch((err) => {
        throw new StepError(err instanceof Error ? err.message : String(err));
      });
      return {};
    case 'select': {
      await element(page, action.selector, timeoutMs);
      const chosen = await bounded(page.select(action.selector, action.value), timeoutMs, 'selecting');
      if (!chosen.includes(action.value)) throw new StepError(`no option with value "${action.value}"`);
      return {};
    }
  }
}

/** A secret's text comes with the one origin it may be typed on (activities/fetching/site-session.ts). */
export type SecretTypeAction = Extract<PageAction, { kind: 'type' }> & { secret_origin?: string };

function secretOriginOf(action: SecretTypeAction): string | undefined {
  return action.secret === undefined ? undefined : (action.secret_origin ?? '');
}

/** scheme://host[:port]; '' for a URL without one (about:blank, data:), which never matches a site. */
function originOf(url: string): string {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? '' : origin;
  } catch {
    return '';
  }
}

type ClickAction = Extract<PageAction, { kind: 'click' }>;

/** One click, or with repeat clicks while the element is still there (a "Load more" button). */
async function click(page: Page, action: ClickAction, timeoutMs: number, left: () => number) {
  let clicks = 0;
  let items: number | undefined;
  let el: ElementHandle<Element> | null = await element(page, action.selector, timeoutMs);
  while (el) {
    await bounded(clickElement(el), timeoutMs, 'the click');
    clicks += 1;
    await delay(Math.min(action.wait_after_ms, Math.max(0, left())));
    items = await countItems(page, action.item_selector);
    if (!action.repeat || clicks >= action.max || left() <= 0 || enough(action, items)) break;
    el = await visible(page, action.selector);
  }
  return { clicks, ...(items === undefined ? {} : { items }) };
}

/** A real click where the element can take one; a DOM click where it cannot (covered, zero-size). */
async function clickElement(el: ElementHandle<Element>): Promise<void> {
  try {
    await el.click();
  } catch {
    await el.evaluate((node) => (node as HTMLElement).click());
  }
}

type ScrollAction = Extract<PageAction, { kind: 'scroll' }>;

/** Scrolls once, or with until_no_new_content until the page stops growing (infinite scroll). */
async function scroll(page: Page, action: ScrollAction, left: () => number) {
  let scrolls = 0;
  let items: number | undefined;
  for (;;) {
    const before = await page.evaluate(pageSize);
    await page.evaluate((to) => {
      if (to === 'bottom') window.scrollTo(0, document.documentElement.scrollHeight);
      else window.scrollBy(0, to);
    }, action.to);
    scrolls += 1;
    const wait = Math.min(action.wait_after_ms, Math.max(0, left()));
    if (!action.until_no_new_content) {
      await delay(Math.min(wait, 200));
      break;
    }
    const grew = await page
      .waitForFunction(
        (height: number, nodes: number) =>
          document.documentElement.scrollHeight > height || document.getElementsByTagName('*').length > nodes,
        { timeout: Math.max(1, wait), polling: 100 },
        before.height,
        before.nodes,
      )
      .then(() => true)
      .catch(() => false);
    items = await countItems(page, action.item_selector);
    if (!grew || scrolls >= action.max_scrolls || left() <= 0 || enough(action, items)) break;
  }
  return { scrolls, ...(items === undefined ? {} : { items }) };
}

/** How many elements match the listing's item selector (none given: not counted). */
async function countItems(page: Page, selector?: string): Promise<number | undefined> {
  if (selector === undefined) return undefined;
  return page.evaluate((s) => document.querySelectorAll(s).length, selector);
}

/** The listing shows max_items: load no more. */
const enough = (action: { max_items?: number }, items?: number) =>
  action.max_items !== undefined && items !== undefined && items >= action.max_items;

function pageSize() {
  return {
    height: document.documentElement.scrollHeight,
    nodes: document.getElementsByTagName('*').length,
  };
}

/** The element, once present; a StepError naming the wait when it does not appear in time. */
async function element(page: Page, selector: string, timeoutMs: number): Promise<ElementHandle<Element>> {
  try {
    const el = await page.waitForSelector(selector, { timeout: Math.max(1, timeoutMs) });
    if (el) return el;
  } catch (err) {
    if (err instanceof Error && /timeout|waiting/i.test(err.name + err.message))
      throw new StepError(`selector not found within ${timeoutMs} ms`);
    throw new StepError(err instanceof Error ? err.message : String(err));
  }
  throw new StepError(`selector not found within ${timeoutMs} ms`);
}

/** The element when it is present, shown and enabled (a spent "Load more" button is often hidden or disabled). */
async function visible(page: Page, selector: string): Promise<ElementHandle<Element> | null> {
  const el = await page.$(selector);
  if (!el) return null;
  const usable = await el.evaluate((node) => {
    const box = node.getBoundingClientRect();
    const style = getComputedStyle(node);
    const disabled = (node as HTMLButtonElement).disabled === true;
    return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && !disabled;
  });
  return usable ? el : null;
}

async function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StepError(`${what} took longer than ${ms} ms`)), ms);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
