/**
 * `vkit doctor`: what this machine can do for vkit, each part tried for real (a check confined in
 * each sandbox backend, the container engine pinged, each verifier's assets looked up), and for
 * each missing part the command that adds it. A report: it changes nothing.
 */
import { existsSync } from 'node:fs';
import { STATUS_FD } from '../checkers/process.js';
import { findBwrap } from '../checkers/sandbox.js';
import { probeSandbox } from '../checkers/sandbox-backend.js';
import { findBuiltinTools } from '../checkers/sandbox-builtin.js';
import { kindProfileGroups, loadAnyProfile, loadProfile, resolveChecker } from '../formal/profiles/index.js';

interface DoctorPart {
  /** What was looked at: `sandbox: bwrap`, `container engine`, `formal: coq-linux-x86_64-v1`, ... */
  part: string;
  /** `ok`, `missing` (vkit works without it: what needs it is BLOCKED, named), or `info`. */
  status: 'ok' | 'missing' | 'info';
  detail: string;
  /** The command or step that adds a missing part. */
  fix?: string;
}

export interface DoctorReport {
  schema: 'vkit.doctor/1';
  /** The sandbox sandboxed checks get here, or null when none can run (then they are BLOCKED). */
  sandbox: string | null;
  parts: DoctorPart[];
}

const FORMAL_PROFILES = ['coq-linux-x86_64-v1', 'verus-linux-x86_64-v1'];

export async function doctor(env: Record<string, string | undefined> = process.env): Promise<DoctorReport> {
  const parts: DoctorPart[] = [];
  const sandbox = await sandboxParts(env, parts);
  parts.push(...(await verifierParts(env)));
  parts.push(remotePart(env));
  return { schema: 'vkit.doctor/1', sandbox, parts };
}

/** Each backend tried on `/bin/true`; the one vkit would use named. */
async function sandboxParts(env: Record<string, string | undefined>, parts: DoctorPart[]): Promise<string | null> {
  let inUse: string | null = null;
  const asked = env.VKIT_SANDBOX;
  const bwrap = findBwrap(env.PATH);
  const tried: Array<['bwrap' | 'builtin', string | undefined]> = [
    ['bwrap', bwrap ? await probeSandbox('bwrap', env, STATUS_FD) : 'bubblewrap (bwrap) is not on PATH'],
    [
      'builtin',
      'missing' in findBuiltinTools(env.PATH)
        ? 'util-linux programs are missing'
        : await probeSandbox('builtin', env, STATUS_FD),
    ],
  ];
  for (const [name, problem] of tried) {
    const label = name === 'bwrap' ? 'bubblewrap' : 'built-in (util-linux)';
    const chosen = !problem && inUse === null && (!asked || asked === name);
    if (chosen) inUse = label;
    parts.push({
      part: `sandbox: ${label}`,
      status: problem ? 'missing' : 'ok',
      detail: problem ?? (chosen ? 'works; sandboxed checks use it' : 'works'),
      ...(problem
        ? {
            fix:
              name === 'bwrap'
                ? 'apt-get install bubblewrap (Fedora: dnf install bubblewrap); optional while the built-in sandbox works'
                : /namespace|ENOSPC|Operation not permitted|No space left/.test(problem)
                  ? 'enable user namespaces (sysctl -w user.max_user_namespaces=15000; kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 an AppArmor profile allowing userns), or install bubblewrap'
                  : 'install util-linux (every Linux base system has it), or install bubblewrap',
          }
        : {}),
    });
  }
  return inUse;
}

/** The container engine, then each formal and model-checking profile's assets (images, toolchains). */
async function verifierParts(env: Record<string, string | undefined>): Promise<DoctorPart[]> {
  const parts: DoctorPart[] = [];
  const socket = env.VKIT_CONTAINER_SOCKET ?? 'unix:///tmp/podman.sock';
  let engineMissing: string | undefined;
  for (const id of FORMAL_PROFILES) {
    const profile = await loadProfile(id);
    if (!profile) continue;
    const r = await resolveChecker(profile, env);
    if (!r.ok) engineMissing ??= r.missing.find((m) => m.includes('container engine') || m.includes('socket'));
    parts.push(assetPart(`formal: ${id}`, r.ok ? undefined : r.missing.filter((m) => m !== engineMissing)));
  }
  // The kinds' own checker profiles (model checking's), under the label each kind gives them.
  for (const group of await kindProfileGroups())
    for (const id of group.ids) {
      const profile = await loadAnyProfile(id);
      if (!profile) continue;
      const r = await resolveChecker(profile, env);
      parts.push(assetPart(`${group.label}: ${id}`, r.ok ? undefined : r.missing.filter((m) => m !== engineMissing)));
    }
  parts.unshift(
    engineMissing
      ? {
          part: 'container engine',
          status: 'missing',
          detail: engineMissing,
          fix: `apt-get install podman (Fedora: dnf install podman), then serve its Docker API on ${socket} (podman system service --time=0 ${socket} &), or point VKIT_CONTAINER_SOCKET at an engine`,
        }
      : { part: 'container engine', status: 'ok', detail: `answers on ${socket}` },
  );
  return parts;
}

function assetPart(part: string, missing: string[] | undefined): DoctorPart {
  if (!missing) return { part, status: 'ok', detail: 'its worker image and assets are here' };
  return {
    part,
    status: 'missing',
    detail: missing.length ? missing.join('; ') : 'needs the container engine',
    fix: `formal items using it are BLOCKED until then; ${assetFix(part)}`,
  };
}

/** Profiles whose worker image `vkit image build` makes (the others' missing assets name their own fix). */
const BUILT_IMAGES: Record<string, string> = {
  'formal: coq-linux-x86_64-v1': 'coq',
  'model checking: spin-linux-x86_64-v1': 'spin',
};

function assetFix(part: string): string {
  const image = BUILT_IMAGES[part];
  if (!image) return 'add what the detail names';
  return `build its worker image with \`vkit image build ${image}\` (as root, with debootstrap and podman: apt-get install debootstrap podman; Fedora: dnf install debootstrap podman), once the container engine answers`;
}

function remotePart(env: Record<string, string | undefined>): DoctorPart {
  const remote = env.VKIT_REMOTE;
  const key = env.VKIT_SIGNING_KEY;
  if (!remote && !key)
    return { part: 'remote cache', status: 'info', detail: 'none configured (VKIT_REMOTE, or remote in the config)' };
  const keyNote = key
    ? existsSync(key)
      ? `signing key ${key}`
      : `signing key ${key} does not exist`
    : 'no signing key: nothing is uploaded';
  return {
    part: 'remote cache',
    status: key && !existsSync(key) ? 'missing' : 'info',
    detail: `${remote ? `VKIT_REMOTE=${remote}` : 'VKIT_REMOTE unset'}; ${keyNote} (\`vkit cache status\` asks the server)`,
  };
}
