// What every command gets: the global flags, the resolved settings, a client, and the two outputs
// (stdout for data only, stderr for messages and progress).
import type { Command } from 'commander';
import { createClient, type ExtractServiceClient } from '../../typescript/src/index.js';
import { requireKey, resolveSettings, type Settings } from './config.js';

export interface GlobalFlags {
  url?: string;
  key?: string;
  json?: boolean;
  quiet?: boolean;
}

export interface Context {
  json: boolean;
  quiet: boolean;
  env: NodeJS.ProcessEnv;
  settings(): Settings;
  client(): ExtractServiceClient;
  /** Data on stdout (a line is added when missing). */
  out(text: string): void;
  /** A JSON document on stdout. */
  outJson(value: unknown): void;
  /** A message on stderr (not with --quiet, nor with --json: there stderr carries only a JSON error). */
  note(text: string): void;
  stderr: NodeJS.WriteStream;
}

export function createContext(command: Command, env: NodeJS.ProcessEnv = process.env): Context {
  const flags = command.optsWithGlobals<GlobalFlags>();
  let settings: Settings | undefined;
  let client: ExtractServiceClient | undefined;
  const ctx: Context = {
    json: Boolean(flags.json),
    quiet: Boolean(flags.quiet),
    env,
    settings: () => {
      settings ??= resolveSettings({ url: flags.url, key: flags.key }, env);
      return settings;
    },
    client: () => {
      const s = ctx.settings();
      client ??= createClient({ baseUrl: s.url, apiKey: requireKey(s) });
      return client;
    },
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    outJson: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    note: (text) => {
      if (!flags.quiet && !flags.json) process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
    },
    stderr: process.stderr,
  };
  return ctx;
}
