/**
 * The `lean-linux-x86_64-v1` procedure as pure functions: where the project is, the argv of each
 * step, and the generated file that asks Lean for each required theorem's axioms. Nothing here runs
 * a process; the profile (profile.ts) hands these to the sandbox.
 *
 * 1. `lake build` in a private copy of the captured project: the kernel checks every declaration of
 *    the default targets (a rejected proof fails the build).
 * 2. `lake env lean VkitAxioms.lean`: a file outside the project that imports the project's modules
 *    and runs `#print axioms <theorem>` for each required theorem (`lake env` puts the build's
 *    `.olean` files on the search path).
 */
import { posix } from 'node:path';

/** Where things are inside the Lean worker container. */
export interface LeanLayout {
  /** The pinned toolchain (`VKIT_LEAN_TOOLCHAIN`), bound read-only: `bin/lean`, `bin/lake`. */
  toolchain: string;
  /** The private writable scratch directory. */
  work: string;
  /** The copy of the captured project, under `work`. */
  project: string;
  /** The generated axioms file, under `work` and outside the project. */
  axiomsFile: string;
}

export const LEAN_LAYOUT: LeanLayout = {
  toolchain: '/opt/lean',
  work: '/work',
  project: '/work/project',
  axiomsFile: '/work/VkitAxioms.lean',
};

/**
 * The project's root directory from the item's `model`: the root itself, or a file at the root
 * (`lakefile.toml`, `lean-toolchain`), which is what the model kind's capture check can see.
 */
export function leanProjectRoot(model: string): string {
  const parts = model.split('/');
  const last = parts.at(-1);
  if (last === 'lakefile.toml' || last === 'lean-toolchain')
    return parts.length === 1 ? '.' : parts.slice(0, -1).join('/');
  return model;
}

export function leanBuildArgv(l: LeanLayout = LEAN_LAYOUT): string[] {
  return [posix.join(l.toolchain, 'bin', 'lake'), 'build'];
}

export function leanAxiomsArgv(l: LeanLayout = LEAN_LAYOUT): string[] {
  return [posix.join(l.toolchain, 'bin', 'lake'), 'env', posix.join(l.toolchain, 'bin', 'lean'), l.axiomsFile];
}

export const leanEnv = (l: LeanLayout = LEAN_LAYOUT): Record<string, string> => ({
  PATH: `${posix.join(l.toolchain, 'bin')}:/usr/bin:/bin`,
  HOME: l.work,
  TMPDIR: l.work,
  LANG: 'C.UTF-8',
});

/** A name's components, each `«»`-quoted unless it is a plain identifier. */
export function leanName(name: string): string {
  return name
    .split('.')
    .map((c) => (/^[A-Za-z_][A-Za-z0-9_'!?]*$/.test(c) ? c : `«${c}»`))
    .join('.');
}

/** The module a project-relative `.lean` path defines (`Foo/Bar.lean` -> `Foo.Bar`); null for anything else. */
export function moduleOf(path: string): string | null {
  if (!path.endsWith('.lean') || path.startsWith('.lake/') || path === 'lakefile.lean') return null;
  return leanName(path.slice(0, -'.lean'.length).split('/').join('.'));
}

/** The generated axioms file: every project module imported, then one `#print axioms` per theorem. */
export function axiomsFile(modules: readonly string[], theorems: readonly string[]): string {
  return [
    ...[...modules].sort().map((m) => `import ${m}`),
    '',
    ...theorems.map((t) => `#print axioms ${leanName(t)}`),
    '',
  ].join('\n');
}
