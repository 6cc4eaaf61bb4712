/**
 * `vkit formal package digest [ID]` and `vkit policy accept`'s handlers (declared in `verbs/formal.ts`,
 * bound in `table.ts`): call the service, render. `vkit formal qualify` is the qualify kind's (`rules/qualify/`).
 */
import { resolve } from 'node:path';
import { EXIT, invalid } from '../errors.js';
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
