/**
 * The adequacy checks of a package's qualification, in the Coq worker: real theorems about the
 * package's own definitions (a precondition is satisfiable, two admission predicates agree, a strict
 * bound admits exactly what it should, a deliberately false equivalence is refuted), each recorded
 * with its witness. One restricted container compiles the package freshly, then the adequacy files
 * against it, then `Print Assumptions` for every theorem: a check holds only when its theorem is
 * proved and closed under the global context. A file coqc rejects fails the theorem the error is
 * in; the theorems it did not reach are unknown, never held.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import * as v from 'valibot';
import { blankCommentsAndStrings, firstCoqError, parseAssumptions } from '../../checkers/coq.js';
import type { Sandbox } from '../../checkers/container.js';
import { fieldPath } from '../../config/schema.js';
import { InvalidInputError } from '../../errors.js';
import type { MathPackage } from '../types.js';
import { COQC, PACKAGE_FILES, STEP_TIMEOUT_MS } from './coq.js';

const text = v.pipe(v.string(), v.minLength(1));
const COQ_NAME = /^[A-Za-z_][A-Za-z0-9_']*$/;

const AdequacySpecSchema = v.strictObject({
  schema: v.literal('vkit.adequacy/1', 'Expected schema `vkit.adequacy/1`'),
  /** Coq files beside the spec, compiled in this order as `VkitAdequacy.<File>`. */
  files: v.pipe(
    v.array(v.pipe(text, v.regex(/^[A-Za-z_][A-Za-z0-9_]*\.v$/, 'Expected a .v file named by a Coq identifier'))),
    v.minLength(1),
  ),
  checks: v.pipe(
    v.array(
      v.strictObject({
        id: v.pipe(text, v.regex(/^[a-z0-9][a-z0-9-]*$/, 'Expected an id of lowercase letters, digits and `-`')),
        /** `<File>.<theorem>`. */
        theorem: v.pipe(text, v.regex(/^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_']*$/, 'Expected `File.theorem`')),
        /** What the theorem establishes, in words. */
        establishes: text,
        /** The concrete witness, or why there is none (a universal statement). */
        witness: text,
      }),
    ),
    v.minLength(1),
  ),
});
export type AdequacySpec = v.InferOutput<typeof AdequacySpecSchema>;

type AdequacyStatus = 'holds' | 'fails' | 'unknown';

export interface AdequacyResult {
  id: string;
  theorem: string;
  establishes: string;
  witness: string;
  status: AdequacyStatus;
  reason: string;
  /** What `Print Assumptions` listed beyond the global context (empty when closed). */
  assumptions: string[];
}

/** Reads `adequacy.json` in `dir`; a problem is exit 2 naming the file and field. */
export function readAdequacySpec(dir: string): AdequacySpec {
  const file = join(dir, 'adequacy.json');
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new InvalidInputError('ERR_CATALOGUE_INVALID', [
      { file, path: '', message: `Cannot read the adequacy checks: ${(error as Error).message}` },
    ]);
  }
  const parsed = v.safeParse(AdequacySpecSchema, data);
  if (!parsed.success)
    throw new InvalidInputError(
      'ERR_CATALOGUE_INVALID',
      parsed.issues.map((i) => ({ file, path: fieldPath(i.path), message: i.message })),
    );
  const files = new Set(parsed.output.files.map((f) => f.slice(0, -2)));
  const stray = parsed.output.checks.findIndex((c) => !files.has(c.theorem.split('.')[0]!));
  if (stray >= 0)
    throw new InvalidInputError('ERR_CATALOGUE_INVALID', [
      { file, path: `checks[${stray}].theorem`, message: 'Expected a theorem of one of the listed files' },
    ]);
  return parsed.output;
}

export async function checkCoqAdequacy(opts: {
  pkg: MathPackage;
  /** Host directory holding `adequacy.json` and its files. */
  dir: string;
  spec: AdequacySpec;
  sandbox: Sandbox;
  image: string;
  signal: AbortSignal;
  containerPrefix: string;
}): Promise<{ results: AdequacyResult[]; log: string }> {
  const { spec } = opts;
  const scratch = mkdtempSync(join(tmpdir(), 'vkit-adequacy-'));
  try {
    // Host-made and world-writable, so what the container (uid 65534) writes can be removed by us.
    for (const d of ['', 'pkg', 'adq', 'src', 'assumptions', 'tmp']) {
      mkdirSync(join(scratch, d), { recursive: true });
      chmodSync(join(scratch, d), 0o777);
    }
    for (const f of spec.files) {
      writeFileSync(join(scratch, 'src', f), readFileSync(join(opts.dir, f)));
      chmodSync(join(scratch, 'src', f), 0o644);
    }
    const modules = spec.files.map((f) => basename(f, '.v'));
    const driver = [
      `From VkitAdequacy Require ${modules.join(' ')}.`,
      ...spec.checks.map((c) => `Redirect "/work/assumptions/${c.id}" Print Assumptions VkitAdequacy.${c.theorem}.`),
      '',
    ].join('\n');
    writeFileSync(join(scratch, 'src', 'AdequacyAssumptions.v'), driver);
    chmodSync(join(scratch, 'src', 'AdequacyAssumptions.v'), 0o644);
    const pkgFlags = '-q -no-glob -Q /work/pkg VkitLedger';
    const script = [
      'set -e',
      ...PACKAGE_FILES.map((f) => `${COQC} ${pkgFlags} /pkg/coq/${f}.v -o /work/pkg/${f}.vo`),
      ...modules.map(
        (m) => `echo "== ${m}.v"; ${COQC} ${pkgFlags} -Q /work/adq VkitAdequacy /src/${m}.v -o /work/adq/${m}.vo`,
      ),
      `echo "== assumptions"; ${COQC} ${pkgFlags} -Q /work/adq VkitAdequacy /src/AdequacyAssumptions.v -o /work/tmp/AdequacyAssumptions.vo`,
    ].join('\n');
    const at = (d: string, readOnly: boolean) => ({ host: join(scratch, d), container: `/work/${d}`, readOnly });
    const run = await opts.sandbox.run({
      image: opts.image,
      argv: ['/bin/sh', '-c', script],
      binds: [
        { host: opts.pkg.dir, container: '/pkg', readOnly: true },
        { host: join(scratch, 'src'), container: '/src', readOnly: true },
        at('pkg', false),
        at('adq', false),
        at('assumptions', false),
        at('tmp', false),
      ],
      workdir: '/work/tmp',
      env: { TMPDIR: '/work/tmp', HOME: '/work/tmp', LANG: 'C.UTF-8' },
      timeoutMs: STEP_TIMEOUT_MS,
      signal: opts.signal,
      name: `${opts.containerPrefix}-adequacy`,
    });
    const log = [
      `== adequacy: ${script}`,
      `exit ${run.exitCode}${run.timedOut ? ' (timed out)' : ''}${run.cancelled ? ' (cancelled)' : ''}${run.startError ? ` (not started: ${run.startError})` : ''}`,
      '-- stdout',
      run.stdout,
      '-- stderr',
      run.stderr,
    ].join('\n');
    const base = (c: AdequacySpec['checks'][number]) => ({
      id: c.id,
      theorem: c.theorem,
      establishes: c.establishes,
      witness: c.witness,
    });
    if (run.exitCode === 0 && !run.timedOut && !run.cancelled && !run.startError)
      return {
        log,
        results: spec.checks.map((c) => ({ ...base(c), ...judgeAssumptions(join(scratch, 'assumptions'), c.id) })),
      };
    // coqc rejected a file (its error names the place), or the step decided nothing.
    const rejected = !run.startError && !run.cancelled && !run.timedOut;
    const err = rejected ? firstCoqError(`${run.stderr}\n${run.stdout}`) : undefined;
    const failing = err ? enclosingTheorem(opts.dir, err) : undefined;
    const why = run.startError
      ? `the adequacy container did not start: ${run.startError}`
      : run.cancelled
        ? 'cancelled'
        : run.timedOut
          ? 'the adequacy step timed out'
          : `coqc stopped: ${err?.message ?? (run.stderr || run.stdout).trim().split('\n').slice(-3).join(' ')}`;
    return {
      log,
      results: spec.checks.map((c) =>
        failing === c.theorem
          ? {
              ...base(c),
              status: 'fails' as const,
              reason: `coqc rejected its proof: ${err!.message}`,
              assumptions: [],
            }
          : { ...base(c), status: 'unknown' as const, reason: `not checked: ${why}`, assumptions: [] },
      ),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A theorem holds when `Print Assumptions` says it is closed under the global context. */
function judgeAssumptions(dir: string, id: string): Pick<AdequacyResult, 'status' | 'reason' | 'assumptions'> {
  let out: string;
  try {
    out = readFileSync(join(dir, `${id}.out`), 'utf8');
  } catch {
    return { status: 'unknown', reason: 'Print Assumptions wrote nothing', assumptions: [] };
  }
  const a = parseAssumptions(out);
  if (a.closed) return { status: 'holds', reason: 'proved, closed under the global context', assumptions: [] };
  const listed = [...a.axioms, ...a.otherGroups];
  // Adequacy theorems are about the package's own definitions: any assumption leaves them unproved.
  return {
    status: 'unknown',
    reason: a.unparsed ? 'Print Assumptions output not understood' : `relies on ${listed.join(', ')}`,
    assumptions: listed,
  };
}

/** `File.theorem` whose statement or proof holds the located error, if coqc named one of our files. */
function enclosingTheorem(dir: string, err: { file: string; line: number }): string | undefined {
  const name = basename(err.file);
  if (!name.endsWith('.v') || !COQ_NAME.test(name.slice(0, -2))) return undefined;
  let source: string;
  try {
    source = readFileSync(join(dir, name), 'utf8');
  } catch {
    return undefined;
  }
  const code = blankCommentsAndStrings(source).split('\n').slice(0, err.line).join('\n');
  let theorem: string | undefined;
  for (const m of code.matchAll(
    /\b(?:Theorem|Lemma|Fact|Remark|Corollary|Proposition|Example)\s+([A-Za-z_][A-Za-z0-9_']*)/g,
  ))
    theorem = m[1];
  return theorem ? `${name.slice(0, -2)}.${theorem}` : undefined;
}
