/**
 * Whether anything under a root changed: the watched resident build process's one question
 * (`vkit daemon start --watch`, watched-memo.ts). One inotify watch per directory and per file (node's
 * `fs.watch`, all on the event loop's single inotify instance: a file's own watch also hears a write
 * or a new hard link made through another directory, which its directory's watch does not), and
 * every event of any kind, on any name, bumps `generation`: the memo never asks *what* changed, only *whether*, so nothing here has to interpret
 * events correctly to be safe.
 *
 * Ordering is what makes "no event" mean "no change": the kernel queues one inotify instance's
 * events in order and node dispatches them in that order, so once the event of a file `settle()`
 * writes into a watched directory of its own arrives, every change made before it has been counted.
 * A queue overflow drops only events behind at least 16,384 delivered ones, so it can never leave
 * the generation unchanged. An error from any watch marks the whole view `broken` for good: the
 * memo drops everything and starts a new view (a full sweep).
 */
import { mkdirSync, rmSync, statfsSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

/** File systems whose changes the kernel reports to inotify for every writer (no network, no FUSE). */
const LOCAL_FILE_SYSTEMS = new Map<number, string>([
  [0xef53, 'ext2/3/4'],
  [0x58465342, 'xfs'],
  [0x9123683e, 'btrfs'],
  [0x01021994, 'tmpfs'],
  [0x794c7630, 'overlayfs'],
  [0x2fc12fc1, 'zfs'],
  [0xf2f52010, 'f2fs'],
  [0x52654973, 'reiserfs'],
]);

/** Why `path`'s file system cannot be watched soundly (named with its magic number), or undefined when it can. */
export function unwatchableFileSystem(path: string): string | undefined {
  let type: number;
  try {
    type = Number(statfsSync(path).type);
  } catch (error) {
    return `cannot tell the file system of ${path}: ${(error as Error).message}`;
  }
  return LOCAL_FILE_SYSTEMS.has(type)
    ? undefined
    : `${path} is on a file system vkit does not watch (type 0x${type.toString(16)}: network, FUSE and unknown file systems may change without telling the kernel's watcher)`;
}

export class TreeWatch {
  /** Bumped by every event outside the sentinel directory (and by every error). */
  generation = 0;
  /** Set once any watch failed: nothing this process saw since can be trusted to be complete. */
  broken: string | undefined;
  private readonly watchers = new Map<string, { watcher: FSWatcher; ino: bigint }>();
  private readonly pending = new Map<string, () => void>();
  private seq = 0;

  /** `sentinelDir` is private to this process (the daemon's own directory), never under the root. */
  constructor(private readonly sentinelDir: string) {
    mkdirSync(sentinelDir, { recursive: true, mode: 0o700 });
    this.add(sentinelDir, 0n, (name) => {
      const done = name ? this.pending.get(name) : undefined;
      if (done) {
        this.pending.delete(name!);
        done();
      }
    });
  }

  /**
   * Watches exactly `wanted` (absolute paths of directories and files, each with the inode it should
   * have) from now on: paths no longer wanted are dropped, new ones added, and one whose inode
   * changed (a file saved by renaming a new one over it) watched again. Returns how many watches
   * were added: each is a path that could have changed unseen before now.
   */
  cover(wanted: ReadonlyMap<string, bigint>): number {
    for (const [path, w] of this.watchers)
      if (path !== this.sentinelDir && wanted.get(path) !== w.ino) {
        w.watcher.close();
        this.watchers.delete(path);
      }
    let added = 0;
    for (const [path, ino] of wanted)
      if (!this.watchers.has(path) && !this.broken) {
        this.add(path, ino, () => void this.generation++);
        added++;
      }
    return added;
  }

  /** Resolves once every change made before the call has been counted (see the module comment). */
  settle(timeoutMs = 2000): Promise<void> {
    if (this.broken) return Promise.resolve();
    const name = `settle-${process.pid}-${this.seq++}`;
    return new Promise<void>((done) => {
      const timer = setTimeout(() => {
        this.pending.delete(name);
        this.fail(`the watcher did not report a change of its own within ${timeoutMs} ms`);
        done();
      }, timeoutMs);
      this.pending.set(name, () => {
        clearTimeout(timer);
        rmSync(join(this.sentinelDir, name), { force: true });
        done();
      });
      try {
        writeFileSync(join(this.sentinelDir, name), '');
      } catch (error) {
        this.pending.delete(name);
        clearTimeout(timer);
        this.fail(`cannot write the watcher's sentinel: ${(error as Error).message}`);
        done();
      }
    });
  }

  close(): void {
    for (const w of this.watchers.values()) w.watcher.close();
    this.watchers.clear();
  }

  private add(path: string, ino: bigint, onEvent: (name: string | null) => void): void {
    let w: FSWatcher;
    try {
      w = watch(path, { persistent: false }, (_type, name) => onEvent(typeof name === 'string' ? name : null));
    } catch (error) {
      // A path gone between the walk and now is a change; anything else (no watches left) is a failure.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return void this.generation++;
      return this.fail(`cannot watch ${path}: ${(error as Error).message}`);
    }
    w.on('error', (error) => this.fail(`watching ${path} failed: ${error.message}`));
    this.watchers.set(path, { watcher: w, ino });
  }

  private fail(why: string): void {
    this.generation++;
    this.broken ??= why;
  }
}
