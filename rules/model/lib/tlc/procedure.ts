/**
 * The `tlc-linux-x86_64-v1` procedure as pure functions: the argv of each TLC run. Nothing here runs
 * a process; the profile (profile.ts) hands these to the sandbox.
 *
 * TLC's options (tlaplus/tlaplus `tlc2/TLC.java`, its usage text and `handleParameters`, read through
 * the search tool):
 * - `-config file`: the model configuration; `-workers num`: worker threads (one: a deterministic
 *   breadth-first search whose traces are reproducible);
 * - `-deadlock`: "do not check for deadlock" (checking is on by default);
 * - `-tool`: "tool mode (put output codes on console)": every message framed with its code;
 * - `-dumpTrace format file`: on a violation, write the error trace in `format` (`json`) to `file`;
 * - `-loadTrace format file` (tlaplus `DumpLoadTraceTest.java`, `_JsonTrace.tla`'s
 *   `_JsonTraceInputFile`, "Used by -loadTrace json"): constrain the search to the states of a
 *   dumped trace, level by level, so the same violation is reached again along it;
 * - `-fp N`: which of TLC's irreducible polynomials fingerprints states. The default is random, and
 *   `DumpLoadTraceTest` notes that `-loadTrace` is reliable only with the fingerprint the trace was
 *   dumped with, so both runs fix it;
 * - `-noGenerateSpecTE`: do not write a trace-exploration spec next to the model (the model's
 *   directory is read-only here); `-metadir path`: where TLC keeps its state files.
 * - `-XX:+UseParallelGC`: the collector TLC asks for (`EC.TLC_ENVIRONMENT_JVM_GC`); `-XX:-UsePerfData`
 *   keeps the JVM from writing to `/tmp` (the root file system is read-only).
 */
import { posix } from 'node:path';

/** Where things are inside the TLC worker container. */
export interface TlcLayout {
  /** The pinned Java runtime of the worker image (`VKIT_TLC_IMAGE`), a JAVA_HOME. */
  javaHome: string;
  /** The pinned tools jar (`VKIT_TLC_JAR`), bound read-only. */
  jar: string;
  /** The captured inputs, read-only. */
  source: string;
  /** The private writable scratch directory. */
  work: string;
}

export const TLC_LAYOUT: TlcLayout = {
  javaHome: '/opt/java',
  jar: '/opt/tla/tla2tools.jar',
  source: '/src',
  work: '/work',
};

/** The fingerprint polynomial every run uses (search and replay must agree). */
const TLC_FINGERPRINT = 0;

export interface TlcRun {
  /** The model's main module, relative to the captured root (`specs/Counter.tla`). */
  model: string;
  /** The run's directory under the scratch directory (`p0`). */
  dir: string;
  /** Whether deadlock checking stays on (only for a `deadlock` property). */
  checkDeadlock: boolean;
  /** JVM heap, MiB. */
  memoryMb: number;
}

const java = (l: TlcLayout, memoryMb: number) => [
  posix.join(l.javaHome, 'bin', 'java'),
  '-XX:+UseParallelGC',
  '-XX:-UsePerfData',
  `-Xmx${memoryMb}m`,
  `-Djava.io.tmpdir=${posix.join(l.work, 'tmp')}`,
  '-cp',
  l.jar,
  'tlc2.TLC',
];

/** The run's files inside the container. */
export function tlcFiles(run: Pick<TlcRun, 'dir'>, l: TlcLayout = TLC_LAYOUT) {
  const dir = posix.join(l.work, run.dir);
  return {
    dir,
    config: posix.join(dir, 'property.cfg'),
    trace: posix.join(dir, 'trace.json'),
    replayTrace: posix.join(dir, 'replay.json'),
  };
}

const common = (run: TlcRun, l: TlcLayout, metadir: string) => [
  '-tool',
  '-workers',
  '1',
  '-fp',
  String(TLC_FINGERPRINT),
  '-noGenerateSpecTE',
  '-metadir',
  metadir,
  '-config',
  tlcFiles(run, l).config,
  ...(run.checkDeadlock ? [] : ['-deadlock']),
];

/** The search: the whole state space under the property's configuration; on a violation the trace is dumped as JSON. */
export function tlcSearchArgv(run: TlcRun, l: TlcLayout = TLC_LAYOUT): string[] {
  const f = tlcFiles(run, l);
  return [
    ...java(l, run.memoryMb),
    ...common(run, l, posix.join(f.dir, 'states-search')),
    '-dumpTrace',
    'json',
    f.trace,
    posix.join(l.source, run.model),
  ];
}

/** The replay: the same TLC, model and configuration, constrained to the dumped trace, which it dumps again. */
export function tlcReplayArgv(run: TlcRun, l: TlcLayout = TLC_LAYOUT): string[] {
  const f = tlcFiles(run, l);
  return [
    ...java(l, run.memoryMb),
    ...common(run, l, posix.join(f.dir, 'states-replay')),
    '-loadTrace',
    'json',
    f.trace,
    '-dumpTrace',
    'json',
    f.replayTrace,
    posix.join(l.source, run.model),
  ];
}
