/** The few git plumbing calls captures need, run as real git processes. */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIG = 1 << 30;

export async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, maxBuffer: BIG, encoding: 'utf8' });
  return stdout;
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
  const limit = under && !under.includes('') ? ['--', ...new Set(under)] : [];
  const out = await git(dir, [
    '--literal-pathspecs',
    'ls-files',
    '-z',
    '--cached',
    '--others',
    '--exclude-standard',
    ...limit,
  ]);
  return [...new Set(out.split('\0').filter(Boolean))];
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
  const ignored: string[] = [];
  for (const entry of out.split('\0'))
    if (entry.startsWith(`!! ${below}`) && entry.length > 3 + below.length) ignored.push(entry.slice(3 + below.length));
  return ignored.sort();
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
