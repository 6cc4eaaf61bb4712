/**
 * Acceptor stores: `--store NAME=DIR` maps an acceptor name to a directory of accepted libraries,
 * `DIR/<crate name>/acceptance-{specification,package,decision}.toml`. Only the acceptors a chain
 * requirement names are searched, in the order it names them; the first store holding a
 * directory for the crate is the one used (a later store never papers over a broken earlier one).
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DecisionPaths } from '../model.js';

export const STORE_FILES = {
  spec: 'acceptance-specification.toml',
  package: 'acceptance-package.toml',
  decision: 'acceptance-decision.toml',
} as const;

export type StoreLookup =
  | { kind: 'found'; acceptor: string; dir: string; paths: DecisionPaths; missing: string[] }
  | { kind: 'absent'; searched: string[] }
  | { kind: 'no-store'; acceptors: string[] };

const exists = async (p: string, dir = false) => {
  try {
    const s = await stat(p);
    return dir ? s.isDirectory() : s.isFile();
  } catch {
    return false;
  }
};

/** A crate name as a directory name: never a path (`..`, separators). */
export const safeCrateName = (name: string) => /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name) && !name.includes('..');

export async function findLibrary(
  stores: Record<string, string>,
  acceptors: readonly string[],
  crate: string,
): Promise<StoreLookup> {
  const usable = acceptors.filter((a) => Object.hasOwn(stores, a));
  if (!usable.length) return { kind: 'no-store', acceptors: [...acceptors] };
  if (!safeCrateName(crate)) return { kind: 'absent', searched: usable };
  for (const acceptor of usable) {
    const dir = join(stores[acceptor]!, crate);
    if (!(await exists(dir, true))) continue;
    const file = (f: string) => ({ abs: join(dir, f), file: `${acceptor}:${crate}/${f}` });
    const paths: DecisionPaths = {
      spec: file(STORE_FILES.spec),
      package: file(STORE_FILES.package),
      decision: file(STORE_FILES.decision),
    };
    const missing: string[] = [];
    for (const f of Object.values(STORE_FILES)) if (!(await exists(join(dir, f)))) missing.push(f);
    return { kind: 'found', acceptor, dir, paths, missing };
  }
  return { kind: 'absent', searched: usable };
}
