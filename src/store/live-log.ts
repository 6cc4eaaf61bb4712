/**
 * Live logs: while an action runs, each of its processes writes stdout and stderr to a pair of temp
 * files in the store's `tmp/`, named after the action key, so a watcher (the TUI) can find and tail
 * them by the key its events carry, without asking the store's index. Reading changes nothing: the
 * worker alone puts the finished files into the CAS, and the names never enter a key or a receipt.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { forTerminal } from '../text/ansi.js';

const LIVE = '-live-';
/** A live log's name: `<pid>-<ms>-<seq>` (the temp path's own stamp, gc's pid first) then the key's hex. */
const NAME = /^(\d+)-(\d+)-(\d+)-live-([0-9a-f]{64})\.(stdout|stderr)$/;

/** The hex of an action key (`sha256:<hex>`), or undefined for anything else. */
function keyHex(key: string): string | undefined {
  return /^sha256:([0-9a-f]{64})$/.exec(key)?.[1];
}

/**
 * Where one process of the action keyed `key` writes its output, from a fresh temp path `stamp`
 * (`Cas.tempPath`): the stamp itself for a key that is not a digest (then nothing can tail them).
 */
export function liveLogPaths(stamp: string, key: string): { stdout: string; stderr: string } {
  const hex = keyHex(key);
  if (!hex) return { stdout: `${stamp}.stdout`, stderr: `${stamp}.stderr` };
  return { stdout: `${stamp}${LIVE}${hex}.stdout`, stderr: `${stamp}${LIVE}${hex}.stderr` };
}

export interface Tail {
  /** The last lines, escapes and control characters stripped, empty lines left out. */
  lines: string[];
  /** The file's last line had no newline yet (it may still grow). */
  partial: boolean;
  /** Bytes before the tail were not read. */
  cut: boolean;
}

/**
 * The last `maxLines` lines of a file that may be growing, shrinking or gone, from its last
 * `maxBytes` only, so a log of any size costs that much. Undefined when the file cannot be read.
 */
export function readTail(path: string, maxBytes: number, maxLines: number): Tail | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  let bytes: Buffer;
  let start: number;
  try {
    const size = fstatSync(fd).size;
    start = Math.max(0, size - maxBytes);
    const buffer = Buffer.alloc(Math.min(size, maxBytes));
    // A file truncated since the stat reads short: only the bytes read count.
    let got = 0;
    while (got < buffer.length) {
      const n = readSync(fd, buffer, got, buffer.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    bytes = buffer.subarray(0, got);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
  const raw = bytes.toString('utf8').split('\n');
  const partial = raw.at(-1) !== '';
  if (!partial) raw.pop();
  // Started inside the log: the first piece is the end of a longer line, dropped when others follow.
  if (start > 0 && raw.length > 1) raw.shift();
  const lines = raw
    .map(lastRewrite)
    .map(forTerminal)
    .filter((l) => l.trim().length > 0);
  return { lines: lines.slice(-maxLines), partial, cut: start > 0 };
}

/** What a terminal would show of a line a carriage return rewrote (a progress bar): its last rewrite. */
function lastRewrite(line: string): string {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  return text.slice(text.lastIndexOf('\r') + 1);
}

export interface LiveOutput {
  stdout: Tail;
  stderr: Tail;
}

export interface LiveRead {
  /** Epoch ms the action started: files stamped earlier are an earlier attempt's leftovers (a killed worker's). */
  since?: number;
  maxBytes?: number;
  maxLines?: number;
}

/**
 * The tails of the latest process the action keyed `key` started (its output files still being
 * written), or undefined when there are none: not started yet, ended, or the store's `tmp/` unreadable.
 */
export function readLiveOutput(storeDir: string, key: string, opts: LiveRead = {}): LiveOutput | undefined {
  const { since = 0, maxBytes = 16 * 1024, maxLines = 12 } = opts;
  const hex = keyHex(key);
  if (!hex) return undefined;
  const tmp = join(storeDir, 'tmp');
  let names: string[];
  try {
    names = readdirSync(tmp);
  } catch {
    return undefined;
  }
  // The latest stamp (start time, then sequence) is the process running now; older ones are leftovers.
  let best: { stamp: string; ms: number; seq: number } | undefined;
  for (const name of names) {
    const m = NAME.exec(name);
    const ms = Number(m?.[2]);
    if (!m || m[4] !== hex || ms < since) continue;
    const seq = Number(m[3]);
    if (!best || ms > best.ms || (ms === best.ms && seq > best.seq))
      best = { stamp: `${m[1]}-${m[2]}-${m[3]}`, ms, seq };
  }
  if (!best) return undefined;
  const read = (stream: string) => readTail(join(tmp, `${best.stamp}${LIVE}${hex}.${stream}`), maxBytes, maxLines);
  const stdout = read('stdout');
  const stderr = read('stderr');
  if (!stdout && !stderr) return undefined;
  const none: Tail = { lines: [], partial: false, cut: false };
  return { stdout: stdout ?? none, stderr: stderr ?? none };
}
