/**
 * Retained process logs are capped per stream: a check may print gigabytes, and every gate, build
 * and export re-hashes what the store keeps. The first and last halves of the cap are kept, with one
 * line between them saying exactly how many bytes were dropped, and the artifact records the count
 * (`dropped_bytes`), so neither a reader of the log nor of the receipt can take it for the whole output.
 * Only the retained copy is cut: a rule judging the output reads the process's own file, which stays whole.
 */
import { createReadStream, statSync } from 'node:fs';
import type { Cas } from './cas.js';

/** Bytes kept per stream unless `VKIT_LOG_CAP_BYTES` says otherwise. */
const DEFAULT_LOG_CAP_BYTES = 8 * 1024 * 1024;

/** The cap the environment asks for, or why its value cannot be one. */
export function logCapOf(env: NodeJS.ProcessEnv): number | string {
  const asked = env.VKIT_LOG_CAP_BYTES;
  if (asked === undefined || asked === '') return DEFAULT_LOG_CAP_BYTES;
  const cap = Number(asked);
  return /^[0-9]+$/.test(asked) && Number.isSafeInteger(cap) && cap > 0
    ? cap
    : `Expected VKIT_LOG_CAP_BYTES to be a positive whole number of bytes, got \`${asked}\``;
}

/** The line standing for the bytes a capped log dropped between its head and its tail. */
function droppedLine(dropped: number, head: number, tail: number): string {
  return `\n[vkit: ${dropped} bytes dropped here; the log is capped at ${head + tail} bytes per stream (VKIT_LOG_CAP_BYTES), its first ${head} and last ${tail} bytes kept]\n`;
}

/** Puts a process log into the CAS, capped at `cap` bytes of its own (plus the dropped line). */
export async function putLog(
  cas: Cas,
  path: string,
  cap: number,
): Promise<{ sha256: string; size: number; dropped_bytes?: number }> {
  const size = statSync(path).size;
  if (size <= cap) return cas.putFile(path);
  const head = Math.floor(cap / 2);
  const tail = cap - head;
  const dropped = size - cap;
  return { ...(await cas.putStream(cappedParts(path, size, head, tail))), dropped_bytes: dropped };
}

async function* cappedParts(path: string, size: number, head: number, tail: number): AsyncGenerator<Uint8Array> {
  // `end` is inclusive; a cap of one byte keeps no head.
  if (head > 0) yield* createReadStream(path, { start: 0, end: head - 1 });
  yield Buffer.from(droppedLine(size - head - tail, head, tail));
  // Up to the size measured: a process that outlived the check and still writes cannot make the count wrong.
  yield* createReadStream(path, { start: size - tail, end: size - 1 });
}
