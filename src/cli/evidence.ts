/**
 * `vkit evidence export|replay`'s handlers (declared in `verbs/evidence.ts`, bound in `table.ts`):
 * call the service, render. Also renders the protected gate (`vkit gate --protected`).
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { EXIT, invalid } from '../errors.js';
import { gateExitCode, showOnly } from '../gate/evaluate.js';
import { exportEvidence, replayEvidence } from '../service/evidence.js';
import type { OpenOptions } from '../service/workspace.js';
import { type Handler, printJson } from '../kit/verb.js';
import type * as verbs from './verbs/evidence.js';
import { printEvent, printGate } from './render.js';
import { defaultRoot } from '../service/root.js';

export const exportBundle: Handler<typeof verbs.exportBundle> = async ({ values: v }) => {
  if (!v.run) throw invalid('ERR_USAGE', 'Expected --run ID', { path: '--run' }, 'List runs with `vkit runs`.');
  if (!v.out) throw invalid('ERR_USAGE', 'Expected --out FILE', { path: '--out' });
  const r = await exportEvidence(
    { root: v.root ? resolve(v.root) : defaultRoot(), store: v.store },
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

export const replay: Handler<typeof verbs.replay> = async ({ values: v, positionals }) => {
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
    { root: v.root ? resolve(v.root) : defaultRoot(), store: v.store },
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
    remote?: string;
    'remote-only-read'?: boolean;
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
  if (v['remote-only-read'] && !v.remote)
    throw invalid('ERR_USAGE', 'Expected --remote URL with --remote-only-read (VKIT_REMOTE is not used here)', {
      path: '--remote-only-read',
    });
  // --deep is implied: the protected gate always re-hashes everything.
  const { protectedGate } = await import('../service/protected.js');
  const report = await protectedGate(open, {
    target: v.target,
    candidate: v.candidate,
    workingTree: v['working-tree'],
    reuse: v.reuse,
    ...(v.remote ? { remote: { url: v.remote, readOnly: v['remote-only-read'] ?? false } } : {}),
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
    if (report.remote)
      process.stdout.write(
        `remote: ${report.remote.url}, entries of this authority signed by ${report.remote.trusted_signers.length ? report.remote.trusted_signers.join(', ') : 'no trusted signer: none will count'}${report.remote.publishes ? '; publishing' : ''}\n`,
      );
    printGate(gate);
  }
  return gateExitCode(report.gate.status);
}
