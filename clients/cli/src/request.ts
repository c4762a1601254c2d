// Command-line options → the request body of extract and crawl. The service validates the body (a 422 is
// exit 2 with the field named); here only the shapes a shell cannot carry are made: --schema's three forms,
// numbers, repeated cleaners, provider/model.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { ExtractRequest } from '../../typescript/src/index.js';
import { CliError, EXIT } from './exit.js';

const MAX_SCHEMA_FILE = 64 * 1024;

export const integer = (min: number) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new InvalidArgumentError(`an integer ≥ ${min} expected`);
  return Number(value);
};
export const positiveNumber = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a positive number expected');
  return n;
};
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** --schema: a file (JSON or YAML, sent as text when not JSON), inline JSON, or a plain-language prompt. */
export function schemaArg(value: string): string | Record<string, unknown> {
  const parseObject = (text: string, from: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new CliError(`--schema: ${from} is not valid JSON (${(err as Error).message})`, EXIT.usage);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new CliError(`--schema: ${from} must be a JSON object`, EXIT.usage);
    return parsed as Record<string, unknown>;
  };
  const trimmed = value.trim();
  if (trimmed.startsWith('{')) return parseObject(trimmed, 'the inline JSON');
  if (!trimmed.includes('\n') && existsSync(value) && statSync(value).isFile()) {
    if (statSync(value).size > MAX_SCHEMA_FILE)
      throw new CliError(`--schema: ${value} is over ${MAX_SCHEMA_FILE / 1024} KiB`, EXIT.usage);
    const text = readFileSync(value, 'utf8');
    return text.trim().startsWith('{') ? parseObject(text, value) : text; // YAML: the service reads it
  }
  return value; // a prompt (or YAML text) as the service detects it
}

/** The options extract and crawl share. */
export function addJobOptions(command: Command): Command {
  return command
    .option('-s, --schema <file|json|prompt>', 'what to extract: a JSON/YAML file, inline JSON, or a prompt')
    .option('--schema-id <id>', 'a stored schema instead of --schema')
    .option('-m, --model <provider/model>', 'one model for this job, e.g. openai/gpt-4o-mini')
    .addOption(
      new Option('--fetch-mode <mode>', 'how pages are fetched').choices(['auto', 'static', 'dynamic']),
    )
    .option(
      '--cleaner <name|json>',
      'a cleaner step, repeatable in order (markdown, readability, text, html, noop)',
      collect,
    )
    .option('--max-cost <usd>', 'most the job may spend on model calls', positiveNumber)
    .option('--max-tokens <n>', 'most model tokens the job may use', integer(1))
    .option('--no-structured-data', "always ask the model, even when the page's structured data answers")
    .option('--capture-debug', 'store the model requests and responses (see replay --captures)')
    .option('--webhook-url <url>', 'POST job events to this URL')
    .option('--idempotency-key <key>', 'repeat-safe start: the same key returns the same job');
}

export interface JobFlags {
  schema?: string;
  schemaId?: string;
  model?: string;
  fetchMode?: 'auto' | 'static' | 'dynamic';
  cleaner?: string[];
  maxCost?: number;
  maxTokens?: number;
  structuredData?: boolean;
  captureDebug?: boolean;
  webhookUrl?: string;
  idempotencyKey?: string;
}

function cleanerStep(value: string): NonNullable<ExtractRequest['cleaner_chain']>[number] {
  if (!value.trim().startsWith('{')) return { name: value } as never; // the service names the valid ones
  try {
    return JSON.parse(value);
  } catch {
    throw new CliError(`--cleaner: not valid JSON: ${value}`, EXIT.usage);
  }
}

function llmConfig(model: string): ExtractRequest['llm_config'] {
  const slash = model.indexOf('/');
  if (slash <= 0 || slash === model.length - 1)
    throw new CliError(`--model: give provider/model, e.g. openai/gpt-4o-mini (got ${model})`, EXIT.usage);
  // An unknown provider is the service's 422, which names the valid ones.
  const provider = model.slice(0, slash) as NonNullable<ExtractRequest['llm_config']>['provider'];
  return { provider, model: model.slice(slash + 1) };
}

/** The fields extract and crawl share, from the flags. */
export function jobFields(flags: JobFlags) {
  if (flags.schema === undefined && flags.schemaId === undefined)
    throw new CliError('give --schema (a file, JSON or a prompt) or --schema-id', EXIT.usage);
  if (flags.schema !== undefined && flags.schemaId !== undefined)
    throw new CliError('give --schema or --schema-id, not both', EXIT.usage);
  return {
    ...(flags.schema !== undefined ? { schema: schemaArg(flags.schema) } : { schema_id: flags.schemaId }),
    ...(flags.model ? { llm_config: llmConfig(flags.model) } : {}),
    ...(flags.fetchMode ? { fetch_mode: flags.fetchMode } : {}),
    ...(flags.cleaner?.length ? { cleaner_chain: flags.cleaner.map(cleanerStep) } : {}),
    ...(flags.maxCost !== undefined ? { max_cost_usd: flags.maxCost } : {}),
    ...(flags.maxTokens !== undefined ? { max_tokens: flags.maxTokens } : {}),
    ...(flags.structuredData === false ? { structured_data: false } : {}),
    ...(flags.captureDebug ? { capture_debug: true } : {}),
    ...(flags.webhookUrl ? { webhook_url: flags.webhookUrl } : {}),
  } satisfies Partial<ExtractRequest>;
}
