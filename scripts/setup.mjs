#!/usr/bin/env node
// First step of `npm start` and `npm test`: installs whatever is missing on a fresh machine, once.
// Plain Node with no dependencies, because it runs before node_modules exists.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const log = (msg) => process.stderr.write(`[setup] ${msg}\n`);

const lockHash = () =>
  createHash('sha256')
    .update(readFileSync(join(root, 'package-lock.json')))
    .digest('hex');

function ensureNodeModules() {
  const marker = join(root, 'node_modules', '.setup-lock-hash');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === lockHash()) return;
  log('installing npm packages (npm ci)');
  const flags = ['--no-audit', '--no-fund', '--loglevel=error'];
  const ci = spawnSync('npm', ['ci', ...flags], { cwd: root, stdio: ['ignore', 'inherit', 'pipe'] });
  if (ci.status !== 0) {
    // npm ci refuses a lock file that lacks a package the registry names for it (until d8eb1b4 ours lacked
    // the other platforms' optional packages of biome and swc: "Missing: @biomejs/cli-darwin-x64 from lock
    // file"). `npm install --no-save` installs from the same lock without rewriting it, so the checkout stays
    // as it was and the marker below matches the lock the next start reads.
    const why = String(ci.stderr ?? '')
      .split('\n')
      .filter((line) => /Missing:|Invalid:|in sync|error code|ERR!/.test(line))
      .slice(0, 5);
    log(`npm ci refused the lock file here:\n  ${why.join('\n  ')}`);
    log('installing from it with npm install --no-save (package-lock.json is left as it is)');
    execFileSync('npm', ['install', '--no-save', ...flags], { cwd: root, stdio: 'inherit' });
  }
  // The hash of the lock as it is now, which the next start computes.
  writeFileSync(marker, lockHash());
}

function ensureBinaries() {
  const res = spawnSync('bash', [join(root, 'scripts', 'install-binaries.sh'), 'all'], { stdio: 'inherit' });
  if (res.status !== 0) throw new Error('could not install Temporal / FerretDB (see messages above)');
}

function ensureChromium() {
  if (process.env.CHROMIUM_PATH && existsSync(process.env.CHROMIUM_PATH)) return;
  if (existsSync('/usr/bin/chromium')) return;
  const canApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!canApt || !isRoot) {
    log('chromium is missing and apt-get is not usable here: dynamic fetching will be unavailable');
    log('  install Debian\'s "chromium" package, or set CHROMIUM_PATH to a Chromium binary');
    return;
  }
  log('installing Debian chromium for dynamic fetching (first run only)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const res = spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
  if (res.status !== 0) log('chromium could not be installed: dynamic fetching will be unavailable');
}

// The Python tools of the tests (the Python client's pytest run, its model generator): one venv outside the
// checkout, installed from pinned requirement files and reinstalled only when those files change. More tools
// go in: add their pinned requirements file (or an editable package) to these lists.
const PYTHON_VENV =
  process.env.EXTRACT_SERVICE_PYTHON_VENV ?? join(homedir(), '.cache', 'extract-service', 'python-venv');
const PYTHON_REQUIREMENTS = [
  'clients/python/requirements-dev.txt',
  'test/conformance/requirements.txt',
  'test/integration/clients/refyne_sdk/requirements.txt',
];
const PYTHON_EDITABLE = ['clients/python'];

function ensurePythonVenv() {
  const inputs = [...PYTHON_REQUIREMENTS, ...PYTHON_EDITABLE.map((dir) => join(dir, 'pyproject.toml'))];
  const hash = createHash('sha256');
  for (const file of inputs) hash.update(file).update(readFileSync(join(root, file)));
  const digest = hash.digest('hex');
  const python = join(PYTHON_VENV, 'bin', 'python');
  const marker = join(PYTHON_VENV, '.setup-requirements-hash');
  if (existsSync(python) && existsSync(marker) && readFileSync(marker, 'utf8') === digest) return;
  const version = spawnSync('python3', ['-c', 'import sys; sys.exit(sys.version_info < (3, 10))']);
  if (version.status !== 0) throw new Error('python3 (3.10 or later) is needed for the Python tests');
  const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (!existsSync(python)) {
    log(`creating the Python venv ${PYTHON_VENV}`);
    run('python3', ['-m', 'venv', PYTHON_VENV]);
  }
  log('installing Python packages (pip)');
  const pip = [python, '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check'];
  run(pip[0], [...pip.slice(1), ...PYTHON_REQUIREMENTS.flatMap((file) => ['-r', file])]);
  // Build backends come pinned from the requirements, so the editable installs need no download of their own.
  const editable = PYTHON_EDITABLE.flatMap((dir) => ['-e', dir]);
  run(pip[0], [...pip.slice(1), '--no-build-isolation', '--no-deps', ...editable]);
  writeFileSync(marker, digest);
}

// The console (served by the API at /): bundled from api/console/web by esbuild, rebuilt when its sources change.
function ensureConsole() {
  const marker = join(root, 'api', 'console', 'dist', '.sources-hash');
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(path).update(readFileSync(path));
    }
  };
  walk(join(root, 'api', 'console', 'web'));
  for (const file of ['api/console/build.ts', 'package-lock.json', 'clients/typescript/src/schema.d.ts'])
    hash.update(readFileSync(join(root, file)));
  const digest = hash.digest('hex');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === digest) return;
  log('building the console (api/console/web)');
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'api', 'console', 'build.ts')], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  writeFileSync(marker, digest);
}

// The worker's and the API's process bundles (dist/node, run by npm start with plain node), rebuilt when the
// sources they are made of change.
function ensureProcessBundles() {
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'build-processes.ts')], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

ensureNodeModules();
ensureConsole();
ensureProcessBundles();
ensureBinaries();
ensureChromium();
ensurePythonVenv();
