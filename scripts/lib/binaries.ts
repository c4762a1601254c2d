// Finds the Temporal CLI and FerretDB binaries: an explicit env var, then PATH, then the per-user cache
// filled by scripts/install-binaries.sh.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEMPORAL_VERSION = process.env.TEMPORAL_CLI_VERSION ?? 'v1.5.1';
export const FERRETDB_VERSION = process.env.FERRETDB_VERSION ?? 'v1.24.2';

const cacheRoot = () => join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'extract-service');

function onPath(name: string): string | null {
  const res = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return res.status === 0 && res.stdout.trim() ? res.stdout.trim() : null;
}

/** The build's cache name: the version, plus the number of our patches to it (as install-binaries.sh). */
function buildName(name: string, version: string): string {
  const prefix = `${name}-${version}-`;
  const patches = readdirSync(fileURLToPath(new URL('../patches/', import.meta.url))).filter(
    (f) => f.startsWith(prefix) && f.endsWith('.patch'),
  );
  return patches.length > 0 ? `${name}-${version}-p${patches.length}` : `${name}-${version}`;
}

function find(envVar: string, name: string, version: string): string {
  const explicit = process.env[envVar];
  if (explicit) return explicit;
  const cached = join(cacheRoot(), buildName(name, version), name);
  const found = onPath(name) ?? (existsSync(cached) ? cached : null);
  if (!found) throw new Error(`${name} not found: run "node scripts/setup.mjs" or set ${envVar}`);
  return found;
}

export const temporalBinary = () => find('TEMPORAL_BIN', 'temporal', TEMPORAL_VERSION);
export const ferretdbBinary = () => find('FERRETDB_BIN', 'ferretdb', FERRETDB_VERSION);
