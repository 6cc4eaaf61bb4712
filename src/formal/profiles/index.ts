/**
 * The profile registry: profile id -> the procedure a verifier follows. Profiles are imported
 * lazily, so builds without formal components never load them (or dockerode).
 */
import { loadKinds } from '../../config/kind.js';
import type { CheckerPlan, Profile, Sandbox, ToolTree } from '../types.js';

const LOADERS: Record<string, () => Promise<Profile>> = {
  'coq-linux-x86_64-v1': async () => (await import('./coq.js')).coqProfile,
  'verus-linux-x86_64-v1': async () => (await import('./verus.js')).verusProfile,
};

/** The profile with this id, or undefined when this vkit has none (or its module is not built). */
export async function loadProfile(id: string): Promise<Profile | undefined> {
  const load = LOADERS[id];
  if (!load) return undefined;
  try {
    return await load();
  } catch (error) {
    // A profile module that is missing from this build is the same as an unknown profile to the
    // caller (BLOCKED, named); any other failure is a bug and must surface.
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}

/** What any checker profile has, whichever library or kind defines it: its id and its checker. */
export type AnyProfile = Pick<Profile, 'id' | 'checker'>;

/** The installed kinds' checker profile groups (a model checker's), for `vkit doctor`. */
export async function kindProfileGroups(): Promise<{ label: string; ids: readonly string[] }[]> {
  return (await loadKinds()).kinds.flatMap((k) =>
    k.profiles ? [{ label: k.profiles.label, ids: k.profiles.ids }] : [],
  );
}

/**
 * A profile by id: the formal library's own (Coq, Verus), else one an installed kind contributes.
 * A contributed value without an id equal to the one asked and a checker function is no profile
 * (undefined: what needs it is BLOCKED or refused, named).
 */
export async function loadAnyProfile(id: string): Promise<AnyProfile | undefined> {
  const own = await loadProfile(id);
  if (own) return own;
  for (const kind of (await loadKinds()).kinds) {
    if (!kind.profiles?.ids.includes(id)) continue;
    const p = (await kind.profiles.load(id)) as Partial<AnyProfile> | undefined;
    if (p && p.id === id && typeof p.checker === 'function') return p as AnyProfile;
  }
  return undefined;
}

/** The default engine socket, named in messages when the sandbox module itself is absent. */
const DEFAULT_SOCKET = 'unix:///tmp/podman.sock';

/** Opens the container engine, or says why it cannot (naming the socket). Never throws. */
async function openSandboxOrWhy(env: Record<string, string | undefined>): Promise<Sandbox | { unavailable: string }> {
  let mod: { openSandbox(socket?: string): Promise<Sandbox | { unavailable: string }> };
  try {
    mod = await import('../../checkers/container.js');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND')
      return {
        unavailable: `container support is not built into this vkit (socket ${env.VKIT_CONTAINER_SOCKET ?? DEFAULT_SOCKET})`,
      };
    throw error;
  }
  try {
    return await mod.openSandbox(env.VKIT_CONTAINER_SOCKET);
  } catch (error) {
    return {
      unavailable: `no container engine answering on ${env.VKIT_CONTAINER_SOCKET ?? DEFAULT_SOCKET}: ${(error as Error).message}`,
    };
  }
}

export type ResolvedChecker =
  | { ok: true; sandbox: Sandbox; plan: CheckerPlan & { image: string }; tree: ToolTree }
  | { ok: false; missing: string[]; sandbox?: Sandbox };

/**
 * The checker a profile would run here: the engine, the profile's assets (each missing one named)
 * and the digest of the tool tree inside the worker image (not the image id, so an image rebuilt
 * from the same packages matches).
 */
export async function resolveChecker(
  profile: Pick<Profile, 'checker'>,
  env: Record<string, string | undefined>,
): Promise<ResolvedChecker> {
  const sandbox = await openSandboxOrWhy(env);
  if ('unavailable' in sandbox) {
    // The profile may still name its own missing assets (pins, archives) without an engine.
    const plan = await profile.checker(undefined, env).catch(() => ({ toolPaths: [], missing: [] }) as CheckerPlan);
    return { ok: false, missing: [sandbox.unavailable, ...plan.missing] };
  }
  const plan = await profile.checker(sandbox, env);
  if (plan.missing.length || !plan.image)
    return { ok: false, missing: plan.missing.length ? plan.missing : ['the worker image is not installed'], sandbox };
  const tree = await sandbox.toolTree(plan.image, plan.toolPaths);
  return { ok: true, sandbox, plan: { ...plan, image: plan.image }, tree };
}
