/**
 * Reading Cargo without cargo: lock entries in all three forms, the closure in stack order, member
 * globs and path dependencies; and, when cargo is installed, agreement with
 * `cargo metadata --offline --locked` on the paint-stack workspace.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  CargoError,
  closure,
  parseCargoLock,
  parseDependencyEntry,
  readWorkspace,
  resolveDependency,
} from '../../../rules/accept/lib/stack/cargo.js';
import { REPO_ROOT } from '../../_support/repo.js';

const LOCK = `version = 4

[[package]]
name = "app"
version = "0.1.0"
dependencies = [
 "b",
 "a",
 "shared 1.0.0",
]

[[package]]
name = "a"
version = "0.1.0"
dependencies = [
 "shared 2.0.0 (registry+https://github.com/rust-lang/crates.io-index)",
]

[[package]]
name = "b"
version = "0.1.0"
dependencies = [
 "c",
 "a",
]

[[package]]
name = "c"
version = "0.1.0"

[[package]]
name = "shared"
version = "1.0.0"

[[package]]
name = "shared"
version = "2.0.0"
source = "registry+https://github.com/rust-lang/crates.io-index"
`;

test('dependency entries: name, name version, name version (source)', () => {
  assert.deepEqual(parseDependencyEntry('a'), { name: 'a' });
  assert.deepEqual(parseDependencyEntry('a 1.2.3'), { name: 'a', version: '1.2.3' });
  assert.deepEqual(parseDependencyEntry('a 1.2.3 (git+https://x/y?rev=1#abc)'), {
    name: 'a',
    version: '1.2.3',
    source: 'git+https://x/y?rev=1#abc',
  });
  const pkgs = parseCargoLock(LOCK);
  assert.equal(resolveDependency(pkgs, 'shared 1.0.0', 'app').source, undefined);
  assert.equal(
    resolveDependency(pkgs, 'shared 2.0.0 (registry+https://github.com/rust-lang/crates.io-index)', 'a').version,
    '2.0.0',
  );
  assert.throws(
    () => resolveDependency(pkgs, 'shared', 'x'),
    CargoError,
    'an ambiguous bare name is refused, never guessed',
  );
  assert.throws(() => resolveDependency(pkgs, 'nope', 'x'), CargoError);
});

test('closure in stack order: direct dependencies in Cargo.lock order, each followed depth-first by its own, once', () => {
  const pkgs = parseCargoLock(LOCK);
  const app = pkgs.find((p) => p.name === 'app')!;
  const c = closure(pkgs, app);
  assert.deepEqual(
    c.elements.map((e) => `${e.pkg.name}@${e.pkg.version}`),
    ['b@0.1.0', 'c@0.1.0', 'a@0.1.0', 'shared@2.0.0', 'shared@1.0.0'],
  );
  // a is reached directly and through b: its depth is the longest path.
  assert.equal(c.elements.find((e) => e.pkg.name === 'a')!.depth, 2);
  assert.equal(c.elements.find((e) => e.pkg.name === 'shared' && e.pkg.version === '2.0.0')!.depth, 3);
  assert.deepEqual(c.cycles, []);
  const cyclic = parseCargoLock(
    LOCK.replace('name = "c"\nversion = "0.1.0"\n', 'name = "c"\nversion = "0.1.0"\ndependencies = ["b"]\n'),
  );
  assert.deepEqual(closure(cyclic, cyclic[0]!).cycles, [['b', 'c', 'b']]);
});

test('a malformed lock is a CargoError, never a crash', () => {
  assert.throws(() => parseCargoLock('[[package]]\nname = 1\n'), CargoError);
  assert.throws(() => parseCargoLock('[[package'), CargoError);
  assert.throws(() => parseCargoLock('[[package]]\nname = "x"\nversion = "1"\ndependencies = "y"\n'), CargoError);
});

test('workspace members: globs, excludes, path dependencies of members; escapes refused', () => {
  const files: Record<string, string> = {
    'Cargo.toml': '[workspace]\nmembers = ["crates/*", "tools/one"]\nexclude = ["crates/skip"]\n',
    'Cargo.lock': 'version = 4\n',
    'crates/a/Cargo.toml':
      '[package]\nname = "a"\nversion = "0.1.0"\n[dependencies]\nv = { path = "../../vendor/v" }\n',
    'crates/b/Cargo.toml': '[package]\nname = "b"\nversion = "0.2.0"\n',
    'crates/skip/Cargo.toml': '[package]\nname = "skip"\nversion = "0.1.0"\n',
    'tools/one/Cargo.toml': '[package]\nname = "one"\nversion = "0.1.0"\n',
    'vendor/v/Cargo.toml': '[package]\nname = "v"\nversion = "0.1.0"\n',
  };
  const dirs = (rel: string) => [
    ...new Set(
      Object.keys(files)
        .filter((f) => f.startsWith(rel ? `${rel}/` : '') && f.slice(rel ? rel.length + 1 : 0).includes('/'))
        .map((f) => f.slice(rel ? rel.length + 1 : 0).split('/')[0]!),
    ),
  ];
  const ws = readWorkspace({ read: (rel) => files[rel], dirs });
  assert.deepEqual(Object.fromEntries([...ws.crates].map(([k, v]) => [k, v.dir])), {
    a: 'crates/a',
    b: 'crates/b',
    one: 'tools/one',
    v: 'vendor/v',
  });
  files['crates/b/Cargo.toml'] += '[dependencies]\nx = { path = "../../../outside" }\n';
  assert.throws(() => readWorkspace({ read: (rel) => files[rel], dirs }), /leaves the workspace/);
});

const CARGO = join(homedir(), '.cargo', 'bin', 'cargo');

test('the paint-stack reading agrees with `cargo metadata --offline --locked`', (t) => {
  if (!existsSync(CARGO)) {
    if (process.env.VKIT_REQUIRE_SYSTEM === '1')
      assert.fail(`cargo is required (VKIT_REQUIRE_SYSTEM=1) but ${CARGO} is missing`);
    t.skip(
      `SKIPPED: no cargo at ${join(homedir(), '.cargo', 'bin')} (install rustup there, or set VKIT_REQUIRE_SYSTEM=1 to make this a failure)`,
    );
    return;
  }
  const ws = join(REPO_ROOT, 'examples', 'paint-stack');
  const r = spawnSync(CARGO, ['metadata', '--offline', '--locked', '--format-version', '1'], {
    cwd: ws,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const meta = JSON.parse(r.stdout) as {
    packages: { name: string; version: string; source: string | null; manifest_path: string }[];
    resolve: { nodes: { id: string; deps: { pkg: string }[] }[] };
  };
  const mine = readWorkspace({
    read: (rel) => (existsSync(join(ws, rel)) ? readFileSync(join(ws, rel), 'utf8') : undefined),
    dirs: (rel) =>
      readdirSync(join(ws, rel), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name),
  });
  for (const p of meta.packages) {
    assert.equal(p.source, null, 'the example has path crates only');
    assert.equal(join(ws, mine.crates.get(p.name)!.dir, 'Cargo.toml'), p.manifest_path);
  }
  assert.equal(mine.crates.size, meta.packages.length);
  const app = mine.lock.find((p) => p.name === 'paint-app')!;
  const order = closure(mine.lock, app).elements.map((e) => e.pkg.name);
  assert.deepEqual(order, ['raster-draw', 'geom-math']);
  // cargo's resolve graph, walked from paint-app, reaches the same set.
  const byId = new Map(meta.resolve.nodes.map((n) => [n.id, n]));
  const nameOf = (id: string) => meta.packages.find((p) => (p as unknown as { id: string }).id === id)!.name;
  const reached = new Set<string>();
  const walk = (id: string) =>
    byId.get(id)!.deps.forEach((d) => (reached.has(d.pkg) ? undefined : (reached.add(d.pkg), walk(d.pkg))));
  walk(meta.resolve.nodes.find((n) => nameOf(n.id) === 'paint-app')!.id);
  assert.deepEqual([...reached].map(nameOf).sort(), [...order].sort());
});
