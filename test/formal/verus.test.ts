/**
 * The Verus profile, which can never run here: every missing asset is named and the result is
 * BLOCKED with the claim unknown; the pins carry no digest, which alone blocks it. The procedure is
 * tested as pure functions: the exact argv of each step, and the report parser on the constructed
 * fixtures of test/formal/fixtures/verus (see its README: no real Verus output could be found).
 * No test fakes a verifier: nothing here executes anything called `verus`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  argvProblems,
  boundModule,
  candidateArgv,
  clientArgv,
  compileArgv,
  failingFunctions,
  judgeStep,
  libraryArgv,
  obligationsOf,
  observeArgv,
  parseDiagnostics,
  parseObservations,
  parseVerusReport,
  procedure,
} from '../../src/checkers/verus.js';
import { readPins, rejectionAt, verusMissing, verusProfile } from '../../src/formal/profiles/verus.js';
import type { MathPackage, ProfileContext, Sandbox } from '../../src/formal/types.js';
import { REPO_ROOT } from '../_support/repo.js';

const FIX = join(REPO_ROOT, 'test', 'formal', 'fixtures', 'verus');
const fixture = (name: string) => readFileSync(join(FIX, name), 'utf8');
const ID = `sha256:${'a'.repeat(64)}`;
const LINUX = { os: 'linux', arch: 'x64' };

const tmp = mkdtempSync(join(tmpdir(), 'vkit-verus-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A host layout where every path asset exists (empty files and directories, never a runnable verus). */
function hostAssets(): Record<string, string> {
  const root = join(tmp, 'verus-root');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'verus'), 'not a program: a placeholder file so the path check passes\n', { mode: 0o644 });
  const archive = join(tmp, 'verus.zip');
  writeFileSync(archive, 'placeholder');
  for (const d of ['rustup', 'cargo']) mkdirSync(join(tmp, d), { recursive: true });
  return {
    VKIT_VERUS_IMAGE: ID,
    VKIT_VERUS_ARCHIVE: archive,
    VKIT_VERUS_ROOT: root,
    VKIT_RUSTUP_HOME: join(tmp, 'rustup'),
    VKIT_CARGO_HOME: join(tmp, 'cargo'),
  };
}

/** A sandbox stand-in that only answers imageId: the engine is not what these tests are about. */
function engineWith(installed: Record<string, string>): Sandbox {
  return {
    socket: 'unix:///test/engine.sock',
    imageId: async (ref) => installed[ref],
    run: async () => {
      throw new Error('no container may run in these tests');
    },
    toolTree: async () => {
      throw new Error('no tool tree in these tests');
    },
  };
}

const PINS_FULL = { pins: [{ asset: 'verus', version: 'v', what: 'archive', sha256: `sha256:${'0'.repeat(64)}` }] };

describe('checker: each missing asset named', () => {
  test('nothing configured: one entry per env var, plus a pin line per absent digest', async () => {
    const { missing } = await verusMissing(undefined, {}, readPins(), LINUX);
    for (const name of [
      'VKIT_VERUS_IMAGE',
      'VKIT_VERUS_ARCHIVE',
      'VKIT_VERUS_ROOT',
      'VKIT_RUSTUP_HOME',
      'VKIT_CARGO_HOME',
    ]) {
      assert.equal(
        missing.filter((m) => m.startsWith(`${name} not set`)).length,
        1,
        `Expected one entry for ${name}, got ${JSON.stringify(missing)}`,
      );
    }
    const pinLines = missing.filter((m) => m.startsWith('pin digest not recorded'));
    assert.deepEqual(
      pinLines.map((m) => m.split(' (')[0]),
      [
        'pin digest not recorded: verus 0.2026.10.18.7d82994',
        'pin digest not recorded: verus-tree 0.2026.10.18.7d82994',
        'pin digest not recorded: rust 1.99.1',
        'pin digest not recorded: z3 4.16.0',
      ],
    );
  });

  for (const name of [
    'VKIT_VERUS_IMAGE',
    'VKIT_VERUS_ARCHIVE',
    'VKIT_VERUS_ROOT',
    'VKIT_RUSTUP_HOME',
    'VKIT_CARGO_HOME',
  ]) {
    test(`only ${name} missing -> exactly that entry (plus the pins)`, async () => {
      const env = hostAssets();
      delete env[name];
      const { missing } = await verusMissing(engineWith({ [ID]: ID }), env, readPins(), LINUX);
      const nonPin = missing.filter((m) => !m.startsWith('pin digest not recorded'));
      assert.equal(nonPin.length, 1, JSON.stringify(missing));
      assert.match(nonPin[0]!, new RegExp(`^${name} not set`));
    });
  }

  test('with every asset present and pins absent, only "pin digest not recorded" remains: that alone blocks', async () => {
    const { missing, image } = await verusMissing(engineWith({ [ID]: ID }), hostAssets(), readPins(), LINUX);
    assert.equal(image, ID);
    assert.ok(missing.length >= 1);
    assert.ok(
      missing.every((m) => m.startsWith('pin digest not recorded')),
      JSON.stringify(missing),
    );
  });

  test('an image that is not a full sha256 id (a tag, a short id) is named', async () => {
    for (const bad of ['localhost/verus:1', 'sha256:abc', `sha256:${'A'.repeat(64)}`, 'a'.repeat(64)]) {
      const { missing } = await verusMissing(
        engineWith({}),
        { ...hostAssets(), VKIT_VERUS_IMAGE: bad },
        PINS_FULL,
        LINUX,
      );
      assert.ok(
        missing.some((m) => m.startsWith('VKIT_VERUS_IMAGE must be a full') && m.includes(bad)),
        `${bad}: ${JSON.stringify(missing)}`,
      );
    }
  });

  test('a well-formed id with no engine: "not checked: no container engine"', async () => {
    const { missing } = await verusMissing(undefined, hostAssets(), PINS_FULL, LINUX);
    assert.ok(
      missing.includes(`VKIT_VERUS_IMAGE ${ID} not checked: no container engine answering`),
      JSON.stringify(missing),
    );
  });

  test('a well-formed id the engine does not have is "not installed"; one it resolves elsewhere is "changed"', async () => {
    let r = await verusMissing(engineWith({}), hostAssets(), PINS_FULL, LINUX);
    assert.ok(
      r.missing.some((m) => m.startsWith(`VKIT_VERUS_IMAGE ${ID} is not installed`)),
      JSON.stringify(r.missing),
    );
    r = await verusMissing(engineWith({ [ID]: `sha256:${'b'.repeat(64)}` }), hostAssets(), PINS_FULL, LINUX);
    assert.ok(
      r.missing.some((m) => m.startsWith(`VKIT_VERUS_IMAGE ${ID} changed`)),
      JSON.stringify(r.missing),
    );
    assert.equal(r.image, undefined);
  });

  test('a well-formed id not installed, asked of the real engine when one answers', async (t) => {
    let sandbox: Sandbox | undefined;
    try {
      const modPath = '../../src/checkers/container.js';
      const mod = (await import(modPath)) as { openSandbox: () => Promise<Sandbox | { unavailable: string }> };
      const s = await mod.openSandbox();
      if (!('unavailable' in s)) sandbox = s;
    } catch {
      // the sandbox module or engine is absent
    }
    if (!sandbox) {
      if (process.env.VKIT_REQUIRE_SYSTEM === '1')
        assert.fail('Expected a container engine (VKIT_REQUIRE_SYSTEM=1): run `npm run setup:system`');
      process.stderr.write(
        'SKIP verus real-engine image check: no container engine answering; run `npm run setup:system` (VKIT_REQUIRE_SYSTEM=1 turns this skip into a failure)\n',
      );
      t.skip('no container engine: run `npm run setup:system`');
      return;
    }
    const { missing } = await verusMissing(sandbox, hostAssets(), PINS_FULL, LINUX);
    assert.ok(
      missing.some((m) => m.startsWith(`VKIT_VERUS_IMAGE ${ID} is not installed`)),
      JSON.stringify(missing),
    );
  });

  test('paths that do not exist, are relative, or a root without `verus` are named', async () => {
    const env = {
      ...hostAssets(),
      VKIT_VERUS_ARCHIVE: 'relative.zip',
      VKIT_VERUS_ROOT: join(tmp, 'rustup'),
      VKIT_CARGO_HOME: join(tmp, 'nope'),
    };
    const { missing } = await verusMissing(engineWith({ [ID]: ID }), env, PINS_FULL, LINUX);
    assert.ok(missing.some((m) => m.startsWith('VKIT_VERUS_ARCHIVE relative.zip is not an absolute path')));
    assert.ok(missing.some((m) => m.includes('holds no `verus` program')));
    assert.ok(missing.some((m) => m.startsWith(`VKIT_CARGO_HOME ${join(tmp, 'nope')} is not`)));
  });

  test('a pinned archive digest that differs is "changed"; a non-Linux host is named', async () => {
    const { missing } = await verusMissing(engineWith({ [ID]: ID }), hostAssets(), PINS_FULL, {
      os: 'darwin',
      arch: 'arm64',
    });
    assert.ok(
      missing.some((m) => m.startsWith('VKIT_VERUS_ARCHIVE') && m.includes('changed')),
      JSON.stringify(missing),
    );
    assert.ok(missing.some((m) => m.includes('requires Linux x86_64')));
  });

  test('a missing or malformed pins file blocks instead of passing silently', async () => {
    assert.ok('error' in readPins(join(tmp, 'absent.json')));
    const bad = join(tmp, 'pins-bad.json');
    writeFileSync(bad, JSON.stringify({ pins: [{ asset: 'verus', version: '1', what: 'x', sha256: 'deadbeef' }] }));
    const r = readPins(bad);
    assert.ok('error' in r);
    const { missing } = await verusMissing(engineWith({ [ID]: ID }), hostAssets(), r, LINUX);
    assert.ok(missing.some((m) => m.includes('malformed sha256')));
  });

  test('the committed pins record the three versions with null digests', () => {
    const r = readPins();
    assert.ok('pins' in r, JSON.stringify(r));
    assert.deepEqual(
      r.pins.map((p) => [p.asset, p.version, p.sha256]),
      [
        ['verus', '0.2026.10.18.7d82994', null],
        ['verus-tree', '0.2026.10.18.7d82994', null],
        ['rust', '1.99.1', null],
        ['z3', '4.16.0', null],
      ],
    );
  });
});

describe('run(): never PASS here', () => {
  const pkg: MathPackage = {
    id: 'vkit.resource-ledger',
    version: '0.1.0',
    sha256: `sha256:${'c'.repeat(64)}`,
    dir: join(tmp, 'pkg'),
    files: [],
    contracts: ['ledger.source.v1'],
    bindings: [],
    acceptedAxioms: {},
  };
  const component = {
    id: 'allocation',
    package: { id: pkg.id, version: pkg.version, sha256: pkg.sha256 },
    contract: 'ledger.source.v1',
    source: { entry: 'src/allocation.rs' },
    profile: 'verus-linux-x86_64-v1',
    parameters: { max_records: 3 },
    bindings: {
      new: 'api::new',
      reserve: 'api::reserve',
      release: 'api::release',
      reserve_batch: 'api::reserve_batch',
      apply_command: 'api::apply_command',
      run_commands: 'api::run_commands',
    },
    required: true,
    inputs: ['src/**'],
  };
  const ctx = (env: Record<string, string | undefined>, sandbox: Sandbox): ProfileContext => ({
    component,
    pkg,
    source: join(tmp, 'src'),
    out: join(tmp, 'out'),
    sandbox,
    env,
    signal: new AbortController().signal,
    containerPrefix: 'vkit-test',
  });

  test('with every host asset present, the absent pin digests alone make it BLOCKED, claim unknown, nothing run', async () => {
    const r = await verusProfile.run(ctx(hostAssets(), engineWith({ [ID]: ID })));
    assert.equal(r.outcome, 'BLOCKED');
    assert.equal(r.claim, 'unknown');
    assert.equal(r.assurance, 'trusted_engine');
    assert.equal(r.method, 'verus_source');
    assert.match(r.reason, /pin digest not recorded: verus 0\.2026\.10\.18\.7d82994/);
    assert.match(r.reason, /pin digest not recorded: rust 1\.99\.1/);
    assert.match(r.reason, /pin digest not recorded: z3 4\.16\.0/);
    assert.equal(r.sections.obligations.total, null);
    assert.equal(r.sections.obligations.unknown, null);
    assert.ok(r.sections.coverage.bindings.every((b) => !b.established));
    assert.equal(r.sections.coverage.bindings.length, 6);
    assert.ok(r.sections.coverage.package_claims.every((c) => !c.established));
    assert.ok(r.sections.provenance.notes.some((n) => n.includes('never been checked')));
    assert.deepEqual(r.artifacts, []);
  });

  test('with nothing configured: BLOCKED naming every env var', async () => {
    const r = await verusProfile.run(ctx({}, engineWith({})));
    assert.equal(r.outcome, 'BLOCKED');
    for (const name of [
      'VKIT_VERUS_IMAGE',
      'VKIT_VERUS_ARCHIVE',
      'VKIT_VERUS_ROOT',
      'VKIT_RUSTUP_HOME',
      'VKIT_CARGO_HOME',
    ])
      assert.match(r.reason, new RegExp(`${name} not set`));
    assert.deepEqual(r.sections.scope.notes, (await verusProfile.checker(engineWith({}), {})).missing);
  });

  test('profile identity', () => {
    assert.equal(verusProfile.id, 'verus-linux-x86_64-v1');
    assert.deepEqual(verusProfile.contracts, ['ledger.source.v1']);
    assert.equal(verusProfile.assurance, 'trusted_engine');
  });
});

describe('argv of each step (exact)', () => {
  const strict = [
    '--no-cheating',
    '--output-json',
    '--time',
    '--rlimit',
    '30',
    '--error-format=json',
    '--edition=2021',
  ];
  test('library: check + export + compile', () => {
    assert.deepEqual(libraryArgv(), [
      '/opt/verus/verus',
      '/vkit/package/verus/ledger/lib.rs',
      '--crate-type=lib',
      '--crate-name=vkit_ledger',
      '--export',
      '/vkit/out/vkit_ledger.vir',
      '--compile',
      '--out-dir=/vkit/out',
      ...strict,
    ]);
  });
  test('candidate: imports the library, exports itself', () => {
    assert.deepEqual(candidateArgv('src/allocation.rs'), [
      '/opt/verus/verus',
      '/vkit/source/src/allocation.rs',
      '--crate-type=lib',
      '--crate-name=candidate',
      '--extern',
      'vkit_ledger=/vkit/out/libvkit_ledger.rlib',
      '--import',
      'vkit_ledger=/vkit/out/vkit_ledger.vir',
      '--export',
      '/vkit/out/candidate.vir',
      '-L',
      'dependency=/vkit/out',
      '--compile',
      '--out-dir=/vkit/out',
      ...strict,
    ]);
  });
  test('client: the unchanged client importing both', () => {
    assert.deepEqual(clientArgv(), [
      '/opt/verus/verus',
      '/vkit/out/client/client.rs',
      '--crate-type=lib',
      '--crate-name=vkit_ledger_client',
      '--extern',
      'vkit_ledger=/vkit/out/libvkit_ledger.rlib',
      '--extern',
      'candidate=/vkit/out/libcandidate.rlib',
      '--import',
      'vkit_ledger=/vkit/out/vkit_ledger.vir',
      '--import',
      'candidate=/vkit/out/candidate.vir',
      '-L',
      'dependency=/vkit/out',
      ...strict,
    ]);
  });
  test('compile and observe', () => {
    assert.deepEqual(compileArgv(), [
      '/opt/verus/verus',
      '/vkit/out/client/observe.rs',
      '--crate-type=bin',
      '--crate-name=vkit_ledger_observe',
      '--extern',
      'vkit_ledger=/vkit/out/libvkit_ledger.rlib',
      '--extern',
      'candidate=/vkit/out/libcandidate.rlib',
      '--import',
      'vkit_ledger=/vkit/out/vkit_ledger.vir',
      '--import',
      'candidate=/vkit/out/candidate.vir',
      '-L',
      'dependency=/vkit/out',
      '--compile',
      '-o',
      '/vkit/out/observe',
      ...strict,
    ]);
    assert.deepEqual(observeArgv(), ['/vkit/out/observe']);
    assert.deepEqual(
      procedure('src/a.rs').map((s) => s.step),
      ['library', 'candidate', 'client', 'compile', 'observe'],
    );
  });
  test('every verifying step is strict; partial or unchecked switches are refused', () => {
    for (const s of procedure('src/a.rs').filter((s) => s.report)) assert.deepEqual(argvProblems(s.argv), [], s.step);
    assert.ok(argvProblems([...libraryArgv(), '--verify-module', 'api']).some((p) => p.includes('--verify-module')));
    assert.ok(
      argvProblems([...libraryArgv(), '--verify-only-module=api']).some((p) => p.includes('--verify-only-module')),
    );
    assert.ok(argvProblems([...libraryArgv(), '-V', 'no-solver-version-check']).some((p) => p.includes('`-V`')));
    assert.ok(argvProblems([...libraryArgv(), '-Vallow-inline-air']).length > 0);
    assert.ok(
      argvProblems(libraryArgv().filter((a) => a !== '--no-cheating')).some((p) => p.includes('--no-cheating')),
    );
  });
  test('bound.rs: one pub use per binding; a path that is not a relative identifier path is refused', () => {
    assert.equal(
      boundModule(['new', 'reserve'], { new: 'api::new', reserve: 'api::inner::reserve' })
        .split('\n')
        .slice(1)
        .join('\n'),
      'pub use candidate::api::new as new;\npub use candidate::api::inner::reserve as reserve;\n',
    );
    for (const bad of ['::api::new', 'api::new; fn x() {}', 'crate::api::new', 'api::', 'api :: new', '']) {
      assert.throws(() => boundModule(['new'], { new: bad }), /not a relative Rust identifier path/, bad);
    }
    assert.throws(() => boundModule(['new', 'release'], { new: 'api::new' }), /`release` is not declared/);
  });
});

describe('report parser (constructed fixtures: see fixtures/verus/README.md)', () => {
  test('entire-crate success -> verified, complete counts, per-function proved', () => {
    const p = parseVerusReport(fixture('success.stdout'));
    assert.ok(p.ok);
    assert.deepEqual(judgeStep(0, p), { verdict: 'verified', reason: '12 verified, 0 errors' });
    const o = obligationsOf(p, 'candidate');
    assert.deepEqual([o.total, o.proved, o.failed, o.unknown], [12, 12, 0, 0]);
    assert.deepEqual(
      o.items.map((i) => [i.id, i.status]),
      [
        ['candidate:candidate::api::new', 'proved'],
        ['candidate:candidate::api::reserve', 'proved'],
      ],
    );
    assert.equal(p.report.build.version, '0.2026.10.18.7d82994');
    // The same clean report with a non-zero exit is not verified.
    assert.equal(judgeStep(1, p).verdict, 'incomplete');
  });

  test('failure -> failed, counts, failing function names and failed proof notes', () => {
    const p = parseVerusReport(fixture('failure.stdout'));
    assert.ok(p.ok);
    assert.equal(judgeStep(1, p).verdict, 'failed');
    assert.equal(judgeStep(0, p).verdict, 'failed');
    assert.deepEqual(failingFunctions(p.report), ['candidate::api::reserve', 'candidate::api::release']);
    const o = obligationsOf(p, 'candidate');
    assert.deepEqual([o.total, o.proved, o.failed, o.unknown], [12, 10, 2, 0]);
    assert.ok(
      o.items.some((i) => i.id === 'candidate:candidate::api::reserve#rejection order' && i.status === 'failed'),
    );
  });

  test('VIR error and partial runs -> incomplete with null denominators', () => {
    for (const [file, reason] of [
      ['vir-error.stdout', /VIR/],
      ['partial.stdout', /entire crate/],
    ] as const) {
      const p = parseVerusReport(fixture(file));
      assert.ok(p.ok, file);
      const v = judgeStep(0, p);
      assert.equal(v.verdict, 'incomplete', file);
      assert.match(v.reason, reason);
      const o = obligationsOf(p, 'x');
      assert.equal(o.total, null, file);
      assert.equal(o.unknown, null, file);
    }
    assert.equal(obligationsOf(parseVerusReport(fixture('partial.stdout')), 'x').proved, 4);
  });

  test('the older emitter without `encountered-error` is refused (fail closed)', () => {
    const v = judgeStep(0, parseVerusReport(fixture('old-shape.stdout')));
    assert.equal(v.verdict, 'incomplete');
  });

  test('no report, truncated report, two reports, or counts that are not naturals -> never verified', () => {
    const good = fixture('success.stdout');
    const cases: Record<string, string> = {
      empty: '',
      summary: 'verification results:: 12 verified, 0 errors\n',
      truncated: good.slice(0, good.length - 20),
      twice: good + good,
      negative: good.replace('"verified": 12', '"verified": -1'),
      fractional: good.replace('"verified": 12', '"verified": 1.5'),
      zero: good.replace('"verified": 12', '"verified": 0'),
      stringBool: good.replace('"success": true', '"success": "true"'),
    };
    for (const [name, text] of Object.entries(cases))
      assert.notEqual(judgeStep(0, parseVerusReport(text)).verdict, 'verified', name);
    // Lines before the report (a banner) are harmless.
    assert.equal(judgeStep(0, parseVerusReport(`note: something\n${good}`)).verdict, 'verified');
  });

  test('rustc JSON diagnostics -> one-based locations relative to the captured source only', () => {
    const d = parseDiagnostics(fixture('failure.stderr'), '/vkit/source');
    assert.deepEqual(d, [
      { severity: 'error', message: 'postcondition not satisfied', file: 'src/allocation.rs', line: 42, column: 13 },
      { severity: 'error', message: 'assertion failed' },
    ]);
  });

  test('observations: complete run parsed; missing, repeated or unfinished runs refused', () => {
    const ok = 'observation\ta\t1\t1\nobservation\tb\tx\ty\nobservations\t2\n';
    const r = parseObservations(ok, ['a', 'b']);
    assert.ok(r.ok);
    assert.deepEqual(
      r.observations.map((o) => o.pass),
      [true, false],
    );
    assert.equal(parseObservations('observation\ta\t1\t1\n', ['a']).ok, false);
    assert.equal(parseObservations('observation\ta\t1\t1\nobservations\t1\n', ['a', 'b']).ok, false);
    assert.equal(parseObservations('observation\ta\t1\t1\nobservation\ta\t1\t1\nobservations\t2\n', ['a']).ok, false);
    assert.equal(parseObservations('panicked at main.rs\nobservations\t0\n', []).ok, false);
  });

  test("a candidate's rejection is Verus's complete failure in its own crate or the client, nothing else", () => {
    const failed = judgeStep(1, parseVerusReport(fixture('failure.stdout')));
    const names = ['candidate::api::reserve'];
    assert.deepEqual(rejectionAt('candidate', failed, names), {
      kind: 'obligation',
      name: 'candidate:candidate::api::reserve',
    });
    assert.deepEqual(rejectionAt('client', failed, []), { kind: 'obligation', name: 'client' });
    // The owned library failing, or a step that did not verify the whole crate, rejects no candidate.
    assert.equal(rejectionAt('library', failed, names), undefined);
    for (const file of ['vir-error.stdout', 'partial.stdout'])
      assert.equal(rejectionAt('candidate', judgeStep(1, parseVerusReport(fixture(file))), names), undefined, file);
  });
});
