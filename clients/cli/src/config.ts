// Where the CLI finds the service and its key: flags, then the environment, then the config file that
// `extract-service login` writes (mode 0600). The key is never printed; only where it came from.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, EXIT } from './exit.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';
/** The names the MCP stdio server reads too (api/mcp/stdio.ts); EXTRACT_SERVICE_KEY is accepted as well. */
export const ENV_URL = 'EXTRACT_SERVICE_URL';
export const ENV_KEYS = ['EXTRACT_SERVICE_API_KEY', 'EXTRACT_SERVICE_KEY'] as const;

export interface ConfigFile {
  url: string;
  key: string;
}

/** zod is left out on purpose: it would double the start-up time of every command. */
function isHttpUrl(text: unknown): text is string {
  if (typeof text !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

function configProblems(json: unknown): string[] {
  const file = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const problems: string[] = [];
  if (!isHttpUrl(file.url)) problems.push('url');
  if (typeof file.key !== 'string' || file.key.length === 0 || file.key.length > 500) problems.push('key');
  return problems;
}

export type Source = 'flag' | 'environment' | 'config file' | 'default';
export interface Settings {
  url: string;
  key: string | undefined;
  urlSource: Source;
  keySource: Source | undefined;
  configPath: string;
}

/** $XDG_CONFIG_HOME/extract-service/config.json, or ~/.config/extract-service/config.json. */
export function configPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.config');
  return join(base, 'extract-service', 'config.json');
}

/** The config file, or undefined when there is none; a broken one is a config error (exit 3). */
export function readConfigFile(path: string): ConfigFile | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot read the config file ${path}: ${(err as Error).message}`, EXIT.auth);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliError(`the config file ${path} is not JSON; run extract-service login again`, EXIT.auth);
  }
  const problems = configProblems(json);
  if (problems.length > 0)
    throw new CliError(
      `the config file ${path} has a bad ${problems.join(' and ')}; run extract-service login again`,
      EXIT.auth,
    );
  const file = json as ConfigFile;
  return { url: file.url, key: file.key };
}

/** Writes the file readable by its owner only (0600, folder 0700), replacing any earlier one at once. */
export function writeConfigFile(path: string, config: ConfigFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600); // the mode above is filtered by the umask; this is not
  renameSync(tmp, path);
}

export function checkUrl(url: string, from: string): string {
  if (!isHttpUrl(url)) throw new CliError(`${from}: not an http(s) URL: ${url}`, EXIT.usage);
  return url.replace(/\/+$/, '');
}

/** Resolves the URL and key: flags, then the environment, then the config file (read only when needed). */
export function resolveSettings(flags: { url?: string; key?: string }, env: NodeJS.ProcessEnv): Settings {
  const path = configPath(env);
  const envKeyName = ENV_KEYS.find((name) => env[name]?.trim());
  const needFile = !(flags.url?.trim() || env[ENV_URL]?.trim()) || !(flags.key?.trim() || envKeyName);
  const file = needFile ? readConfigFile(path) : undefined;
  const pick = (flag: string | undefined, fromEnv: string | undefined, fromFile: string | undefined) => {
    if (flag?.trim()) return { value: flag.trim(), source: 'flag' as const };
    if (fromEnv?.trim()) return { value: fromEnv.trim(), source: 'environment' as const };
    if (fromFile) return { value: fromFile, source: 'config file' as const };
    return undefined;
  };
  const url = pick(flags.url, env[ENV_URL], file?.url) ?? { value: DEFAULT_URL, source: 'default' as const };
  // The saved key goes only to the URL it was saved with, never to another service named by a flag.
  const sameService = file !== undefined && url.value.replace(/\/+$/, '') === file.url.replace(/\/+$/, '');
  const key = pick(flags.key, envKeyName ? env[envKeyName] : undefined, sameService ? file.key : undefined);
  const urlFrom = { flag: '--url', environment: ENV_URL, 'config file': path, default: 'default' }[
    url.source
  ];
  return {
    url: checkUrl(url.value, urlFrom),
    key: key?.value,
    urlSource: url.source,
    keySource: key?.source,
    configPath: path,
  };
}

/** The key, or a config error that says how to give one. */
export function requireKey(settings: Settings): string {
  if (settings.key) return settings.key;
  throw new CliError(
    `no API key: pass --key, set ${ENV_KEYS[0]}, or run extract-service login (writes ${settings.configPath})`,
    EXIT.auth,
  );
}
