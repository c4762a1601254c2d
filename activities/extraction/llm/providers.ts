// One call to a model through the provider's real SDK, with errors mapped to our categories.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { fetch as undiciFetch } from 'undici';
import {
  CategorizedError,
  type ErrorCategory,
  PROVIDER_RETRY_AFTER_MAX_S,
  withRetryAfter,
} from '../../../shared/errors.js';
import { providerInfo } from '../../../shared/llm/catalog.js';
import { guardedDispatcher } from '../../../shared/net/guarded-fetch.js';
import { currentActivity } from '../../common/activity-context.js';
import { minCallMs, stepTimeLeft, worthRetrying } from './step-time.js';

export interface ModelTarget {
  provider: string;
  model: string;
  apiKey?: string;
  baseUrl?: string;
  /** The endpoint is the operator's configuration (OPENAI_BASE_URL, …): it may be a private address. */
  operatorEndpoint?: boolean;
  temperature: number;
  maxTokens: number;
}

export interface ModelCall {
  system: string;
  user: string;
  jsonSchema: Record<string, unknown>;
  schemaName: string;
  timeoutMs: number;
  /** ALLOW_PRIVATE_ADDRESSES. */
  allowPrivate?: boolean;
}

/**
 * The SDKs' fetch: every model request goes through the guarded dispatcher, whoever chose the endpoint (a
 * caller's base_url, a stored one, a provider default such as ollama's loopback address). Only the operator's
 * own endpoints may be private. The dispatcher's header and body timeouts (meant for page fetches) are
 * raised to the model call's timeout, which the SDK enforces as a whole.
 */
function sdkFetch(target: ModelTarget, call: ModelCall): typeof fetch {
  const allowPrivate = (call.allowPrivate ?? false) || target.operatorEndpoint === true;
  const timeouts = { headersTimeout: call.timeoutMs, bodyTimeout: call.timeoutMs };
  const dispatcher = guardedDispatcher(allowPrivate).compose(
    (dispatch) => (opts, handler) => dispatch({ ...opts, ...timeouts }, handler),
  );
  return ((url: string | URL, init?: RequestInit) =>
    undiciFetch(url as string, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
}

export interface ModelAnswer {
  text: string;
  inputTokens: number;
  outputTokens: number;
  truncated: boolean;
}

export async function callModel(target: ModelTarget, call: ModelCall): Promise<ModelAnswer> {
  const info = providerInfo(target.provider);
  if (!info || info.status === 'decommissioned') {
    throw new CategorizedError(
      'model_unsupported',
      `unknown or decommissioned provider "${target.provider}"`,
    );
  }
  // Within a waited job's model step (step-time.ts); a call always gets a moment, so that a fast answer
  // (a rate limit, say) still says what went wrong instead of only that the time is spent.
  const left = stepTimeLeft(call.timeoutMs);
  const timeoutMs = Math.round(Math.max(Math.min(call.timeoutMs, left), minCallMs(call.timeoutMs)));
  const bounded = { ...call, timeoutMs };
  try {
    return info.api === 'anthropic'
      ? await callAnthropic(target, bounded)
      : await callOpenAi(target, bounded);
  } catch (err) {
    const mapped = mapSdkError(err, bounded);
    // A hung model is not asked again when a whole call no longer fits in the step: the job fails now.
    if (
      mapped instanceof CategorizedError &&
      mapped.category === 'timeout' &&
      !worthRetrying(call.timeoutMs)
    ) {
      throw new CategorizedError('timeout', mapped.message, false, mapped.details);
    }
    throw mapped;
  }
}

async function callOpenAi(target: ModelTarget, call: ModelCall): Promise<ModelAnswer> {
  const client = new OpenAI({
    apiKey: target.apiKey || 'no-key',
    baseURL: target.baseUrl,
    timeout: call.timeoutMs,
    maxRetries: 0, // fallback and retries are ours
    fetch: sdkFetch(target, call),
  });
  const structured = Object.keys(call.jsonSchema).length > 1 || 'properties' in call.jsonSchema;
  const res = await client.chat.completions.create(
    {
      model: target.model,
      temperature: target.temperature,
      max_tokens: target.maxTokens,
      messages: [
        { role: 'system', content: call.system },
        { role: 'user', content: call.user },
      ],
      response_format: structured
        ? {
            type: 'json_schema',
            json_schema: { name: call.schemaName, schema: call.jsonSchema, strict: false },
          }
        : { type: 'json_object' },
    },
    requestOptions(),
  );
  const choice = res.choices[0];
  return {
    text: choice?.message?.content ?? '',
    inputTokens: res.usage?.prompt_tokens ?? 0,
    outputTokens: res.usage?.completion_tokens ?? 0,
    truncated: choice?.finish_reason === 'length',
  };
}

async function callAnthropic(target: ModelTarget, call: ModelCall): Promise<ModelAnswer> {
  const client = new Anthropic({
    apiKey: target.apiKey || 'no-key',
    baseURL: target.baseUrl,
    timeout: call.timeoutMs,
    maxRetries: 0,
    fetch: sdkFetch(target, call),
  });
  // A forced tool is Anthropic's structured-output mode: the input must match the schema.
  const res = await client.messages.create(
    {
      model: target.model,
      max_tokens: target.maxTokens,
      system: call.system,
      messages: [{ role: 'user', content: call.user }],
      tools: [
        {
          name: 'record_extraction',
          description: 'Record the extracted data.',
          input_schema: toolSchema(call),
        },
      ],
      tool_choice: { type: 'tool', name: 'record_extraction' },
    },
    requestOptions(),
  );
  const tool = res.content.find((b) => b.type === 'tool_use');
  const text = tool
    ? JSON.stringify(tool.input)
    : res.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  return {
    text,
    inputTokens: res.usage.input_tokens,
    outputTokens: res.usage.output_tokens,
    truncated: res.stop_reason === 'max_tokens',
  };
}

/**
 * The running activity's cancellation ends the model request too: a worker that stops (or a job that is
 * cancelled) does not wait out a model's answer before handing the page back.
 */
function requestOptions(): { signal?: AbortSignal } {
  const signal = currentActivity()?.cancellationSignal;
  return signal ? { signal } : {};
}

function toolSchema(call: ModelCall): Anthropic.Tool.InputSchema {
  return { ...call.jsonSchema, type: 'object' } as Anthropic.Tool.InputSchema;
}

function mapSdkError(err: unknown, call: ModelCall): Error {
  if (err instanceof CategorizedError) return err;
  // A refused connection to a caller's endpoint (private address) surfaces through the SDK's own error.
  const refusal = findCause(err, (e) => e instanceof CategorizedError && e.category === 'ssrf_blocked');
  if (refusal) return refusal;
  const cat = (category: ErrorCategory, retryable: boolean) =>
    new CategorizedError(category, `${providerLabel(err)}${readableMessage(err)}`, retryable);
  if (err instanceof OpenAI.APIConnectionTimeoutError || err instanceof Anthropic.APIConnectionTimeoutError) {
    return new CategorizedError('timeout', `the model did not answer within ${call.timeoutMs} ms`, true);
  }
  if (err instanceof OpenAI.APIError || err instanceof Anthropic.APIError) {
    const status = err.status ?? 0;
    if (status === 401 || status === 403) return cat('invalid_key', false);
    if (isQuotaError(err)) return cat('quota_exceeded', false);
    if (status === 429) return rateLimited(err);
    if (status === 404) return cat('model_unsupported', false);
    if (status === 408 || status === 504) return cat('timeout', true);
    if (status === 400 && /context|too long|maximum/i.test(err.message))
      return cat('content_too_long', false);
    return cat('provider_error', true);
  }
  return err instanceof Error ? cat('provider_error', true) : new CategorizedError('unknown', String(err));
}

/** A provider's rate limit, with the wait it asked for (Retry-After, bounded) when it gave one. */
function rateLimited(err: InstanceType<typeof OpenAI.APIError> | InstanceType<typeof Anthropic.APIError>) {
  const message = `${providerLabel(err)}${readableMessage(err)}`;
  const seconds = retryAfterSeconds(err.headers);
  return seconds === null
    ? new CategorizedError('rate_limit', message, true)
    : new CategorizedError('rate_limit', withRetryAfter(message, seconds), true, { retry_after_s: seconds });
}

/** `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an HTTP date; 1 s to PROVIDER_RETRY_AFTER_MAX_S. */
export function retryAfterSeconds(headers: unknown, now = Date.now()): number | null {
  const get = (name: string): string | null => {
    if (!headers || typeof headers !== 'object') return null;
    if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
    const value = (headers as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : null;
  };
  const ms = Number(get('retry-after-ms'));
  const raw = get('retry-after')?.trim() ?? '';
  let seconds: number | null = null;
  if (Number.isFinite(ms) && ms > 0) seconds = ms / 1000;
  else if (/^\d+(\.\d+)?$/.test(raw)) seconds = Number(raw);
  else if (raw && Number.isFinite(Date.parse(raw))) seconds = (Date.parse(raw) - now) / 1000;
  if (seconds === null) return null;
  return Math.min(Math.max(Math.ceil(seconds), 1), PROVIDER_RETRY_AFTER_MAX_S);
}

/** Out of credit or over a spending limit: unlike a rate limit (also a 429 at OpenAI), waiting does not help. */
function isQuotaError(err: InstanceType<typeof OpenAI.APIError> | InstanceType<typeof Anthropic.APIError>) {
  const code = err instanceof OpenAI.APIError ? err.code : null;
  return (
    err.status === 402 ||
    err.type === 'insufficient_quota' ||
    err.type === 'billing_error' ||
    code === 'insufficient_quota'
  );
}

function findCause(err: unknown, match: (e: unknown) => boolean, depth = 0): Error | null {
  if (!err || depth > 5) return null;
  if (match(err)) return err as Error;
  return findCause((err as { cause?: unknown }).cause, match, depth + 1);
}

function providerLabel(err: unknown): string {
  const status = (err as { status?: number }).status;
  return typeof status === 'number' ? `provider answered ${status}: ` : '';
}

/**
 * The provider's own error text: the SDKs put the raw JSON body in `message` ("429 {"type":"error",…}");
 * the human sentence is in the parsed body.
 */
function readableMessage(err: unknown): string {
  const body = (err as { error?: unknown }).error as
    | { message?: unknown; error?: { message?: unknown } }
    | undefined;
  const nested = body?.error?.message ?? body?.message;
  if (typeof nested === 'string' && nested.trim()) return nested.trim();
  return err instanceof Error ? err.message : String(err);
}
