/**
 * Invariant 3 for one attempt: the captured inputs (and the dependencies' outputs) are still the
 * job's bytes just before its action starts, and neither changed nor gained a file while it ran.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprintOf, hashPath, sameFingerprint, type Fingerprint } from '../capture/files.js';
import { listGitFilesIfWorkTree } from '../capture/git.js';
import { selectPaths } from '../capture/selector.js';
import { walkTree } from '../capture/walk.js';
import type { Store } from '../store/store.js';
import { compileGlob } from '../text/glob.js';
import type { Job } from './job.js';

/**
 * Stats (and, through the file-state cache, hashes) every captured input before the action starts.
 * Returns the fingerprints, or a description of the inputs whose content is no longer the job's;
 * `raw` receives the raw digest of each text-mode input whose CRLF normalisation changed it.
 */
export function snapshotInputs(
  root: string,
  job: Job,
  store: Store,
  raw: Map<string, string>,
): Map<string, Fingerprint> | string {
  const fingerprints = new Map<string, Fingerprint>();
  const moved: string[] = [];
  for (const f of job.capture.files) {
    let now;
    try {
      now = hashPath(join(root, f.path), job.capture.hash ?? 'text', { cache: store.fileStates, now: store.now });
    } catch {
      now = undefined;
    }
    if (!now) moved.push(`${f.path} (deleted)`);
    else if (now.sha256 !== f.sha256 || now.mode !== f.mode) moved.push(f.path);
    else {
      fingerprints.set(f.path, now.fingerprint);
      if (now.raw) raw.set(f.path, now.raw); // the bytes the check will read, for the receipt
    }
  }
  return moved.length ? summarise(moved) : fingerprints;
}

/**
 * The dependencies' outputs (artifacts `outputs/<root-relative path>`) whose bytes on disk are not
 * the ones the dependency's result names, described with the way out; undefined when all match.
 */
export function dependencyOutputsMoved(root: string, job: Job, store: Store): string | undefined {
  for (const dep of job.deps) {
    const moved: string[] = [];
    for (const a of dep.artifacts) {
      if (!a.name.startsWith('outputs/')) continue;
      const path = a.name.slice('outputs/'.length);
      let now;
      try {
        now = hashPath(join(root, path), 'raw', { cache: store.fileStates, now: store.now });
      } catch {
        now = undefined;
      }
      if (!now) moved.push(`${path} (missing)`);
      else if (now.sha256 !== a.sha256) moved.push(path);
    }
    if (moved.length)
      return `outputs of ${dep.label} on disk are not the ones its result names: ${summarise(moved)}; rerun ${dep.label} (vkit verify --check ${dep.label.replace(/^check:/, '')})`;
  }
  return undefined;
}

/**
 * Invariant 3: compares each input's stat fingerprint with the one taken just before the action
 * started. Any difference (even an edit undone before the end) means the result may not describe
 * the captured bytes. Changed files are re-hashed so the file-state cache stays true.
 */
export function inputsChanged(
  root: string,
  before: Map<string, Fingerprint>,
  store: Store,
  hashMode: 'raw' | 'text',
): string | undefined {
  const changed: string[] = [];
  for (const [path, fingerprint] of before) {
    const abs = join(root, path);
    let now;
    try {
      now = fingerprintOf(lstatSync(abs, { bigint: true }));
    } catch {
      changed.push(`${path} (deleted)`);
      continue;
    }
    if (!sameFingerprint(now, fingerprint)) {
      changed.push(path);
      try {
        hashPath(abs, hashMode, { cache: store.fileStates, now: store.now });
      } catch {
        // a file that became special is reported as changed already
      }
    }
  }
  return changed.length ? summarise(changed) : undefined;
}

/**
 * Invariant 3 for files that were not there to fingerprint: the selector is applied again to the
 * working tree as it is now (listed as the engine lists it: git's tracked and untracked non-ignored
 * files, limited to the globs' directories, or a walk without git); a path selected now that the
 * capture did not hold means the result may describe other inputs.
 */
export async function inputsAdded(
  root: string,
  globs: readonly string[],
  captured: readonly { path: string }[],
): Promise<string | undefined> {
  const prefixes = globs
    .map(compileGlob)
    .filter((g) => !g.negated)
    .map((g) => g.prefix); // a directory prefix, or a literal's own path
  let files: string[];
  try {
    files = (await listGitFilesIfWorkTree(root, prefixes)) ?? walkTree(root);
  } catch (error) {
    return `the working tree could not be listed again (${(error as Error).message})`;
  }
  const had = new Set(captured.map((f) => f.path));
  // git lists a tracked file deleted from the working tree; the capture skipped it as absent, and so does this.
  const extra = selectPaths(globs, files.sort()).filter(
    (p) => !had.has(p) && lstatSync(join(root, p), { throwIfNoEntry: false }) !== undefined,
  );
  return extra.length ? summarise(extra.map((p) => `${p} (added)`)) : undefined;
}

function summarise(paths: string[]): string {
  return paths.slice(0, 5).join(', ') + (paths.length > 5 ? ` and ${paths.length - 5} more` : '');
}
