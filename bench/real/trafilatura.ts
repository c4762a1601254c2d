// trafilatura (Python, Apache-2.0) as the cleaner bench's yardstick: installed from PyPI into a venv of the
// bench's own (never the test venv, so `npm test` does not depend on it), run once over all pages.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const VENV =
  process.env.BENCH_TRAFILATURA_VENV ??
  join(homedir(), '.cache', 'extract-service', 'bench-trafilatura-venv');
const HERE = new URL('.', import.meta.url).pathname;
const REQUIREMENTS = join(HERE, 'trafilatura-requirements.txt');
const SCRIPT = join(HERE, 'trafilatura-extract.py');

/** The venv's python with the pinned trafilatura; null (and why) when it cannot be installed. */
function python(): string | null {
  const bin = join(VENV, 'bin', 'python');
  const marker = join(VENV, '.bench-requirements');
  const wanted = readFileSync(REQUIREMENTS, 'utf8');
  if (existsSync(bin) && existsSync(marker) && readFileSync(marker, 'utf8') === wanted) return bin;
  const steps: string[][] = [
    ...(existsSync(bin) ? [] : [['python3', '-m', 'venv', VENV]]),
    [bin, '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', REQUIREMENTS],
  ];
  for (const [command, ...args] of steps) {
    const done = spawnSync(command!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    if (done.status !== 0) {
      console.error(`trafilatura left out: ${command} ${args.join(' ')} failed\n${done.stderr}`);
      return null;
    }
  }
  writeFileSync(marker, wanted);
  return bin;
}

export interface TrafilaturaPage {
  id: string;
  path: string;
  url: string;
}

/** trafilatura's text per page id ('' where it found nothing); null when trafilatura is not available. */
export function trafilaturaTexts(pages: TrafilaturaPage[]): Map<string, string> | null {
  const bin = python();
  if (!bin) return null;
  const done = spawnSync(bin, [SCRIPT], {
    input: JSON.stringify(pages),
    maxBuffer: 512 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  if (done.status !== 0) {
    console.error('trafilatura left out: its run failed');
    return null;
  }
  const texts = JSON.parse(done.stdout.toString('utf8')) as Record<string, string | null>;
  return new Map(Object.entries(texts).map(([id, text]) => [id, text ?? '']));
}
