/**
 * `vkit store gc --keep-runs N`: keeps the N newest runs, every run still queued or running, and
 * every action-cache and latest entry with the run that made it (a hit is checked against the run
 * that recorded its receipt), and deletes the runs, attempts and blobs nothing kept reaches.
 * The decision and the deletions happen under the store's write lock, so a worker cannot end a run
 * (publish its receipt) halfway through; a worker ending a run checks its evidence under the same
 * lock (`Lifecycle.finishAttempt`), so it never publishes a receipt naming a blob gc deleted.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseReceipt } from '../store/receipt.js';
import type { Store } from '../store/store.js';

export function collectGarbage(
  store: Store,
  keepRuns: number,
): { runs_deleted: number; blobs_deleted: number; blobs_kept: number } {
  const db = store.db;
  // Receipts are content-addressed: what one names is read once, outside the lock where possible.
  const named = new Map<string, string[]>();
  const artifactsOf = (id: string): string[] => {
    let out = named.get(id);
    if (!out) {
      const read = store.actions.readReceipt(id);
      out = read.state === 'intact' ? (parseReceipt(read.receipt)?.artifacts ?? []).map((a) => a.sha256) : [];
      named.set(id, out);
    }
    return out;
  };
  const roots = (): { keep: Set<string>; found: Set<string> } => {
    const keep = new Set(
      db
        .prepare<[number], { id: string }>(
          "SELECT id FROM runs WHERE id IN (SELECT id FROM runs ORDER BY created_ns DESC, id DESC LIMIT ?) OR state IN ('queued', 'running') OR id IN (SELECT run FROM attempts WHERE state = 'running') OR receipt IN (SELECT receipt FROM action_cache UNION SELECT receipt FROM latest)",
        )
        .all(keepRuns)
        .map((r) => r.id),
    );
    const found = new Set<string>();
    for (const r of db.prepare<[], { id: string; receipt: string | null }>('SELECT id, receipt FROM runs').all())
      if (keep.has(r.id) && r.receipt) found.add(r.receipt);
    for (const r of db
      .prepare<[], { receipt: string }>('SELECT receipt FROM action_cache UNION SELECT receipt FROM latest')
      .all())
      found.add(r.receipt);
    return { keep, found };
  };
  for (const id of roots().found) artifactsOf(id); // warm the receipt reads before taking the lock
  // Only names a blob can have (`<2 hex>/<62 hex>`, a regular file): anything else in the store is
  // not gc's to delete, and must not stop it.
  const blobs: string[] = [];
  for (const dir of readdirSync(store.cas.dir, { withFileTypes: true })) {
    if (!dir.isDirectory() || !/^[0-9a-f]{2}$/.test(dir.name)) continue;
    for (const rest of readdirSync(join(store.cas.dir, dir.name), { withFileTypes: true }))
      if (rest.isFile() && /^[0-9a-f]{62}$/.test(rest.name)) blobs.push(`${dir.name}/${rest.name}`);
  }

  const { runsDeleted, blobsDeleted, kept } = store.batch(() => {
    const { keep, found } = roots();
    const reachable = new Set<string>();
    for (const id of found) {
      reachable.add(id);
      for (const a of artifactsOf(id)) reachable.add(a);
    }
    let runs = 0;
    for (const r of db.prepare<[], { id: string }>('SELECT id FROM runs').all()) {
      if (keep.has(r.id)) continue;
      db.prepare('DELETE FROM attempts WHERE run = ?').run(r.id);
      db.prepare('DELETE FROM runs WHERE id = ?').run(r.id);
      runs++;
    }
    // A running attempt may have put artifacts that no receipt names yet: blobs written (or reused,
    // which touches them) since the oldest running attempt started are left for the next gc.
    const oldestRunning = db
      .prepare<[], { started: string | null }>(
        "SELECT MIN(started_ns) AS started FROM attempts WHERE state = 'running'",
      )
      .get()?.started;
    // A damaged time reads as "now": gc then spares every blob (fail closed), never throws.
    const youngerThan = oldestRunning
      ? /^\d+$/.test(oldestRunning)
        ? Number(BigInt(oldestRunning) / 1_000_000n)
        : -Infinity
      : Infinity;
    let deleted = 0;
    for (const rel of blobs) {
      const id = `sha256:${rel.replace('/', '')}`;
      if (reachable.has(id)) continue;
      let mtimeMs: number;
      try {
        mtimeMs = statSync(join(store.cas.dir, rel)).mtimeMs;
      } catch {
        continue; // gone meanwhile
      }
      if (mtimeMs >= youngerThan) continue;
      store.cas.remove(id);
      deleted++;
    }
    // The index's copies of receipts (actions.ts) go with their blobs.
    if (deleted) db.prepare('DELETE FROM receipt_copies WHERE id NOT IN (SELECT id FROM blobs)').run();
    return { runsDeleted: runs, blobsDeleted: deleted, kept: reachable.size };
  });
  // Temp files of writers that are gone: a killed process leaves them behind.
  for (const entry of readdirSync(join(store.dir, 'tmp'), { withFileTypes: true })) {
    const pid = Number(entry.name.split('-')[0]);
    if (!entry.isFile() || pid === process.pid || !Number.isInteger(pid) || pid <= 0) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      // EPERM: the writer lives (another user's process); only a pid that is gone frees its files.
      if ((error as NodeJS.ErrnoException).code === 'ESRCH')
        rmSync(join(store.dir, 'tmp', entry.name), { force: true });
    }
  }
  return { runs_deleted: runsDeleted, blobs_deleted: blobsDeleted, blobs_kept: kept };
}
