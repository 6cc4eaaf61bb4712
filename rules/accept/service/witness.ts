/**
 * `vkit acceptance witness P --claim ID (--patch FILE | --replace PATH --old A --new B)`: breaks
 * the subject on purpose and watches the claim's command go red, then records the
 * `[claim.self_verify.watched_fail]` witness in the package.
 *
 * Everything runs in a scratch copy of the subject root (without `.git`), so the user's tree is
 * never touched. The command must first pass on the unperturbed copy (a command that is already
 * red proves nothing by going red), then fail on the perturbed copy by a real exit: a non-zero
 * exit or exit 0 without the expected text. A time-out is not a watched fail. A perturbation the
 * command survives is reported as SURVIVOR and nothing is written.
 */
import { todayUtc } from '../../../src/text/dates.js';
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { invalid } from '../../../src/errors.js';
import { m11Digest } from '../../../src/hash/index.js';
import { insideRoot } from '../lib/paths.js';
import type { Outcome } from '../lib/report.js';
import { runSelfVerify, type SelfVerifyRun } from '../lib/selfverify.js';
import {
  applyReplace,
  describePerturbation,
  observedLine,
  spliceWatchedFail,
  type Perturbation,
  type WatchedFail,
} from '../lib/witness.js';
import { readPackageClaims, subjectRoot } from './run.js';

const run = promisify(execFile);

export interface WitnessRequest {
  root: string;
  file: string;
  claim: string;
  patch?: string;
  replace?: { path: string; old: string; new: string };
  timeoutMs?: number;
  /** Today (UTC) unless given (tests). */
  date?: string;
}

export interface WitnessJson {
  schema: 'vkit.acceptance-witness/1';
  file: string;
  claim: string;
  result: 'WITNESSED' | 'SURVIVOR' | 'BASELINE-NOT-GREEN' | 'NOT-RUN';
  baseline: { status: string; output_summary: string };
  perturbed_run?: { status: string; exit_code: number | null; output_summary: string; timed_out: boolean };
  watched_fail?: WatchedFail;
  written: boolean;
  package_hash?: { old: string; new: string };
}

export async function acceptanceWitness(req: WitnessRequest): Promise<Outcome<WitnessJson>> {
  if (!!req.patch === !!req.replace)
    throw invalid('ERR_USAGE', 'Give exactly one of --patch FILE or --replace PATH --old TEXT --new TEXT', {
      path: '--patch',
    });
  const { doc, claims } = await readPackageClaims(req.root, req.file, [req.claim]);
  const claim = claims[0]!;
  if (!claim.sv)
    throw invalid('ERR_ACCEPTANCE_WITNESS', `claim '${claim.id}' has no [claim.self_verify] command to watch`, {
      file: req.file,
      path: `claim[${claim.index}].self_verify`,
      line: doc.line(['claim', claim.index, 'self_verify']),
    });
  const subject = await subjectRoot(doc, req.root);

  // Read the perturbation before copying anything: bad input fails fast.
  let perturbation: Perturbation;
  let target: string | undefined;
  if (req.patch) {
    const abs = resolve(req.root, req.patch);
    const bytes = await readFile(abs).catch((e: Error) => {
      throw invalid('ERR_USAGE', `Cannot read patch \`${req.patch}\`: ${e.message}`, { path: '--patch' });
    });
    perturbation = { kind: 'patch', file: req.patch, bytes };
  } else {
    const r = req.replace!;
    const abs = insideRoot(req.root, r.path);
    const inSubject = abs ? relative(subject, abs) : undefined;
    if (!abs || inSubject === undefined || inSubject === '' || inSubject.startsWith(`..${sep}`) || inSubject === '..') {
      throw invalid(
        'ERR_ACCEPTANCE_WITNESS',
        `--replace \`${r.path}\` must name a file inside the subject root \`${relative(req.root, subject) || '.'}\``,
        { path: '--replace' },
      );
    }
    target = inSubject;
    const content = await readFile(abs, 'utf8').catch((e: Error) => {
      throw invalid('ERR_USAGE', `Cannot read \`${r.path}\`: ${e.message}`, { path: '--replace' });
    });
    applyReplace(content, r.path, r.old, r.new); // validates: exactly one occurrence
    perturbation = { kind: 'replace', path: r.path, old: r.old, new: r.new };
  }

  const scratchParent = await mkdtemp(join(tmpdir(), 'vkit-witness-'));
  if (!relative(subject, scratchParent).startsWith('..')) {
    await rm(scratchParent, { recursive: true, force: true });
    throw invalid('ERR_ACCEPTANCE_WITNESS', 'the temp directory lies inside the subject root; set TMPDIR elsewhere', {
      path: 'TMPDIR',
    });
  }
  const scratch = join(scratchParent, basename(subject) || 'subject');
  try {
    await cp(subject, scratch, { recursive: true, verbatimSymlinks: true, filter: (src) => basename(src) !== '.git' });
    const json: WitnessJson = {
      schema: 'vkit.acceptance-witness/1',
      file: req.file,
      claim: claim.id,
      result: 'NOT-RUN',
      baseline: { status: 'NOT-RUN', output_summary: '' },
      written: false,
    };
    const lines: string[] = [];

    const baseline = await runSelfVerify(claim.sv, scratch, { timeoutMs: req.timeoutMs });
    json.baseline = { status: baseline.status, output_summary: baseline.output_summary };
    if (baseline.status === 'SELF-FULFILLING-SUSPECT' || baseline.status === 'NOT-RUN') {
      lines.push(
        `${baseline.status} ${claim.id}: ${claim.sv.command}`,
        `  ${baseline.output_summary}`,
        'nothing written',
      );
      return { exitCode: 3, lines, json };
    }
    if (baseline.status !== 'EXECUTED-PASS') {
      json.result = 'BASELINE-NOT-GREEN';
      lines.push(
        `BASELINE-NOT-GREEN ${claim.id}: ${claim.sv.command}`,
        `  ${baseline.status} before any perturbation: ${baseline.output_summary}`,
        'a command that is red without the perturbation witnesses nothing; nothing written',
      );
      return { exitCode: 1, lines, json };
    }

    if (perturbation.kind === 'patch') await applyPatch(scratch, perturbation.bytes, req.patch!);
    else {
      const file = join(scratch, target!);
      await writeFile(
        file,
        applyReplace(await readFile(file, 'utf8'), perturbation.path, perturbation.old, perturbation.new),
      );
    }

    const red = await runSelfVerify(claim.sv, scratch, { timeoutMs: req.timeoutMs });
    json.perturbed_run = {
      status: red.status,
      exit_code: red.exit_code,
      output_summary: red.output_summary,
      timed_out: red.timed_out,
    };
    if (red.status === 'EXECUTED-PASS') {
      json.result = 'SURVIVOR';
      lines.push(
        `SURVIVOR ${claim.id}: ${claim.sv.command}`,
        `  still passes with the perturbation (${describePerturbation(perturbation)}): ${red.output_summary}`,
        'the check cannot see this break; nothing written',
      );
      return { exitCode: 1, lines, json };
    }
    if (!isWatchedFail(red)) {
      lines.push(
        `NOT-WITNESSED ${claim.id}: ${claim.sv.command}`,
        `  ${red.output_summary}`,
        'a time-out or a kill is not a watched fail; nothing written',
      );
      return { exitCode: 3, lines, json };
    }

    const wf: WatchedFail = {
      of_command: claim.sv.command,
      perturbed: describePerturbation(perturbation),
      observed: observedLine(red),
      date: req.date ?? todayUtc(),
    };
    const text = spliceWatchedFail(doc, claim.index, wf);
    await writeAtomically(doc.abs, doc.bytes, text, req.file);
    const oldHash = m11Digest('manifest', doc.bytes);
    const newHash = m11Digest('manifest', Buffer.from(text, 'utf8'));
    Object.assign(json, {
      result: 'WITNESSED',
      watched_fail: wf,
      written: true,
      package_hash: { old: oldHash, new: newHash },
    });
    lines.push(
      `WITNESSED ${claim.id}: ${claim.sv.command}`,
      `  went red (${red.status}) when ${wf.perturbed}: ${wf.observed}`,
      `wrote [claim.self_verify.watched_fail] for '${claim.id}' into ${req.file}`,
      `package hash changed: ${oldHash} -> ${newHash}`,
      'any decision bound to the old package hash is now stale: a renewed decision is required',
    );
    return { exitCode: 0, lines, json };
  } finally {
    await rm(scratchParent, { recursive: true, force: true });
  }
}

/** Red by a real exit: non-zero, or exit 0 without the expected text. */
const isWatchedFail = (r: SelfVerifyRun) =>
  r.status === 'EXPECT-MISMATCH' || (r.status === 'EXECUTED-FAIL' && r.exit_code !== null && !r.timed_out);

/** `git apply` in the scratch copy; the ceiling keeps git from finding a repository above it. */
async function applyPatch(scratch: string, bytes: Buffer, shown: string): Promise<void> {
  const patchFile = join(dirname(scratch), 'perturbation.diff');
  await writeFile(patchFile, bytes);
  try {
    await run('git', ['apply', '--whitespace=nowarn', patchFile], {
      cwd: scratch,
      env: { ...process.env, GIT_CEILING_DIRECTORIES: dirname(scratch) },
    });
  } catch (error) {
    const e = error as { stderr?: string; message: string; code?: string };
    if (e.code === 'ENOENT')
      throw invalid(
        'ERR_ACCEPTANCE_WITNESS',
        'git is needed to apply --patch and was not found on PATH',
        { path: '--patch' },
        'Install git, or use --replace PATH --old TEXT --new TEXT.',
      );
    throw invalid(
      'ERR_ACCEPTANCE_WITNESS',
      `patch \`${shown}\` does not apply to the subject root: ${(e.stderr || e.message).trim()}`,
      { path: '--patch' },
      'Paths in the patch are relative to the subject root (git diff style, a/ and b/ prefixes).',
    );
  }
}

/** Writes only if the file still holds the bytes the witness was computed from (temp file + rename). */
async function writeAtomically(abs: string, expected: Buffer, text: string, shown: string): Promise<void> {
  const now = await readFile(abs);
  if (!now.equals(expected))
    throw invalid(
      'ERR_ACCEPTANCE_WITNESS',
      `${shown} changed while the witness ran; nothing written`,
      { file: shown },
      'Run witness again.',
    );
  const tmp = `${abs}.vkit-witness-${process.pid}.tmp`;
  const mode = (await stat(abs)).mode;
  await writeFile(tmp, text, { mode });
  await rename(tmp, abs);
}
