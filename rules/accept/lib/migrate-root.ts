/**
 * Where a 0.3 package's evidence inputs live. 0.3 packages named no subject root: their evidence
 * `inputs` are relative to the crate's directory (the reference's rust-delivery example keeps its
 * crate in `iban-check/` beside the package). 0.4 reads them relative to `[subject] root`, whose
 * default is the package's directory, so a migrated package without a root cites files that are
 * not there. Migration looks for the directory: the package's own, else one directory below it
 * (a few levels deep) under which every input exists with exactly its recorded digest. Only a
 * single such directory is written; none or several are left to a human, never guessed.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { m11Digest, parseM11 } from '../../../src/hash/index.js';
import { insideRoot } from './paths.js';
import { str, table, tables, type Doc } from './toml.js';

/** How far below the package's directory a subject root is looked for. */
const MAX_DEPTH = 3;
/** Directories that never hold a subject's sources (build output, VCS data, installed packages). */
const SKIP = new Set(['target', 'node_modules', '.git']);

interface Input {
  path: string;
  digest: string;
}

export type InferredRoot = { root: string; because: string } | { unresolved: string };

/** The subject root a 0.3 package's inputs imply (relative to `root`), or undefined when nothing needs inferring. */
export async function inferSubjectRoot(root: string, pkg: Doc): Promise<InferredRoot | undefined> {
  const subject = table(pkg.data, 'subject');
  if (!subject || subject.root !== undefined || str(subject, 'mode') === 'prospective') return undefined;
  const inputs = evidenceInputs(pkg);
  if (inputs.length === 0) return undefined;
  const pkgDir = dirname(resolve(pkg.abs));
  if (await holdsAll(pkgDir, inputs)) return undefined; // the 0.4 default already finds them
  const found: string[] = [];
  for (const dir of await directoriesBelow(pkgDir, root)) if (await holdsAll(dir, inputs)) found.push(dir);
  const shown = (abs: string) => relative(root, abs).split(sep).join('/') || '.';
  const count = `${inputs.length} evidence input${inputs.length === 1 ? '' : 's'}`;
  if (found.length === 1) return { root: shown(found[0]!), because: `${count} checked` };
  if (found.length === 0)
    return {
      unresolved: `0.4 reads evidence inputs relative to [subject] root (default: the package's directory), and no directory at or below ${shown(pkgDir)} holds all ${count} with their recorded digests: add root = "<the directory they are relative to>" (relative to --root)`,
    };
  return {
    unresolved: `0.4 reads evidence inputs relative to [subject] root; ${found.length} directories hold all ${count} with their recorded digests (${found.map(shown).join(', ')}): add root = "<the subject's directory>" naming the right one`,
  };
}

/** Every evidence `inputs` entry with a usable path and a subject-domain digest. */
function evidenceInputs(pkg: Doc): Input[] {
  const out: Input[] = [];
  for (const claim of tables(pkg.data, 'claim'))
    for (const e of tables(claim, 'evidence'))
      for (const i of tables(e, 'inputs'))
        if (typeof i.path === 'string' && i.path !== '' && typeof i.digest === 'string')
          out.push({ path: i.path, digest: i.digest });
  return out;
}

/** Every input is a file under `dir`, inside nothing but `dir`, with exactly its recorded digest. */
async function holdsAll(dir: string, inputs: Input[]): Promise<boolean> {
  const digests = new Map<string, string | undefined>();
  for (const input of inputs) {
    if (parseM11(input.digest)?.domain !== 'subject') return false;
    const abs = insideRoot(dir, input.path);
    if (!abs) return false;
    if (!digests.has(abs))
      digests.set(
        abs,
        await readFile(abs).then(
          (b) => m11Digest('subject', b),
          () => undefined,
        ),
      );
    if (digests.get(abs) !== input.digest) return false;
  }
  return true;
}

/** Directories below `dir` (breadth first, at most MAX_DEPTH deep) that stay inside `root`. */
async function directoriesBelow(dir: string, root: string): Promise<string[]> {
  const out: string[] = [];
  let level = [dir];
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const d of level) {
      const entries = await readdir(d, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        if (!e.isDirectory() || SKIP.has(e.name) || e.name.startsWith('.')) continue;
        const child = join(d, e.name);
        if (insideRoot(root, relative(root, child))) next.push(child);
      }
    }
    out.push(...next);
    level = next;
  }
  return out;
}
