/**
 * Evidence export and replay, the service behind `vkit evidence export|replay` and the MCP tools.
 *
 * Export writes one run's evidence as a deterministic bundle, then reads the file back through the
 * same hostile-input reader replay uses and checks it against the store: what was written is what
 * the store vouches for. Replay reads a bundle (refusing anything hostile before a byte leaves its
 * scratch directory), captures the candidate in the current repository, runs the check again in
 * the current store and passes only when the accepted identities match and the fresh run passes.
 */
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { runEngine } from '../engine/build.js';
import { invalid } from '../errors.js';
import { sha256Stream } from '../hash/index.js';
import { parseReceipt } from '../store/receipt.js';
import { assetsNote, collectFormalAssets, hasFormalAssets, restoreAssets } from '../evidence/assets.js';
import { capsuleEntryNames } from '../evidence/capsule.js';
import { checkBundle, planExport } from '../evidence/bundle.js';
import { readBundle, type BundleLimits } from '../evidence/hostile.js';
import { INTEGRITY_NOTE, manifestBytes } from '../evidence/manifest.js';
import { judgeReplay, type Fresh, type IdentityCheck, type ReplayStatus } from '../evidence/replay.js';
import { writeTar } from '../evidence/tar.js';
import { openStore, openWorkspace, type OpenOptions } from './workspace.js';
import { type TargetRules, writeTarget } from '../evidence/write-target.js';

export interface ExportResult {
  schema: 'vkit.evidence-export/1';
  bundle: string;
  /** Digest of the bundle file: the same run always exports to the same bytes. */
  sha256: string;
  bytes: number;
  run: string;
  label: string;
  receipt: string;
  /** The outcome the run recorded; a replay never accepts it, it runs the check again. */
  recorded_outcome: string;
  entries: number;
  assets: { requested: boolean; capsules: number; note: string };
  integrity: string;
}

async function withScratch<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-bundle-'));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A user's `--out` may be anywhere (never a git directory or the store) and replaces the file it names. */
const USER_OUT: TargetRules = { arg: '--out', overwrite: true, overwriteHint: '' };

export async function exportEvidence(
  open: OpenOptions,
  req: { run: string; out: string; includeAssets?: boolean; target?: TargetRules },
): Promise<ExportResult> {
  const rules = req.target ?? USER_OUT;
  const named = resolve(req.out);
  let parent;
  try {
    parent = statSync(dirname(named));
  } catch {
    parent = undefined;
  }
  if (!parent?.isDirectory())
    throw invalid('ERR_USAGE', `Expected ${rules.arg} to be a file in an existing directory, got \`${req.out}\``, {
      path: rules.arg,
    });
  const root = resolve(open.root ?? process.cwd());
  const target = await writeTarget(named, { root, store: open.store }, rules);
  const out = target.path;
  const store = await openStore(open);
  try {
    let plan = planExport(store, req.run, Boolean(req.includeAssets));
    await withScratch(async (assetDir) => {
      // A formal run's capsule is streamed out of the engine into scratch files, then into the bundle.
      if (req.includeAssets && hasFormalAssets(plan.receipt))
        plan = planExport(store, req.run, true, await collectFormalAssets(plan.receipt, assetDir));
      await writeTar(out, plan.sources, rules.overwrite);
    });
    const carried = capsuleEntryNames(plan.manifest);
    // Export validates what it wrote: the file is read back as hostile input and must give exactly
    // the manifest and receipt the store vouched for (capsule entries are hashed, not copied).
    await withScratch(async (scratch) => {
      const checked = checkBundle(await readBundle(out, scratch, undefined, { keep: (name) => !carried.has(name) }));
      if (
        !manifestBytes(checked.manifest).equals(manifestBytes(plan.manifest)) ||
        checked.manifest.receipt.sha256 !== plan.receiptId
      ) {
        throw new Error(`the bundle written to ${out} does not read back as the run's evidence`);
      }
    });
    const hash = sha256Stream();
    let size = 0;
    for await (const c of createReadStream(out)) {
      hash.update(c as Buffer);
      size += (c as Buffer).length;
    }
    const bytes = { length: size };
    const m = plan.manifest;
    return {
      schema: 'vkit.evidence-export/1',
      bundle: out,
      sha256: hash.digest(),
      bytes: bytes.length,
      run: m.run,
      label: m.label,
      receipt: plan.receiptId,
      recorded_outcome: m.outcome.outcome,
      entries: plan.sources.length,
      assets: {
        requested: m.assets.requested,
        capsules: m.assets.capsules.length,
        note: assetsNote(m, m.kind, 'include'),
      },
      integrity: INTEGRITY_NOTE,
    };
  } finally {
    store.close();
  }
}

export interface ReplayResult {
  schema: 'vkit.evidence-replay/1';
  bundle: string;
  status: ReplayStatus;
  reason: string;
  label: string;
  /** What the bundle says happened: reported, never accepted. */
  recorded: { run: string; outcome: string; accepted: false };
  replayed: { run: string | null; receipt: string | null; key: string | null; outcome: string | null };
  identities: IdentityCheck[];
  assets: { restore_requested: boolean; restored: string[]; note: string };
  integrity: string;
}

export async function replayEvidence(
  open: OpenOptions,
  req: { file: string; restoreAssets?: boolean; jobs?: number; limits?: BundleLimits },
): Promise<ReplayResult> {
  const file = resolve(req.file);
  let st;
  try {
    st = statSync(file);
  } catch {
    st = undefined;
  }
  if (!st?.isFile())
    throw invalid(
      'ERR_USAGE',
      `Expected a bundle file, got \`${req.file}\``,
      { path: 'FILE' },
      'Make one with `vkit evidence export --run ID --out FILE`.',
    );
  // Capsule bytes are kept (in scratch) only when they are to be restored; otherwise only hashed.
  const { checked, restored } = await withScratch(async (scratch) => {
    const read = await readBundle(file, scratch, req.limits, {
      keep: (name) => Boolean(req.restoreAssets) || !name.startsWith('assets/'),
    });
    const ok = checkBundle(read);
    // Restored before the fresh check, and only from a bundle whose every entry was already checked.
    return {
      checked: ok,
      restored: req.restoreAssets ? (await restoreAssets(ok.manifest, read, scratch)).restored : [],
    };
  });
  const { manifest, receipt: accepted } = checked;

  const ws = await openWorkspace(open);
  try {
    const result = (
      status: ReplayStatus,
      reason: string,
      identities: IdentityCheck[],
      replayed: ReplayResult['replayed'],
    ): ReplayResult => ({
      schema: 'vkit.evidence-replay/1',
      bundle: file,
      status,
      reason,
      label: accepted.label,
      recorded: { run: accepted.run, outcome: accepted.outcome, accepted: false },
      replayed,
      identities,
      assets: {
        restore_requested: Boolean(req.restoreAssets),
        restored,
        note: assetsNote(manifest, accepted.kind, 'restore'),
      },
      integrity: INTEGRITY_NOTE,
    });
    const none = { run: null, receipt: null, key: null, outcome: null };
    if (!ws.graph.graph.hasNode(accepted.label))
      return result(
        'BLOCKED',
        `the current config declares no \`${accepted.label}\`: the bundle's requirement is not accepted here`,
        [],
        none,
      );

    // The candidate is captured here, independently of the bundle, and the check runs again.
    const report = await runEngine(ws, {
      mode: 'build',
      only: [accepted.label],
      fresh: [accepted.label],
      deep: true,
      jobs: req.jobs,
    });
    const action = report.actions.find((a) => a.label === accepted.label);
    let fresh: Fresh = {
      receipt: undefined,
      reason: action?.reason ?? 'no action was planned',
      key: action?.key ?? null,
    };
    if (action?.receipt && action.run) {
      const read = ws.store.actions.readReceipt(action.receipt);
      const receipt = read.state === 'intact' ? parseReceipt(read.receipt) : undefined;
      const item = report.gate.items.find((i) => i.id === accepted.label);
      // The gate's judgement of the fresh receipt (a rule's `judge`, e.g. an expired acceptance decision) counts too.
      fresh = receipt
        ? {
            receipt,
            run: action.run,
            receiptId: action.receipt,
            ...(item ? { judged: { status: item.status, reason: item.reason } } : {}),
          }
        : {
            receipt: undefined,
            reason: `the fresh receipt ${action.receipt} is ${read.state === 'intact' ? 'not a vkit.receipt/1' : read.state}`,
            key: action.key,
          };
    }
    const verdict = judgeReplay(accepted, fresh);
    return result(verdict.status, verdict.reason, verdict.identities, {
      run: action?.run ?? null,
      receipt: action?.receipt ?? null,
      key: action?.key ?? null,
      outcome: action?.outcome ?? null,
    });
  } finally {
    ws.close();
  }
}
