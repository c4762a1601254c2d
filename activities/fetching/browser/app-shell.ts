// Does a statically fetched page need scripts to show its content? Auto mode asks this to decide whether to
// render the page in the browser. Thresholds are deliberately low: a page with real text stays static.
import type { PageSignals } from '../../reading/page-signals.js';

export type ScriptNeed = 'empty_body' | 'app_shell' | 'noscript_wall' | 'script_shell';

/** Below this much visible text, an empty mount point or a noscript wall means the content is missing. */
const SHELL_TEXT = 500;
/** Below this much visible text, scripts alone suggest the page builds its content client-side. */
const SCRIPTED_TEXT = 200;
const NOSCRIPT_WALL =
  /(enable|turn on|activate|allow)\s+javascript|javascript\s+(is\s+)?(required|disabled|needed|must be enabled)|requires?\s+javascript|need(s)?\s+javascript|without\s+javascript/i;

export function needsScripts(signals: PageSignals): ScriptNeed | null {
  const text = signals.textLength;
  if (text < SHELL_TEXT && signals.emptyMountPoints.length > 0) return 'app_shell';
  if (text === 0) return 'empty_body';
  if (text < SHELL_TEXT && isNoscriptWall(signals)) return 'noscript_wall';
  if (text < SCRIPTED_TEXT && signals.scripts > 0) return 'script_shell';
  return null;
}

export function isNoscriptWall(signals: PageSignals): boolean {
  return NOSCRIPT_WALL.test(signals.noscriptText) || NOSCRIPT_WALL.test(signals.text);
}

/** What a reader gets after rendering: nothing at all is a failure, not a page. */
export function renderedEmpty(signals: PageSignals): boolean {
  return signals.textLength === 0;
}
