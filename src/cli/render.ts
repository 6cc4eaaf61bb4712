/** Human output: one line per action, failing output inline, then the gate. Colors only on a TTY and never with NO_COLOR. */
import type { ActionReport, BuildReport } from '../engine/schema.js';
import type { VkitEvent } from '../engine/events.js';
import type { Gate } from '../gate/schema.js';

const useColor = () => Boolean(process.stdout.isTTY) && !('NO_COLOR' in process.env);
const paint = (code: number) => (s: string) => (useColor() ? `\x1b[${code}m${s}\x1b[0m` : s);
const green = paint(32);
const red = paint(31);
const yellow = paint(33);
const dim = paint(2);

const STATUS_COLOR: Record<string, (s: string) => string> = {
  ran: green,
  cached: dim,
  failed: red,
  blocked: yellow,
  PASS: green,
  FAIL: red,
  READY: green,
  REJECTED: red,
};

function color(word: string): string {
  return (STATUS_COLOR[word] ?? yellow)(word);
}

function actionLine(a: Pick<ActionReport, 'status' | 'label' | 'ms' | 'reason' | 'outcome'>): string {
  const time = a.status === 'cached' ? '' : ` ${formatMs(a.ms)}`;
  const why = a.status === 'failed' || a.status === 'blocked' ? dim(`  ${a.reason ?? ''}`) : '';
  return `${color(a.status.padEnd(7))} ${a.label}${dim(time)}${why}`;
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`;
}

/** `cycle N started: initial` for the first watch cycle, else `cycle N started: K changed (a, b, ...)`. */
function cycleStartedLine(e: { cycle: number; changed: string[] }): string {
  if (e.changed.length === 0) return `cycle ${e.cycle} started: initial`;
  const shown = e.changed.slice(0, 5).join(', ') + (e.changed.length > 5 ? ', ...' : '');
  return `cycle ${e.cycle} started: ${e.changed.length} changed (${shown})`;
}

/** `cycle N settled: READY|REJECTED|BLOCKED in X ms`: the line a script waits for. */
function cycleSettledLine(e: { cycle: number; status: string; ms: number }): string {
  return `cycle ${e.cycle} settled: ${color(e.status)} in ${Math.round(e.ms)} ms`;
}

/** One line however many issues the error has, so a watch log stays greppable. */
function configInvalidLine(e: { message: string }): string {
  return `config invalid: ${e.message.split('\n').join('; ')}`;
}

/** Streams one line per event: actions as the engine finishes them and, in watch, cycle starts, settles and config errors. */
export function printEvent(e: VkitEvent): void {
  if (e.type === 'cycle.started') process.stdout.write(`${cycleStartedLine(e)}\n`);
  if (e.type === 'config.invalid') process.stdout.write(`${configInvalidLine(e)}\n`);
  // A one-off build prints its gate and summary instead; only watch cycles carry a number.
  if (e.type === 'cycle.settled' && e.cycle !== undefined)
    process.stdout.write(`${cycleSettledLine({ ...e, cycle: e.cycle })}\n`);
  if (e.type === 'action.cached') {
    process.stdout.write(
      `${actionLine({ status: 'cached', label: e.label, ms: e.ms, reason: null, outcome: e.outcome })}\n`,
    );
    for (const line of e.notes ?? []) process.stdout.write(`${yellow(`        note: ${line}`)}\n`);
  }
  if (e.type === 'action.finished') {
    process.stdout.write(`${actionLine(e)}\n`);
    for (const line of e.explain ?? []) process.stdout.write(`${dim(`        why: ${line}`)}\n`);
  }
}

export function printTails(report: BuildReport): void {
  for (const a of report.actions) {
    if (!a.tail?.length) continue;
    process.stdout.write(`\n${red('──')} ${a.label} output (last ${a.tail.length} lines) ${red('──')}\n`);
    for (const line of a.tail) process.stdout.write(`  ${line}\n`);
  }
}

/** The gate and its items that are not PASS, each with its notes; `explain` adds PASS items that carry notes. */
export function printGate(gate: Gate, explain = false): void {
  process.stdout.write(`\ngate ${color(gate.status)}: ${gate.reason}\n`);
  for (const i of gate.items) {
    if (i.status === 'PASS' && !(explain && i.notes?.length)) continue;
    process.stdout.write(
      `  ${color(i.status.padEnd(7))} ${i.id}${i.required ? '' : dim(' (not required)')}  ${dim(i.reason)}\n`,
    );
    for (const line of i.notes ?? []) process.stdout.write(`${yellow(`          note: ${line}`)}\n`);
  }
}

export function printSummary(report: BuildReport): void {
  const { ran, cached, ms, remote_hits } = report.stats;
  const remote = remote_hits ? ` (${remote_hits} from the remote cache)` : '';
  process.stdout.write(`${dim(`${ran} ran, ${cached} cached${remote} in ${formatMs(ms)}`)}\n`);
}
