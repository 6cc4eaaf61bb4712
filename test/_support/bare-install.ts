/**
 * vkit installed into a project that has only its runtime dependencies, not the optional ones: a
 * copy of the package's files (package.json's `files`, plus the bundle) at `<top>/node_modules/vkit`,
 * beside links to each runtime dependency of this repository's node_modules. The copy is real files,
 * not links: node resolves a module's imports from its real path, so a link into this repository
 * would find the optional packages its devDependencies installed.
 *
 * The bundle's record names the joined packages by their path from the package (`node_modules/...`,
 * or `../../main/node_modules/...` from a worktree); each is linked at the same place relative to the
 * copy, so the bundle stays current there and `build` runs its one-script CLI as it does here.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { REPO_ROOT } from './repo.js';

export interface BareInstall {
  /** `<top>/node_modules/vkit`. */
  pkg: string;
  bin: string;
  cleanup(): void;
}

interface PackageJson {
  files: string[];
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
}

const PACKAGE_JSON = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as PackageJson;

export function bareInstall(): BareInstall {
  const top = mkdtempSync(join(tmpdir(), 'vkit-bare-'));
  const pkg = join(top, 'node_modules', 'vkit');
  for (const part of ['package.json', ...PACKAGE_JSON.files, 'dist/bundle'])
    cpSync(join(REPO_ROOT, part), join(pkg, part), {
      recursive: true,
      preserveTimestamps: true,
      filter: (src) => !src.endsWith('.cache'),
    });
  for (const name of Object.keys(PACKAGE_JSON.dependencies))
    link(join(REPO_ROOT, 'node_modules', name), join(top, 'node_modules', name));
  const record = JSON.parse(readFileSync(join(pkg, 'dist/bundle/inputs.json'), 'utf8')) as Record<string, unknown>;
  for (const input of Object.keys(record)) {
    const m = /^(.*?node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) link(resolve(REPO_ROOT, m[1]!), resolve(pkg, m[1]!));
  }
  return { pkg, bin: join(pkg, 'bin', 'vkit.js'), cleanup: () => rmSync(top, { recursive: true, force: true }) };
}

/** Links `at` to the real directory `to`, once. */
function link(to: string, at: string): void {
  if (existsSync(at)) return;
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(realpathSync(to), at);
}
