/**
 * The scratch directory a `coq-linux-x86_64-v1` run's containers write into: made by the host, and
 * read or kept only as regular files, never through a link a container may have planted.
 */
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Host-made and world-writable, so files the container (uid 65534) writes can be removed by us. */
export function makeWritableDirs(dirs: string[]): void {
  for (const d of dirs) {
    mkdirSync(d, { recursive: true });
    chmodSync(d, 0o777);
  }
}

export function sha(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** A regular file's text (never through a link the container may have planted), or undefined. */
export function readRegular(path: string): string | undefined {
  try {
    return lstatSync(path).isFile() ? readFileSync(path, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

export function hashes(scratch: string, rels: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of rels) {
    const p = join(scratch, rel);
    if (existsSync(p) && lstatSync(p).isFile()) out[rel] = sha(readFileSync(p));
  }
  return out;
}

/** Copies a regular file from the scratch directory into the retained output (links are skipped). */
export function keep(scratch: string, rel: string, out: string, as: string, artifacts: string[]): void {
  const from = join(scratch, rel);
  if (!existsSync(from) || !lstatSync(from).isFile()) return;
  const to = join(out, as);
  mkdirSync(join(to, '..'), { recursive: true });
  copyFileSync(from, to);
  artifacts.push(as);
}
