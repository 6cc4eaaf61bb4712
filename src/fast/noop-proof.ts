/**
 * What a kept no-op answer stands on, and how each part is proved again: the checks shared by the
 * watched resident process's memo (fast/watched-memo.ts; the tree proved unchanged by inotify) and
 * a fresh process's no-op record (fast/noop-record.ts; the tree proved unchanged by statting every
 * path the watch would cover). Which answers may be kept at all (`ineligible`), the paths whose
 * changes could change one (`watchedPaths`), the files outside the tree a listing reads
 * (`outsideFiles`), stat states compared as strings, and tools identified again (`sameTool`).
 */
import { lstatSync, readdirSync, statSync, type BigIntStats } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import {
  fingerprintOf,
  RACY_WINDOW_NS,
  sameFingerprint,
  type CacheMode,
  type FileStateCache,
  type Fingerprint,
} from '../capture/files.js';
import { checkerIdentity, childProcess, resolveExecutable } from '../checkers/identity.js';
import type { RelianceListener, ToolCall } from '../engine/build.js';
import type { Answer } from '../service/speed.js';
import type { Workspace } from '../service/workspace.js';

/** What a build relied on beyond its inputs, as its listener reports it. */
export interface Reliance {
  tools: Map<string, { call: ToolCall; identity: string }>;
  toolFiles: Map<string, { fp: Fingerprint; sha256: string }>;
  evidence: Set<string>;
}

/** A reliance listener for the engine that collects into `c`. */
export function collectReliance(c: Reliance): RelianceListener {
  return {
    tool: (toolCall, identity) => {
      const key = JSON.stringify(toolCall);
      if (!c.tools.has(key)) c.tools.set(key, { call: toolCall, identity: JSON.stringify(identity) });
    },
    toolFile: (absPath, mode, fp, sha256) => void c.toolFiles.set(fileKey(absPath, mode), { fp, sha256 }),
    evidence: (receiptId, blobs) => {
      c.evidence.add(receiptId);
      for (const b of blobs) c.evidence.add(b);
    },
  };
}

/**
 * Each evidence file (receipts and blobs) -> its lstat state, when every one still has the stat
 * fingerprint the index recorded for it; else why not (a string).
 */
export function evidenceStates(ws: Workspace, ids: Iterable<string>): Map<string, string> | string {
  const states = new Map<string, string>();
  for (const id of ids) {
    const path = ws.store.cas.pathOf(id);
    const recorded = ws.store.cas.recordedFingerprint(id);
    const st = lstatSync(path, { bigint: true, throwIfNoEntry: false });
    if (!recorded || !st || !sameFingerprint(recorded, fingerprintOf(st)))
      return `evidence ${id} is not as the index recorded it`;
    states.set(path, stateOf(st));
  }
  return states;
}

/**
 * Why this answer cannot be kept at all, or undefined. A TS config is code evaluated on every
 * load; only a no-op record may stand on one, when `sealable` and its loader kept what a seal
 * needs (fast/seal.ts; the record proves the seal before it is written).
 */
export function ineligible(ws: Workspace, answer: Answer, sealable = false): string | undefined {
  const { report } = answer;
  if (report.actions.some((a) => a.status !== 'cached')) return 'it ran or blocked an action';
  if (report.gate.items.some((i) => (i.status !== 'PASS' && i.status !== 'FAIL') || !i.receipt))
    return 'a gate item stands on no receipt';
  if (!ws.config.file.endsWith('.json') && !(sealable && ws.config.evaluated))
    return sealable
      ? 'the TS config imports more than vkit or registers rules: it is evaluated on every run'
      : 'a TS config is code: it is evaluated on every request';
  if (ws.remote) return 'a remote cache is in use';
  for (const label of ws.graph.order) {
    const node = ws.graph.graph.getNodeAttributes(label);
    if (node.kind !== 'check') return `${label} is a ${node.kind}, which reads beyond its inputs`;
    if (Array.isArray(node.attrs.outputs) && node.attrs.outputs.length) return `${label} declares outputs`;
    // Nothing a record or the memo watches covers git-ignored files: every build hashes them again.
    if (node.toolFiles?.length) return `${label}'s tool stands on git-ignored files (installed dependencies)`;
  }
  if (!lstatSync(join(ws.root, '.git'), { throwIfNoEntry: false })?.isDirectory())
    return 'the root is not the top of a git work tree';
  return undefined;
}

/**
 * Every path whose changes could change the answer, with its inode: the root and each directory
 * below it, except what git ignores whole (a directory holding a listed file is kept, whatever git
 * says), the store, and the inside of `.git` (only `.git` itself and `.git/info`: the index, config
 * and exclude file the listing reads); and every listed file (its own watch hears writes through
 * other hard links). Throws on a file system mounted inside the root.
 */
export function watchedPaths(
  root: string,
  files: readonly string[],
  ignored: readonly string[],
  store: string,
): Map<string, bigint> {
  const { dirs, listed } = treePaths(root, files, ignored, store);
  return new Map([...dirs, ...listed]);
}

/** `watchedPaths` in two parts: the directories (`.git` and `.git/info` among them) and the listed files present. */
export function treePaths(
  root: string,
  files: readonly string[],
  ignored: readonly string[],
  store: string,
): { dirs: Map<string, bigint>; listed: Map<string, bigint> } {
  const holding = new Set<string>();
  for (const f of files) for (let d = dirname(f); d !== '.' && !holding.has(d); d = dirname(d)) holding.add(d);
  const skipped = new Set(
    ignored.filter((p) => p.endsWith('/') && !holding.has(p.slice(0, -1))).map((p) => p.slice(0, -1)),
  );
  const top = lstatSync(root, { bigint: true });
  const dirs = new Map([[root, top.ino]]);
  const walk = (abs: string, rel: string) => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const r = rel ? `${rel}/${entry.name}` : entry.name;
      const a = join(abs, entry.name);
      if (a === store || skipped.has(r)) continue;
      const st = lstatSync(a, { bigint: true });
      if (st.dev !== top.dev) throw new Error(`${a} is another file system mounted inside the root`);
      dirs.set(a, st.ino);
      if (entry.name === '.git') {
        const info = lstatSync(join(a, 'info'), { bigint: true, throwIfNoEntry: false });
        if (info?.isDirectory()) dirs.set(join(a, 'info'), info.ino);
        continue;
      }
      walk(a, r);
    }
  };
  walk(root, '');
  const listed = new Map<string, bigint>();
  for (const f of files) {
    const st = lstatSync(join(root, f), { bigint: true, throwIfNoEntry: false });
    if (st) listed.set(join(root, f), st.ino);
  }
  return { dirs, listed };
}

/**
 * Every file in the tree git may read ignore rules from: `.git/info/exclude`, present or not, and
 * the `.gitignore` present in each of `dirs` (the tree's directories, as `treePaths` gives them). A
 * listed file's own state does not cover them: a `.gitignore` that ignores itself is no listed
 * file, and appending to it changes no directory. One not present yet is covered by its
 * directory's state (creating it moves the directory's mtime and ctime), so the recall pays no
 * stat per directory for it. (The global excludes file and `core.excludesFile`, present or not,
 * are among `outsideFiles`.)
 */
export function ignoreRuleFiles(root: string, dirs: Iterable<string>): string[] {
  const git = join(root, '.git');
  const files = [join(git, 'info', 'exclude')];
  for (const dir of dirs) {
    if (dir === git || dir.startsWith(`${git}/`)) continue;
    const file = join(dir, '.gitignore');
    if (lstatSync(file, { throwIfNoEntry: false })) files.push(file);
  }
  return files;
}

/** Files outside the tree a fresh listing reads: git's configuration (and where one could appear), git itself, PATH's directories. */
export function outsideFiles(root: string, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? homedir();
  const xdg = env.XDG_CONFIG_HOME || join(home, '.config');
  const files = [
    join(home, '.gitconfig'),
    join(xdg, 'git', 'config'),
    join(xdg, 'git', 'ignore'),
    join(xdg, 'git', 'attributes'),
    '/etc/gitconfig',
    ...(env.GIT_CONFIG_GLOBAL ? [env.GIT_CONFIG_GLOBAL] : []),
    ...(env.GIT_CONFIG_SYSTEM ? [env.GIT_CONFIG_SYSTEM] : []),
  ];
  // Every file git reads its configuration from (includes too), and the excludes file it names.
  try {
    const out = childProcess()
      .execFileSync('git', ['config', '--list', '--show-origin', '-z'], {
        cwd: root,
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      })
      .split('\0');
    for (let i = 0; i + 1 < out.length; i += 2) {
      const origin = out[i]!;
      if (origin.startsWith('file:')) files.push(resolve(root, origin.slice(5)));
      const [key, value] = out[i + 1]!.split('\n');
      if (key?.toLowerCase() !== 'core.excludesfile' || !value) continue;
      if (value.startsWith('~/')) files.push(join(home, value.slice(2)));
      else if (value.startsWith('~') || value.startsWith('%(')) files.push(...gitExpandedExcludes(root, env));
      else files.push(isAbsolute(value) ? value : resolve(root, value));
    }
  } catch {
    files.push(join(root, '.git', 'config')); // unreadable: its stat stands in, the request still checks the rest
  }
  try {
    files.push(resolveExecutable('git', root, env.PATH));
  } catch {
    // no git: the listing would have failed
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir) files.push(resolve(root, dir));
  return [...new Set(files)];
}

/**
 * `core.excludesFile` as git expands it (`~user/`, `%(prefix)/`): one that cannot be expanded makes
 * git's listing fail, so no record is written on it.
 */
function gitExpandedExcludes(root: string, env: NodeJS.ProcessEnv): string[] {
  try {
    return childProcess()
      .execFileSync('git', ['config', '--type=path', '-z', '--get-all', 'core.excludesfile'], {
        cwd: root,
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      })
      .split('\0')
      .filter((p) => p !== '')
      .map((p) => resolve(root, p));
  } catch {
    return [];
  }
}

export function stateOf(st: BigIntStats | undefined): string {
  return st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.mode}` : 'absent';
}

export function lstatState(path: string): string {
  try {
    return stateOf(lstatSync(path, { bigint: true, throwIfNoEntry: false }));
  } catch (error) {
    return `error ${(error as NodeJS.ErrnoException).code}`;
  }
}

/** The path's lstat and stat (a linked dotfile changes behind its link), or `absent`. */
export function statePair(path: string): string {
  let followed: string;
  try {
    followed = stateOf(statSync(path, { bigint: true, throwIfNoEntry: false }));
  } catch (error) {
    followed = `error ${(error as NodeJS.ErrnoException).code}`;
  }
  return `${lstatState(path)}|${followed}`;
}

function fileKey(absPath: string, mode: CacheMode): string {
  return `${mode}\0${absPath}`;
}

/** The tool identified again exactly as a build would, its digests reused only under unchanged, settled fingerprints. */
export function sameTool(
  t: { call: ToolCall; identity: string },
  files: Map<string, { fp: Fingerprint; sha256: string }>,
): boolean {
  const now = () => BigInt(Date.now()) * 1_000_000n;
  const cache: FileStateCache = {
    reuse(absPath, mode, fp) {
      const f = files.get(fileKey(absPath, mode));
      return f && sameFingerprint(f.fp, fp) && BigInt(fp.mtime_ns) < now() - RACY_WINDOW_NS ? f.sha256 : undefined;
    },
    put() {},
  };
  try {
    const identity = checkerIdentity(t.call.tool, t.call.shell, {
      cwd: t.call.cwd,
      path: t.call.path,
      cache,
      now,
      npm: t.call.npm,
    });
    return JSON.stringify(identity) === t.identity;
  } catch {
    return false;
  }
}
