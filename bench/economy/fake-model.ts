// A fake model for the economy bench, speaking the OpenAI chat completions API (POST /v1/chat/completions)
// as the service's OpenAI SDK calls it. It answers every page correctly from the generator's ground truth
// (the page is named in the prompt as "Page URL: ..."), only the properties the request's JSON schema asks
// for, after a set latency, with prompt and answer tokens counted by the o200k tokenizer (gpt-4o's), and it
// counts the calls it received per page path.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTokens, encodeChat } from 'gpt-tokenizer/encoding/o200k_base';
import type { PageTruth } from './catalogue.js';

export interface ModelCall {
  /** The page path named in the prompt (null when the prompt named no page of the shop). */
  path: string | null;
  /** The properties asked for. */
  fields: string[];
  inputTokens: number;
  outputTokens: number;
}

export interface FakeModel {
  /** For OPENAI_BASE_URL. */
  openaiBaseUrl: string;
  /** Every completion answered since start or the last reset(). */
  calls: ModelCall[];
  reset(): void;
  close(): Promise<void>;
}

type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

export async function startFakeModel(opts: {
  truth: Map<string, PageTruth>;
  latencyMs: number;
}): Promise<FakeModel> {
  const calls: ModelCall[] = [];
  let nextId = 0;
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, { error: { message: String(err) } }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && path === '/v1/models')
      return send(res, 200, { object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model' }] });
    if (req.method !== 'POST' || path !== '/v1/chat/completions')
      return send(res, 404, { error: { message: `Invalid URL (${req.method} ${path})` } });
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    const messages = chatMessages(body.messages);
    const user = messages.find((m) => m.role === 'user')?.content ?? '';
    const pagePath = pagePathOf(user);
    const page = pagePath === null ? undefined : opts.truth.get(pagePath);
    const fields = askedFields(body, user) ?? Object.keys(page?.truth ?? {});
    const answer = Object.fromEntries(
      fields.map((f) => [f, (page?.truth as Record<string, unknown> | undefined)?.[f] ?? null]),
    );
    const text = JSON.stringify(answer);
    const inputTokens = encodeChat(messages, 'gpt-4o-mini').length;
    const outputTokens = countTokens(text);
    await new Promise((r) => setTimeout(r, opts.latencyMs));
    calls.push({ path: page ? pagePath : null, fields, inputTokens, outputTokens });
    nextId += 1;
    send(
      res,
      200,
      completion(`chatcmpl-bench${nextId}`, String(body.model), text, inputTokens, outputTokens),
    );
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    openaiBaseUrl: `${url}/v1`,
    calls,
    reset: () => {
      calls.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function chatMessages(value: unknown): ChatMessage[] {
  if (!Array.isArray(value)) return [];
  return value.map((m: { role?: unknown; content?: unknown }) => ({
    role: m.role === 'system' || m.role === 'assistant' ? m.role : 'user',
    // Content may come as parts ([{type: 'text', text}]); only text is sent by the service.
    content:
      typeof m.content === 'string'
        ? m.content
        : Array.isArray(m.content)
          ? m.content.map((p: { text?: unknown }) => (typeof p.text === 'string' ? p.text : '')).join('')
          : '',
  }));
}

/** The path of the page named on the prompt's "Page URL:" line. */
function pagePathOf(user: string): string | null {
  const url = /^Page URL: (\S+)/m.exec(user)?.[1];
  if (!url) return null;
  try {
    return new URL(url).pathname;
  } catch {
    return null;
  }
}

/** The properties of the structured-output schema, else of the JSON Schema written in the prompt. */
function askedFields(body: Record<string, unknown>, user: string): string[] | null {
  const format = body.response_format as { json_schema?: { schema?: { properties?: object } } } | undefined;
  const properties = format?.json_schema?.schema?.properties;
  if (properties) return Object.keys(properties);
  const block = /```json\n([\s\S]*?)\n```/.exec(user)?.[1];
  try {
    const schema = block ? (JSON.parse(block) as { properties?: object }) : null;
    return schema?.properties ? Object.keys(schema.properties) : null;
  } catch {
    return null;
  }
}

function completion(id: string, model: string, text: string, input: number, output: number): unknown {
  return {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
    system_fingerprint: 'fp_bench',
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
