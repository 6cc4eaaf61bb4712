/**
 * The assets of a model-checking profile that cannot be built here (TLC, Lean): a pins file beside
 * the profile naming each pinned asset's version and digest, a worker image named by its full id in
 * an environment variable, and host paths of the pinned tools. Each check returns the missing or
 * unusable assets, one entry each, so a profile's `checker()` can name every one of them (the
 * Verus profile, src/formal/profiles/verus.ts, is the pattern). Nothing here runs a tool.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sandbox } from '../../../src/checkers/container.js';
import { canonicalJson } from '../../../src/hash/index.js';
import type { CheckerPlan } from '../../../src/formal/types.js';

export interface ModelPin {
  asset: string;
  version: string;
  what: string;
  /** `sha256:<64 hex>`, or null when it could not be obtained (which keeps the profile BLOCKED). */
  sha256: string | null;
}

const FULL_IMAGE_ID = /^sha256:[0-9a-f]{64}$/;

/**
 * A profile's pins file (`rules/model/lib/<tool>/pins.json`), found from this module the way the
 * package root is: up to the directory holding vkit's `package.json` and `rules/model/lib`.
 */
export function pinsFile(tool: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'rules', 'model', 'lib', tool, 'pins.json');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) return join(dirname(fileURLToPath(import.meta.url)), tool, 'pins.json');
    dir = up;
  }
}

/** Reads a pins file; anything unexpected is an error the caller reports as a missing asset (fail closed). */
export function readModelPins(file: string, profile: string): { pins: ModelPin[] } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    return { error: `pins file unreadable (${file}): ${(e as Error).message}` };
  }
  const r = raw as { schema?: unknown; profile?: unknown; pins?: unknown };
  if (r.schema !== 'vkit.model-pins/1') return { error: `pins file ${file} is not a \`vkit.model-pins/1\` file` };
  if (r.profile !== profile) return { error: `pins file ${file} is for \`${String(r.profile)}\`, not ${profile}` };
  if (!Array.isArray(r.pins) || r.pins.length === 0) return { error: `pins file ${file} has no \`pins\` list` };
  const out: ModelPin[] = [];
  for (const p of r.pins as Record<string, unknown>[]) {
    if (typeof p?.asset !== 'string' || typeof p.version !== 'string' || typeof p.what !== 'string')
      return { error: `pins file ${file}: a pin lacks asset/version/what` };
    if (p.sha256 !== null && !(typeof p.sha256 === 'string' && /^sha256:[0-9a-f]{64}$/.test(p.sha256)))
      return { error: `pins file ${file}: pin \`${p.asset}\` has a malformed sha256` };
    out.push({ asset: p.asset, version: p.version, what: p.what, sha256: p.sha256 as string | null });
  }
  return { pins: out };
}

/** `pin digest not recorded: <asset> <version> (<what>)`: the entry a null digest adds. */
export const unrecordedPin = (pin: ModelPin) => `pin digest not recorded: ${pin.asset} ${pin.version} (${pin.what})`;

export function platformProblem(platform: { os: string; arch: string }): string | undefined {
  return platform.os === 'linux' && platform.arch === 'x64'
    ? undefined
    : `this profile requires Linux x86_64, this host is ${platform.os}/${platform.arch}`;
}

/**
 * The worker image named by `envName` (a full `sha256:` id, never a tag): its resolved id, or the
 * one problem with it.
 */
export async function checkImage(
  sandbox: Sandbox | undefined,
  envName: string,
  value: string | undefined,
  what: string,
): Promise<{ image: string } | { missing: string }> {
  const ref = value?.trim();
  if (!ref) return { missing: `${envName} not set: give the full \`sha256:\` id of the installed ${what}` };
  if (!FULL_IMAGE_ID.test(ref))
    return { missing: `${envName} must be a full \`sha256:<64 hex>\` image id (a tag can move), got \`${ref}\`` };
  if (!sandbox) return { missing: `${envName} ${ref} not checked: no container engine answering` };
  try {
    const id = await sandbox.imageId(ref);
    if (id === undefined)
      return { missing: `${envName} ${ref} is not installed in the container engine (${sandbox.socket})` };
    if (id !== ref) return { missing: `${envName} ${ref} changed: the engine resolves it to ${id}` };
    return { image: id };
  } catch (e) {
    return { missing: `${envName} ${ref} not checked: the container engine failed (${(e as Error).message})` };
  }
}

export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The host path `envName` names, when it is absolute and of the right type; else the problem. */
export function checkHostPath(
  envName: string,
  value: string | undefined,
  type: 'file' | 'directory',
  what: string,
): { path: string } | { missing: string } {
  const path = value?.trim();
  if (!path) return { missing: `${envName} not set: give the absolute path of ${what}` };
  if (!isAbsolute(path) || !(type === 'file' ? isFile(path) : isDir(path)))
    return { missing: `${envName} ${path} is not an absolute path to an existing ${type}` };
  return { path };
}

export async function fileSha256(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return `sha256:${h.digest('hex')}`;
}

/**
 * A directory tree's digest: the canonical JSON of the sorted (path, mode, sha256 or link target)
 * of every regular file and symlink under it. Used only when a tree pin has a digest to compare.
 */
export async function treeSha256(root: string): Promise<string> {
  const entries: { path: string; mode: string; sha256?: string; link?: string }[] = [];
  const walk = async (rel: string): Promise<void> => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(root, r));
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) entries.push({ path: r, mode, link: readlinkSync(join(root, r)) });
      else if (st.isDirectory()) await walk(r);
      else if (st.isFile()) entries.push({ path: r, mode, sha256: await fileSha256(join(root, r)) });
    }
  };
  await walk('');
  return `sha256:${createHash('sha256').update(canonicalJson(entries)).digest('hex')}`;
}

/**
 * A pinned profile's `checker()` answer: the image only when no asset is missing, and a failure
 * while looking named as a missing asset (`<name> checker could not be resolved: ...`), never thrown.
 */
export async function pinnedCheckerPlan(
  name: string,
  toolPaths: string[],
  look: () => Promise<{ missing: string[]; image?: string }>,
): Promise<CheckerPlan> {
  try {
    const { missing, image } = await look();
    return image === undefined || missing.length ? { toolPaths, missing } : { image, toolPaths, missing };
  } catch (e) {
    return { toolPaths, missing: [`${name} checker could not be resolved: ${(e as Error).message}`] };
  }
}
