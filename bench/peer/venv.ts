// Crawl4AI's own venv for bench:peer, outside the checkout and apart from the tests' venv: made on the first
// run and reinstalled only when requirements.txt changes (the pattern of scripts/setup.mjs).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

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

/**
 * Crawl4AI's browser crawler launches Playwright's Chromium and has no setting for another executable, so
 * this makes a Playwright browsers folder (PLAYWRIGHT_BROWSERS_PATH) whose Chromium and headless shell, at
 * the revision the installed Playwright expects, are links to Debian's Chromium (CHROMIUM_PATH or
 * /usr/bin/chromium). Nothing is downloaded.
 */
export function playwrightBrowsersPath(): string {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) throw new Error(`no Chromium at ${chromium} (set CHROMIUM_PATH)`);
  const lib = join(PEER_VENV, 'lib');
  const site = join(lib, readdirSync(lib).find((d) => d.startsWith('python')) ?? 'python3', 'site-packages');
  const manifest = JSON.parse(
    readFileSync(join(site, 'playwright', 'driver', 'package', 'browsers.json'), 'utf8'),
  ) as { browsers: { name: string; revision: string }[] };
  const revision = (name: string) => manifest.browsers.find((b) => b.name === name)?.revision ?? '0';
  const root = join(PEER_VENV, 'playwright-browsers');
  const links = [
    join(root, `chromium-${revision('chromium')}`, 'chrome-linux64', 'chrome'),
    join(
      root,
      `chromium_headless_shell-${revision('chromium-headless-shell')}`,
      'chrome-headless-shell-linux64',
      'chrome-headless-shell',
    ),
  ];
  for (const link of links) {
    mkdirSync(dirname(link), { recursive: true });
    if (existsSync(link)) unlinkSync(link);
    symlinkSync(chromium, link);
  }
  return root;
}
