/**
 * The CLI face: parse, call the service, render. Every verb is a row of the command table
 * (`table.ts`): its flags, its help and its handler, imported only when the verb runs. `--version`
 * answers before the table is read and `--help` reads only the table, so they cost little more than
 * starting node. `runCli` is also what a resident build process (`vkit daemon`) calls for each
 * request it serves.
 */
import { readFileSync } from 'node:fs';
import { EXIT, UnavailableError, VkitError } from '../errors.js';
import { parseInput, type Spec } from '../kit/verb.js';
import { didYouMean } from '../text/suggest.js';
import { coalesceOutput } from './coalesce.js';
import { guardOutput, settleOutputAtExit } from './output-failure.js';

function version(): string {
  return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
}

/**
 * Verbs of the reference (`../shared/spec/vkit-reference.md`) that this vkit does not build yet:
 * asking for one is exit 5, "unavailable interface", so a caller can tell it from a typo (exit 2).
 */
const NOT_BUILT = ['change certify'];

function usage(message: string): number {
  process.stderr.write(`vkit: ${message}\nRun \`vkit --help\` for the commands.\n`);
  return EXIT.invalid;
}

/** Runs one command line; `running.spec` is the verb once known (its flags say whether errors may be JSON). */
async function dispatch(argv: string[], running: { spec?: Spec }): Promise<number> {
  const [first] = argv;
  if (first === '--version' || first === '-v') {
    process.stdout.write(`vkit ${version()}\n`);
    return EXIT.ok;
  }
  const { allVerbs, mainHelp, resolveVerb, TABLE } = await import('./table.js');
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(mainHelp(await allVerbs()));
    return first === undefined ? EXIT.invalid : EXIT.ok;
  }
  // vkit's own verbs first: `build` and `gate` never wait for the kinds' declarations.
  const own = resolveVerb(argv, TABLE);
  const resolved = own.kind === 'verb' && own.verb ? own : resolveVerb(argv, await allVerbs());
  // `vkit acceptance --help` (or no sub-verb at all): the command list names the group's verbs.
  if (resolved.kind === 'group') {
    process.stdout.write(mainHelp(await allVerbs()));
    return resolved.help ? EXIT.ok : EXIT.invalid;
  }
  const { name, verb, args } = resolved;
  if (!verb) {
    // An interface the reference defines that this vkit does not build yet is exit 5, not a typo.
    const planned = NOT_BUILT.find((n) => argv.slice(0, n.split(' ').length).join(' ') === n);
    if (planned) throw new UnavailableError(`\`vkit ${planned}\``);
    const names = (await allVerbs()).map((v) => v.spec.name);
    return usage(`unknown command \`${name}\`${didYouMean(name, names)}`);
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(verb.spec.help);
    return EXIT.ok;
  }
  running.spec = verb.spec;
  const input = parseInput(verb.spec, args);
  const host = async () => (await import('../service/kind-host.js')).kindHost;
  return (await verb.load())({ ...input, version, host });
}

/** Runs one command line and returns its exit code; errors are reported here, never thrown. */
export async function runCli(argv: string[]): Promise<number> {
  const running: { spec?: Spec } = {};
  try {
    return await dispatch(argv, running);
  } catch (error) {
    // A verb without --json (`mcp`, whose stdout is the protocol's) never prints an error there.
    const json = argv.includes('--json') && (running.spec === undefined || 'json' in running.spec.flags);
    return reportError(error, json);
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
 * command's, and no stack is printed; output that could not be written otherwise (a full disk) turns
 * a 0 into 3 (output-failure.ts). An error escaping outside `runCli` (a timer, an event handler)
 * is reported as one inside it would be, with its own exit code (or 4), never node's default exit 1,
 * which would read as REJECTED.
 */
export function guardProcess(argv: string[]): void {
  guardOutput();
  process.on('uncaughtException', (error) => process.exit(reportError(error, argv.includes('--json'))));
  // A line per action: written in batches (see coalesce.ts), flushed at exit before the code is settled.
  if (argv[0] === 'build' || argv[0] === 'gate') coalesceOutput();
  settleOutputAtExit();
}
