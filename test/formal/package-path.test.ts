/**
 * VKIT_PACKAGE_PATH: extra package directories searched after the installed ones, through the one
 * lookup every caller uses (loadPackage). A package found there has the same identity (tree digest) as
 * anywhere else; an installed id and version is never shadowed; relative entries are refused; and the
 * CLI (a real process reading its environment) sees the same packages.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadPackage, packageDigests, packageRoots, packagesRoot, readPackageDir } from '../../src/formal/packages.js';
import { REPO_ROOT, vkit } from '../_support/repo.js';
import { LEDGER } from './_formal.js';

const WEAK_FIXTURE = join(REPO_ROOT, 'test', 'formal', 'fixtures', 'weak-ledger', 'packages', 'resource-ledger-weak');
const WEAK = readPackageDir(WEAK_FIXTURE);
const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

/** A fresh packages directory holding copies of the given package directories. */
function packagesDir(copies: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'vkit-pkgpath-'));
  temps.push(root);
  for (const [name, from] of Object.entries(copies)) cpSync(from, join(root, name), { recursive: true });
  return root;
}

test('packageRoots: the installed root first, then each absolute VKIT_PACKAGE_PATH entry; relative refused', () => {
  assert.deepEqual(packageRoots({}), [packagesRoot()]);
  assert.deepEqual(packageRoots({ VKIT_PACKAGE_PATH: '' }), [packagesRoot()]);
  assert.deepEqual(packageRoots({ VKIT_PACKAGE_PATH: '/a::/b:' }), [packagesRoot(), '/a', '/b']);
  assert.throws(() => packageRoots({ VKIT_PACKAGE_PATH: '/a:rel/dir' }), /VKIT_PACKAGE_PATH entry `rel\/dir`/);
});

test('a package on VKIT_PACKAGE_PATH is found with its own digest; without the path it is not installed', () => {
  assert.equal(WEAK.id, 'vkit.resource-ledger-weak');
  assert.notEqual(WEAK.sha256, LEDGER.sha256);
  const root = packagesDir({ 'resource-ledger-weak': WEAK_FIXTURE });
  const found = loadPackage('vkit.resource-ledger-weak', '0.1.0', packageRoots({ VKIT_PACKAGE_PATH: root }));
  assert.equal(found.sha256, WEAK.sha256, 'the identity does not depend on where the package lives');
  assert.equal(found.dir, join(root, 'resource-ledger-weak'), 'its directory is the one profiles mount');
  assert.throws(
    () => loadPackage('vkit.resource-ledger-weak', '0.1.0', packageRoots({})),
    /vkit\.resource-ledger-weak 0\.1\.0 is not installed/,
  );
  assert.throws(
    () => loadPackage('vkit.nothing', '0.1.0', packageRoots({ VKIT_PACKAGE_PATH: root })),
    new RegExp(`also searched VKIT_PACKAGE_PATH: ${root}`),
  );
  // The installed package is still found, and listed once.
  const both = packageDigests(undefined, packageRoots({ VKIT_PACKAGE_PATH: root }));
  assert.deepEqual(
    both.map((d) => `${d.id} ${d.sha256}`).filter((d) => d.startsWith('vkit.resource-ledger')),
    [`vkit.resource-ledger ${LEDGER.sha256}`, `vkit.resource-ledger-weak ${WEAK.sha256}`],
  );
});

test('an installed id and version is never shadowed by VKIT_PACKAGE_PATH; a later entry never shadows an earlier', () => {
  // A tampered copy of the installed ledger on the path: the installed bytes win.
  const tampered = packagesDir({ 'resource-ledger': LEDGER.dir });
  writeFileSync(join(tampered, 'resource-ledger', 'coq', 'Ledger.v'), '(* tampered *)\n');
  assert.notEqual(readPackageDir(join(tampered, 'resource-ledger')).sha256, LEDGER.sha256);
  const ledger = loadPackage('vkit.resource-ledger', '0.1.0', packageRoots({ VKIT_PACKAGE_PATH: tampered }));
  assert.equal(ledger.sha256, LEDGER.sha256);
  assert.equal(ledger.dir, LEDGER.dir);
  // Two path entries holding the same id and version: the first entry's bytes.
  const first = packagesDir({ weak: WEAK_FIXTURE });
  const second = packagesDir({ weak: WEAK_FIXTURE });
  writeFileSync(join(second, 'weak', 'coq', 'Ledger.v'), '(* second *)\n');
  const found = loadPackage(
    'vkit.resource-ledger-weak',
    '0.1.0',
    packageRoots({ VKIT_PACKAGE_PATH: `${first}:${second}` }),
  );
  assert.equal(found.sha256, WEAK.sha256);
  assert.equal(found.dir, join(first, 'weak'));
});

test('a broken package on VKIT_PACKAGE_PATH is an error, not silently skipped', () => {
  const root = packagesDir({ 'resource-ledger-weak': WEAK_FIXTURE });
  mkdirSync(join(root, 'resource-ledger-weak', 'extra'));
  writeFileSync(join(root, 'resource-ledger-weak', 'extra', 'stray.v'), 'Axiom cheat : False.\n');
  assert.throws(
    () => loadPackage('vkit.resource-ledger-weak', '0.1.0', packageRoots({ VKIT_PACKAGE_PATH: root })),
    /extra\/stray\.v.*not listed/,
  );
});

test('the CLI reads VKIT_PACKAGE_PATH from its environment (vkit formal package digest)', () => {
  const root = packagesDir({ 'resource-ledger-weak': WEAK_FIXTURE });
  const env = { VKIT_PACKAGE_PATH: root, VKIT_DAEMON: '0' };
  const one = vkit(['formal', 'package', 'digest', 'vkit.resource-ledger-weak'], { env });
  assert.equal(one.code, 0, one.stderr);
  assert.equal(one.stdout.trim(), WEAK.sha256);
  const without = vkit(['formal', 'package', 'digest', 'vkit.resource-ledger-weak'], { env: { VKIT_DAEMON: '0' } });
  assert.equal(without.code, 2, 'not installed without the path');
  const relative = vkit(['formal', 'package', 'digest'], { env: { VKIT_PACKAGE_PATH: 'packages', VKIT_DAEMON: '0' } });
  assert.equal(relative.code, 3, `a relative entry is a package error (exit 3): ${relative.stderr}`);
  assert.match(relative.stderr, /VKIT_PACKAGE_PATH entry `packages`/);
});
