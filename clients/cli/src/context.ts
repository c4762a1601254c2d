// What every command gets: the global flags, the resolved settings, a client, and the process's streams
// (stdout for data only, stderr for messages and progress), given once to the program so that a test can
// run a command line in its own process as well.
import type { Command } from 'commander';
import { createClient, type ExtractServiceClient } from '../../typescript/src/index.js';
import { requireKey, resolveSettings, type Settings } from './config.js';

export interface GlobalFlags {
  url?: string;
  key?: string;
  json?: boolean;
  quiet?: boolean;
}

export type TerminalOut = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface Io {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: TerminalOut;
}

export interface Context {
  json: boolean;
  quiet: boolean;
  env: NodeJS.ProcessEnv;
  stdin: Io['stdin'];
  stderr: TerminalOut;
  settings(): Settings;
  client(): ExtractServiceClient;
  /** Data on stdout (a line end is added when missing). */
  out(text: string): void;
  /** A JSON document on stdout. */
  outJson(value: unknown): void;
  /** A message on stderr (not with --quiet, nor with --json: there stderr carries only a JSON error). */
  note(text: string): void;
}

const ios = new WeakMap<Command, Io>();

/** Gives the program its streams and environment (its commands find them through their root). */
export function attachIo(program: Command, io: Io): void {
  ios.set(program, io);
}

function ioOf(command: Command): Io {
  let root = command;
  while (root.parent) root = root.parent;
  const io = ios.get(root);
  if (!io) throw new Error('the program was built without its streams');
  return io;
}

const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

export function createContext(command: Command): Context {
  const io = ioOf(command);
  const flags = command.optsWithGlobals<GlobalFlags>();
  let settings: Settings | undefined;
  let client: ExtractServiceClient | undefined;
  const ctx: Context = {
    json: Boolean(flags.json),
    quiet: Boolean(flags.quiet),
    env: io.env,
    stdin: io.stdin,
    stderr: io.stderr,
    settings: () => {
      settings ??= resolveSettings({ url: flags.url, key: flags.key }, io.env);
      return settings;
    },
    client: () => {
      const s = ctx.settings();
      client ??= createClient({ baseUrl: s.url, apiKey: requireKey(s) });
      return client;
    },
    out: (text) => io.stdout.write(line(text)),
    outJson: (value) => io.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    note: (text) => {
      if (!flags.quiet && !flags.json) io.stderr.write(line(text));
    },
  };
  return ctx;
}
