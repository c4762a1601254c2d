// login: checks a key against the service and saves the URL and key in the config file (0600), so later
// commands need neither flag nor environment. The key is read from --key, the environment, a pipe, or typed
// at a hidden prompt; it is never printed.
import type { ReadStream } from 'node:tty';
import type { Command } from 'commander';
import { createClient } from '../../../typescript/src/index.js';
import {
  checkUrl,
  configPath,
  DEFAULT_URL,
  ENV_KEYS,
  ENV_URL,
  readConfigFile,
  writeConfigFile,
} from '../config.js';
import { type Context, createContext, type GlobalFlags } from '../context.js';
import { CliError, EXIT } from '../exit.js';
import { unwrap } from './jobs.js';

const MAX_KEY = 500;

async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += String(chunk);
    if (text.length > MAX_KEY + 2) break;
  }
  return text.trim();
}

/** A line typed on the terminal without echo (raw mode); Ctrl-C leaves. */
function readHidden(stdin: ReadStream, stderr: NodeJS.WritableStream, prompt: string): Promise<string> {
  stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (fn: () => void) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.removeListener('data', onData);
      stderr.write('\n');
      fn();
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done(() => resolve(value.trim()));
        if (ch === '\u0003') return done(() => reject(new CliError('login cancelled', EXIT.interrupted)));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

async function keyFrom(flags: GlobalFlags, ctx: Context): Promise<string> {
  const envKey = ENV_KEYS.map((name) => ctx.env[name]?.trim()).find(Boolean);
  const typed = () =>
    ctx.stdin.isTTY ? readHidden(ctx.stdin as ReadStream, ctx.stderr, 'API key: ') : readStdin(ctx.stdin);
  const key = flags.key?.trim() || envKey || (await typed());
  if (!key) throw new CliError('no API key given (--key, the environment, stdin, or the prompt)', EXIT.usage);
  if (key.length > MAX_KEY) throw new CliError(`the API key is over ${MAX_KEY} characters`, EXIT.usage);
  return key;
}

export function loginCommand(program: Command): void {
  program
    .command('login')
    .description('save the service URL and an API key in ~/.config/extract-service/config.json (mode 0600)')
    .option('--no-verify', 'save without checking the key against the service')
    .action(async (flags: { verify: boolean }, command: Command) => {
      const ctx = createContext(command);
      const globals = command.optsWithGlobals<GlobalFlags>();
      const path = configPath(ctx.env);
      const url = checkUrl(
        globals.url?.trim() || ctx.env[ENV_URL]?.trim() || readConfigFile(path)?.url || DEFAULT_URL,
        'the service URL',
      );
      const key = await keyFrom(globals, ctx);
      if (flags.verify) {
        const client = createClient({ baseUrl: url, apiKey: key, retries: 1 });
        const { keys } = unwrap(await client.api.GET('/api/v1/keys'));
        ctx.note(
          `the key works at ${url} (the tenant has ${keys.length} key${keys.length === 1 ? '' : 's'})`,
        );
      }
      writeConfigFile(path, { url, key });
      if (ctx.json) ctx.outJson({ url, config_path: path, verified: flags.verify });
      ctx.note(`saved ${url} and the key in ${path} (mode 0600)`);
    });
}
