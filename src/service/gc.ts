/**
 * `vkit store gc --keep-runs N`: keeps the N newest runs and every action-cache and latest entry,
 * and deletes the runs, attempts and blobs nothing kept reaches. Running attempts are always kept.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseReceipt } from '../store/receipt.js';
import type { Store } from '../store/store.js';

export function collectGarbage(store: Store, keepRuns: number): { runs_deleted: number; blobs_deleted: number; blobs_kept: number } {
  const db = store.db;
  const keep = new Set(
    db
      .prepare<[number], { id: string }>(
        "SELECT id FROM runs WHERE id IN (SELECT id FROM runs ORDER BY created_ns DESC, id DESC LIMIT ?) OR id IN (SELECT run FROM attempts WHERE state = 'running')",
      )
      .all(keepRuns)
      .map((r) => r.id),
  );
  const roots = new Set<string>();
  for (const r of db.prepare<[], { id: string; receipt: string | null }>('SELECT id, receipt FROM runs').all()) if (keep.has(r.id) && r.receipt) roots.add(r.receipt);
  for (const r of db.prepare<[], { receipt: string }>('SELECT receipt FROM action_cache UNION SELECT receipt FROM latest').all()) roots.add(r.receipt);
  const reachable = new Set<string>();
  for (const id of roots) {
    reachable.add(id);
    const read = store.readReceipt(id);
    if (read.state !== 'intact') continue;
    for (const a of parseReceipt(read.receipt)?.artifacts ?? []) reachable.add(a.sha256);
  }
  const runsDeleted = store.batch(() => {
    let n = 0;
    for (const r of db.prepare<[], { id: string }>('SELECT id FROM runs').all()) {
      if (keep.has(r.id)) continue;
      db.prepare('DELETE FROM attempts WHERE run = ?').run(r.id);
      db.prepare('DELETE FROM runs WHERE id = ?').run(r.id);
      n++;
    }
    return n;
  });
  // A running attempt may have put artifacts that no receipt names yet: blobs written since the
  // oldest running attempt started are left for the next gc.
  const oldestRunning = db.prepare<[], { started: string | null }>("SELECT MIN(started_ns) AS started FROM attempts WHERE state = 'running'").get()?.started;
  const youngerThan = oldestRunning ? Number(BigInt(oldestRunning) / 1_000_000n) : Infinity;
  let blobsDeleted = 0;
  for (const dir of readdirSync(store.cas.dir)) {
    for (const rest of readdirSync(join(store.cas.dir, dir))) {
      const id = `sha256:${dir}${rest}`;
      if (reachable.has(id)) continue;
      if (statSync(join(store.cas.dir, dir, rest)).mtimeMs >= youngerThan) continue;
      store.cas.remove(id);
      blobsDeleted++;
    }
  }
  // Temp files of writers that are gone: a killed process leaves them behind.
  for (const name of readdirSync(join(store.dir, 'tmp'))) {
    const pid = Number(name.split('-')[0]);
    if (pid === process.pid || !Number.isInteger(pid)) continue;
    try {
      process.kill(pid, 0);
    } catch {
      rmSync(join(store.dir, 'tmp', name), { force: true });
    }
  }
  return { runs_deleted: runsDeleted, blobs_deleted: blobsDeleted, blobs_kept: reachable.size };
}
