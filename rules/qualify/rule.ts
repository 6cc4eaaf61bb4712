/**
 * The `qualify` rule: runs a package's mutation catalogue and adequacy checks inside one job (each
 * candidate in its own containers, named after the attempt so cancellation reaches them) and folds
 * them into the gate item's outcome. Every candidate's result sections are kept as artifacts, the
 * report as the receipt's subject (`vkit run show` shows its sections).
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type * as v from 'valibot';
import { type ActionResult, defineRule, type ExecuteIO } from '../../src/config/rule.js';
import { VkitError } from '../../src/errors.js';
import { blocked, lockEntryAt } from '../../src/formal/action.js';
import { compareLock } from '../../src/formal/lock.js';
import { loadPackage } from '../../src/formal/packages.js';
import { loadProfile, resolveChecker } from '../../src/formal/profiles/index.js';
import { runAdequacy } from './lib/adequacy.js';
import { checkCandidates, REFERENCE } from './lib/candidates.js';
import { type Catalogue, catalogueDigest, editDigest, installedCatalogueDir, readCatalogue } from './lib/catalogue.js';
import {
  lockKeyOf,
  QualificationEntrySchema,
  qualificationPolicyDigest,
  type ResolvedQualification,
} from './schema.js';
import { foldQualification, mutantResult, NOT_ESTABLISHED } from './lib/report.js';
import { snapshotPackage } from './lib/snapshot.js';
import type { MathPackage } from '../../src/formal/types.js';
import { containerPrefix } from '../../src/checkers/container-names.js';

/** Bumped whenever what a qualification PASS means changes, so earlier evidence is not reused. */
const QUALIFY_SEMANTICS = 'vkit.qualify/1';

/** The catalogue the entry names: in the repository (read at `root`), or vkit's own. */
function catalogueOf(q: ResolvedQualification, root: string | undefined): Catalogue {
  if (q.catalogue === undefined) return readCatalogue(installedCatalogueDir(q.package.id, q.profile));
  if (root === undefined) throw new Error('a repository catalogue is read at execution');
  return readCatalogue(join(root, q.catalogue));
}

export const qualifyRule = defineRule<ResolvedQualification>({
  kind: 'qualify',
  version: 1,
  attrs: QualificationEntrySchema as unknown as v.GenericSchema<unknown, ResolvedQualification>,
  plan(node) {
    const q = node.attrs;
    // vkit's own catalogue is not in the capture: its digest enters the key. A repository catalogue is.
    let installed: string | null = null;
    if (q.catalogue === undefined) {
      try {
        installed = catalogueOf(q, undefined).sha256;
      } catch {
        installed = null; // BLOCKED at execution, naming why
      }
    }
    return {
      definition: {
        id: q.id,
        package: q.package,
        profile: q.profile,
        catalogue: q.catalogue ?? null,
        catalogue_sha256: installed,
        semantics: QUALIFY_SEMANTICS,
      },
      env: [],
      execute: (io) => executeQualify(io, q, installed, node.capture.files),
    };
  },
});

async function executeQualify(
  io: ExecuteIO,
  q: ResolvedQualification,
  plannedCatalogue: string | null,
  captured: ReadonlyArray<{ path: string; sha256: string }>,
): Promise<ActionResult> {
  const t0 = performance.now();
  const env: Record<string, string | undefined> = { ...process.env };
  let pkg: MathPackage;
  let catalogue: Catalogue;
  try {
    pkg = loadPackage(q.package.id, q.package.version);
    catalogue = catalogueOf(q, io.root);
  } catch (error) {
    if (error instanceof VkitError) return blocked(error.message);
    throw error;
  }
  if (pkg.sha256 !== q.package.sha256)
    return blocked(
      `the installed package ${pkg.id} ${pkg.version} is ${pkg.sha256}, not the pinned ${q.package.sha256}`,
    );
  if (plannedCatalogue !== null && catalogue.sha256 !== plannedCatalogue)
    return blocked("vkit's catalogue changed while the job was planned; rerun");
  if (q.catalogue !== undefined) {
    // What runs must be what the key covers: the catalogue read now, file for file, as captured.
    const prefix = `${q.catalogue.replace(/\/+$/, '')}/`;
    const inCapture = captured
      .filter((f) => f.path.startsWith(prefix))
      .map((f) => ({ path: f.path.slice(prefix.length), sha256: f.sha256 }));
    if (catalogueDigest(inCapture) !== catalogue.sha256)
      return blocked(
        `the repository catalogue \`${q.catalogue}\` read now is not the one captured (a file outside the item's inputs, or changed since planning)`,
      );
  }
  if (catalogue.package.id !== pkg.id || catalogue.package.version !== pkg.version || catalogue.profile !== q.profile)
    return blocked(
      `the catalogue is for ${catalogue.package.id} ${catalogue.package.version} (${catalogue.profile}), not ${pkg.id} ${pkg.version} (${q.profile})`,
    );
  const profile = await loadProfile(q.profile);
  if (!profile) return blocked(`profile \`${q.profile}\` is not built into this vkit`);
  const entry = lockEntryAt(io.root, lockKeyOf(q));
  if (!entry.ok) return blocked(entry.reason);
  const lockEntry = entry.value;
  const current = {
    policy_sha256: qualificationPolicyDigest(q, catalogue.sha256),
    package_sha256: pkg.sha256,
    profile: profile.id,
  };
  const lock = compareLock(lockEntry, current);
  if (!lock.ok) return blocked(lock.reason);
  const resolved = await resolveChecker(profile, env);
  if (!resolved.ok) return blocked(`checker unavailable: ${resolved.missing.join('; ')}`);
  const checked = compareLock(lockEntry, { ...current, checker_sha256: resolved.tree.digest });
  if (!checked.ok) return blocked(checked.reason);
  const contract = catalogue.contract ?? (pkg.contracts.length === 1 ? pkg.contracts[0] : undefined);
  if (!contract) return blocked(`the package has ${pkg.contracts.length} contracts and the catalogue names none`);

  const prefix = containerPrefix(io.attempt);
  const concurrency = Math.min(2, availableParallelism());
  const outcomes = await checkCandidates({
    catalogue,
    pkg,
    contract,
    profile,
    sandbox: resolved.sandbox,
    env,
    signal: io.signal,
    containerPrefix: prefix,
    concurrency,
  });
  const adequacy = await runAdequacy({
    catalogueDir: catalogue.dir,
    profileId: profile.id,
    pkg,
    env,
    signal: io.signal,
    checker: { sandbox: resolved.sandbox, image: resolved.plan.image },
    containerPrefix: `${prefix}-adequacy`,
  });
  const artifacts: ActionResult['artifacts'] = [];
  for (const [id, outcome] of outcomes)
    artifacts.push({ name: `candidates/${id}.json`, ...(await io.putBytes(`${JSON.stringify(outcome, null, 2)}\n`)) });
  const ran = (id: string) => {
    const o = outcomes.get(id)!;
    return {
      outcome: o.outcome,
      reason: o.reason,
      run: null,
      receipt: null,
      intact: true,
      rejectedBy: o.rejectedBy ?? null,
    };
  };
  const ref = outcomes.get(REFERENCE)!;
  const reference = { status: ref.outcome, reason: ref.reason, run: null, receipt: null };
  const mutants = catalogue.mutants.map((m) => mutantResult(m, editDigest(m), ran(m.id)));
  const fold = foldQualification(reference, mutants, adequacy);
  const report = {
    schema: 'vkit.qualification/1' as const,
    ...fold,
    package: { id: pkg.id, version: pkg.version, sha256: pkg.sha256 },
    profile: profile.id,
    catalogue: { sha256: catalogue.sha256, mutants: catalogue.mutants.length },
    checker_sha256: resolved.tree.digest,
    reference,
    mutants,
    adequacy,
    not_established: NOT_ESTABLISHED,
    package_snapshot: snapshotPackage(pkg, resolved.tree.digest),
    ms: Math.round(performance.now() - t0),
  };
  artifacts.push({ name: 'qualification.json', ...(await io.putBytes(`${JSON.stringify(report, null, 2)}\n`)) });
  if (io.signal.aborted) return blocked('cancelled', { artifacts });
  const subject = {
    qualification: {
      package_sha256: pkg.sha256,
      catalogue_sha256: catalogue.sha256,
      checker_sha256: resolved.tree.digest,
      totals: fold.totals,
    },
    sections: { reference, mutants, adequacy, not_established: NOT_ESTABLISHED },
  };
  const base = { artifacts, subject, assurance: 'kernel_proof' as const };
  if (fold.status === 'PASS') return { ...base, outcome: 'PASS', claim: 'established', reason: fold.reason };
  if (fold.status === 'FAIL') return { ...base, outcome: 'FAIL', claim: 'refuted', reason: fold.reason };
  return { ...base, outcome: 'BLOCKED', claim: 'unknown', reason: fold.reason };
}
