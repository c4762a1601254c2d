// Crawl4AI's own venv for bench:peer, outside the checkout and apart from the tests' venv: made on the first
// run and reinstalled only when requirements.txt changes (the pattern of scripts/setup.mjs).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const REQUIREMENTS = join(import.meta.dirname, 'requirements.txt');
export const PEER_VENV =
  process.env.BENCH_PEER_VENV ?? join(homedir(), '.cache', 'extract-service', 'crawl4ai-venv');

/** The venv's python, installed from the pinned requirements if they changed since the last install. */
export function ensurePeerVenv(): string {
  const python = join(PEER_VENV, 'bin', 'python');
  const marker = join(PEER_VENV, '.requirements-hash');
  const digest = createHash('sha256').update(readFileSync(REQUIREMENTS)).digest('hex');
  if (existsSync(python) && existsSync(marker) && readFileSync(marker, 'utf8') === digest) return python;
  const version = spawnSync('python3', ['-c', 'import sys; sys.exit(sys.version_info < (3, 10))']);
  if (version.status !== 0) throw new Error('python3 (3.10 or later) is needed for bench:peer');
  const run = (cmd: string, args: string[]) =>
    execFileSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (!existsSync(python)) {
    process.stderr.write(`[bench:peer] creating the venv ${PEER_VENV}\n`);
    run('python3', ['-m', 'venv', PEER_VENV]);
  }
  process.stderr.write('[bench:peer] installing Crawl4AI 0.9.5 (pip, pinned requirements)\n');
  run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', REQUIREMENTS]);
  writeFileSync(marker, digest);
  return python;
}
