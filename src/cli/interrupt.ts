/**
 * Where a verb hears "stop": the process's own SIGINT/SIGTERM, or, when a resident build process
 * (`vkit daemon`) serves the command line, its client's Ctrl-C relayed over the socket. Verbs ask
 * here instead of listening on `process`, so a served request never touches the server's signals.
 */
export type Interrupt = 'SIGINT' | 'SIGTERM';

export interface InterruptSource {
  /** Calls `listener` on each interrupt until the returned function is called. */
  listen(listener: (signal: Interrupt) => void): () => void;
  /** A second interrupt: leave now. A served request leaves nothing: its client exits by itself. */
  exitNow(signal: Interrupt): void;
}

const processSignals: InterruptSource = {
  listen(listener) {
    process.on('SIGINT', listener);
    process.on('SIGTERM', listener);
    return () => {
      process.off('SIGINT', listener);
      process.off('SIGTERM', listener);
    };
  },
  exitNow: (signal) => process.exit(signal === 'SIGINT' ? 130 : 143),
};

let current: InterruptSource = processSignals;

export function interrupts(): InterruptSource {
  return current;
}

/** Serves one request with `source` as its interrupts; the process's own signals come back after. */
export async function withInterrupts<T>(source: InterruptSource, fn: () => Promise<T>): Promise<T> {
  current = source;
  try {
    return await fn();
  } finally {
    current = processSignals;
  }
}
