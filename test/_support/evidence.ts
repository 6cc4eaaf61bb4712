/**
 * Helpers for engine, store, gate and CLI tests: where a temp repo's store lives, how to reach its
 * blobs and how to damage them on purpose (waits are in wait.ts). Everything works on the real store
 * files; nothing here replaces the store, git or a process.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenOptions } from '../../src/service/index.js';
import { Store, type StoreOptions } from '../../src/store/store.js';
import { type CliResult, nodeCheck, type TempRepo, tempRepo, vkit } from './repo.js';

/** The repo's store: the default location (`<git common dir>/vkit`), named explicitly. */
export function storeDir(repo: TempRepo): string {
  return join(repo.dir, '.git', 'vkit');
}

/** In-process service options for a temp repo. */
export function openOpts(repo: TempRepo, extra: Partial<OpenOptions> = {}): OpenOptions {
  return { root: repo.dir, store: storeDir(repo), ...extra };
}

/** The built CLI against a temp repo and its store. */
export function cli(repo: TempRepo, args: string[], env?: NodeJS.ProcessEnv): CliResult {
  return vkit([...args, '--root', repo.dir, '--store', storeDir(repo)], { cwd: repo.dir, env });
}

/** Path of a blob `sha256:<hex>` under `<store>/cas/<2 hex>/<62 hex>`. */
export function blobPath(repo: TempRepo, id: string): string {
  const hex = id.replace(/^sha256:/, '');
  return join(storeDir(repo), 'cas', hex.slice(0, 2), hex.slice(2));
}

/** Flips every bit of one byte of a file (in place, through the filesystem). */
export function flipByte(path: string, offset = 0): void {
  const bytes = readFileSync(path);
  bytes[offset] = bytes[offset]! ^ 0xff;
  writeFileSync(path, bytes);
}

/** Opens the repo's store directly (runs the recovery pass, as every opener does). */
export function openStoreOf(repo: TempRepo, opts?: StoreOptions): Store {
  return new Store(storeDir(repo), opts);
}

/** Reads and parses a receipt blob straight from the CAS. */
export function receiptJson(repo: TempRepo, id: string): any {
  return JSON.parse(readFileSync(blobPath(repo, id), 'utf8'));
}

/** The bytes of a named artifact of a receipt, read from the CAS. */
export function artifactText(repo: TempRepo, receiptId: string, name: string): string {
  const art = receiptJson(repo, receiptId).artifacts.find((a: { name: string }) => a.name === name);
  if (!art) throw new Error(`receipt ${receiptId} has no artifact ${name}`);
  return readFileSync(blobPath(repo, art.sha256), 'utf8');
}

/**
 * The protected gate's target: `unit` fails while lib.txt says "broken", `lint` always passes.
 * Uncommitted: callers add what the target also holds (a trusted signer) before committing it.
 */
export function brokenUnitRepo(): TempRepo {
  const repo = tempRepo({ 'lib.txt': 'broken\n', 'README.md': 'readme\n' });
  repo.manifest({
    checks: [
      {
        id: 'unit',
        run: nodeCheck("process.exit(require('fs').readFileSync('lib.txt','utf8').includes('broken') ? 1 : 0)"),
        inputs: ['lib.txt'],
      },
      { id: 'lint', run: nodeCheck('0'), inputs: ['README.md'] },
    ],
  });
  return repo;
}
