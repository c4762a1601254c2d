// Finds the Temporal CLI and FerretDB binaries: an explicit env var, then PATH, then the per-user cache
// filled by scripts/install-binaries.sh.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const TEMPORAL_VERSION = process.env.TEMPORAL_CLI_VERSION ?? 'v1.5.1';
export const FERRETDB_VERSION = process.env.FERRETDB_VERSION ?? 'v1.24.2';

const cacheRoot = () => join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'extract-service');

function onPath(name: string): string | null {
  const res = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return res.status === 0 && res.stdout.trim() ? res.stdout.trim() : null;
}

function find(envVar: string, name: string, version: string): string {
  const explicit = process.env[envVar];
  if (explicit) return explicit;
  const cached = join(cacheRoot(), `${name}-${version}`, name);
  const found = onPath(name) ?? (existsSync(cached) ? cached : null);
  if (!found) throw new Error(`${name} not found: run "node scripts/setup.mjs" or set ${envVar}`);
  return found;
}

export const temporalBinary = () => find('TEMPORAL_BIN', 'temporal', TEMPORAL_VERSION);
export const ferretdbBinary = () => find('FERRETDB_BIN', 'ferretdb', FERRETDB_VERSION);
