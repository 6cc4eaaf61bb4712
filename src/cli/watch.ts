/** `vkit watch`: parse, run the service's watch loop, render its events as lines or JSON. */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { VkitEvent } from '../engine/events.js';
import { EXIT, invalid } from '../errors.js';
import { watch } from '../service/watch.js';
import { HELP } from './help.js';
import { printEvent } from './render.js';

type Command = (args: string[], version: () => string) => Promise<number>;

/** The verb's help; the text lives in help.ts so that `--help` imports nothing heavy. */
export const WATCH_HELP = HELP.watch!;

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      options: { root: { type: 'string' }, store: { type: 'string' }, json: { type: 'boolean', default: false }, jobs: { type: 'string' }, 'no-tui': { type: 'boolean', default: false } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw invalid('ERR_USAGE', (error as Error).message, {}, 'See vkit watch --help for the flags.');
  }
}

function jobsOf(value: string | undefined): number {
  if (value === undefined) return availableParallelism();
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw invalid('ERR_USAGE', `Expected --jobs to be a positive integer, got \`${value}\``, { path: '--jobs' });
  return n;
}

export const watchCommand: Command = async (args) => {
  const v = parse(args);
  const jobs = jobsOf(v.jobs);
  const controller = new AbortController();
  let code: number = EXIT.ok;
  const onSignal = (signal: NodeJS.Signals) => {
    const exit = signal === 'SIGINT' ? 130 : 143;
    if (controller.signal.aborted) process.exit(exit);
    process.stderr.write(`vkit: ${signal}: cancelling running checks (again to exit now)\n`);
    code = exit;
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  if (!v.json && !v['no-tui'] && process.stdout.isTTY) process.stdout.write('vkit watch: the TUI is not available yet; printing one line per event (--no-tui hides this note)\n');
  const onEvent = v.json ? (e: VkitEvent) => void process.stdout.write(JSON.stringify(e) + '\n') : printEvent;
  try {
    await watch({ root: v.root ? resolve(v.root) : process.cwd(), store: v.store }, { onEvent, signal: controller.signal, jobs });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return code;
};
