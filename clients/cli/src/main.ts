// extract-service: the command-line client's entry (clients/cli/bin/extract-service.js loads it through tsx).
import { EXIT } from './exit.js';
import { run } from './program.js';

// stdout closed early (`| head`): stop quietly, as other tools do.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(EXIT.ok);
  throw err;
});

process.exitCode = await run(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
