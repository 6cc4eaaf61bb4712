/** A catalogue's adequacy checks, when it has them, run by the profile's adequacy runner. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox } from '../../../src/checkers/container.js';
import { checkCoqAdequacy, readAdequacySpec } from '../../../src/formal/profiles/coq-adequacy.js';
import { COQ_PROFILE_ID } from '../../../src/formal/profiles/coq.js';
import { loadProfile, resolveChecker } from '../../../src/formal/profiles/index.js';
import type { MathPackage } from '../../../src/formal/types.js';
import type { AdequacyCheck } from './report.js';

/**
 * The catalogue's adequacy checks (`adequacy/adequacy.json`), run in the profile's worker image
 * through the restricted container engine; none when the catalogue has none. A profile without an
 * adequacy runner, or a checker that cannot be resolved, leaves every check unknown (BLOCKED), named.
 */
export async function runAdequacy(opts: {
  catalogueDir: string;
  profileId: string;
  pkg: MathPackage;
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** The checker, when the caller resolved it already. */
  checker?: { sandbox: Sandbox; image: string };
  containerPrefix?: string;
}): Promise<AdequacyCheck[]> {
  const { catalogueDir, profileId, pkg, env, signal } = opts;
  const dir = join(catalogueDir, 'adequacy');
  if (!existsSync(join(dir, 'adequacy.json'))) return [];
  const spec = readAdequacySpec(dir);
  const unknown = (reason: string): AdequacyCheck[] =>
    spec.checks.map((c) => ({ ...c, status: 'unknown', reason, assumptions: [] }));
  if (profileId !== COQ_PROFILE_ID) return unknown(`no adequacy runner for profile ${profileId} in this vkit`);
  let checker = opts.checker;
  if (!checker) {
    const resolved = await resolveChecker((await loadProfile(profileId))!, env);
    if (!resolved.ok) return unknown(`checker unavailable: ${resolved.missing.join('; ')}`);
    checker = { sandbox: resolved.sandbox, image: resolved.plan.image };
  }
  const { results } = await checkCoqAdequacy({
    pkg,
    dir,
    spec,
    sandbox: checker.sandbox,
    image: checker.image,
    signal: signal ?? new AbortController().signal,
    containerPrefix: opts.containerPrefix ?? `vkit-qualify-${process.pid}-${Date.now().toString(36)}`,
  });
  return results;
}
