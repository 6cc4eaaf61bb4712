/**
 * The `model-check` rule: one model item as a graph action. Execution, each step BLOCKED (claim
 * unknown) when it cannot go on: the lock must cover the entry and profile; the profile must exist
 * here; the capture of the inputs must equal the job's and hold the model file; the checker must
 * resolve and its tool tree hash to the accepted digest. Then the capture is materialised for uid
 * 65534, the profile decides each property in restricted containers, the retained witnesses and
 * logs are validated and kept, and the properties fold into the item's outcome (lib/fold.ts).
 */
import type * as v from 'valibot';
import { treeDigest } from '../../src/capture/tree.js';
import { type ActionResult, defineRule, type ExecuteIO } from '../../src/config/rule.js';
import {
  acceptedChecker,
  blocked,
  captureInputs,
  inWorkspace,
  keepRetained,
  lockEntryAt,
  runProfile,
} from '../../src/formal/action.js';
import { compareLock, LOCK_FILE } from '../../src/formal/lock.js';
import { ModelEntrySchema, modelLockKey, modelPolicyDigest, type ResolvedModel } from './schema.js';
import { foldModel } from './lib/fold.js';
import { loadModelProfile } from './lib/profiles.js';
import { containerPrefix } from '../../src/checkers/container-names.js';

/** Bumped whenever what a model PASS means changes, so earlier evidence is not reused. */
const MODEL_SEMANTICS = 'vkit.model-check/1';

export const modelCheckRule = defineRule<ResolvedModel>({
  kind: 'model-check',
  version: 1,
  attrs: ModelEntrySchema as unknown as v.GenericSchema<unknown, ResolvedModel>,
  plan(node) {
    const m = node.attrs;
    const policy = modelPolicyDigest(m);
    return {
      definition: { id: m.id, profile: m.profile, policy_sha256: policy, semantics: MODEL_SEMANTICS },
      env: [],
      execute: (io) => executeModel(io, m, policy, node.capture.files),
    };
  },
});

async function executeModel(
  io: ExecuteIO,
  m: ResolvedModel,
  policy: string,
  jobFiles: ReadonlyArray<{ path: string; mode: string; sha256: string }>,
): Promise<ActionResult> {
  // Host configuration (the engine socket) comes from the worker's environment and never enters the key.
  const env: Record<string, string | undefined> = { ...process.env };
  const entry = lockEntryAt(io.root, modelLockKey(m));
  if (!entry.ok) return blocked(entry.reason);
  const lockEntry = entry.value;
  const lock = compareLock(lockEntry, { policy_sha256: policy, profile: m.profile });
  if (!lock.ok) return blocked(lock.reason);
  const profile = await loadModelProfile(m.profile);
  if (!profile) return blocked(`model-checking profile \`${m.profile}\` is not built into this vkit`);

  const captured = await captureInputs(io.root, m.inputs, { kind: 'working-tree' });
  if (!captured.ok) return blocked(captured.reason);
  const capture = captured.value;
  if (capture.digest !== treeDigest(jobFiles.filter((f) => f.path !== LOCK_FILE)))
    return blocked(
      `the capture (${capture.files.length} files) differs from the job's: an input is secret-looking, a link or changed since planning`,
    );
  if (!capture.files.some((f) => f.path === m.model))
    return blocked(`the model file \`${m.model}\` is not among the item's captured inputs: add it to \`inputs\``);
  if (m.config !== undefined && !capture.files.some((f) => f.path === m.config))
    return blocked(`the configuration \`${m.config}\` is not among the item's captured inputs: add it to \`inputs\``);

  const checker = await acceptedChecker(profile, env, lockEntry, { policy_sha256: policy, profile: m.profile });
  if (!checker.ok) return blocked(checker.reason);
  const resolved = checker.value;

  const setting = { sandbox: resolved.sandbox, env, signal: io.signal, containerPrefix: containerPrefix(io.attempt) };
  return inWorkspace(
    capture,
    { prefix: 'vkit-model-out-', mode: 0o755 },
    setting,
    async (run): Promise<ActionResult> => {
      const ran = await runProfile(profile.id, () => profile.run({ model: m, ...run }));
      if (!ran.ok) return blocked(ran.reason);
      const outcome = ran.value;
      const fold = foldModel(outcome.properties);
      const subject = {
        model: {
          id: m.id,
          model: m.model,
          source: capture.source,
          capture_sha256: capture.digest,
          policy_sha256: policy,
          checker_sha256: resolved.tree.digest,
          image: resolved.plan.image,
          profile: profile.id,
          method: profile.method,
          totals: fold.totals,
        },
        sections: {
          // Each property is one obligation: its claim, why, its finite scope and its witness.
          obligations: {
            total: outcome.properties.length,
            proved: fold.totals.established,
            failed: fold.totals.refuted,
            unknown: fold.totals.unknown,
            items: outcome.properties.map((p) => ({
              id: `${p.kind}:${p.name}`,
              description: `${p.kind} ${p.name}${p.required ? '' : ' (not required)'}`,
              status: p.claim === 'established' ? 'proved' : p.claim === 'refuted' ? 'failed' : 'unknown',
              claim: p.claim,
              reason: p.reason,
              scope: p.scope,
              witness: p.witness,
              ...(p.unreplayed ? { unreplayed: p.unreplayed } : {}),
            })),
          },
          scope: { model: m.model, profile: m.profile, defines: m.defines, bounds: m.bounds },
          diagnostics: outcome.diagnostics,
          provenance: { method: profile.method, logical_trust: outcome.logical_trust, notes: outcome.notes },
          inventory: {
            image: resolved.plan.image,
            tool_tree: resolved.tree.digest,
            versions: { ...(resolved.tree.versions ?? {}), ...outcome.versions },
          },
        },
      };
      const artifacts: ActionResult['artifacts'] = [
        { name: 'model.json', ...(await io.putBytes(`${JSON.stringify(subject, null, 2)}\n`)) },
      ];
      const rejected = await keepRetained(io, run.out, outcome.artifacts, artifacts);
      if (rejected !== undefined) return blocked(rejected, { artifacts, subject });
      if (io.signal.aborted) return blocked('cancelled', { artifacts, subject });
      return {
        artifacts,
        subject,
        assurance: profile.assurance,
        outcome: fold.outcome,
        claim: fold.claim,
        reason: fold.reason,
      };
    },
  );
}
