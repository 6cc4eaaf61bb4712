/**
 * The protected gate (`vkit gate --protected`): the candidate judged by the target's requirements.
 *
 * The local gate reads the working tree's own config, so a candidate that deletes or weakens a
 * failing check judges itself. Here the requirements (the config, the local modules it imports and
 * `vkit.lock.json`) are read from the exact target commit's objects, and the candidate's source is
 * checked under them in a scratch directory: the candidate's tree with every config file replaced
 * by the target's (the "combined candidate"). Every action runs afresh in a private store that must
 * not be the repository's own, nothing from the repository's store is consulted (no local approvals,
 * no branch receipts), and the gate is then evaluated with every blob re-hashed.
 *
 * With `--reuse`, intact passing evidence is reused only from earlier protected runs under the same
 * target authority: the private store is divided by the authority digest (config modules, policy
 * digest and lock), so evidence made under other requirements can never be seen.
 *
 * With `--remote URL` (which implies `--reuse`), such evidence may also come from a shared cache:
 * only entries a protected run published under this very authority and candidate kind (their own
 * address, the scope signed with them), signed by a key the target commit's `vkit.lock.json`
 * trusts; the candidate's lock, the environment's and the config's remote play no part.
 */
import { entriesOf, kindOfRule, kinds } from '../config/kind.js';
import {
  copyFileSync,
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { git, gitInfo, listGitFiles, lsTree, readBlobs } from '../capture/git.js';
import { treeDigest, type TreeEntry } from '../capture/tree.js';
import { CONFIG_FILES, readConfig, type LoadedConfig } from '../config/load.js';
import { runEngine, type BuildOptions } from '../engine/build.js';
import type { ActionReport } from '../engine/schema.js';
import { EXIT, invalid, InvalidInputError, VkitError } from '../errors.js';
import { markProtectedCopy } from '../formal/capture.js';
import { evaluateGate } from '../gate/evaluate.js';
import type { Gate, GateItem } from '../gate/schema.js';
import { hexOf, jsonId, sha256Id, type Sha256Id } from '../hash/index.js';
import { openRemote, type RemoteContext, type RemoteRequest } from '../remote/context.js';
import type { ProtectedScope } from '../remote/statement.js';
import { openWorkspace, type OpenOptions, type Workspace } from './workspace.js';

/** The accepted-policy lock a target may hold beside its config (formal components). */
const LOCK_FILE = 'vkit.lock.json';

export interface ProtectedRequest {
  target: string;
  /** A candidate commit; default HEAD. */
  candidate?: string;
  /** Check the working tree instead (provisional: formal evidence from it is never accepted). */
  workingTree?: boolean;
  reuse?: boolean;
  /** A shared cache of earlier protected runs' evidence under the same authority (implies reuse). */
  remote?: RemoteRequest & { url: string };
  jobs?: number;
  onEvent?: BuildOptions['onEvent'];
  signal?: AbortSignal;
}

export interface ProtectedReport {
  schema: 'vkit.protected-gate/1';
  target: {
    rev: string;
    commit: string;
    authority: string;
    policy_sha256: string;
    config: string[];
    lock_sha256: string | null;
  };
  candidate: {
    kind: 'git_commit' | 'working_tree';
    rev: string | null;
    commit: string | null;
    source_sha256: string;
    provisional: boolean;
  };
  /** The private store's directory for this target authority: where the runs of this gate are. */
  store: string;
  reuse: boolean;
  /** The shared cache read (and, with a signing key, written), and the target's trusted signers. */
  remote: { url: string; publishes: boolean; trusted_signers: string[] } | null;
  actions: ActionReport[];
  gate: Gate;
}

export async function protectedGate(open: OpenOptions, req: ProtectedRequest): Promise<ProtectedReport> {
  const root = resolve(open.root ?? process.cwd());
  const info = await gitInfo(root);
  if (!info)
    throw invalid(
      'ERR_USAGE',
      `The protected gate reads the target commit from git, but \`${root}\` is not in a git work tree`,
      { path: '--root' },
    );
  if (req.candidate !== undefined && req.workingTree)
    throw invalid('ERR_USAGE', 'Expected either --candidate REV or --working-tree, got both', { path: '--candidate' });
  const storeRoot = privateStore(root, info.commonDir, open.store);
  const targetCommit = await commitOf(root, req.target, '--target');
  const candidateRev = req.workingTree ? null : (req.candidate ?? 'HEAD');
  const candidateCommit = candidateRev ? await commitOf(root, candidateRev, '--candidate') : await headOf(root);

  const scratch = mkdtempSync(join(tmpdir(), 'vkit-protected-'));
  let release = () => {};
  let combined: string | undefined;
  try {
    const targetDir = join(scratch, 'target');
    await materializeCommit(root, targetCommit, targetDir);
    const authority = await targetAuthority(targetDir, targetCommit);
    // Working-tree (provisional) and commit candidates keep separate evidence: a formal job's key
    // does not see which kind of copy it ran in, so a provisional receipt must never be reusable
    // by a commit run (it would be BLOCKED as provisional) nor the other way round.
    const store = join(
      storeRoot,
      'targets',
      hexOf(authority.digest as Sha256Id),
      req.workingTree ? 'working-tree' : 'commits',
    );
    // A job is frozen with the root it first ran in, and workers run it there; so the combined
    // candidate of one private store and authority always lives at the same path, rewritten for
    // each protected run under a lock (two runs at once would rewrite each other's tree).
    const path = join(tmpdir(), `vkit-protected-${sha256Id(`${store}`).slice(7, 23)}`);
    release = lockCombined(path);
    combined = path; // only once the lock is ours: the finally removes it
    rmSync(path, { recursive: true, force: true });
    const source = req.workingTree
      ? await copyWorkingTree(root, path)
      : await materializeCommit(root, candidateCommit!, path);
    overlayRequirements(targetDir, path, authority.files);
    // Formal captures of this plain copy record which candidate it holds (and whether provisional).
    markProtectedCopy(
      path,
      req.workingTree
        ? { kind: 'protected-copy', of: 'working-tree', commit: candidateCommit }
        : { kind: 'protected-copy', of: 'git-commit', commit: candidateCommit! },
    );

    const remote = req.remote
      ? protectedRemote(targetDir, req.remote, open.env ?? process.env, {
          authority: authority.digest,
          candidate: req.workingTree ? 'working_tree' : 'git_commit',
        })
      : undefined;
    const reuse = Boolean(req.reuse || remote);

    const report = (actions: ActionReport[], gate: Gate): ProtectedReport => ({
      schema: 'vkit.protected-gate/1',
      target: {
        rev: req.target,
        commit: targetCommit,
        authority: authority.digest,
        policy_sha256: authority.config.policyDigest,
        config: authority.files,
        lock_sha256: authority.lock,
      },
      candidate: {
        kind: req.workingTree ? 'working_tree' : 'git_commit',
        rev: candidateRev,
        commit: candidateCommit,
        source_sha256: treeDigest(source),
        provisional: Boolean(req.workingTree),
      },
      store,
      reuse,
      remote: remote
        ? { url: remote.cache.url, publishes: Boolean(remote.signingKey), trusted_signers: [...remote.trusted.keys()] }
        : null,
      actions,
      gate,
    });

    let ws: Workspace;
    try {
      ws = await openWorkspace({
        root: path,
        store,
        env: open.env,
        storeOptions: open.storeOptions,
        hooks: open.hooks,
        confineChecks: true,
        remoteContext: remote ?? null,
      });
    } catch (error) {
      // The target's requirements name inputs the candidate does not have (a deleted test file):
      // the candidate cannot be judged, which is BLOCKED, not a bad request.
      if (error instanceof InvalidInputError && error.code === 'ERR_CONFIG_INPUTS')
        return report(
          [],
          blockedGate(
            authority.config,
            `the candidate lacks inputs the target requires: ${error.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
          ),
        );
      throw error;
    }
    try {
      // Defence in depth: the combined candidate must load to exactly the target's requirements.
      if (ws.config.policyDigest !== authority.config.policyDigest)
        return report(
          [],
          blockedGate(authority.config, "the combined candidate does not load to the target commit's requirements"),
        );
      const labels = ws.graph.order;
      const built = await runEngine(
        ws,
        reuse
          ? {
              mode: 'build',
              fresh: labels,
              reusePassing: true,
              deep: true,
              jobs: req.jobs,
              onEvent: req.onEvent,
              signal: req.signal,
            }
          : { mode: 'build', force: true, deep: true, jobs: req.jobs, onEvent: req.onEvent, signal: req.signal },
      );
      // The verdict comes from a second, read-only pass that re-hashes every receipt and blob.
      const judged = await runEngine(ws, { mode: 'gate', deep: true });
      return report(
        built.actions,
        protectedFold(judged.gate.items, built.actions, kindJudge(ws, Boolean(req.workingTree))),
      );
    } finally {
      ws.close();
    }
  } finally {
    // Every run has ended (the engine waited for them), so the tree can go; the next protected run
    // writes it again at the same path before any job is submitted.
    if (combined) rmSync(combined, { recursive: true, force: true });
    release();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The protected gate's remote: trusted signers read from the target commit's lock alone, and every
 * entry read or written scoped to the target authority and candidate kind.
 */
function protectedRemote(
  targetDir: string,
  req: RemoteRequest & { url: string },
  env: NodeJS.ProcessEnv,
  scope: ProtectedScope,
): RemoteContext {
  // Opened at the target's own tree: its signers are the target lock's; no config remote applies.
  return { ...openRemote(targetDir, req, env)!, scope };
}

/** Takes the combined candidate's lock: a file holding our pid, created exclusively; a dead holder's lock is taken over. */
function lockCombined(combined: string): () => void {
  const lock = `${combined}.lock`;
  for (let tries = 0; tries < 2; tries++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return () => rmSync(lock, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lock, 'utf8'));
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
        throw new VkitError(
          'ERR_PROTECTED_BUSY',
          EXIT.blocked,
          `Another protected gate (pid ${holder}) is checking a candidate for this private store and target`,
          { hint: 'Wait for it, or use another --store.' },
        );
      }
      rmSync(lock, { force: true });
    }
  }
  throw new VkitError('ERR_PROTECTED_BUSY', EXIT.blocked, `Cannot take the lock ${lock}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why a PASS cannot stand under the protected gate beyond whose run made it; undefined when it can. */
export type ProtectedJudge = (item: GateItem, action: ActionReport) => string | undefined;

/** The kinds' own protected rules: each kind judges its PASS from the candidate mode and its receipt. */
function kindJudge(ws: Workspace, provisional: boolean): ProtectedJudge {
  return (item, action) => {
    const kind = kindOfRule(kinds(), action.kind);
    if (!kind?.protectedProblem) return undefined;
    const read = ws.store.actions.readReceipt(item.receipt!);
    const subject = read.state === 'intact' ? read.receipt.subject : undefined;
    const record = typeof subject === 'object' && subject !== null && !Array.isArray(subject) ? subject : undefined;
    return kind.protectedProblem(record as Readonly<Record<string, unknown>> | undefined, provisional);
  };
}

/**
 * Only this invocation's evidence counts: a PASS or FAIL whose receipt this protected run did not
 * produce (or, with --reuse, reuse) is BLOCKED. A PASS then faces its kind's own rule (`judge`,
 * `Kind.protectedProblem`): a formal PASS, for one, stands only on a non-provisional capture of vkit's
 * own copy of a candidate commit (provisional evidence is never accepted: a working-tree candidate can
 * change after it was checked). Registered checks run afresh in the scratch copy, so their evidence
 * describes exactly the bytes that were copied.
 */
export function protectedFold(
  items: readonly GateItem[],
  actions: readonly ActionReport[],
  judge: ProtectedJudge = () => undefined,
): Gate {
  // Only this invocation's evidence counts (its fresh runs, or with --reuse what it reused): the
  // gate pass could otherwise fall back on an older receipt for the same key when a fresh run was
  // BLOCKED, and "freshly checked" would be a lie.
  const ours = new Set(actions.flatMap((a) => (a.receipt ? [a.receipt] : [])));
  const judged = items.map((i): GateItem => {
    if ((i.status === 'PASS' || i.status === 'FAIL') && !(i.receipt && ours.has(i.receipt))) {
      const action = actions.find((a) => a.label === i.id);
      return {
        ...i,
        status: 'BLOCKED',
        reason: `no evidence from this protected run${action?.reason ? `: ${action.reason}` : ''}`,
      };
    }
    if (i.status === 'PASS') {
      // The action that produced the receipt: it exists, the receipt being one of this run's.
      const problem = judge(i, actions.find((a) => a.receipt === i.receipt)!);
      if (problem) return { ...i, status: 'BLOCKED', reason: problem };
    }
    return i;
  });
  return evaluateGate(judged);
}

/** Every target requirement BLOCKED with one reason: the candidate could not be checked at all. */
function blockedGate(config: LoadedConfig, reason: string): Gate {
  const items: GateItem[] = kinds().kinds.flatMap((kind) =>
    entriesOf(config.manifest, kind).map((entry) => ({
      id: kind.label(entry),
      required: kind.required?.(entry) ?? true,
      status: 'BLOCKED' as const,
      reason,
      run: null,
    })),
  );
  return evaluateGate(items);
}

/**
 * The private store: required, and never the repository's own store, anything inside its git
 * directory or anything inside its work tree (which the candidate controls).
 */
function privateStore(root: string, commonDir: string, store: string | undefined): string {
  if (!store)
    throw invalid(
      'ERR_USAGE',
      'The protected gate needs --store DIR: a private store outside the repository',
      { path: '--store' },
      'Pass a directory the candidate cannot write, e.g. --store "$RUNNER_TEMP/vkit-protected".',
    );
  const dir = realish(resolve(store));
  const inside = (parent: string) => dir === parent || dir.startsWith(parent.endsWith(sep) ? parent : parent + sep);
  const gitDir = realish(commonDir);
  const why = inside(gitDir)
    ? `it is the repository's own store or inside its git directory (${gitDir})`
    : inside(realish(root))
      ? `it is inside the repository's work tree (${realish(root)}), which the candidate controls`
      : undefined;
  if (why)
    throw invalid(
      'ERR_PROTECTED_STORE',
      `Expected --store to be a private store, but \`${store}\`: ${why}`,
      { path: '--store' },
      'Use a directory outside the repository, e.g. --store "$RUNNER_TEMP/vkit-protected".',
    );
  return dir;
}

/** realpath of the longest existing prefix, plus the rest: comparable paths for stores not made yet. */
function realish(path: string): string {
  let head = path;
  const tail: string[] = [];
  while (!existsSync(head) && dirname(head) !== head) {
    tail.unshift(head.slice(dirname(head).length + 1));
    head = dirname(head);
  }
  return join(realpathSync(head), ...tail);
}

async function commitOf(root: string, rev: string, flag: string): Promise<string> {
  try {
    return (await git(root, ['rev-parse', '--verify', '--end-of-options', `${rev}^{commit}`])).trim();
  } catch {
    throw invalid(
      'ERR_CAPTURE_REV',
      `Expected ${flag} to name a commit in this repository, got \`${rev}\``,
      { path: flag },
      'Fetch it first (e.g. git fetch origin main), or pass a commit id.',
    );
  }
}

async function headOf(root: string): Promise<string | null> {
  try {
    return (await git(root, ['rev-parse', '--verify', 'HEAD^{commit}'])).trim();
  } catch {
    return null;
  }
}

interface Authority {
  digest: string;
  config: LoadedConfig;
  /** The config file and its local modules, relative to the root: what the candidate may not supply. */
  files: string[];
  lock: string | null;
}

/** Loads the target's requirements from its own bytes and names them with one digest. */
async function targetAuthority(dir: string, commit: string): Promise<Authority> {
  let config: LoadedConfig;
  try {
    config = await readConfig(dir);
  } catch (error) {
    if (error instanceof InvalidInputError && error.code === 'ERR_CONFIG_NOT_FOUND') {
      throw invalid(
        'ERR_CONFIG_NOT_FOUND',
        `The target commit ${commit} has no vkit.config.ts or vkit.manifest.json: it declares no requirements`,
        { path: '--target' },
        'Pass the commit of the branch the candidate merges into.',
      );
    }
    if (error instanceof InvalidInputError) {
      const issues = error.issues.map((i) => ({
        ...i,
        file: i.file ? `${commit.slice(0, 12)}:${relative(dir, resolve(i.file))}` : `${commit.slice(0, 12)}`,
      }));
      throw new InvalidInputError(
        error.code,
        issues,
        `The target commit's requirements must load; fix them on the target branch.`,
      );
    }
    throw error;
  }
  const files = [...new Set([relative(dir, config.file), ...config.sources.map((s) => relative(dir, s))])]
    .filter((p) => !p.startsWith('..') && !isAbsolute(p))
    .sort();
  const lockPath = join(dir, LOCK_FILE);
  const lock = existsSync(lockPath) ? sha256Id(readFileSync(lockPath)) : null;
  const digest = jsonId({
    schema: 'vkit.target-authority/1',
    policy: config.policyDigest,
    config: files.map((f) => ({ path: f, sha256: sha256Id(readFileSync(join(dir, f))) })),
    lock,
  });
  return { digest, config, files: lock ? [...files, LOCK_FILE] : files, lock };
}

/**
 * The combined candidate: every config file the candidate has is removed (a candidate adding
 * `vkit.config.ts` beside the target's manifest must not take over), then the target's config,
 * its local modules and its lock are written in.
 */
function overlayRequirements(targetDir: string, combined: string, files: readonly string[]): void {
  for (const name of [...CONFIG_FILES, LOCK_FILE]) rmSync(join(combined, name), { force: true });
  for (const f of files) {
    const dest = join(combined, f);
    rmSync(dest, { force: true, recursive: true });
    mkdirSync(dirname(dest), { recursive: true });
    copyFileSync(join(targetDir, f), dest);
  }
}

function safeRelative(path: string): boolean {
  return path.length > 0 && !isAbsolute(path) && !path.split('/').some((s) => s === '..' || s === '.' || s === '');
}

/** Writes a commit's tree (files, executables, symlinks; submodules skipped) from the object database. */
async function materializeCommit(root: string, commit: string, dir: string): Promise<TreeEntry[]> {
  mkdirSync(dir, { recursive: true });
  const rows = (await lsTree(root, commit)).filter((r) => r.type === 'blob' && safeRelative(r.path));
  const blobs = await readBlobs(
    root,
    rows.map((r) => r.oid),
  );
  const entries: TreeEntry[] = [];
  for (const r of rows) {
    const dest = join(dir, r.path);
    mkdirSync(dirname(dest), { recursive: true });
    const bytes = blobs.get(r.oid)!;
    if (r.mode === '120000') symlinkSync(bytes.toString('utf8'), dest);
    else writeFileSync(dest, bytes, { mode: r.mode === '100755' ? 0o755 : 0o644 });
    entries.push({ path: r.path, mode: r.mode, sha256: sha256Id(bytes) });
  }
  return entries;
}

/** Copies the working tree (tracked and untracked, not ignored) as it is now: a provisional candidate. */
async function copyWorkingTree(root: string, dir: string): Promise<TreeEntry[]> {
  mkdirSync(dir, { recursive: true });
  const entries: TreeEntry[] = [];
  for (const path of (await listGitFiles(root)).sort()) {
    if (!safeRelative(path)) continue;
    const src = join(root, path);
    let st;
    try {
      st = lstatSync(src);
    } catch {
      continue; // tracked but deleted: not part of the working tree
    }
    const dest = join(dir, path);
    if (st.isSymbolicLink()) {
      mkdirSync(dirname(dest), { recursive: true });
      const target = readlinkSync(src);
      symlinkSync(target, dest);
      entries.push({ path, mode: '120000', sha256: sha256Id(target) });
    } else if (st.isFile()) {
      mkdirSync(dirname(dest), { recursive: true });
      copyFileSync(src, dest);
      const exec = (st.mode & 0o111) !== 0;
      chmodSync(dest, exec ? 0o755 : 0o644);
      entries.push({ path, mode: exec ? '100755' : '100644', sha256: sha256Id(readFileSync(dest)) });
    }
  }
  return entries;
}
