/**
 * The steps the container-running rules (formal-check, model-check, qualify) share. Each step gives
 * what the next one needs or the reason the action is BLOCKED (claim unknown): a step that cannot
 * go on never lets the action reach PASS.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActionResult, ExecuteIO } from '../config/rule.js';
import { VkitError } from '../errors.js';
import { captureFormal, type FormalCapture, type FormalSource, materialise } from './capture.js';
import { type CurrentIdentity, compareLock, type LockEntry, readLock } from './lock.js';
import { type ResolvedChecker, resolveChecker } from './profiles/index.js';
import type { Profile, RunSetting } from './types.js';

/** What a step gives the next one, or why the action cannot go on. */
export type Step<T> = { ok: true; value: T } | { ok: false; reason: string };

export function blocked(reason: string, extra: Partial<ActionResult> = {}): ActionResult {
  return { outcome: 'BLOCKED', claim: 'unknown', reason, artifacts: [], ...extra };
}

/** The accepted lock entry under `key` (undefined when there is none), or why the lock is unreadable. */
export function lockEntryAt(root: string, key: string): Step<LockEntry | undefined> {
  try {
    return { ok: true, value: readLock(root)?.components[key] };
  } catch (error) {
    return { ok: false, reason: `vkit.lock.json is invalid: ${(error as Error).message}` };
  }
}

/** The formal capture of the inputs; a refused input (secret, link, special file) is a reason, not a crash. */
export async function captureInputs(
  root: string,
  inputs: readonly string[],
  source: FormalSource,
): Promise<Step<FormalCapture>> {
  try {
    return { ok: true, value: await captureFormal(root, inputs, source) };
  } catch (error) {
    if (error instanceof VkitError) return { ok: false, reason: `capture refused: ${error.message}` };
    throw error;
  }
}

/**
 * The profile's checker resolved here, its tool tree hashed and compared with the accepted digest
 * in the lock entry; a mismatch names both digests and the image, so the operator sees what moved.
 */
export async function acceptedChecker(
  profile: Pick<Profile, 'checker'>,
  env: Record<string, string | undefined>,
  lockEntry: LockEntry | undefined,
  current: Omit<CurrentIdentity, 'checker_sha256'>,
): Promise<Step<Extract<ResolvedChecker, { ok: true }>>> {
  const resolved = await resolveChecker(profile, env);
  if (!resolved.ok) return { ok: false, reason: `checker unavailable: ${resolved.missing.join('; ')}` };
  const checker = compareLock(lockEntry, { ...current, checker_sha256: resolved.tree.digest });
  if (!checker.ok)
    return {
      ok: false,
      reason: `${checker.reason} (accepted ${lockEntry!.checker_sha256}, found ${resolved.tree.digest} in image ${resolved.plan.image})`,
    };
  return { ok: true, value: resolved };
}

/**
 * Runs `work` with the capture materialised for uid 65534 and a private output directory (prefix
 * `out.prefix`, mode `out.mode`) added to `setting`; both directories are removed afterwards,
 * whatever happens.
 */
export async function inWorkspace<T>(
  capture: FormalCapture,
  out: { prefix: string; mode: number },
  setting: Omit<RunSetting, 'source' | 'out'>,
  work: (setting: RunSetting) => Promise<T>,
): Promise<T> {
  const temps: string[] = [];
  try {
    const source = materialise(capture);
    temps.push(source);
    const dir = mkdtempSync(join(tmpdir(), out.prefix));
    temps.push(dir);
    chmodSync(dir, out.mode);
    return await work({ ...setting, source, out: dir });
  } finally {
    for (const t of temps) rmSync(t, { recursive: true, force: true });
  }
}

/** The profile's outcome, or why it failed to run (its error is the action's reason, not a crash). */
export async function runProfile<T>(profileId: string, run: () => Promise<T>): Promise<Step<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, reason: `profile ${profileId} failed to run: ${(error as Error).message}` };
  }
}

/**
 * Validates the files the profile left in `out` against those it listed and stores each as an
 * `out/<path>` artifact; undefined when all is kept, else why the retained evidence was rejected.
 */
export async function keepRetained(
  io: ExecuteIO,
  out: string,
  listed: readonly string[],
  artifacts: ActionResult['artifacts'],
): Promise<string | undefined> {
  let retained: string[];
  try {
    // Loaded here: builds without formal or model items never load it.
    retained = await (await import('./retained.js')).validateRetained(out, listed);
  } catch (error) {
    return `retained evidence rejected: ${(error as Error).message}`;
  }
  for (const rel of retained) artifacts.push({ name: `out/${rel}`, ...(await io.putFile(join(out, rel))) });
  return undefined;
}
