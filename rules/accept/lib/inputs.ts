/**
 * What an acceptance action reads, when the manifest does not say: the three documents, everything
 * under the acceptance root, the acceptor stores and the `tree` directory. `subjectRootOf` is the
 * one place the graph looks inside a document: the action checks that its subject root is covered
 * by the inputs, so explicit `inputs` (or a later edit of `[subject] root`) can never leave the
 * subject outside the key.
 */
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { parse } from 'smol-toml';
import type { ResolvedAcceptance } from '../schema.js';

const under = (dir: string) => (dir === '.' || dir === '' ? '**' : `${dir}/**`);

/** The glob of a crate directory's top-level `target/` (what the crate digest leaves out). */
export const targetOf = (dir: string) => (dir === '.' || dir === '' ? 'target/**' : `${dir}/target/**`);

/** The subject root of a package, relative to the project root (documents' paths are relative to `item.root`). */
export function subjectRootOf(projectRoot: string, item: Pick<ResolvedAcceptance, 'root' | 'package'>): string {
  const fallback = posix.dirname(item.package);
  try {
    const doc = parse(readFileSync(join(projectRoot, item.package), 'utf8')) as { subject?: { root?: unknown } };
    const root = doc.subject?.root;
    if (typeof root === 'string' && root !== '') return posix.normalize(posix.join(item.root, root));
  } catch {
    // An unreadable package is the action's to report; capture its directory meanwhile.
  }
  return fallback;
}

export function acceptanceInputs(projectRoot: string, item: ResolvedAcceptance): string[] {
  // The documents may name any file under the acceptance root (records, the human spec, inputs,
  // crates of a workspace), and a file the key does not cover could change unseen: capture it all.
  const globs = new Set<string>([item.spec, item.package, item.decision, under(posix.normalize(item.root))]);
  for (const dir of Object.values(item.acceptors)) globs.add(under(posix.normalize(dir)));
  if (item.tree) globs.add(under(posix.normalize(item.tree.slice(item.tree.indexOf('=') + 1))));
  // Build output never belongs to a crate's identity: the crate digest leaves out `target/` at the
  // top of the crate only, so exactly that is left out here (a nested `src/target/` is digested,
  // so it must be captured too).
  return [...globs, `!${targetOf(subjectRootOf(projectRoot, item))}`];
}
