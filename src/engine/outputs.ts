/**
 * Declared outputs on disk against the result that made them. A result vouches for its outputs'
 * bytes (artifacts `outputs/<path>`): a hit is refused (rerun by a build, STALE for the gate) when
 * they are gone or other, and a build checks again, after its jobs, every result some other job of
 * the build may have written over (a sibling writing a file another check declares), so that it
 * never ends READY on outputs the tree no longer holds.
 */
import { join } from 'node:path';
import { hashPath, type FileStates } from '../capture/files.js';

type Artifacts = readonly { name: string; sha256: string }[];

const PREFIX = 'outputs/';

/** How a result whose outputs on disk moved is said, before what moved. */
export const OUTPUTS_MOVED = 'its outputs on disk are not the ones its evidence names';

/** Whether a result names declared outputs (a no-op build over checks without any costs nothing more). */
export function hasOutputs(artifacts: Artifacts): boolean {
  return artifacts.some((a) => a.name.startsWith(PREFIX));
}

/**
 * The first declared output whose bytes on disk differ from the result's, said as `<path> changed`
 * or `<path> is missing`, or undefined. Through the file-state cache: an output whose stat
 * fingerprint is the one its digest was recorded under is not read again.
 */
export function movedOutputs(root: string, artifacts: Artifacts, states: FileStates): string | undefined {
  for (const a of artifacts) {
    if (!a.name.startsWith(PREFIX)) continue;
    const path = a.name.slice(PREFIX.length);
    let onDisk;
    try {
      onDisk = hashPath(join(root, path), 'raw', states);
    } catch {
      // A special file, or one vkit may not read, is not the regular file the result names.
      onDisk = undefined;
    }
    if (onDisk?.sha256 !== a.sha256) return onDisk ? `${path} changed` : `${path} is missing`;
  }
  return undefined;
}

/** A moment of a build's jobs: how many had started, and which were running. */
export interface JobMark {
  started: number;
  running: readonly string[];
}

/**
 * The jobs of one build in the order they started, and which are running: what could have written
 * over a result's outputs after the moment they were checked (a hit) or made (a job's own start,
 * its worker hashing them at its end).
 */
export class JobTimeline {
  private readonly started: string[] = [];
  private readonly running = new Set<string>();

  /** Now, for a result whose outputs are being checked. */
  mark(): JobMark {
    return { started: this.started.length, running: [...this.running] };
  }

  /** A job of `label` starts; the mark it returns is taken just before. */
  start(label: string): JobMark {
    const mark = this.mark();
    this.started.push(label);
    this.running.add(label);
    return mark;
  }

  end(label: string): void {
    this.running.delete(label);
  }

  /** The labels of jobs other than `self`'s that ran at some time after `mark`: running then, or started since. */
  since(mark: JobMark, self: string): string[] {
    const labels = new Set([...mark.running, ...this.started.slice(mark.started)]);
    labels.delete(self);
    return [...labels];
  }
}

/** A result whose outputs a build relied on, from the moment `mark`. */
export interface Vouched {
  label: string;
  artifacts: Artifacts;
  mark: JobMark;
  /** For a job's own result: the jobs that ran while it made and hashed its outputs (none, as jobs making outputs run alone). */
  beside?: readonly string[];
}

/**
 * After a build's jobs: for each result another job may have written over since it was vouched
 * for, why its outputs on disk no longer stand (by label). Only those are looked at, so a build
 * whose one job is a check's own costs no second read of what that job just wrote.
 */
export function rewrittenOutputs(
  root: string,
  states: FileStates,
  timeline: JobTimeline,
  vouched: readonly Vouched[],
): Map<string, string> {
  const reasons = new Map<string, string>();
  for (const v of vouched) {
    // Checked whatever the scheduler promises: outputs hashed while another job could write are no one's.
    if (v.beside?.length) {
      reasons.set(
        v.label,
        `${OUTPUTS_MOVED}: they were made while ${v.beside.join(', ')} ran beside it, so what they hold may not be its own; run vkit build`,
      );
      continue;
    }
    const others = timeline.since(v.mark, v.label);
    if (others.length === 0) continue;
    const moved = movedOutputs(root, v.artifacts, states);
    if (moved)
      reasons.set(
        v.label,
        `${OUTPUTS_MOVED}: ${moved} while ${others.join(', ')} ran in this build (a declared output must be written by its own check only); run vkit build`,
      );
  }
  return reasons;
}
