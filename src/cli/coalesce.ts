/**
 * A one-off `build` or `gate` prints a line per action: at 1,000 actions that was 1,000 write calls
 * on stdout, ~20 ms of a no-op (each a system call through node's stream machinery). Lines written
 * in one turn of the event loop now leave in one write, stdout and stderr in the order written (a
 * switch between them sends what came before first), at least every 64 KiB, and whatever is left
 * when the process exits (writes to files, pipes and terminals are synchronous on Linux and macOS,
 * so an exit still delivers them). A write with an encoding or a callback goes straight through,
 * after what waits. The resident process (`vkit daemon`) batches its own output (`OutputFrames`).
 */
type Write = (chunk: unknown, encoding?: unknown, done?: unknown) => boolean;

const FLUSH_BYTES = 64 * 1024;

export function coalesceOutput(): void {
  let waiting: { write: Write; parts: string[]; size: number } | undefined;
  let scheduled = false;
  const flush = () => {
    const w = waiting;
    waiting = undefined;
    if (w) w.write(w.parts.length === 1 ? w.parts[0] : w.parts.join(''));
  };
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as Write;
    stream.write = ((chunk: unknown, encoding?: unknown, done?: unknown) => {
      if (typeof chunk !== 'string' || encoding !== undefined || done !== undefined) {
        flush();
        return write(chunk, encoding, done);
      }
      if (waiting && waiting.write !== write) flush();
      waiting ??= { write, parts: [], size: 0 };
      waiting.parts.push(chunk);
      waiting.size += chunk.length;
      if (waiting.size >= FLUSH_BYTES) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          flush();
        });
      }
      return true;
    }) as typeof stream.write;
  }
  process.on('exit', flush);
}
