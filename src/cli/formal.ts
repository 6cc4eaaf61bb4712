/**
 * `vkit formal package digest [ID]`, `vkit formal qualify` and `vkit policy accept`'s handlers (declared in
 * `verbs/formal.ts`, bound in `table.ts`): call the service, render.
 */
import { resolve } from 'node:path';
import { EXIT, invalid } from '../errors.js';
import { renderQualification } from '../formal/qualify/render.js';
import { type Handler, printJson } from '../kit/verb.js';
import type * as verbs from './verbs/formal.js';
import { defaultRoot } from '../service/root.js';

/** `formal package digest [ID]`: a three-word verb under the `formal` group, `digest` its first positional. */
export const packageDigest: Handler<typeof verbs.packageDigest> = async ({ values, positionals }) => {
  const [word, ...ids] = positionals;
  if (word !== 'digest')
    throw invalid(
      'ERR_USAGE',
      `Expected \`vkit formal package digest\`, got \`vkit formal package ${word ?? ''}\``.trim(),
      {
        path: 'verb',
      },
    );
  if (ids.length > 1) throw invalid('ERR_USAGE', `Expected at most one package id, got ${ids.length}`, { path: 'ID' });
  const { packageDigests } = await import('../formal/packages.js');
  const digests = packageDigests(ids[0]);
  if (values.json) printJson({ schema: 'vkit.package-digests/1', packages: digests });
  else if (ids[0] !== undefined && digests.length === 1) process.stdout.write(`${digests[0]!.sha256}\n`);
  else for (const d of digests) process.stdout.write(`${d.id} ${d.version} ${d.sha256}\n`);
  return EXIT.ok;
};

export const policyAccept: Handler<typeof verbs.policyAccept> = async ({ values: v }) => {
  const { policyAccept: accept } = await import('../service/formal.js');
  const result = await accept(
    { root: v.root ? resolve(v.root) : defaultRoot(), store: v.store },
    { components: v.component },
  );
  if (v.json) printJson(result);
  else {
    for (const a of result.accepted)
      process.stdout.write(
        `accepted ${a.component}${a.changed ? '' : ' (unchanged)'}: policy ${a.entry.policy_sha256}${a.entry.package_sha256 ? ` package ${a.entry.package_sha256}` : ''} checker ${a.entry.checker_sha256}\n`,
      );
    for (const r of result.refused) process.stdout.write(`refused ${r.component}: ${r.reasons.join('; ')}\n`);
    process.stdout.write(
      `wrote ${result.lock}${result.refused.length ? `; ${result.refused.length} component(s) not accepted` : ''}\n`,
    );
  }
  return result.refused.length ? EXIT.blocked : EXIT.ok;
};

export const qualify: Handler<typeof verbs.qualify> = async ({ values: v, host }) => {
  if (!v.package) throw invalid('ERR_USAGE', 'Expected --package ID', { path: '--package' });
  if (!v.profile) throw invalid('ERR_USAGE', 'Expected --profile PROFILE', { path: '--profile' });
  const jobs = v.jobs === undefined ? 1 : Number(v.jobs);
  if (!Number.isInteger(jobs) || jobs < 1)
    throw invalid('ERR_USAGE', `Expected --jobs to be a positive integer, got \`${v.jobs}\``, { path: '--jobs' });
  const { qualifyPackage } = await import('../service/qualify.js');
  // Checked before the qualification runs: a report that could not be written would be work for nothing.
  const out = v.out ? await reportTarget(v.out, v.root, v.store) : undefined;
  const report = await qualifyPackage({
    package: v.package,
    profile: v.profile,
    catalogue: v.catalogue,
    mutants: v.mutant,
    comparePackage: v['compare-package'],
    root: v.root,
    store: v.store,
    jobs,
    host: await host(),
  });
  if (out)
    (await import('../evidence/write-target.js')).writeTargetFile(out, `${JSON.stringify(report, null, 2)}\n`, true);
  if (v.json) printJson(report);
  else process.stdout.write(renderQualification(report));
  return report.status === 'PASS' ? EXIT.ok : report.status === 'FAIL' ? EXIT.fail : EXIT.blocked;
};

/** `--out FILE`: the user's to name, and replaced if it exists, but never in a git directory or the store. */
async function reportTarget(out: string, root: string | undefined, store: string | undefined) {
  const { writeTarget } = await import('../evidence/write-target.js');
  return writeTarget(
    resolve(out),
    { root: resolve(root ?? defaultRoot()), store },
    { arg: '--out', overwrite: true, overwriteHint: '' },
  );
}
