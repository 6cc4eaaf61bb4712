/**
 * `formal-check`: a formal component as a graph action (label `formal:<id>`). Its key covers the raw
 * capture of the declared inputs plus `vkit.lock.json` (so re-acceptance re-identifies it), the
 * policy slice digest, the installed package digest, the profile and the candidate source. The
 * accepted checker digest is bound through the lock bytes.
 *
 * Execution, in order, each step BLOCKED (claim unknown) when it cannot go on, never PASS:
 * the lock must cover the current policy slice, package and profile; the package and profile must
 * exist here and fit the declaration; the formal capture must succeed (secrets, links, submodules and
 * special files refused) and equal the job's; the engine must answer; the profile's assets must
 * resolve; the tool tree inside the worker image must hash to the accepted checker digest. Then the
 * capture is materialised for uid 65534, the profile runs in a private output directory, the output is
 * validated (links, special files, unlisted artifacts, limits) and retained in the CAS, and the
 * outcome is returned with the receipt sections as its `subject`.
 */
import * as v from 'valibot';
import { defineRule, type ActionResult, type ExecuteIO } from '../../src/config/rule.js';
import type { ResolvedComponent } from '../../src/formal/component-schema.js';
import {
  acceptedChecker,
  blocked,
  captureInputs,
  inWorkspace,
  keepRetained,
  lockEntryAt,
  runProfile,
} from '../../src/formal/action.js';
import type { FormalSource } from '../../src/formal/capture.js';
import { compareLock, LOCK_FILE } from '../../src/formal/lock.js';
import { loadPackage } from '../../src/formal/packages.js';
import { policyProblems, policySliceDigest } from '../../src/formal/policy.js';
import { loadProfile } from '../../src/formal/profiles/index.js';
import type { CandidateSelection, MathPackage, FormalCheckAttrs } from '../../src/formal/types.js';
import { treeDigest } from '../../src/capture/tree.js';
import { containerPrefix } from '../../src/checkers/container-names.js';

/** Bumped whenever what a formal PASS means changes, so earlier evidence is not reused. */
export const FORMAL_SEMANTICS = 'vkit.formal/1';

/** Installed package digest, or null when the package is absent or broken (BLOCKED at execution). */
function installedDigest(c: ResolvedComponent): string | null {
  try {
    return loadPackage(c.package.id, c.package.version).sha256;
  } catch {
    return null;
  }
}

export function componentOf(attrs: FormalCheckAttrs): ResolvedComponent {
  const { candidate: _candidate, ...component } = attrs;
  return component;
}

export const formalCheckRule = defineRule<FormalCheckAttrs>({
  kind: 'formal-check',
  version: 1,
  attrs: v.looseObject({ id: v.string() }) as unknown as v.GenericSchema<unknown, FormalCheckAttrs>,
  plan(node) {
    const component = componentOf(node.attrs);
    const candidate = node.attrs.candidate;
    const policy = policySliceDigest(component);
    const packageDigest = installedDigest(component);
    return {
      definition: {
        id: component.id,
        profile: component.profile,
        policy_sha256: policy,
        package_sha256: packageDigest,
        candidate: candidate ?? { kind: 'working-tree' },
        semantics: FORMAL_SEMANTICS,
      },
      env: [],
      execute: (io) => executeFormal(io, component, candidate, policy, packageDigest, node.capture.files),
    };
  },
});

async function executeFormal(
  io: ExecuteIO,
  c: ResolvedComponent,
  candidate: CandidateSelection | undefined,
  policy: string,
  packageDigest: string | null,
  jobFiles: ReadonlyArray<{ path: string; mode: string; sha256: string }>,
): Promise<ActionResult> {
  // Host configuration (engine socket, image and archive locations) is read from the worker's own
  // environment, which it inherits from the submitter; it never enters the key (host paths do not
  // change what a formal job means).
  const env: Record<string, string | undefined> = { ...process.env };
  const entry = lockEntryAt(io.root, c.id);
  if (!entry.ok) return blocked(entry.reason);
  const lockEntry = entry.value;
  if (packageDigest === null)
    return blocked(`package ${c.package.id} ${c.package.version} is not installed (or broken) in this vkit`);
  const lock = compareLock(lockEntry, { policy_sha256: policy, package_sha256: packageDigest, profile: c.profile });
  if (!lock.ok) return blocked(lock.reason);
  const profile = await loadProfile(c.profile);
  if (!profile) return blocked(`profile \`${c.profile}\` is not built into this vkit`);
  let pkg: MathPackage;
  try {
    pkg = loadPackage(c.package.id, c.package.version);
  } catch (error) {
    return blocked((error as Error).message);
  }
  if (pkg.sha256 !== packageDigest) return blocked('the installed package changed while the job was planned; rerun');
  const problems = policyProblems(c, pkg, profile);
  if (problems.length) return blocked(`component does not fit its package: ${problems.join('; ')}`);

  const source: FormalSource = candidate ? { kind: 'git-commit', commit: candidate.commit } : { kind: 'working-tree' };
  const captured = await captureInputs(io.root, c.inputs ?? [], source);
  if (!captured.ok) return blocked(captured.reason);
  const capture = captured.value;
  // The capture must be the job's: for the working tree, the engine's raw capture minus the lock;
  // for a commit, the digest the request was planned against.
  const expected = candidate ? candidate.digest : treeDigest(jobFiles.filter((f) => f.path !== LOCK_FILE));
  if (capture.digest !== expected)
    return blocked(
      `the formal capture (${capture.files.length} files) differs from the job's capture: an input is secret-looking, a link or changed since planning`,
    );

  const checker = await acceptedChecker(profile, env, lockEntry, {
    policy_sha256: policy,
    package_sha256: packageDigest,
    profile: c.profile,
  });
  if (!checker.ok) return blocked(checker.reason);
  const resolved = checker.value;

  // The worker runs as uid 65534: its private output directory must be writable by it.
  const setting = { sandbox: resolved.sandbox, env, signal: io.signal, containerPrefix: containerPrefix(io.attempt) };
  return inWorkspace(capture, { prefix: 'vkit-out-', mode: 0o777 }, setting, async (run): Promise<ActionResult> => {
    const ran = await runProfile(profile.id, () => profile.run({ component: c, pkg, ...run }));
    if (!ran.ok) return blocked(ran.reason);
    const outcome = ran.value;
    const subjectBase = {
      formal: {
        component: c.id,
        source: capture.source,
        provisional: capture.provisional,
        capture_sha256: capture.digest,
        policy_sha256: policy,
        package_sha256: pkg.sha256,
        checker_sha256: resolved.tree.digest,
        image: resolved.plan.image,
        profile: profile.id,
        method: outcome.method,
        /** The checker's own rejection, if it gave one (see FormalOutcome.rejectedBy). */
        rejected_by: outcome.rejectedBy ?? null,
      },
      sections: {
        ...outcome.sections,
        inventory: {
          ...outcome.sections.inventory,
          image: resolved.plan.image,
          tool_tree: resolved.tree.digest,
          versions: { ...(resolved.tree.versions ?? {}), ...outcome.sections.inventory.versions },
        },
      },
    };
    const sectionsBlob = await io.putBytes(`${JSON.stringify(subjectBase, null, 2)}\n`);
    const artifacts: ActionResult['artifacts'] = [{ name: 'formal.json', ...sectionsBlob }];
    const rejected = await keepRetained(io, run.out, outcome.artifacts, artifacts);
    if (rejected !== undefined) return blocked(rejected, { artifacts, subject: subjectBase });
    const base = { artifacts, subject: subjectBase, assurance: outcome.assurance };
    if (outcome.outcome === 'PASS' && outcome.claim === 'established')
      return { ...base, outcome: 'PASS', claim: 'established', reason: outcome.reason || undefined };
    // A failed obligation leaves the claim unknown (the reference): anything but an established PASS is BLOCKED unless the profile refuted the claim.
    if (outcome.outcome === 'FAIL' && outcome.claim === 'refuted')
      return { ...base, outcome: 'FAIL', claim: 'refuted', reason: outcome.reason };
    return {
      ...base,
      outcome: 'BLOCKED',
      claim: 'unknown',
      reason: outcome.reason || 'the profile established nothing',
    };
  });
}
