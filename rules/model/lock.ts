/** What `vkit policy accept` binds for a model item: its entry and the checker (a model checks no package). */
import type { LockCandidate, LockJudgement } from '../../src/config/kind.js';
import { resolveChecker } from '../../src/formal/profiles/index.js';
import { modelLockKey, modelPolicyDigest, type ResolvedModel } from './schema.js';
import { loadModelProfile } from './lib/profiles.js';

/** Bound under `model:<id>`. */
export async function modelLock(
  models: readonly ResolvedModel[],
  ctx: { env: NodeJS.ProcessEnv },
): Promise<LockCandidate[]> {
  return models.map((m) => ({ key: modelLockKey(m), judge: () => judgeModel(m, ctx.env) }));
}

async function judgeModel(m: ResolvedModel, env: NodeJS.ProcessEnv): Promise<LockJudgement> {
  const profile = await loadModelProfile(m.profile);
  if (!profile) return { reasons: [`model-checking profile \`${m.profile}\` is not built into this vkit`] };
  const unsupported = m.properties.filter((p) => !profile.propertyKinds.includes(p.kind));
  if (unsupported.length)
    return {
      reasons: unsupported.map(
        (p) => `property \`${p.name}\` is of kind ${p.kind}: ${profile.id} checks ${profile.propertyKinds.join(', ')}`,
      ),
    };
  const checker = await resolveChecker(profile, env);
  if (!checker.ok) return { reasons: checker.missing };
  return { policy_sha256: modelPolicyDigest(m), checker_sha256: checker.tree.digest, profile: profile.id };
}
