/**
 * Seeing from outside whether a command ran git (a no-op record's recall runs none): `git` on a
 * test's PATH becomes a wrapper that appends a line to a log for every call, then runs the real one.
 */
import { chmodSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliResult } from './repo.js';

/** Writes the wrapper into `bin` (put `bin` first on PATH); returns whether `run` called git. */
export function gitLogger(bin: string, log: string) {
  const git = lstatSync('/usr/bin/git').isFile() ? '/usr/bin/git' : 'git';
  writeFileSync(join(bin, 'git'), `#!/bin/sh\necho x >> '${log}'\nexec ${git} "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  const calls = () => {
    try {
      return readFileSync(log, 'utf8').length;
    } catch {
      return 0;
    }
  };
  /** Runs `run` and says whether its answer came from a record (it ran no git). */
  return (run: () => CliResult) => {
    const before = calls();
    const r = run();
    return { r, recalled: calls() === before };
  };
}
