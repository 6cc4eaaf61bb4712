/**
 * What change certification reads from git: the change-claims records of a commit, byte for byte from
 * the object database (edits in the checkout never count), and whether a candidate preserves them.
 */
import { lsTree, readBlobs } from '../../../src/capture/git.js';
import { sha256Id } from '../../../src/hash/index.js';
import { CLAIMS_DIR } from './records.js';

/** Every file under `verification/change-claims/` of `commit`, path -> bytes (symlinks and submodules as their git entry). */
export async function claimsRecords(root: string, commit: string): Promise<Map<string, Buffer>> {
  const rows = (await lsTree(root, commit)).filter((r) => r.path.startsWith(`${CLAIMS_DIR}/`));
  const blobs = await readBlobs(
    root,
    rows.filter((r) => r.type === 'blob').map((r) => r.oid),
  );
  return new Map(
    rows.map((r) => [
      r.path,
      r.type === 'blob'
        ? Buffer.concat([Buffer.from(`${r.mode}\0`), blobs.get(r.oid)!])
        : Buffer.from(`${r.mode} ${r.type} ${r.oid}`),
    ]),
  );
}

/** The bytes of a record as a file holds them (a record's map value carries its git mode first). */
export function recordBytes(entry: Buffer): Buffer {
  return entry.subarray(entry.indexOf(0) + 1);
}

/** The records the candidate adds, removes or changes against the target (mode included), each named. */
export function recordChanges(target: Map<string, Buffer>, candidate: Map<string, Buffer>): string[] {
  const changes: string[] = [];
  for (const [path, bytes] of target) {
    const other = candidate.get(path);
    if (!other) changes.push(`${path}: removed`);
    else if (sha256Id(other) !== sha256Id(bytes)) changes.push(`${path}: changed`);
  }
  for (const path of candidate.keys()) if (!target.has(path)) changes.push(`${path}: added`);
  return changes.sort();
}
