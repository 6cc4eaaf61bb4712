/** The few git plumbing calls captures need, run as real git processes. */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIG = 1 << 30;

export async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, maxBuffer: BIG, encoding: 'utf8' });
  return stdout;
}

/** The commit `rev` names in the repository at `dir`, or undefined when it names none (the caller says so in its terms). */
export async function resolveCommit(dir: string, rev: string): Promise<string | undefined> {
  try {
    return (await git(dir, ['rev-parse', '--verify', '--end-of-options', `${rev}^{commit}`])).trim();
  } catch {
    return undefined;
  }
}

export async function gitBytes(cwd: string, args: string[]): Promise<Buffer> {
  const { stdout } = await run('git', args, { cwd, maxBuffer: BIG, encoding: 'buffer' });
  return stdout;
}

/**
 * Whether `dir` is in a git work tree and, if so, its common git dir and its path below the work
 * tree's top (`sub/dir/`, or empty at the top): one process for every answer.
 */
export async function gitInfo(dir: string): Promise<{ commonDir: string; prefix: string } | undefined> {
  try {
    const [inside, common, prefix = ''] = (
      await git(dir, [
        'rev-parse',
        '--is-inside-work-tree',
        '--path-format=absolute',
        '--git-common-dir',
        '--show-prefix',
      ])
    ).split('\n');
    return inside === 'true' && common ? { commonDir: common, prefix } : undefined;
  } catch {
    return undefined;
  }
}

/** True when `dir` is inside a git work tree. */
export async function isGitWorkTree(dir: string): Promise<boolean> {
  try {
    return (await git(dir, ['rev-parse', '--is-inside-work-tree'])).trim() === 'true';
  } catch {
    return false;
  }
}

/**
 * Tracked and untracked non-ignored paths under `dir`, relative to it; with `under`, only below those
 * directory prefixes (literal pathspecs: a prefix never holds glob characters, and names like `:x`
 * stay names). An empty prefix means the whole directory.
 */
export async function listGitFiles(dir: string, under?: readonly string[]): Promise<string[]> {
  const out = await git(dir, [
    '--literal-pathspecs',
    'ls-files',
    '-z',
    '--cached',
    '--others',
    '--exclude-standard',
    ...pathspecsUnder(under),
  ]);
  return listedPaths(out);
}

/** Literal pathspecs for directory prefixes: none for the whole directory (no prefixes, or an empty one). */
function pathspecsUnder(under: readonly string[] | undefined): string[] {
  return under && !under.includes('') ? ['--', ...new Set(under)] : [];
}

/** The distinct paths of `ls-files -z` output. */
function listedPaths(out: string): string[] {
  return [...new Set(out.split('\0').filter(Boolean))];
}

/** The exit code `listGitFilesIfWorkTree`'s shell gives outside a work tree (no git command exits with it). */
const OUTSIDE = 96;

/**
 * `listGitFiles(dir, under)` when `dir` is in a git work tree (as `isGitWorkTree` asks), else
 * undefined: one shell asks both, so a job's worker, which lists its inputs' directories again
 * after every run, starts one process for it instead of two (D59).
 */
export async function listGitFilesIfWorkTree(dir: string, under?: readonly string[]): Promise<string[] | undefined> {
  const script = `[ "$(git rev-parse --is-inside-work-tree 2>/dev/null)" = true ] || exit ${OUTSIDE}
exec git --literal-pathspecs ls-files -z --cached --others --exclude-standard "$@"`;
  try {
    const { stdout } = await run('/bin/sh', ['-c', script, 'sh', ...pathspecsUnder(under)], {
      cwd: dir,
      maxBuffer: BIG,
      encoding: 'utf8',
    });
    return listedPaths(stdout);
  } catch (error) {
    if ((error as { code?: unknown }).code === OUTSIDE) return undefined;
    throw error;
  }
}

/**
 * Untracked paths git ignores under `dir`, relative to it: ignored files, and ignored directories
 * once each with a trailing `/`, never listed inside (git does not walk an ignored `node_modules/`,
 * so this stays about as cheap as the listing itself). `git status --ignored=matching` rather than
 * `ls-files -o -i --directory`, which says nothing of ignored files inside a directory that is
 * untracked but not ignored. `--no-optional-locks`: vkit never writes the index; submodules are not
 * asked about (each would be a git process of its own).
 */
export async function listIgnored(dir: string, prefix?: string): Promise<string[]> {
  // Porcelain paths are relative to the work tree's top whatever the directory: limited to `dir`
  // (the `.` pathspec) and made relative to it, as `ls-files` paths are.
  const [out, below] = await Promise.all([
    git(dir, [
      '--no-optional-locks',
      'status',
      '--porcelain=v1',
      '-z',
      '--ignored=matching',
      '--untracked-files=normal',
      '--no-renames',
      '--ignore-submodules=all',
      '--',
      '.',
    ]),
    prefix ?? git(dir, ['rev-parse', '--show-prefix']).then((p) => p.trim()),
  ]);
  return ignoredOf(out, below);
}

/** The ignored entries of `status --porcelain=v1 -z` output below `prefix`, relative to it, sorted. */
function ignoredOf(out: string, prefix: string): string[] {
  return entriesOf(out, '!! ', prefix).sort();
}

/**
 * The paths of `status --porcelain=v1 -z --no-renames` entries with this status (`?? ` untracked,
 * `!! ` ignored) below `prefix`, relative to it (porcelain paths are relative to the work tree's top).
 */
function entriesOf(out: string, status: '?? ' | '!! ', prefix: string): string[] {
  const start = status + prefix;
  const paths: string[] = [];
  for (const entry of out.split('\0'))
    if (entry.startsWith(start) && entry.length > start.length) paths.push(entry.slice(start.length));
  return paths;
}

/** What a workspace needs of git about one directory (see `gitListing`). */
export interface GitListing {
  /** As `gitInfo`: undefined outside a git work tree (or without git). */
  info: Promise<{ commonDir: string; prefix: string } | undefined>;
  /** As `listGitFiles(dir)`; rejects outside a work tree. */
  files: Promise<string[]>;
  /** As `listIgnored(dir)`; rejects outside a work tree. */
  ignored: Promise<string[]>;
}

// `gitInfo`, then the index's paths (`ls-files --cached`: no walk) and one `status` walk side by side,
// each git writing to a pipe of its own (fds 4, 5; each closes the other's so every pipe ends with its
// writer); the shell prints the two commands' exit codes. `status --untracked-files=all` names every
// untracked file as `ls-files --others --exclude-standard` would, and the ignored ones as
// `listIgnored`'s `status` does, from the same walk: the tree is walked once, not twice (~25 ms of a
// 10,000-file build's CPU, D58).
const LISTING_SCRIPT = `
info=$(git rev-parse --is-inside-work-tree --path-format=absolute --git-common-dir --show-prefix 2>/dev/null) || exit 0
printf '%s\\n' "$info" >&3
exec 3>&-
case $info in true*) ;; *) exit 0 ;; esac
git ls-files -z --cached >&4 5>&- &
files=$!
git --no-optional-locks status --porcelain=v1 -z --ignored=matching --untracked-files=all --no-renames --ignore-submodules=all -- . >&5 4>&-
walked=$?
exec 4>&- 5>&-
wait $files
echo "$? $walked"
`;

/**
 * `gitInfo`, `listGitFiles(dir)` and `listIgnored(dir)` from one process: a shell runs three git
 * commands. Node forks once instead of three times (each fork of a node process blocked its thread
 * 5-12 ms on a small VM; the shell's forks are cheap); the answers are those functions' own (a test
 * compares them on a tree of awkward names, ignore rules and nested repositories).
 */
export function gitListing(dir: string): GitListing {
  const child = spawn('/bin/sh', ['-c', LISTING_SCRIPT], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  const collect = (n: number) => {
    const chunks: Buffer[] = [];
    (child.stdio[n] as NodeJS.ReadableStream).on('data', (c: Buffer) => chunks.push(c));
    return new Promise<string>((resolve) =>
      (child.stdio[n] as NodeJS.ReadableStream).on('end', () => resolve(Buffer.concat(chunks).toString('utf8'))),
    );
  };
  const [codes, errors, infoText, filesText, statusText] = [1, 2, 3, 4, 5].map(collect) as Promise<string>[];
  const exited = new Promise<void>((resolve) => {
    child.on('error', () => resolve());
    child.on('close', () => resolve());
  });
  const info = Promise.race([infoText!, exited.then(() => '')]).then((text) => {
    const [inside, common, prefix = ''] = text.split('\n');
    return inside === 'true' && common ? { commonDir: common, prefix } : undefined;
  });
  const outcome = Promise.all([info, exited, codes!, errors!]).then(([git, , printed, stderr]) => {
    const problem = (what: string, code: string | undefined) =>
      code === '0'
        ? undefined
        : new Error(`git ${what} in ${dir} failed (exit ${code ?? 'unknown'}): ${stderr.trim()}`);
    if (!git) {
      const outside = new Error(`${dir} is not in a git work tree`);
      return { prefix: '', files: outside, ignored: outside };
    }
    const [files, walked] = printed.trim().split(' ');
    const walk = problem('status', walked);
    // Untracked paths come from the walk: without it the listing is not whole either.
    return { prefix: git.prefix, files: problem('ls-files', files) ?? walk, ignored: walk };
  });
  const files = Promise.all([outcome, filesText!, statusText!]).then(([o, cached, walked]) => {
    if (o.files) throw o.files;
    return [...new Set([...cached.split('\0').filter(Boolean), ...entriesOf(walked, '?? ', o.prefix)])];
  });
  const ignored = Promise.all([outcome, statusText!]).then(([o, text]) => {
    if (o.ignored) throw o.ignored;
    return ignoredOf(text, o.prefix);
  });
  // A caller that needs only the info (or learns it is outside a work tree) never awaits these.
  files.catch(() => {});
  ignored.catch(() => {});
  return { info, files, ignored };
}

/** One row of `git ls-tree -r`: a blob (file, executable, symlink) or a commit (submodule). */
export interface TreeRow {
  mode: string;
  type: string;
  oid: string;
  path: string;
}

/** Every entry of a commit's tree, recursively, with the path relative to the repository root. */
export async function lsTree(dir: string, commit: string): Promise<TreeRow[]> {
  return (await git(dir, ['ls-tree', '-r', '-z', '--full-tree', commit]))
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      const [mode, type, oid] = line.slice(0, tab).split(' ') as [string, string, string];
      return { mode, type, oid, path: line.slice(tab + 1) };
    });
}

/**
 * Reads many blobs with one `git cat-file --batch`. Bytes come from the object database, so edits
 * in the checkout cannot reach a commit capture.
 */
export async function readBlobs(dir: string, oids: string[]): Promise<Map<string, Buffer>> {
  const result = new Map<string, Buffer>();
  if (oids.length === 0) return result;
  const child = spawn('git', ['cat-file', '--batch'], { cwd: dir, stdio: ['pipe', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git cat-file exited ${code}`))));
  });
  child.stdin.end(`${oids.join('\n')}\n`);
  await done;
  const all = Buffer.concat(chunks);
  let at = 0;
  for (const oid of oids) {
    const nl = all.indexOf(0x0a, at);
    const header = all.subarray(at, nl).toString('utf8').split(' ');
    if (header[1] === 'missing') throw new Error(`git object ${oid} is missing`);
    const size = Number(header[2]);
    result.set(oid, all.subarray(nl + 1, nl + 1 + size));
    at = nl + 1 + size + 1;
  }
  return result;
}
