/**
 * Fake language-model provider for tests and local demos.
 *
 * It speaks the OpenAI chat completions API and the Anthropic messages API (non-streaming) closely enough
 * that the official SDKs work against it unchanged, answers extraction requests deterministically from the
 * page content in the prompt, and fails on demand the way real providers fail (rate limits, outages, hung
 * requests, broken JSON): in-process, through the model name, or over HTTP from another process.
 *
 * Run directly for demos: `tsx test/support/fake-llm-server.ts` (port from FAKE_LLM_PORT, default 8090).
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

// ---------------------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------------------

export const FAILURE_KINDS = [
  '429',
  '500',
  '401',
  'timeout',
  'malformed',
  'truncated',
  'invalid_schema',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface FailureSpec {
  kind: FailureKind;
  /** How many matching requests fail this way; default 1. */
  count?: number;
  /** Only requests for this model fail (and use up the count). */
  model?: string;
  /** '429' only: the Retry-After header sent (default '1'; '' sends none). */
  retryAfter?: string;
}

export type ProviderApi = 'openai' | 'anthropic';

export interface RecordedRequest {
  api: ProviderApi;
  path: string;
  model: string | null;
  /** Request headers, with credentials replaced by '***'. */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body; the raw text when it was not JSON; null when there was none. */
  body: unknown;
  /** ISO timestamp. */
  receivedAt: string;
}

export interface FakeLlmServer {
  /** e.g. http://127.0.0.1:PORT */
  url: string;
  /** `url + '/v1'`, for `new OpenAI({ baseURL })`. */
  openaiBaseUrl: string;
  /** `url`, for `new Anthropic({ baseURL })` (the SDK appends /v1/messages). */
  anthropicBaseUrl: string;
  /** Every provider request received since start or the last reset(), oldest first. */
  requests: RecordedRequest[];
  enqueueFailure(failure: FailureSpec): void;
  /**
   * The next generation request (for `model`, if given) answers exactly this JSON instead of one drawn from
   * the page: for tests of what a caller does with a particular answer. Queued failures come first.
   */
  enqueueAnswer(answer: unknown, model?: string): void;
  /** Forgets recorded requests and queued failures. */
  reset(): void;
  /** Stops listening and drops open connections, including requests held open by 'timeout'. */
  close(): Promise<void>;
}

export interface FakeLlmServerOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Added before every provider response, to make a demo feel like a real model. */
  latencyMs?: number;
  /**
   * Answers instead of the page-drawn answer when it returns an object (the properties the request's schema
   * asks for are kept): for tests that know each page's truth, e.g. by the "Page URL:" line of the prompt.
   */
  respond?: (request: { userText: string; properties: string[] }) => Record<string, unknown> | undefined;
}

export async function startFakeLlmServer(opts: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
  const state: State = {
    requests: [],
    failures: [],
    answers: [],
    timers: new Set(),
    latencyMs: opts.latencyMs ?? 0,
    lastId: 0,
    respond: opts.respond,
  };
  const server = createServer((req, res) => {
    handleRequest(state, req, res).catch((err: unknown) => {
      sendJson(res, 500, { error: { message: `fake LLM server bug: ${String(err)}`, type: 'server_error' } });
    });
  });
  await listen(server, opts.port ?? 0);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests: state.requests,
    enqueueFailure: (failure) => {
      state.failures.push(toQueuedFailure(checkFailureSpec(failure)));
    },
    enqueueAnswer: (answer, model) => {
      state.answers.push({ answer, model });
    },
    reset: () => resetState(state),
    close: () => closeServer(server, state),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Server state and lifecycle
// ---------------------------------------------------------------------------------------------------------

interface QueuedFailure {
  kind: FailureKind;
  remaining: number;
  model: string | undefined;
  retryAfter?: string;
}

interface State {
  requests: RecordedRequest[];
  failures: QueuedFailure[];
  answers: { answer: unknown; model: string | undefined }[];
  /** Pending latency timers, cleared on close so a closed server does not keep the process alive. */
  timers: Set<NodeJS.Timeout>;
  latencyMs: number;
  lastId: number;
  respond: FakeLlmServerOptions['respond'];
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // Loopback only: this server must never be reachable from outside the machine.
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server, state: State): Promise<void> {
  for (const timer of state.timers) clearTimeout(timer);
  state.timers.clear();
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    // Requests held open by a 'timeout' failure, and idle keep-alive sockets, would keep close() waiting.
    server.closeAllConnections();
  });
}

function resetState(state: State): void {
  // Emptied in place: callers hold a reference to `requests` through FakeLlmServer.
  state.requests.length = 0;
  state.failures.length = 0;
  state.answers.length = 0;
}

function nextId(state: State): string {
  state.lastId += 1;
  return `fake${String(state.lastId).padStart(6, '0')}`;
}

function sleep(state: State, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      state.timers.delete(timer);
      resolve();
    }, ms);
    state.timers.add(timer);
  });
}

// ---------------------------------------------------------------------------------------------------------
// Failure control
// ---------------------------------------------------------------------------------------------------------

function checkFailureSpec(value: unknown): FailureSpec {
  if (!isRecord(value)) throw new TypeError('failure spec must be an object');
  const { kind, count, model, retryAfter } = value;
  if (!FAILURE_KINDS.includes(kind as FailureKind)) {
    throw new TypeError(`failure kind must be one of ${FAILURE_KINDS.join(', ')}`);
  }
  if (count !== undefined && !(Number.isInteger(count) && (count as number) > 0)) {
    throw new TypeError('failure count must be a positive integer');
  }
  if (model !== undefined && typeof model !== 'string') throw new TypeError('failure model must be a string');
  if (retryAfter !== undefined && typeof retryAfter !== 'string') {
    throw new TypeError('failure retryAfter must be a string');
  }
  return { kind: kind as FailureKind, count: count as number | undefined, model, retryAfter };
}

function toQueuedFailure(spec: FailureSpec): QueuedFailure {
  return { kind: spec.kind, remaining: spec.count ?? 1, model: spec.model, retryAfter: spec.retryAfter };
}

/** Uses up one queued failure that applies to `model`, oldest first. */
function takeQueuedFailure(state: State, model: string): QueuedFailure | null {
  const index = state.failures.findIndex((f) => f.model === undefined || f.model === model);
  const failure = state.failures[index];
  if (!failure) return null;
  failure.remaining -= 1;
  if (failure.remaining <= 0) state.failures.splice(index, 1);
  return failure;
}

interface ModelDirective {
  failure: FailureKind | null;
  delayMs: number;
}

/** `fake-429`, `fake-timeout`, ... always fail that way; `fake-slow-<ms>` answers late; others are normal. */
function modelDirective(model: string): ModelDirective {
  const slow = /^fake-slow-(\d+)$/.exec(model);
  if (slow) return { failure: null, delayMs: Number(slow[1]) };
  const kind = model.startsWith('fake-') ? model.slice('fake-'.length) : '';
  const failure = FAILURE_KINDS.find((k) => k === kind) ?? null;
  return { failure, delayMs: 0 };
}

// ---------------------------------------------------------------------------------------------------------
// HTTP handling
// ---------------------------------------------------------------------------------------------------------

type Endpoint = 'chat' | 'messages' | 'models';

interface Route {
  api: ProviderApi;
  endpoint: Endpoint | null;
}

async function handleRequest(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? 'GET';
  const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
  if (path.startsWith('/__control/')) return handleControl(state, method, path, req, res);

  const id = nextId(state);
  const route = routeFor(method, path, req.headers);
  const rawBody = method === 'POST' ? await readBody(req) : '';
  const body = rawBody === '' ? null : (tryParseJson(rawBody) ?? rawBody);
  const model = isRecord(body) && typeof body.model === 'string' ? body.model : null;
  state.requests.push({
    api: route.api,
    path,
    model,
    headers: redactHeaders(req.headers),
    body,
    receivedAt: new Date().toISOString(),
  });

  if (route.endpoint === null) {
    return sendError(res, route.api, id, 'not_found', `Invalid URL (${method} ${path})`);
  }
  const key = apiKeyOf(route.api, req.headers);
  if (key === null || key === 'invalid' || key.startsWith('bad-')) {
    return sendError(res, route.api, id, 'auth', authErrorMessage(route.api, key));
  }
  if (route.endpoint === 'models')
    return sendJson(res, 200, modelList(route.api), requestIdHeader(route.api, id));

  const problem = requestProblem(route.api, body);
  if (problem !== null || !isRecord(body)) {
    return sendError(res, route.api, id, 'bad_request', problem ?? 'body must be a JSON object');
  }
  return answerGeneration(state, route.api, id, body, res);
}

function routeFor(method: string, path: string, headers: IncomingHttpHeaders): Route {
  if (method === 'POST' && path === '/v1/chat/completions') return { api: 'openai', endpoint: 'chat' };
  if (method === 'POST' && path === '/v1/messages') return { api: 'anthropic', endpoint: 'messages' };
  // Both providers list models at the same path; the Anthropic SDK gives itself away by its headers.
  const anthropic = headers['x-api-key'] !== undefined || headers['anthropic-version'] !== undefined;
  const api: ProviderApi = anthropic ? 'anthropic' : 'openai';
  if (method === 'GET' && path === '/v1/models') return { api, endpoint: 'models' };
  return { api, endpoint: null };
}

async function answerGeneration(
  state: State,
  api: ProviderApi,
  id: string,
  body: Record<string, unknown>,
  res: ServerResponse,
): Promise<void> {
  const model = String(body.model);
  const directive = modelDirective(model);
  const queued = takeQueuedFailure(state, model);
  const failure = queued?.kind ?? directive.failure;
  await sleep(state, state.latencyMs + directive.delayMs);

  switch (failure) {
    case 'timeout':
      // Deliberately never answer: the client's own timeout must fire. close() drops the connection.
      return;
    case '401':
      return sendError(res, api, id, 'auth', authErrorMessage(api, 'revoked'));
    case '429':
      return sendError(res, api, id, 'rate_limit', undefined, queued?.retryAfter);
    case '500':
      return sendError(res, api, id, 'server');
  }

  const prompt = api === 'openai' ? openaiPrompt(body) : anthropicPrompt(body);
  const output = api === 'openai' ? openaiOutputSpec(body, prompt) : anthropicOutputSpec(body, prompt);
  const reply =
    cannedReply(state, model, failure) ??
    respondedReply(state, output.schema, prompt.userText, failure) ??
    buildReply(output.schema, prompt.userText, failure);
  const usage = countUsage(prompt, reply);
  const envelope =
    api === 'openai'
      ? openaiCompletion(id, model, reply, usage)
      : anthropicMessage(id, model, reply, output.toolName, usage);
  sendJson(res, 200, envelope, requestIdHeader(api, id));
}

async function handleControl(
  state: State,
  method: string,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (method === 'GET' && path === '/__control/requests') return sendJson(res, 200, state.requests);
  if (method === 'POST' && path === '/__control/reset') {
    resetState(state);
    return sendJson(res, 200, { ok: true });
  }
  if (method === 'POST' && path === '/__control/failures') {
    try {
      state.failures.push(toQueuedFailure(checkFailureSpec(tryParseJson(await readBody(req)))));
    } catch (err) {
      return sendJson(res, 400, { error: err instanceof Error ? err.message : String(err) });
    }
    return sendJson(res, 200, { ok: true, queued: state.failures.length });
  }
  return sendJson(res, 404, { error: `unknown control endpoint: ${method} ${path}` });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  // The client may have given up already (timeouts, slow models); writing then would only raise errors.
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'api-key']);

function redactHeaders(headers: IncomingHttpHeaders): Record<string, string | string[] | undefined> {
  const entries = Object.entries(headers).map(([name, value]) => [
    name,
    SECRET_HEADERS.has(name) && value !== undefined ? '***' : value,
  ]);
  return Object.fromEntries(entries) as Record<string, string | string[] | undefined>;
}

// ---------------------------------------------------------------------------------------------------------
// Provider conventions: auth, errors, validation, model list
// ---------------------------------------------------------------------------------------------------------

function apiKeyOf(api: ProviderApi, headers: IncomingHttpHeaders): string | null {
  const bearer = /^Bearer\s+(\S+)/i.exec(headers.authorization ?? '')?.[1] ?? null;
  if (api === 'openai') return bearer;
  // The API documents `x-api-key`, but @anthropic-ai/sdk 1.x sends the API key as a Bearer token.
  const key = headers['x-api-key'];
  return typeof key === 'string' && key !== '' ? key : bearer;
}

function authErrorMessage(api: ProviderApi, key: string | null): string {
  if (api === 'anthropic') return key === null ? 'x-api-key header is required' : 'invalid x-api-key';
  if (key === null) {
    return (
      "You didn't provide an API key. You need to provide your API key in an Authorization header " +
      'using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).'
    );
  }
  return (
    `Incorrect API key provided: ${key.slice(0, 4)}***. ` +
    'You can find your API key at https://platform.openai.com/account/api-keys.'
  );
}

type ErrorKind = 'auth' | 'rate_limit' | 'server' | 'bad_request' | 'not_found';

interface ErrorStyle {
  status: number;
  message: string;
  openaiType: string;
  openaiCode: string | null;
  anthropicType: string;
}

/** Status codes and error types as the real APIs send them, so the SDKs pick their matching error classes. */
const ERROR_STYLES: Record<ErrorKind, ErrorStyle> = {
  auth: {
    status: 401,
    message: 'Invalid API key',
    openaiType: 'invalid_request_error',
    openaiCode: 'invalid_api_key',
    anthropicType: 'authentication_error',
  },
  rate_limit: {
    status: 429,
    message: 'Rate limit reached for requests. Please try again in 1s.',
    openaiType: 'requests',
    openaiCode: 'rate_limit_exceeded',
    anthropicType: 'rate_limit_error',
  },
  server: {
    status: 500,
    message: 'The server had an error while processing your request. Sorry about that!',
    openaiType: 'server_error',
    openaiCode: null,
    anthropicType: 'api_error',
  },
  bad_request: {
    status: 400,
    message: 'Invalid request',
    openaiType: 'invalid_request_error',
    openaiCode: null,
    anthropicType: 'invalid_request_error',
  },
  not_found: {
    status: 404,
    message: 'Not found',
    openaiType: 'invalid_request_error',
    openaiCode: null,
    anthropicType: 'not_found_error',
  },
};

function sendError(
  res: ServerResponse,
  api: ProviderApi,
  id: string,
  kind: ErrorKind,
  message?: string,
  retryAfter = '1',
): void {
  const style = ERROR_STYLES[kind];
  const text = message ?? style.message;
  const headers = requestIdHeader(api, id);
  if (style.status === 429 && retryAfter !== '') headers['retry-after'] = retryAfter;
  const body =
    api === 'openai'
      ? { error: { message: text, type: style.openaiType, param: null, code: style.openaiCode } }
      : { type: 'error', error: { type: style.anthropicType, message: text }, request_id: `req_${id}` };
  sendJson(res, style.status, body, headers);
}

function requestIdHeader(api: ProviderApi, id: string): Record<string, string> {
  return { [api === 'openai' ? 'x-request-id' : 'request-id']: `req_${id}` };
}

/** The required-field checks the real APIs make, so client bugs show up as 400s here too. */
function requestProblem(api: ProviderApi, body: unknown): string | null {
  if (!isRecord(body)) return 'request body must be a JSON object';
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: Field required';
  if (api === 'anthropic' && typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
  return null;
}

const LISTED_MODELS = ['fake-model', 'fake-slow-1000', ...FAILURE_KINDS.map((kind) => `fake-${kind}`)];

function modelList(api: ProviderApi): unknown {
  if (api === 'openai') {
    const data = LISTED_MODELS.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'fake' }));
    return { object: 'list', data };
  }
  const data = LISTED_MODELS.map((id) => ({
    type: 'model',
    id,
    display_name: id,
    created_at: '2024-01-01T00:00:00Z',
  }));
  return { data, has_more: false, first_id: LISTED_MODELS[0], last_id: LISTED_MODELS.at(-1) };
}

// ---------------------------------------------------------------------------------------------------------
// Reading requests: prompt text and the wanted output schema
// ---------------------------------------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
/** Untrusted JSON schema from a request; read only through the guarded helpers below. */
type JsonSchema = Record<string, unknown>;
type ObjectSchema = JsonSchema & { properties: Record<string, unknown> };

/** What the fake needs from a request, whichever API it came through. */
interface Prompt {
  /** System/developer instructions: searched for a schema, never for answers. */
  instructions: string;
  /** Everything the user sent: the page content answers are drawn from. */
  userText: string;
  /** Characters of all messages (and the Anthropic system prompt), for token usage. */
  messageChars: number;
}

/** Where the answer goes: the schema it must follow, and the tool it is passed to (Anthropic only). */
interface OutputSpec {
  schema: ObjectSchema | null;
  toolName: string | null;
}

function openaiPrompt(body: Record<string, unknown>): Prompt {
  const messages = recordsIn(body.messages);
  const textOfRoles = (roles: string[]) =>
    messages.filter((m) => roles.includes(String(m.role))).map((m) => textOf(m.content));
  return {
    instructions: textOfRoles(['system', 'developer']).join('\n\n'),
    userText: textOfRoles(['user']).join('\n\n'),
    messageChars: sum(messages.map((m) => textOf(m.content).length)),
  };
}

function anthropicPrompt(body: Record<string, unknown>): Prompt {
  const messages = recordsIn(body.messages);
  const system = textOf(body.system);
  return {
    instructions: system,
    userText: messages
      .filter((m) => m.role === 'user')
      .map((m) => textOf(m.content))
      .join('\n\n'),
    messageChars: system.length + sum(messages.map((m) => textOf(m.content).length)),
  };
}

/** Message content is a string or a list of parts (text, tool results with nested content, images...). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts = content
    .filter(isRecord)
    .map((part) => (typeof part.text === 'string' ? part.text : textOf(part.content)));
  return parts.filter((text) => text !== '').join('\n');
}

function openaiOutputSpec(body: Record<string, unknown>, prompt: Prompt): OutputSpec {
  const format = isRecord(body.response_format) ? body.response_format : {};
  const structured =
    format.type === 'json_schema' && isRecord(format.json_schema) ? format.json_schema.schema : null;
  // With `json_object` (or no format at all) the schema can only be in the prompt text.
  return { schema: isObjectSchema(structured) ? structured : schemaInText(prompt), toolName: null };
}

function anthropicOutputSpec(body: Record<string, unknown>, prompt: Prompt): OutputSpec {
  const tool = forcedTool(body);
  const config = isRecord(body.output_config) ? body.output_config : {};
  const format = isRecord(config.format) && config.format.type === 'json_schema' ? config.format : {};
  const structured = tool ? tool.input_schema : format.schema;
  return {
    schema: isObjectSchema(structured) ? structured : schemaInText(prompt),
    toolName: tool && typeof tool.name === 'string' ? tool.name : null,
  };
}

/** The tool the request makes the model call, if any: `tool_choice` names it, or `any` with a single tool. */
function forcedTool(body: Record<string, unknown>): Record<string, unknown> | null {
  const tools = recordsIn(body.tools);
  const choice = isRecord(body.tool_choice) ? body.tool_choice : null;
  if (choice?.type === 'tool') return tools.find((tool) => tool.name === choice.name) ?? null;
  if (choice?.type === 'any' && tools.length === 1) return tools[0] ?? null;
  return null;
}

const FENCED_JSON = /```json[^\n]*\n([\s\S]*?)```/g;

/** The first ```json block of the instructions or user text that is an object schema with `properties`. */
function schemaInText(prompt: Prompt): ObjectSchema | null {
  for (const match of `${prompt.instructions}\n\n${prompt.userText}`.matchAll(FENCED_JSON)) {
    const parsed = tryParseJson(match[1] ?? '');
    if (isObjectSchema(parsed)) return parsed;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Extraction: answering from the page content
// ---------------------------------------------------------------------------------------------------------

/** A stretch of markdown to search: the whole page, one section of it, or one list item. */
interface Doc {
  lines: string[];
  /** Fallback for title-like properties: the first heading (or an item's unlabeled first segment). */
  title: string | null;
}

const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)[\s#]*$/;
const LABELED_LINE = /^\s*(?:[-*+]\s+)?(?:\*\*|__)?([^:*|\n]{1,80}?)(?:\*\*|__)?\s*:(?:\*\*|__)?\s*(.*)$/;
const LIST_ITEM = /^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$/;
const TITLE_LIKE = new Set(['title', 'name', 'heading']);

function pageDoc(text: string): Doc {
  // Fenced blocks are the schema or example output, not page facts; their `"key": value` lines would mislead.
  const lines = text.replace(/```[\s\S]*?```/g, '').split(/\r?\n/);
  return { lines, title: firstHeading(lines) };
}

function firstHeading(lines: string[]): string | null {
  for (const line of lines) {
    const heading = HEADING.exec(line);
    if (heading?.[2]) return cleanInline(heading[2]);
  }
  return null;
}

/** `in_stock`, `In stock`, `in-stock`, `inStock` and `**In Stock:**` all compare equal. */
function normalizeLabel(label: string): string {
  return label
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[*`]/g, '')
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ')
    .replace(/:$/, '')
    .trim();
}

/** Drops markdown emphasis, code ticks and link targets. */
function cleanInline(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*\*|__|`/g, '')
    .trim();
}

/** A `| label | value |` table row, or a `Label: value` / `**Label:** value` line, as [label, value]. */
function labelAndValue(line: string): [string, string] | null {
  const trimmed = line.trim();
  if (trimmed.startsWith('|')) {
    const cells = trimmed
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim());
    const [label, value] = cells;
    if (label === undefined || value === undefined || /^:?-+:?$/.test(label)) return null;
    return [label, value];
  }
  const match = LABELED_LINE.exec(line);
  return match ? [match[1] ?? '', (match[2] ?? '').trim()] : null;
}

function labeledValue(doc: Doc, name: string): string | null {
  const wanted = normalizeLabel(name);
  for (const line of doc.lines) {
    const pair = labelAndValue(line);
    if (pair && pair[1] !== '' && normalizeLabel(pair[0]) === wanted) return pair[1];
  }
  return null;
}

/** The part of `doc` under a heading naming `name` (or a bare `Name:` line), or null. */
function sectionNamed(doc: Doc, name: string): Doc | null {
  const wanted = ` ${normalizeLabel(name)} `;
  for (const [index, line] of doc.lines.entries()) {
    const heading = HEADING.exec(line);
    if (heading && ` ${normalizeLabel(heading[2] ?? '')} `.includes(wanted)) {
      const level = heading[1]?.length ?? 1;
      const end = doc.lines.findIndex((l, i) => i > index && (HEADING.exec(l)?.[1]?.length ?? 7) <= level);
      const lines = doc.lines.slice(index + 1, end < 0 ? undefined : end);
      return { lines, title: firstHeading(lines) };
    }
    const pair = heading ? null : labelAndValue(line);
    if (pair && pair[1] === '' && ` ${normalizeLabel(pair[0])} ` === wanted) {
      // A bare "Features:" line introduces the list right below it.
      let end = index + 1;
      while (end < doc.lines.length && /^(\s|$)|^\s*([-*+]|\d+[.)])\s/.test(doc.lines[end] ?? '')) end += 1;
      const lines = doc.lines.slice(index + 1, end);
      return { lines, title: null };
    }
  }
  return null;
}

/** Top-level markdown list items, each with the more-indented lines that follow it (markers stripped). */
function listItems(lines: string[]): string[][] {
  const items: string[][] = [];
  let baseIndent: number | null = null;
  let current: string[] | null = null;
  for (const line of lines) {
    const item = LIST_ITEM.exec(line);
    const indent = line.length - line.trimStart().length;
    if (item && (baseIndent === null || indent <= baseIndent)) {
      baseIndent = indent;
      current = [item[2] ?? ''];
      items.push(current);
    } else if (current && line.trim() !== '' && indent > (baseIndent ?? 0)) {
      current.push(line.trim().replace(/^([-*+]|\d+[.)])\s+/, ''));
    } else if (line.trim() !== '') {
      current = null;
    }
  }
  return items;
}

/** One list item as a document: "Name: Red, Price: $5" on one line reads as one field per segment. */
function itemDoc(lines: string[]): Doc {
  const [first = '', ...rest] = lines;
  const segments = first.split(/\s*[;|]\s*|,\s+(?=[^,:]{1,40}:)/);
  const lead = segments[0] ?? '';
  const title = firstHeading(rest) ?? (LABELED_LINE.test(lead) ? null : cleanInline(lead));
  return { lines: [...segments, ...rest], title };
}

function extractObject(schema: ObjectSchema, doc: Doc): JsonObject {
  const result: JsonObject = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    result[name] = extractProperty(name, resolveSchema(property), doc);
  }
  return result;
}

function extractProperty(name: string, schema: JsonSchema, doc: Doc): Json {
  switch (schemaType(schema)) {
    case 'object':
      return isObjectSchema(schema) ? extractObject(schema, sectionNamed(doc, name) ?? doc) : {};
    case 'array':
      return extractArray(name, schema, doc);
    default: {
      const raw = labeledValue(doc, name) ?? (TITLE_LIKE.has(normalizeLabel(name)) ? doc.title : null);
      return raw === null ? null : coerce(raw, schema);
    }
  }
}

/** List items under a heading named like the property; else a `Label: a, b, c` line for scalar items. */
function extractArray(name: string, schema: JsonSchema, doc: Doc): Json[] {
  const itemSchema = resolveSchema(schema.items);
  const items = listItems(sectionNamed(doc, name)?.lines ?? []);
  if (items.length > 0) {
    const values = items.map((lines) =>
      isObjectSchema(itemSchema)
        ? extractObject(itemSchema, itemDoc(lines))
        : coerce(lines[0] ?? '', itemSchema),
    );
    return values.filter((value) => value !== null);
  }
  const inline = schemaType(itemSchema) === 'object' ? null : labeledValue(doc, name);
  if (inline === null) return [];
  return inline
    .split(/[,;]\s+/)
    .map((part) => coerce(part, itemSchema))
    .filter((value) => value !== null);
}

function coerce(raw: string, schema: JsonSchema): Json {
  const text = cleanInline(raw);
  switch (schemaType(schema)) {
    case 'number':
      return parseNumber(text);
    case 'integer': {
      const value = parseNumber(text);
      return value === null ? null : Math.round(value);
    }
    case 'boolean':
      return parseBoolean(text);
    case 'null':
      return null;
    default:
      return matchEnum(text, schema);
  }
}

/** First number in the text; currency symbols are skipped and thousands separators dropped ("$1,299.00"). */
function parseNumber(text: string): number | null {
  const match = /-?\d+(?:\.\d+)?/.exec(text.replace(/(\d),(?=\d{3}\b)/g, '$1'));
  return match ? Number(match[0]) : null;
}

function parseBoolean(text: string): boolean | null {
  const value = text.toLowerCase();
  if (/^(no|n|false|out of stock|sold out|unavailable|not available)\b|^[✗✘]/.test(value)) return false;
  if (/^(yes|y|true|in stock|available)\b|^[✓✔]/.test(value)) return true;
  return null;
}

/** A string, or for an `enum` the member it names (case-insensitively), else null. */
function matchEnum(text: string, schema: JsonSchema): Json {
  if (!Array.isArray(schema.enum)) return text;
  const member = schema.enum.find((m) => typeof m === 'string' && normalizeLabel(m) === normalizeLabel(text));
  return typeof member === 'string' ? member : null;
}

/** Nullable types arrive as `anyOf: [X, {type: 'null'}]` (e.g. zod's `.nullable()`); X is what matters. */
function resolveSchema(schema: unknown): JsonSchema {
  if (!isRecord(schema)) return {};
  const branches = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : null;
  if (!branches) return schema;
  const resolved = branches.map(resolveSchema);
  return resolved.find((branch) => schemaType(branch) !== 'null') ?? resolved[0] ?? {};
}

/** The schema's type; for `type: ['string', 'null']` (OpenAI strict-mode nullables) the non-null one. */
function schemaType(schema: JsonSchema): string | null {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type))
    return type.find((t): t is string => typeof t === 'string' && t !== 'null') ?? 'null';
  if (isRecord(schema.properties)) return 'object';
  if (schema.items !== undefined) return 'array';
  if (Array.isArray(schema.enum)) return typeof schema.enum[0] === 'number' ? 'number' : 'string';
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Writing responses
// ---------------------------------------------------------------------------------------------------------

/** The model's reply before either API wraps it. */
interface Reply {
  /** What the model "generated": JSON text for good answers. Token usage is counted from it. */
  text: string;
  /** Arguments for a forced tool call; null means the reply can only be sent as text. */
  toolInput: JsonObject | null;
  /** Cut off by the token limit. */
  truncated: boolean;
}

interface Usage {
  input: number;
  output: number;
}

type ContentFailure = 'malformed' | 'truncated' | 'invalid_schema';

/**
 * What the fake model answers from `text` (the page content it was sent) for a JSON schema, or for a free-form
 * prompt when the schema has no properties: the same reading the server does, for fakes that need no server.
 */
export function answerFromPage(schema: unknown, text: string): JsonObject {
  return answerOf(isObjectSchema(schema) ? schema : null, pageDoc(text), text);
}

function answerOf(schema: ObjectSchema | null, doc: Doc, text: string): JsonObject {
  // Free-form prompts get a short, still-JSON answer, so the output is always machine-checkable.
  return schema ? extractObject(schema, doc) : { answer: doc.title ?? text.trim().slice(0, 200) };
}

function buildReply(schema: ObjectSchema | null, userText: string, failure: ContentFailure | null): Reply {
  const doc = pageDoc(userText);
  const answer = answerOf(schema, doc, userText);
  const json = JSON.stringify(answer);
  switch (failure) {
    case 'malformed':
      // Prose without any braces: not JSON, and nothing a lenient "find the {...}" parser could rescue.
      return {
        text: `Sure! Here is what I found on the page: ${doc.title ?? 'a product'}.`,
        toolInput: null,
        truncated: false,
      };
    case 'truncated':
      // Any strict prefix of a JSON object text is invalid JSON.
      return {
        text: json.slice(0, Math.max(1, Math.floor(json.length / 2))),
        toolInput: {},
        truncated: true,
      };
    case 'invalid_schema': {
      const wrong = wrongShape(schema);
      return {
        text: JSON.stringify(wrong),
        toolInput: Array.isArray(wrong) ? null : wrong,
        truncated: false,
      };
    }
    default:
      return { text: json, toolInput: answer, truncated: false };
  }
}

/** A queued answer for `model` (oldest first), sent as is; none while a content failure is due. */
function cannedReply(state: State, model: string, failure: ContentFailure | null): Reply | null {
  const index = state.answers.findIndex((a) => a.model === undefined || a.model === model);
  const queued = state.answers[index];
  if (failure !== null || !queued) return null;
  state.answers.splice(index, 1);
  const answer = queued.answer as Json;
  return { text: JSON.stringify(answer), toolInput: isRecord(answer) ? answer : null, truncated: false };
}

/** The test's own answer (`respond`), cut to the properties the schema asks for. */
function respondedReply(
  state: State,
  schema: ObjectSchema | null,
  userText: string,
  failure: ContentFailure | null,
): Reply | null {
  if (!state.respond || failure !== null) return null;
  const properties = schema ? Object.keys(schema.properties) : [];
  const answer = state.respond({ userText, properties });
  if (!answer) return null;
  const kept = Object.fromEntries(
    Object.entries(answer).filter(([name]) => !schema || properties.includes(name)),
  ) as JsonObject;
  return { text: JSON.stringify(kept), toolInput: kept, truncated: false };
}

/** Valid JSON that breaks the schema: every property gets a value of the wrong type. */
function wrongShape(schema: ObjectSchema | null): JsonObject | Json[] {
  // Without a schema the only promise is "a JSON object", so break that.
  if (!schema) return ['not', 'an', 'object'];
  const result: JsonObject = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    result[name] = schemaType(resolveSchema(property)) === 'object' ? 'not an object' : { unexpected: true };
  }
  return result;
}

/** About four characters a token, like real tokenizers on English text; deterministic for assertions. */
function countUsage(prompt: Prompt, reply: Reply): Usage {
  return { input: Math.ceil(prompt.messageChars / 4), output: Math.ceil(reply.text.length / 4) };
}

function openaiCompletion(id: string, model: string, reply: Reply, usage: Usage): unknown {
  return {
    id: `chatcmpl-${id}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.text, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: reply.truncated ? 'length' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

function anthropicMessage(
  id: string,
  model: string,
  reply: Reply,
  toolName: string | null,
  usage: Usage,
): unknown {
  const toolUse = toolName !== null && reply.toolInput !== null;
  const content = toolUse
    ? [{ type: 'tool_use', id: `toolu_${id}`, name: toolName, input: reply.toolInput }]
    : [{ type: 'text', text: reply.text, citations: null }];
  return {
    id: `msg_${id}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: reply.truncated ? 'max_tokens' : toolUse ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: usage.input,
      output_tokens: usage.output,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      service_tier: 'standard',
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isObjectSchema(value: unknown): value is ObjectSchema {
  return isRecord(value) && isRecord(value.properties);
}

function recordsIn(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

// ---------------------------------------------------------------------------------------------------------
// Standalone mode (`tsx test/support/fake-llm-server.ts`)
// ---------------------------------------------------------------------------------------------------------

async function runStandalone(): Promise<void> {
  const server = await startFakeLlmServer({ port: Number(process.env.FAKE_LLM_PORT ?? 8090) });
  console.log(`Fake LLM server listening on ${server.url}`);
  console.log(`  OpenAI baseURL:    ${server.openaiBaseUrl}`);
  console.log(`  Anthropic baseURL: ${server.anthropicBaseUrl}`);
  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

const entryPoint = process.argv[1];
if (entryPoint !== undefined && import.meta.url === pathToFileURL(entryPoint).href) {
  void runStandalone();
}
