/**
 * Shared set-up for tamper tests: a repo with one passing check built once, and ways to corrupt a
 * blob while making the store trust its new stat fingerprint (as if it had been verified).
 */
import assert from 'node:assert/strict';
import { lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { build } from '../../src/service/index.js';
import { blobPath, flipByte, openOpts, openStoreOf, receiptJson } from './evidence.js';
import { nodeCheck, tempRepo, type TempRepo } from './repo.js';

const CHECK = {
  id: 't',
  run: nodeCheck(
    "const fs = require('fs'); fs.readFileSync('in.txt'); fs.mkdirSync('out', { recursive: true }); fs.writeFileSync('out/result.txt', 'result bytes'); console.log('stdout marker'); console.error('stderr marker')",
  ),
  inputs: ['in.txt'],
  outputs: ['out/*.txt'],
};

/** A repo with one passing check built once; returns the receipt id and its artifacts' ids. */
export async function builtRepo(): Promise<{ repo: TempRepo; receipt: string; blobs: Record<string, string> }> {
  const repo = tempRepo({ 'in.txt': 'input\n' });
  repo.age('in.txt');
  repo.manifest({ checks: [CHECK] });
  const report = await build(openOpts(repo));
  assert.equal(report.gate.status, 'READY');
  const receipt = report.actions[0]!.receipt!;
  const blobs: Record<string, string> = { receipt };
  for (const a of receiptJson(repo, receipt).artifacts) blobs[a.name] = a.sha256;
  assert.deepEqual(Object.keys(blobs).sort(), ['outputs/out/result.txt', 'receipt', 'stderr', 'stdout']);
  assert.equal(new Set(Object.values(blobs)).size, 4, 'each artifact is a distinct blob');
  return { repo, receipt, blobs };
}

/** Corrupts a blob, then records its new stat as the trusted fingerprint, as if it had been verified. */
export function corruptAndTrust(
  repo: TempRepo,
  id: string,
  corrupt: (path: string) => void = (p) => flipByte(p, 1),
): void {
  const path = blobPath(repo, id);
  corrupt(path);
  trustCurrentStat(repo, id);
}

export function trustCurrentStat(repo: TempRepo, id: string): void {
  const st = lstatSync(blobPath(repo, id), { bigint: true });
  const store = openStoreOf(repo);
  try {
    store.db
      .prepare('INSERT OR REPLACE INTO blobs (id, size, mtime_ns, ctime_ns, ino) VALUES (?, ?, ?, ?, ?)')
      .run(id, Number(st.size), String(st.mtimeNs), String(st.ctimeNs), String(st.ino));
  } finally {
    store.close();
  }
}

/** Changes one character of the receipt's run id: still valid JSON and a valid receipt, other bytes. */
export function editRunId(path: string): void {
  const text = readFileSync(path, 'utf8');
  const at = text.indexOf('"run":"run_') + '"run":"run_'.length;
  assert.ok(at > 20);
  const edited = text.slice(0, at) + (text[at] === 'z' ? 'y' : 'z') + text.slice(at + 1);
  writeFileSync(path, edited);
  JSON.parse(edited);
}
