/**
 * Formal verbs for every face: `policy accept` (writes vkit.lock.json), `formal package digest`, and
 * formal requests (`verify --request`). Wiring only: the judgements live in src/formal.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { FormalCheckAttrs } from '../formal/types.js';
import { captureSelector } from '../capture/selector.js';
import { declaredComponents, type ResolvedComponent } from '../formal/component-schema.js';
import { runEngine } from '../engine/build.js';
import type { BuildReport } from '../engine/schema.js';
import { EXIT, InvalidInputError, invalid } from '../errors.js';
import { evaluateGate, showOnly } from '../gate/evaluate.js';
import { actionKey, type Job } from '../jobs/job.js';
import { captureFormal } from '../formal/capture.js';
import type { Store } from '../store/store.js';
import { emptyLock, LOCK_FILE, readLock, writeLock, type LockEntry } from '../formal/lock.js';
import { loadPackage, packageDigests } from '../formal/packages.js';
import { policySliceDigest } from '../formal/policy.js';
import { loadProfile, resolveChecker } from '../formal/profiles/index.js';
import { requestLockIssues, validateFormalRequest, type FormalRequest } from '../formal/request.js';
import { entriesOf, loadKinds, type LockCandidate } from '../config/kind.js';
import { readConfig } from '../config/load.js';
import { didYouMean } from '../text/suggest.js';
import type { Manifest } from '../config/types.js';
import { attachTails } from './runs.js';
import { openWorkspace, type OpenOptions, type Workspace } from './workspace.js';
import { defaultRoot } from './root.js';

export { packageDigests };

export interface AcceptResult {
  schema: 'vkit.policy-accept/1';
  lock: string;
  accepted: Array<{ component: string; entry: LockEntry; changed: boolean }>;
  refused: Array<{ component: string; reasons: string[] }>;
}

/**
 * `vkit policy accept`: binds each component's policy slice, package and checker digests in
 * vkit.lock.json. A component whose package, profile or checker cannot be resolved is refused
 * (named, with what is missing) and nothing new is written for it (an earlier entry stays); the
 * others are still accepted. Entries of components no longer declared are dropped.
 */
export async function policyAccept(
  open: OpenOptions,
  opts: { components?: string[]; env?: NodeJS.ProcessEnv; now?: () => Date } = {},
): Promise<AcceptResult> {
  const root = resolve(open.root ?? defaultRoot());
  const config = await readConfig(root);
  const env = opts.env ?? open.env ?? process.env;
  // Every installed kind names what it binds: components under their ids, `qualify:<id>`, `model:<id>`.
  const entries: LockCandidate[] = [];
  for (const kind of (await loadKinds()).kinds)
    if (kind.lock) entries.push(...(await kind.lock(entriesOf(config.manifest, kind), { root, env })));
  const keys = entries.map((e) => e.key);
  for (const id of opts.components ?? [])
    if (!keys.includes(id))
      throw invalid(
        'ERR_USAGE',
        `Expected --component to name a declared formal component (or \`qualify:<id>\`, \`model:<id>\`), got \`${id}\`${didYouMean(id, keys)}`,
        { path: '--component' },
        keys.length ? `Declared: ${keys.join(', ')}.` : undefined,
      );
  if (entries.length === 0)
    throw invalid(
      'ERR_USAGE',
      'No formal components, qualifications or models are declared: nothing to accept',
      { path: 'formal.components' },
      'Declare formal.components (or formal.qualifications, formal.models) in the config first.',
    );
  const previous = readLock(root) ?? emptyLock();
  // Acceptance rewrites the components; the trusted signers are another reviewed list, kept as they are.
  const next = previous.trusted_signers ? { ...emptyLock(), trusted_signers: previous.trusted_signers } : emptyLock();
  const result: AcceptResult = { schema: 'vkit.policy-accept/1', lock: LOCK_FILE, accepted: [], refused: [] };
  for (const { key, judge } of entries) {
    const old = previous.components[key];
    if (opts.components?.length && !opts.components.includes(key)) {
      if (old) next.components[key] = old;
      continue;
    }
    const judged = await judge();
    if ('reasons' in judged) {
      result.refused.push({ component: key, reasons: judged.reasons });
      // Nothing new is written for it. An earlier entry is kept: it binds only what was accepted
      // then, and every formal action compares it with the current digests before running.
      if (old) next.components[key] = old;
      continue;
    }
    const same =
      old &&
      old.policy_sha256 === judged.policy_sha256 &&
      old.package_sha256 === judged.package_sha256 &&
      old.checker_sha256 === judged.checker_sha256 &&
      old.profile === judged.profile;
    const entry: LockEntry = same ? old : { ...judged, accepted_at: (opts.now?.() ?? new Date()).toISOString() };
    next.components[key] = entry;
    result.accepted.push({ component: key, entry, changed: !same });
  }
  writeLock(root, next);
  return result;
}

/** Reads and validates a request file (exit 2 naming the JSON path), relative to the root. */
export function readFormalRequest(file: string, shown = file): FormalRequest {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw invalid(
      'ERR_REQUEST_INVALID',
      `Cannot read the request: ${(error as Error).message}`,
      { file: shown },
      'Pass a JSON file with schema_version 2.',
    );
  }
  return checkFormalRequest(data, shown);
}

export function checkFormalRequest(data: unknown, shown?: string): FormalRequest {
  const { value, issues } = validateFormalRequest(data, shown);
  if (!value)
    throw new InvalidInputError('ERR_REQUEST_INVALID', issues, 'See schema/vkit.formal-request-2.schema.json.');
  return value;
}

/**
 * `vkit verify --request`: the request must name an accepted component with the accepted digests.
 * A working-tree source is one fresh run of `formal:<id>` through the engine (provisional evidence);
 * a git-commit source freezes the commit's bytes of the declared inputs and runs that job.
 */
export async function verifyFormalRequest(
  open: OpenOptions,
  req: FormalRequest,
  opts: VerifyRequestOptions = {},
): Promise<BuildReport> {
  const ws = await openWorkspace(open);
  try {
    const component = acceptedComponent(ws, req, opts.file);
    const label = `formal:${component.id}`;
    if (req.source.kind === 'working-tree') return await verifyWorkingTree(ws, req.reuse, label, opts);
    const action = await verifyCommit(ws, component, req.source, req.reuse, label, opts);
    attachTails(ws.store, [action]);
    return oneActionReport(action, component.required);
  } finally {
    ws.close();
  }
}

interface VerifyRequestOptions {
  file?: string;
  signal?: AbortSignal;
  waitMs?: number;
  jobs?: number;
}

type CommitSource = Extract<FormalRequest['source'], { kind: 'git-commit' }>;
type ReportedAction = BuildReport['actions'][number];

/** The declared component the request names, refused unless the lock accepted the digests it names. */
function acceptedComponent(ws: Workspace, req: FormalRequest, file: string | undefined): ResolvedComponent {
  const component = declaredComponents(ws.config.manifest).find((c) => c.id === req.claim.component);
  if (!component)
    throw invalid(
      'ERR_REQUEST_INVALID',
      `Expected claim.component to name a declared formal component, got \`${req.claim.component}\``,
      { file, path: 'claim.component' },
    );
  let packageDigest: string | null = null;
  try {
    packageDigest = loadPackage(component.package.id, component.package.version).sha256;
  } catch {
    packageDigest = null;
  }
  const issues = requestLockIssues(
    req,
    readLock(ws.root)?.components[component.id],
    { policy_sha256: policySliceDigest(component), package_sha256: packageDigest },
    file,
  );
  if (issues.length)
    throw new InvalidInputError(
      'ERR_REQUEST_INVALID',
      issues,
      'Take the digests from vkit.lock.json, or run `vkit policy accept` after a change.',
    );
  return component;
}

/** A working-tree source: one fresh run of the component's action through the engine, reported alone. */
async function verifyWorkingTree(
  ws: Workspace,
  reuse: boolean,
  label: string,
  opts: VerifyRequestOptions,
): Promise<BuildReport> {
  const report = await runEngine(ws, {
    mode: 'build',
    only: [label],
    fresh: [label],
    reusePassing: reuse,
    jobs: opts.jobs,
    signal: opts.signal,
    waitMs: opts.waitMs,
  });
  attachTails(ws.store, report.actions);
  const checked = reuse ? await applyFormalReuseCheck(ws, report, label) : report;
  return {
    ...checked,
    actions: checked.actions.filter((a) => a.label === label),
    gate: showOnly(checked.gate, [label]),
  };
}

/**
 * A git-commit source: the commit's bytes of the declared inputs, with the working tree's lock as
 * the job's only working-tree input, run as one verify job; with `reuse`, a retained PASS for the
 * identical key stands instead only when `formalReuseProblem` finds nothing against it.
 */
async function verifyCommit(
  ws: Workspace,
  component: ResolvedComponent,
  source: CommitSource,
  reuse: boolean,
  label: string,
  opts: VerifyRequestOptions,
): Promise<ReportedAction> {
  const capture = await captureCommit(ws.root, component, source);
  const attrs: FormalCheckAttrs = {
    ...component,
    candidate: {
      kind: 'git-commit',
      commit: capture.source.kind === 'git-commit' ? capture.source.commit : source.commit,
      digest: capture.digest,
    },
  };
  // The lock is read from the working tree (the local target authority); its bytes are the job's only working-tree input.
  const lockCapture = captureSelector({
    root: ws.root,
    globs: [LOCK_FILE],
    files: ws.files,
    cache: ws.store.fileStates,
    now: ws.store.now,
    hashMode: 'raw',
  });
  const rule = ws.rules.get('formal-check')!;
  const planned = rule.plan({ label, id: component.id, attrs, capture: lockCapture }, []);
  const key = actionKey({
    rule: { kind: rule.kind, version: rule.version },
    capture: lockCapture.digest,
    definition: planned.definition,
    env: {},
    checker: null,
    deps: [],
  });
  const t0 = performance.now();
  const found = reuse ? (await import('../engine/evidence.js')).lookupEvidence(ws.store, key, false) : undefined;
  const reuseProblem =
    found?.state === 'hit' && found.receipt.outcome === 'PASS'
      ? await formalReuseProblem(ws, component, found.receiptId)
      : 'no reuse';
  if (found?.state === 'hit' && found.receipt.outcome === 'PASS' && reuseProblem === undefined)
    return {
      label,
      kind: 'formal-check',
      key,
      status: 'cached',
      outcome: 'PASS',
      reason: found.receipt.reason,
      run: found.receipt.run,
      receipt: found.receiptId,
      ms: 0,
    };
  const job: Job = {
    schema: 'vkit.job/1',
    key,
    label,
    rule: { kind: rule.kind, version: rule.version },
    id: component.id,
    attrs: attrs as unknown as Record<string, unknown>,
    capture: {
      digest: lockCapture.digest,
      files: lockCapture.files.map(({ path, mode, sha256 }) => ({ path, mode, sha256 })),
      hash: 'raw',
    },
    deps: [],
    policy: ws.config.policyDigest,
    env: [...planned.env].sort(),
  };
  const r = await ws.jobs.run(job, opts.signal, opts.waitMs);
  const status = r.outcome === 'PASS' ? 'ran' : r.outcome === 'FAIL' ? 'failed' : 'blocked';
  return {
    label,
    kind: 'formal-check',
    key,
    status,
    outcome: r.outcome,
    reason: r.reason,
    run: r.run,
    receipt: r.receipt,
    ms: Math.round(performance.now() - t0),
    ...(r.pending ? { pending: true } : {}),
  };
}

/** The commit's bytes of the component's inputs; a refusal names the request's `source` when it names no path. */
async function captureCommit(root: string, component: ResolvedComponent, source: CommitSource) {
  try {
    return await captureFormal(root, component.inputs, source);
  } catch (error) {
    if (error instanceof InvalidInputError)
      throw new InvalidInputError(
        error.code,
        error.issues.map((i) => ({ ...i, path: i.path || 'source' })),
        error.hint,
      );
    throw error;
  }
}

/** The build report of a single verify action, its gate judged from that one item. */
function oneActionReport(action: ReportedAction, required: ResolvedComponent['required']): BuildReport {
  const item = {
    id: action.label,
    required,
    status: action.outcome,
    reason: action.reason ?? action.outcome.toLowerCase(),
    run: action.run,
    receipt: action.receipt,
  };
  return {
    schema: 'vkit.build/1',
    actions: [action],
    gate: evaluateGate([item]),
    stats: {
      ran: action.status === 'cached' ? 0 : 1,
      cached: action.status === 'cached' ? 1 : 0,
      hashed: 0,
      reused_hashes: 0,
      ms: action.ms,
    },
  };
}

/**
 * `--reuse` of formal evidence (the reference): besides the identical key (capture, policy slice,
 * package digest, profile, lock), the reused receipt must name the installed package digest and the
 * current tool identity must still be the accepted checker. Returns why the reuse is refused, or
 * undefined. Reads the receipt and asks the engine; never runs the profile.
 */
export async function formalReuseProblem(
  ws: {
    root: string;
    store: Store;
    config: { manifest: Manifest };
    env: NodeJS.ProcessEnv;
  },
  component: ResolvedComponent,
  receiptId: string,
): Promise<string | undefined> {
  const read = ws.store.actions.readReceipt(receiptId);
  const subject =
    read.state === 'intact'
      ? (read.receipt.subject as { formal?: { package_sha256?: string; checker_sha256?: string } } | undefined)?.formal
      : undefined;
  let installed: string | undefined;
  try {
    installed = loadPackage(component.package.id, component.package.version).sha256;
  } catch {
    installed = undefined;
  }
  if (!subject || subject.package_sha256 !== installed)
    return 'reuse refused: the retained evidence is not for the installed package digest';
  const profile = await loadProfile(component.profile);
  if (!profile) return `reuse refused: profile \`${component.profile}\` is not built into this vkit`;
  const checker = await resolveChecker(profile, ws.env);
  if (!checker.ok) return `reuse refused: the current tool identity cannot be checked: ${checker.missing.join('; ')}`;
  const entry = readLock(ws.root)?.components[component.id];
  if (!entry || entry.checker_sha256 !== checker.tree.digest || subject.checker_sha256 !== checker.tree.digest)
    return 'reuse refused: renewed acceptance required (checker digest changed)';
  return undefined;
}

/** A cached formal action whose reuse is refused becomes BLOCKED with the reason (nothing is rerun). */
export async function applyFormalReuseCheck(
  ws: Parameters<typeof formalReuseProblem>[0],
  report: BuildReport,
  label: string,
): Promise<BuildReport> {
  const action = report.actions.find((a) => a.label === label);
  const component = declaredComponents(ws.config.manifest).find((c) => `formal:${c.id}` === label);
  if (!action || !component || action.status !== 'cached' || !action.receipt) return report;
  const problem = await formalReuseProblem(ws, component, action.receipt);
  if (!problem) return report;
  const blockedAction = { ...action, status: 'blocked' as const, outcome: 'BLOCKED' as const, reason: problem };
  const items = report.gate.items.map((i) =>
    i.id === label ? { ...i, status: 'BLOCKED' as const, reason: problem } : i,
  );
  return {
    ...report,
    actions: report.actions.map((a) => (a === action ? blockedAction : a)),
    gate: evaluateGate(items),
  };
}

/** Exit code of a formal verification's one action. */
export function formalExit(report: BuildReport): number {
  const a = report.actions[0];
  if (!a || a.pending) return EXIT.blocked;
  return a.outcome === 'PASS' ? EXIT.ok : a.outcome === 'FAIL' ? EXIT.fail : EXIT.blocked;
}
