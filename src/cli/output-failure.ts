/**
 * What a failed write on stdout or stderr does to a command's answer. A reader that went away
 * (`vkit build | head -1`: EPIPE) only ends what is printed: the exit code stays the command's. Any
 * other write error (`vkit build > /dev/full`: ENOSPC, EIO) means the answer did not reach where it
 * was sent, so a command that would have said 0 says 3 (the environment failed) instead, and a
 * non-zero answer stays as it was; one line on stderr says so when stderr can still be written.
 * Never a stack: a full disk is not a bug of vkit's. Loaded by bin/vkit.js's first steps (the no-op
 * recall, the resident process's client): node's modules only.
 */
import { writeSync } from 'node:fs';

/** The exit code for "the environment failed" (errors.ts EXIT.blocked), spelled here to stay small. */
const BLOCKED = 3;

/** Write errors that mean the reader left, not that the output was lost. */
function readerLeft(error: NodeJS.ErrnoException): boolean {
  return error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED';
}

/** The first write that failed other than by the reader leaving. */
let lost: { stream: 'stdout' | 'stderr'; error: NodeJS.ErrnoException } | undefined;
const dead = new Set<NodeJS.WriteStream>();

/** Takes a write error on `stream`: later writes to it go nowhere, and a lost answer is remembered. */
function failed(stream: NodeJS.WriteStream, error: NodeJS.ErrnoException): void {
  dead.add(stream);
  if (!readerLeft(error)) lost ??= { stream: stream === process.stdout ? 'stdout' : 'stderr', error };
}

/**
 * Guards stdout and stderr of this process: a write error, thrown at once (a file: node writes it
 * synchronously) or emitted later (a pipe, a terminal), silences the stream instead of escaping as
 * an internal error. Installed beneath any later wrapper of `write` (coalesce.ts, the no-op
 * recorder's tee), which keep working. Idempotent.
 */
export function guardOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if ((stream as { vkitGuarded?: boolean }).vkitGuarded) continue;
    (stream as { vkitGuarded?: boolean }).vkitGuarded = true;
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((...args: unknown[]) => {
      if (dead.has(stream)) return true;
      try {
        return write(...args);
      } catch (error) {
        failed(stream, error as NodeJS.ErrnoException);
        return true;
      } finally {
        // A file's write error is known at once, though its 'error' event comes a turn later.
        const errored = (stream as { errored?: NodeJS.ErrnoException | null }).errored;
        if (errored) failed(stream, errored);
      }
    }) as typeof stream.write;
    stream.on('error', (error: NodeJS.ErrnoException) => failed(stream, error));
  }
}

/**
 * The exit code a command's `code` becomes once its output is written: 3 in place of 0 when a write
 * failed other than by the reader leaving, said in one line on stderr (written directly: whatever
 * batches stderr has already flushed, and the line must not wait for it).
 */
function settleOutput(code: number): number {
  if (!lost) return code;
  const { stream, error } = lost;
  if (!dead.has(process.stderr)) {
    try {
      const why =
        error.code && !error.message.startsWith(error.code) ? `${error.code}: ${error.message}` : error.message;
      writeSync(2, `vkit: could not write to ${stream} (${why}): the command's output is incomplete\n`);
    } catch {
      // stderr cannot take it either: the exit code alone says it.
    }
  }
  return code === 0 ? BLOCKED : code;
}

let settling = false;

/**
 * Settles the exit code as the process exits: after every 'exit' listener installed before this one
 * (coalesce.ts flushes there), and after the write errors a pipe or a file reports a turn later.
 */
export function settleOutputAtExit(): void {
  if (settling) return;
  settling = true;
  process.on('exit', () => {
    process.exitCode = settleOutput(Number(process.exitCode ?? 0));
  });
}
