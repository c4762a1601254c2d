// A model call as the job's debug capture keeps it (capture_debug): prompt, answer, cost, error — every text
// with the call's key taken out.
import { redactSecrets } from '../../shared/secrets.js';
import type { DebugCapture } from '../../shared/store/debug-captures.js';
import type { AnswerInput } from './extraction-types.js';
import type { CaptureInput } from './llm/dialogue.js';
import { SYSTEM_PROMPT } from './llm/prompt.js';

const API_VERSION = 'v1';

export function toCapture(
  input: AnswerInput,
  c: CaptureInput,
  attempt: number,
  rawPage: string,
): DebugCapture {
  const secrets = c.entry.apiKey ? [c.entry.apiKey] : [];
  const clean = (text: string) => redactSecrets(text, secrets);
  return {
    id: `${input.jobId}:${input.pageId}:${String(attempt).padStart(3, '0')}`,
    api_version: API_VERSION,
    job_type: input.jobType ?? 'extract',
    timestamp: new Date(c.started).toISOString(),
    url: input.url,
    is_byok: c.entry.isByok,
    sequence: attempt,
    request: {
      content_size: rawPage.length,
      fallback_position: c.entry.position,
      max_tokens: c.entry.maxTokens,
      prompt_size: SYSTEM_PROMPT.length + c.user.length,
      fetch_mode: input.fetch.fetchMode,
      ...(input.fetch.actions ? { actions: input.fetch.actions } : {}),
      model: c.entry.model,
      page_content: clean(c.content),
      prompt: clean(input.schema.prompt ?? ''),
      provider: c.entry.provider,
      schema: JSON.stringify(c.jsonSchema),
      system_prompt: SYSTEM_PROMPT,
      user_prompt: clean(c.user),
      hints_applied: {},
      is_retry: c.isRetry,
      json_mode: true,
      temperature: c.entry.temperature,
    },
    response: {
      cost_usd: c.cost ?? 0,
      duration_ms: Date.now() - c.started,
      input_tokens: c.answer?.inputTokens ?? 0,
      output_tokens: c.answer?.outputTokens ?? 0,
      error: c.error ? clean(c.error.message) : '',
      error_category: c.error?.category ?? '',
      parse_error: c.parseError ?? '',
      raw_output: clean(c.answer?.text ?? ''),
      parsed_output: c.data ?? null,
      success: !c.error && c.data !== undefined && !c.parseError,
    },
  };
}
