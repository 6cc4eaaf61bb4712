/** What `vkit policy accept` binds for a qualification: its entry with the catalogue's digest, the package, the checker. */
import { join } from 'node:path';
import type { LockCandidate, LockJudgement } from '../../src/config/kind.js';
import { loadPackage } from '../../src/formal/packages.js';
import { loadProfile, resolveChecker } from '../../src/formal/profiles/index.js';
import { installedCatalogueDir, readCatalogue } from './lib/catalogue.js';
import { lockKeyOf, qualificationPolicyDigest, type ResolvedQualification } from './schema.js';

/** Bound under `qualify:<id>`. */
export async function qualificationLock(
  qualifications: readonly ResolvedQualification[],
  ctx: { root: string; env: NodeJS.ProcessEnv },
): Promise<LockCandidate[]> {
  return qualifications.map((q) => ({ key: lockKeyOf(q), judge: () => judgeQualification(q, ctx.root, ctx.env) }));
}

async function judgeQualification(
  q: ResolvedQualification,
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<LockJudgement> {
  let pkg;
  let catalogue;
  try {
    pkg = loadPackage(q.package.id, q.package.version);
    catalogue = readCatalogue(q.catalogue ? join(root, q.catalogue) : installedCatalogueDir(q.package.id, q.profile));
  } catch (error) {
    return { reasons: [(error as Error).message] };
  }
  if (pkg.sha256 !== q.package.sha256)
    return { reasons: [`the installed package is ${pkg.sha256}, not the pinned ${q.package.sha256}`] };
  if (catalogue.package.id !== pkg.id || catalogue.package.version !== pkg.version || catalogue.profile !== q.profile)
    return {
      reasons: [`the catalogue is for ${catalogue.package.id} ${catalogue.package.version} (${catalogue.profile})`],
    };
  const profile = await loadProfile(q.profile);
  if (!profile) return { reasons: [`profile \`${q.profile}\` is not built into this vkit`] };
  const checker = await resolveChecker(profile, env);
  if (!checker.ok) return { reasons: checker.missing };
  return {
    policy_sha256: qualificationPolicyDigest(q, catalogue.sha256),
    package_sha256: pkg.sha256,
    checker_sha256: checker.tree.digest,
    profile: profile.id,
  };
}
