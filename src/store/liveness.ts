/**
 * Who owns an attempt: host, pid and the process's start time, so a recycled pid is not mistaken
 * for the original worker. Linux reads the start time from /proc; elsewhere it is unknown and an
 * attempt is only ever considered gone when its pid is.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface Owner {
  host: string;
  pid: number;
  pidStart: string;
}

function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses; fields resume after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[19]; // field 22, starttime in clock ticks since boot
  } catch {
    return undefined;
  }
}

export function currentOwner(): Owner {
  return { host: hostname(), pid: process.pid, pidStart: processStartTime(process.pid) ?? 'unknown' };
}

/** True when the owner process still runs. Another host's worker is presumed alive: we cannot see it. */
export function ownerAlive(owner: Owner): boolean {
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const start = processStartTime(owner.pid);
  return start === undefined || owner.pidStart === 'unknown' || start === owner.pidStart;
}
