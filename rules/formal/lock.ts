/** What `vkit policy accept` binds for a formal component: its policy slice, its package and its checker. */
import type { LockCandidate, LockJudgement } from '../../src/config/kind.js';
import type { ResolvedComponent } from '../../src/formal/component-schema.js';
import { loadPackage } from '../../src/formal/packages.js';
import { policyProblems, policySliceDigest } from '../../src/formal/policy.js';
import { loadProfile, resolveChecker } from '../../src/formal/profiles/index.js';

/** A component is bound under its id (an id holds no `:`, so no other kind's key can be one). */
export async function componentLock(
  components: readonly ResolvedComponent[],
  ctx: { env: NodeJS.ProcessEnv },
): Promise<LockCandidate[]> {
  return components.map((c) => ({ key: c.id, judge: () => judgeComponent(c, ctx.env) }));
}

async function judgeComponent(c: ResolvedComponent, env: NodeJS.ProcessEnv): Promise<LockJudgement> {
  let pkg;
  try {
    pkg = loadPackage(c.package.id, c.package.version);
  } catch (error) {
    return { reasons: [(error as Error).message] };
  }
  const profile = await loadProfile(c.profile);
  if (!profile) return { reasons: [`profile \`${c.profile}\` is not built into this vkit`] };
  const problems = policyProblems(c, pkg, profile);
  if (problems.length) return { reasons: problems };
  const checker = await resolveChecker(profile, env);
  if (!checker.ok) return { reasons: checker.missing };
  return {
    policy_sha256: policySliceDigest(c),
    package_sha256: pkg.sha256,
    checker_sha256: checker.tree.digest,
    profile: profile.id,
  };
}
