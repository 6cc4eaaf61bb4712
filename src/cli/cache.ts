/** `vkit cache status` and `vkit policy trust-signer` handlers (declared in `verbs/cache.ts`, bound in `table.ts`). */
import { resolve } from 'node:path';
import { EXIT, invalid } from '../errors.js';
import { type Handler, printJson } from '../kit/verb.js';
import type * as verbs from './verbs/cache.js';
import { defaultRoot } from '../service/root.js';

export const cacheStatus: Handler<typeof verbs.cacheStatus> = async ({ values: v }) => {
  const { cacheStatus: status } = await import('../service/cache.js');
  const s = await status({ root: v.root ? resolve(v.root) : defaultRoot(), url: v.remote, env: process.env });
  if (v.json) printJson(s);
  else {
    process.stdout.write(`remote: ${s.url ?? 'none (give --remote URL or set VKIT_REMOTE)'}\n`);
    if (s.url) process.stdout.write(`reachable: ${s.reachable ? 'yes' : `no (${s.problem})`}\n`);
    process.stdout.write(`signing key: ${s.signing_key ?? 'none (VKIT_SIGNING_KEY not set: nothing is uploaded)'}\n`);
    process.stdout.write(`trusted signers: ${s.trusted_signers.length ? '' : 'none (no remote entry is used)'}\n`);
    for (const t of s.trusted_signers) process.stdout.write(`  ${t.keyid}${t.name ? ` ${t.name}` : ''}\n`);
  }
  return EXIT.ok;
};

export const trustSigner: Handler<typeof verbs.trustSigner> = async ({ values: v, positionals }) => {
  const root = v.root ? resolve(v.root) : defaultRoot();
  const { trustSigner: trust, distrustSigner } = await import('../remote/trust.js');
  if (v.remove !== undefined && positionals.length)
    throw invalid('ERR_USAGE', 'Expected either KEYFILE or --remove KEYID, not both', { path: '--remove' });
  if (v.remove === undefined && positionals.length !== 1)
    throw invalid('ERR_USAGE', `Expected one KEYFILE, got ${positionals.length}`, { path: 'KEYFILE' });
  const change =
    v.remove !== undefined ? distrustSigner(root, v.remove) : trust(root, resolve(positionals[0]!), v.name);
  if (v.json) printJson(change);
  else
    process.stdout.write(
      `${change.action} ${change.keyid} in ${change.lock}; ${change.trusted.length} trusted signer(s)\n`,
    );
  return EXIT.ok;
};

export const cachePush: Handler<typeof verbs.cachePush> = async ({ values: v }) => {
  const { cachePush: push } = await import('../service/cache.js');
  const result = await push({ root: v.root ? resolve(v.root) : defaultRoot(), store: v.store }, v.remote, v.run);
  if (v.json) printJson(result);
  else {
    for (const p of result.pushed)
      process.stdout.write(
        `${p.ok ? 'uploaded' : 'not uploaded'} ${p.label} (${p.run})${p.ok ? '' : `: ${p.reason}`}\n`,
      );
    process.stdout.write(
      `${result.pushed.filter((p) => p.ok).length} of ${result.pushed.length} uploaded to ${result.url}\n`,
    );
  }
  return result.pushed.every((p) => p.ok) ? EXIT.ok : EXIT.blocked;
};
