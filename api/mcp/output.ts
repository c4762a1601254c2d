// What the MCP tools answer: compact JSON text bounded in size, and tool errors made from the API's problem
// documents (title, status, detail and the fields at fault; never a value echoed back, a stack or a key).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiResponse } from './api-call.js';

/** The most characters any tool answers with, so one call cannot flood an agent's context. */
export const MAX_TOOL_OUTPUT_CHARS = 40_000;
/** job_results: the most characters of page results in one answer (the rest is on the next page). */
export const MAX_RESULTS_CHARS = 20_000;
/** job_results: the most page results in one answer. */
export const MAX_RESULTS_PER_CALL = 50;

export function jsonResult(value: unknown): CallToolResult {
  const text = JSON.stringify(value);
  if (text.length <= MAX_TOOL_OUTPUT_CHARS) return { content: [{ type: 'text', text }] };
  const note =
    `\n[truncated: the answer is ${text.length} characters, over this tool's ${MAX_TOOL_OUTPUT_CHARS}; ` +
    'page through the data with job_results]';
  return { content: [{ type: 'text', text: text.slice(0, MAX_TOOL_OUTPUT_CHARS) + note }] };
}

export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

interface ProblemLike {
  title?: unknown;
  detail?: unknown;
  job_id?: unknown;
  error_category?: unknown;
  errors?: unknown;
}

const text = (v: unknown, max = 500) => (typeof v === 'string' ? v.slice(0, max) : undefined);

/** A failed API answer as a tool error: "Title (status): detail", the fields at fault, the job and category. */
export function problemResult(res: ApiResponse): CallToolResult {
  const problem = (res.body && typeof res.body === 'object' ? res.body : {}) as ProblemLike;
  const lines = [`${text(problem.title) ?? 'Request failed'} (${res.status}): ${text(problem.detail) ?? ''}`];
  if (Array.isArray(problem.errors)) {
    for (const e of problem.errors.slice(0, 10) as { location?: unknown; message?: unknown }[])
      lines.push(`- ${text(e?.location, 200) ?? '?'}: ${text(e?.message) ?? ''}`);
  }
  if (text(problem.job_id)) lines.push(`job_id: ${text(problem.job_id)}`);
  if (text(problem.error_category)) lines.push(`error_category: ${text(problem.error_category)}`);
  if (res.retryAfter) lines.push(`retry after: ${text(res.retryAfter, 50)} s`);
  return toolError(lines.join('\n'));
}

/**
 * Page results [offset, offset + limit) kept while their JSON fits MAX_RESULTS_CHARS (the first always
 * does: a page whose data alone is over the bound has its data replaced by a note).
 */
export function boundedPage<T extends { data?: unknown }>(
  items: readonly T[],
  offset: number,
  limit: number,
  tooLargeNote: string,
) {
  const page: unknown[] = [];
  let used = 0;
  for (const item of items.slice(offset, offset + limit)) {
    let size = JSON.stringify(item).length;
    let kept: unknown = item;
    if (size > MAX_RESULTS_CHARS && page.length === 0) {
      kept =
        item && typeof item === 'object' && 'data' in item
          ? { ...item, data: null, data_omitted: tooLargeNote }
          : { data_omitted: tooLargeNote };
      size = JSON.stringify(kept).length;
    }
    if (page.length > 0 && used + size > MAX_RESULTS_CHARS) break;
    page.push(kept);
    used += size;
  }
  const next = offset + page.length;
  return {
    total: items.length,
    offset,
    count: page.length,
    next_offset: next < items.length ? next : null,
    items: page,
  };
}
