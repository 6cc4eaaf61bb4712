/**
 * The CLI face: parse, call the service, render. `--version` and `--help` answer before anything
 * heavy is imported, so they cost little more than starting node. `runCli` is also what a resident
 * build process (`vkit daemon`) calls for each request it serves.
 */
import { readFileSync } from 'node:fs';
import { EXIT, VkitError } from '../errors.js';
import { HELP, usage } from './help.js';

function version(): string {
  return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
}

async function dispatch(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === '--version' || verb === '-v') {
    process.stdout.write(`vkit ${version()}\n`);
    return EXIT.ok;
  }
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    process.stdout.write(HELP.main);
    return verb === undefined ? EXIT.invalid : EXIT.ok;
  }
  const grouped =
    verb === 'run' ||
    verb === 'store' ||
    verb === 'model' ||
    verb === 'feedback' ||
    verb === 'acceptance' ||
    verb === 'evidence' ||
    verb === 'formal' ||
    verb === 'policy' ||
    verb === 'daemon';
  // `vkit acceptance --help` (or no sub-verb at all): the command list names the group's verbs.
  if (grouped && (rest[0] === undefined || rest[0] === '--help' || rest[0] === '-h')) {
    process.stdout.write(HELP.main);
    return rest[0] === undefined ? EXIT.invalid : EXIT.ok;
  }
  const name = grouped ? `${verb} ${rest[0] ?? ''}`.trim() : verb;
  const args = grouped ? rest.slice(1) : rest;
  if (args.includes('--help') || args.includes('-h')) {
    const text =
      HELP[name] ??
      (name.startsWith('feedback')
        ? (await import('./feedback.js')).FEEDBACK_HELP[name]
        : name.startsWith('acceptance')
          ? (await import('./acceptance.js')).ACCEPTANCE_HELP[name]
          : name.startsWith('evidence')
            ? (await import('./evidence.js')).EVIDENCE_HELP[name]
            : name.startsWith('formal') || name.startsWith('policy')
              ? (await import('./formal.js')).FORMAL_HELP[name]
              : name.startsWith('daemon')
                ? (await import('./daemon.js')).DAEMON_HELP[name]
                : undefined);
    if (!text) return usage(`unknown command \`${name}\``);
    process.stdout.write(text);
    return EXIT.ok;
  }
  if (name === 'mcp') return (await import('../mcp/server.js')).serveMcp(args, version);
  const command = name.startsWith('feedback')
    ? (await import('./feedback.js')).FEEDBACK_COMMANDS[name]
    : name.startsWith('acceptance')
      ? (await import('./acceptance.js')).ACCEPTANCE_COMMANDS[name]
      : name.startsWith('evidence')
        ? (await import('./evidence.js')).EVIDENCE_COMMANDS[name]
        : name.startsWith('formal') || name.startsWith('policy')
          ? (await import('./formal.js')).FORMAL_COMMANDS[name]
          : name.startsWith('daemon')
            ? (await import('./daemon.js')).DAEMON_COMMANDS[name]
            : (await import('./commands.js')).COMMANDS[name];
  if (!command) return usage(`unknown command \`${name}\``);
  return command(args, version);
}

/** Runs one command line and returns its exit code; errors are reported here, never thrown. */
export async function runCli(argv: string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (error) {
    return reportError(error, argv.includes('--json'));
  }
}

/** Prints an error as the CLI reports it and returns its exit code: a `VkitError`'s own, else 4 with the stack. */
function reportError(error: unknown, json: boolean): number {
  if (error instanceof VkitError) {
    if (json)
      process.stdout.write(
        `${JSON.stringify(
          {
            error: {
              code: error.code,
              message: error.message,
              where: error.where ?? null,
              hint: error.hint ?? null,
              issues: (error as { issues?: unknown }).issues ?? undefined,
            },
          },
          null,
          2,
        )}\n`,
      );
    process.stderr.write(`vkit: ${error.message}\n${error.hint ? `hint: ${error.hint}\n` : ''}`);
    return error.exitCode;
  }
  process.stderr.write(`vkit: internal error\n${(error as Error)?.stack ?? String(error)}\n`);
  return EXIT.internal;
}

/**
 * Guards a command-line process (bin/vkit.js calls it first). A reader that goes away early
 * (`vkit build | head -1`) ends what vkit prints, never its answer: the exit code stays the
 * command's, and no stack is printed. An error escaping outside `runCli` (a timer, an event handler)
 * is reported as one inside it would be, with its own exit code (or 4), never node's default exit 1,
 * which would read as REJECTED.
 */
export function guardProcess(argv: string[]): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
      // Nobody reads any more: later writes go nowhere, instead of failing one by one.
      stream.write = (() => true) as typeof stream.write;
    });
  }
  process.on('uncaughtException', (error) => process.exit(reportError(error, argv.includes('--json'))));
}
