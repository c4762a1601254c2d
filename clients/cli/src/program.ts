// The command line: every command on one commander program, and the one place that maps any failure to an
// exit code and a message on stderr (JSON there with --json); stdout carries only what a command answers.
import { Command, CommanderError } from 'commander';
import { crawlCommand } from './commands/crawl.js';
import { extractCommand } from './commands/extract.js';
import { jobCommands } from './commands/jobs.js';
import { keysCommand } from './commands/keys.js';
import { loginCommand } from './commands/login.js';
import { mcpCommand } from './commands/mcp.js';
import { replayCommand } from './commands/replay.js';
import { ENV_KEYS, ENV_URL, resolveSettings } from './config.js';
import { attachIo, type Io } from './context.js';
import { EXIT, failureOf } from './exit.js';

const EXIT_HELP = `
Service URL and key: --url/--key, else ${ENV_URL}/${ENV_KEYS[0]}, else the file written by login.
Exit codes: 0 ok, 1 job failed or cancelled, 2 usage or invalid request, 3 no key / key refused / bad config,
4 service unreachable or 5xx, 5 refused (not found, conflict, rate limit), 6 --timeout reached, 130 Ctrl-C.`;

export function buildProgram(io: Io): Command {
  const program = new Command('extract-service')
    .description('Extract structured data from web pages with the extract service.')
    .version('0.1.0')
    .option('--url <url>', `service URL (default: ${ENV_URL}, the config file, or http://127.0.0.1:8080)`)
    .option('--key <key>', `API key (prefer ${ENV_KEYS[0]} or login: a flag shows in the process list)`)
    .option('--json', 'machine output: JSON on stdout, errors as JSON on stderr')
    .option('-q, --quiet', 'no messages or progress on stderr (errors still)')
    .addHelpText('after', EXIT_HELP)
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  attachIo(program, io);
  for (const add of [
    extractCommand,
    crawlCommand,
    jobCommands,
    replayCommand,
    keysCommand,
    loginCommand,
    mcpCommand,
  ])
    add(program);
  return program;
}

function urlForMessages(argv: string[], env: NodeJS.ProcessEnv): string {
  try {
    const i = argv.indexOf('--url');
    return resolveSettings({ url: i >= 0 ? argv[i + 1] : undefined }, env).url;
  } catch {
    return 'the service';
  }
}

/** Runs one command line; answers its exit code (the caller sets it: nothing here exits the process). */
export async function run(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    // Commander has printed its own message (unknown option, missing argument…); help and version are 0.
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const failure = failureOf(err, urlForMessages(argv, io.env));
    if (argv.includes('--json')) {
      const problem = failure.problem
        ? {
            type: failure.problem.type,
            status: failure.problem.status,
            title: failure.problem.title,
            detail: failure.problem.detail,
            job_id: failure.problem.job_id,
            error_category: failure.problem.error_category,
            errors: failure.problem.errors,
          }
        : undefined;
      io.stderr.write(
        `${JSON.stringify({ error: { exit_code: failure.exitCode, message: failure.message, problem } })}\n`,
      );
    } else {
      io.stderr.write(`extract-service: ${failure.message}\n`);
    }
    return failure.exitCode;
  }
}
