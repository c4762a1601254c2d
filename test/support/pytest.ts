// pytest in the test venv, run asynchronously (the service the Python tests talk to runs in this process),
// its output gathered and a time limit after which it is killed.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PYTHON_VENV } from '../../scripts/generate-python-client.js';

export function runPytest(
  testsDir: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  const args = ['-m', 'pytest', testsDir, '-p', 'no:cacheprovider', '--color=no', '-q', '--durations=5'];
  const child = spawn(join(PYTHON_VENV, 'bin', 'python'), args, {
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const gather = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout.on('data', gather);
  child.stderr.on('data', gather);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}
