/**
 * Which files one acceptance check read. The `accept` action's key covers only its captured
 * inputs, and its capture never selects some paths the check still reads (secret-looking names,
 * `target/` at any depth, or whatever explicit `inputs` leave out): a file read but not captured
 * could change and leave a cached PASS standing. The readers note every file whose bytes they
 * took; the action compares the notes with its capture and is BLOCKED on any file outside it.
 * Outside `collectReads` noting does nothing (the CLI verbs, the graph expansion).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { resolve } from 'node:path';

const current = new AsyncLocalStorage<Set<string>>();

/** Notes that the bytes of `abs` were read (an absolute path). */
export function noteRead(abs: string): void {
  current.getStore()?.add(resolve(abs));
}

/** Runs `fn`, collecting the absolute paths of every file the acceptance readers read meanwhile. */
export async function collectReads<T>(fn: () => Promise<T>): Promise<{ value: T; reads: Set<string> }> {
  const reads = new Set<string>();
  const value = await current.run(reads, fn);
  return { value, reads };
}
