/**
 * Whether a file-watcher event on a path is a change, judged by vkit's own fingerprint (size, mtime,
 * ctime, inode; the file-state cache's and the engine's), never by the watcher's. chokidar reports a
 * file's `change` only when its mtime moved, so an edit that puts the mtime back (`touch -r`,
 * `cp -p`, `tar -x`, an editor keeping times) would start no cycle while the engine, whose
 * fingerprint holds the ctime, sees it. The watch loop feeds every event here, chokidar's raw
 * `fs.watch` events included, and the judge drops only an event whose path has the very state it
 * had at an event already counted (a cycle was scheduled for that state).
 */
import { lstatSync, statSync, type BigIntStats } from 'node:fs';
import { basename, join } from 'node:path';
import { fingerprintKey, fingerprintOf } from '../capture/files.js';

/** The path's state as the engine would judge it: its own (lstat) and, for a link, its target's (stat). */
function stateOf(abs: string): string {
  const one = (stat: (p: string, o: { bigint: true; throwIfNoEntry: false }) => BigIntStats | undefined) => {
    try {
      const st = stat(abs, { bigint: true, throwIfNoEntry: false });
      return st ? fingerprintKey(fingerprintOf(st)) : 'absent';
    } catch (error) {
      return `error ${(error as NodeJS.ErrnoException).code}`;
    }
  };
  return `${one(lstatSync)}|${one(statSync)}`;
}

export class ChangeJudge {
  /** Each path's state at the last event counted for it. */
  private readonly counted = new Map<string, string>();

  /**
   * Whether an event on `abs` is a change not counted yet: true for the first event on a path
   * (nothing counted to compare with) and whenever its state differs from the last one counted.
   */
  changed(abs: string): boolean {
    const state = stateOf(abs);
    if (this.counted.get(abs) === state) return false;
    this.counted.set(abs, state);
    return true;
  }
}

/**
 * The path a raw `fs.watch` event is about: a directory's watch names an entry inside it, a
 * file's own watch names the file itself (by its base name).
 */
export function rawEventPath(watched: string, name: string | null | undefined): string {
  if (!name) return watched;
  if (basename(watched) !== name) return join(watched, name);
  try {
    return lstatSync(watched, { throwIfNoEntry: false })?.isDirectory() ? join(watched, name) : watched;
  } catch {
    return watched; // unreadable: judged (and counted) as the path it is
  }
}
