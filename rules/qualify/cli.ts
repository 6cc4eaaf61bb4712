/**
 * `vkit formal qualify`'s handler (declared in `verbs.ts`, bound in `index.ts`): check the flags, run
 * the qualification (`service/qualify.ts`, with the operations the core lends it), render the report
 * (or its JSON with --json) and exit with its status.
 */
import { resolve } from 'node:path';
import { EXIT, invalid } from '../../src/errors.js';
import type { KindHost } from '../../src/kit/host.js';
import { type Handler, printJson } from '../../src/kit/verb.js';
import { renderQualification } from './lib/render.js';
import type * as verbs from './verbs.js';

export const qualify: Handler<typeof verbs.qualify> = async ({ values: v, host }) => {
  if (!v.package) throw invalid('ERR_USAGE', 'Expected --package ID', { path: '--package' });
  if (!v.profile) throw invalid('ERR_USAGE', 'Expected --profile PROFILE', { path: '--profile' });
  const jobs = v.jobs === undefined ? 1 : Number(v.jobs);
  if (!Number.isInteger(jobs) || jobs < 1)
    throw invalid('ERR_USAGE', `Expected --jobs to be a positive integer, got \`${v.jobs}\``, { path: '--jobs' });
  const kit = await host();
  const { qualifyPackage } = await import('./service/qualify.js');
  // Checked before the qualification runs: a report that could not be written would be work for nothing.
  const out = v.out ? await reportTarget(v.out, v.root, v.store, kit) : undefined;
  const report = await qualifyPackage({
    package: v.package,
    profile: v.profile,
    catalogue: v.catalogue,
    mutants: v.mutant,
    comparePackage: v['compare-package'],
    root: v.root,
    store: v.store,
    jobs,
    host: kit,
  });
  if (out)
    (await import('../../src/evidence/write-target.js')).writeTargetFile(
      out,
      `${JSON.stringify(report, null, 2)}\n`,
      true,
    );
  if (v.json) printJson(report);
  else process.stdout.write(renderQualification(report));
  return report.status === 'PASS' ? EXIT.ok : report.status === 'FAIL' ? EXIT.fail : EXIT.blocked;
};

/** `--out FILE`: the user's to name, and replaced if it exists, but never in a git directory or the store. */
async function reportTarget(out: string, root: string | undefined, store: string | undefined, kit: KindHost) {
  const { writeTarget } = await import('../../src/evidence/write-target.js');
  return writeTarget(
    resolve(out),
    { root: resolve(root ?? kit.defaultRoot()), store },
    { arg: '--out', overwrite: true, overwriteHint: '' },
  );
}
