/** `vkit evidence export|replay`: parse, call the service, render. */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, invalid } from '../errors.js';
import { gateExitCode, showOnly } from '../gate/evaluate.js';
import { exportEvidence, replayEvidence } from '../service/evidence.js';
import type { OpenOptions } from '../service/workspace.js';
import { BASE_FLAGS, parseFlags, printJson, type Command } from './args.js';
import { printEvent, printGate } from './render.js';

const exportCommand: Command = async (args) => {
  const v = parseFlags(args, {
    ...BASE_FLAGS,
    run: { type: 'string' },
    out: { type: 'string' },
    'include-assets': { type: 'boolean' },
  });
  if (!v.run) throw invalid('ERR_USAGE', 'Expected --run ID', { path: '--run' }, 'List runs with `vkit runs`.');
  if (!v.out) throw invalid('ERR_USAGE', 'Expected --out FILE', { path: '--out' });
  const r = await exportEvidence(
    { root: v.root ? resolve(v.root) : process.cwd(), store: v.store },
    { run: v.run, out: v.out, includeAssets: v['include-assets'] },
  );
  if (v.json) printJson(r);
  else {
    process.stdout.write(`exported ${r.run} (${r.label}, recorded ${r.recorded_outcome}) to ${r.bundle}\n`);
    process.stdout.write(
      `  ${r.entries} entries, ${r.bytes} bytes, bundle ${r.sha256}\n  validated: read back as hostile input, every digest matches the store\n`,
    );
    if (r.assets.requested || r.assets.capsules > 0) process.stdout.write(`  assets: ${r.assets.note}\n`);
    process.stdout.write(`note: ${r.integrity}\n`);
  }
  return EXIT.ok;
};

const replayCommand: Command = async (args) => {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { ...BASE_FLAGS, 'restore-assets': { type: 'boolean' }, jobs: { type: 'string' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw invalid('ERR_USAGE', (error as Error).message, {}, 'See --help for the flags.');
  }
  const { values: v, positionals } = parsed;
  if (positionals.length !== 1)
    throw invalid(
      'ERR_USAGE',
      `Expected one bundle FILE, got ${positionals.length}`,
      { path: 'FILE' },
      'Usage: vkit evidence replay FILE [--restore-assets]',
    );
  const jobs = v.jobs === undefined ? availableParallelism() : Number(v.jobs);
  if (!Number.isInteger(jobs) || jobs < 1)
    throw invalid('ERR_USAGE', `Expected --jobs to be a positive integer, got \`${v.jobs}\``, { path: '--jobs' });
  const r = await replayEvidence(
    { root: v.root ? resolve(v.root) : process.cwd(), store: v.store },
    { file: positionals[0]!, restoreAssets: v['restore-assets'], jobs },
  );
  if (v.json) printJson(r);
  else {
    process.stdout.write(`replay ${r.status}: ${r.label}: ${r.reason}\n`);
    process.stdout.write(
      `  bundle recorded ${r.recorded.outcome} (run ${r.recorded.run}): not accepted, the check ran again\n`,
    );
    if (r.replayed.run) process.stdout.write(`  replayed as ${r.replayed.run}: ${r.replayed.outcome}\n`);
    for (const i of r.identities.filter((x) => !x.match))
      process.stdout.write(
        `  ${i.field} differs: bundle ${JSON.stringify(i.bundle)}, current ${JSON.stringify(i.current)}\n`,
      );
    if (r.assets.restore_requested) process.stdout.write(`  assets: ${r.assets.note}\n`);
    process.stdout.write(`note: ${r.integrity}\n`);
  }
  return r.status === 'PASS' ? EXIT.ok : r.status === 'FAIL' ? EXIT.fail : EXIT.blocked;
};

export const EVIDENCE_COMMANDS: Record<string, Command> = {
  'evidence export': exportCommand,
  'evidence replay': replayCommand,
};

export const EVIDENCE_HELP: Record<string, string> = {
  'evidence export': `Usage: vkit evidence export --run ID --out FILE [--include-assets] [--root DIR] [--store DIR] [--json]

Writes one finished run's evidence as a deterministic tar bundle: manifest.json (digests binding the
job, the frozen source capture, the recorded outcome, obligations, checker and artifacts), job.json,
receipt.json and each artifact. The store's copies are re-hashed first; the written file is read back
as hostile input and checked. The same run always exports to the same bytes.

  --include-assets  for a formal run, add a digest-bound capsule: the exact worker image (saved through
                    the engine; refused unless its tool tree still hashes to the run's checker digest),
                    archives and tool trees; checks, comparisons and acceptance items have none, and
                    the output says so

Hashes give integrity relative to trusted state, not authentication.
Exit codes: 0 written, 2 invalid request, 3 the run's evidence is damaged, 4 internal error.
`,
  'evidence replay': `Usage: vkit evidence replay FILE [--restore-assets] [--root DIR] [--store DIR] [--jobs N] [--json]

Reads a bundle as hostile input (links, devices, \`..\`, absolute or duplicate names, sizes or digests
that disagree with the manifest, too many entries or bytes: refused, naming the entry, before anything
is written outside a scratch directory), captures the candidate in the current repository, requires
the accepted identities (job key, checker) to match, and runs the check again in the current store.
The bundle's recorded outcome is never accepted: only the fresh run counts.

  --restore-assets  load the bundle's capsule into the engine first; the loaded image must have the
                    recorded id and its tool tree the recorded checker digest (a tag is never enough)

Exit codes: 0 PASS, 1 FAIL (the check failed here), 2 refused bundle or invalid request,
3 BLOCKED (identities differ, or the check could not run).
`,
};

/**
 * `vkit gate --protected`: the gate's flags parsed by the gate verb, rendered here. Exits with the
 * gate's code; the report names the target and candidate commits.
 */
export async function protectedGateCommand(
  v: {
    json?: boolean;
    format?: string;
    only?: string[];
    deep?: boolean;
    now?: string;
    target?: string;
    candidate?: string;
    'working-tree'?: boolean;
    reuse?: boolean;
  },
  jobs: number,
  signal: AbortSignal,
  open: OpenOptions,
): Promise<number> {
  if (!v.target)
    throw invalid('ERR_USAGE', 'Expected --target REV: the commit whose requirements the candidate must meet', {
      path: '--target',
    });
  const format = v.format ?? (v.json ? 'json' : 'text');
  if (!['text', 'json'].includes(format))
    throw invalid('ERR_USAGE', `Expected --format to be text or json under --protected, got \`${format}\``, {
      path: '--format',
    });
  if (v.now !== undefined)
    throw invalid('ERR_USAGE', '--now cannot be used with --protected: the protected gate judges today', {
      path: '--now',
    });
  // --deep is implied: the protected gate always re-hashes everything.
  const { protectedGate } = await import('../service/protected.js');
  const report = await protectedGate(open, {
    target: v.target,
    candidate: v.candidate,
    workingTree: v['working-tree'],
    reuse: v.reuse,
    jobs,
    signal,
    onEvent: format === 'json' ? undefined : printEvent,
  });
  const gate = showOnly(report.gate, v.only);
  if (format === 'json') printJson({ ...report, gate });
  else {
    const c = report.candidate;
    process.stdout.write(
      `\nprotected gate: requirements from target ${report.target.commit} (${report.target.rev}), authority ${report.target.authority}\n`,
    );
    process.stdout.write(
      `candidate: ${c.kind === 'git_commit' ? `commit ${c.commit} (${c.rev})` : `working tree on ${c.commit ?? 'no commit'} (provisional)`}, source ${c.source_sha256}\n`,
    );
    process.stdout.write(
      `private store: ${report.store}${report.reuse ? ' (reusing passing evidence of this target authority)' : ''}\n`,
    );
    printGate(gate);
  }
  return gateExitCode(report.gate.status);
}
