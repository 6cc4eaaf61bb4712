/**
 * The TLC profile, which cannot run here: every missing asset is named, `run()` never establishes
 * anything and a `formal.models` item with it is BLOCKED through the real CLI. The procedure is
 * tested as pure functions: the exact argv of the search and the replay, the per-property
 * configuration, TLC's `-tool` report and the JSON witness read from the hand-written parser
 * fixtures of test/rules/model/fixtures/tlc (see its README: never evidence), and the replay
 * comparison. No test fakes TLC: nothing here runs anything called `java` or `tlc2.TLC`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Sandbox } from '../../../src/checkers/container.js';
import type { ResolvedModel } from '../../../rules/model/schema.js';
import { foldModel } from '../../../rules/model/lib/fold.js';
import { loadModelProfile } from '../../../rules/model/lib/profiles.js';
import { declaredProperties, propertyConfig } from '../../../rules/model/lib/tlc/config.js';
import {
  compareTlcTraces,
  judgeTlcSearch,
  parseTlcReport,
  parseTlcTrace,
  parseToolMessages,
  printedStates,
  type TlcTrace,
  tlcDiagnostics,
} from '../../../rules/model/lib/tlc/output.js';
import { TLC_LAYOUT, tlcReplayArgv, tlcSearchArgv } from '../../../rules/model/lib/tlc/procedure.js';
import { tlcMissing, tlcModelProblems, tlcProfile } from '../../../rules/model/lib/tlc/profile.js';
import { cli } from '../../_support/evidence.js';
import { REPO_ROOT, tempRepo } from '../../_support/repo.js';

const FIX = join(REPO_ROOT, 'test', 'rules', 'model', 'fixtures', 'tlc');
const fixture = (name: string) => readFileSync(join(FIX, name), 'utf8');
const LINUX = { os: 'linux', arch: 'x64' };
const ID = `sha256:${'a'.repeat(64)}`;
const inv = (name: string) => ({ kind: 'invariant' as const, name });

const tmp = mkdtempSync(join(tmpdir(), 'vkit-tlc-test-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A sandbox stand-in that only answers image and tool-tree questions; running anything is a test failure. */
function engineWith(installed: Record<string, string>, javaTree = `sha256:${'d'.repeat(64)}`): Sandbox {
  return {
    socket: 'unix:///test/engine.sock',
    async run() {
      throw new Error('the TLC profile must not start a container without every asset');
    },
    async imageId(ref) {
      return installed[ref];
    },
    async toolTree() {
      return { digest: javaTree, entries: 1 };
    },
  };
}

const trace = (name: string): TlcTrace => {
  const t = parseTlcTrace(fixture(name));
  assert.ok('trace' in t, JSON.stringify(t));
  return t.trace;
};

describe('the procedure: exact argv', () => {
  const run = { model: 'specs/Counter.tla', dir: 'p0', checkDeadlock: false, memoryMb: 1024 };
  const jvm = [
    '/opt/java/bin/java',
    '-XX:+UseParallelGC',
    '-XX:-UsePerfData',
    '-Xmx1024m',
    '-Djava.io.tmpdir=/work/tmp',
    '-cp',
    '/opt/tla/tla2tools.jar',
    'tlc2.TLC',
  ];
  test('the search: one worker, fixed fingerprint, -tool, one-property configuration, JSON trace dump', () => {
    assert.deepEqual(tlcSearchArgv(run), [
      ...jvm,
      '-tool',
      '-workers',
      '1',
      '-fp',
      '0',
      '-noGenerateSpecTE',
      '-metadir',
      '/work/p0/states-search',
      '-config',
      '/work/p0/property.cfg',
      '-deadlock',
      '-dumpTrace',
      'json',
      '/work/p0/trace.json',
      '/src/specs/Counter.tla',
    ]);
    assert.ok(
      !tlcSearchArgv({ ...run, checkDeadlock: true }).includes('-deadlock'),
      'a deadlock property checks deadlock',
    );
  });
  test('the replay: the same run constrained to the dumped trace (-loadTrace json), dumped again', () => {
    assert.deepEqual(tlcReplayArgv(run), [
      ...jvm,
      '-tool',
      '-workers',
      '1',
      '-fp',
      '0',
      '-noGenerateSpecTE',
      '-metadir',
      '/work/p0/states-replay',
      '-config',
      '/work/p0/property.cfg',
      '-deadlock',
      '-loadTrace',
      'json',
      '/work/p0/trace.json',
      '-dumpTrace',
      'json',
      '/work/p0/replay.json',
      '/src/specs/Counter.tla',
    ]);
    assert.equal(TLC_LAYOUT.jar, '/opt/tla/tla2tools.jar');
  });
});

describe('the configuration: one property per run', () => {
  const cfg = fixture('Counter.cfg');
  test('the declared invariants and properties (comments and strings are not names)', () => {
    assert.deepEqual(declaredProperties(cfg), {
      invariants: ['TypeOK', 'Bounded'],
      properties: ['EventuallyDone'],
    });
    assert.deepEqual(declaredProperties('INVARIANT A (* open'), { error: 'a `(*` comment is not closed' });
    assert.deepEqual(declaredProperties('x INIT Init'), { error: 'the configuration does not start with a keyword' });
  });
  test("a property's configuration: its sections replaced, everything else byte for byte", () => {
    const kept = [
      '\\* The model configuration of the parser fixtures (never evidence).',
      'CONSTANTS',
      '  Max = 3',
      '  Name = "INVARIANT in a string"',
      '',
      'SPECIFICATION Spec',
      '',
      '(* Two invariants, (* nested comment *) one temporal property. *)',
      'SYMMETRY Perms',
      '',
      '\\* vkit: the one property this run checks',
    ].join('\n');
    assert.deepEqual(propertyConfig(cfg, inv('Bounded')), { config: `${kept}\nINVARIANT Bounded\n` });
    assert.deepEqual(propertyConfig(cfg, { kind: 'ltl', name: 'EventuallyDone' }), {
      config: `${kept}\nPROPERTY EventuallyDone\n`,
    });
    const deadlock = propertyConfig(cfg, { kind: 'deadlock', name: 'no-deadlock' });
    assert.ok('config' in deadlock && !/^(INVARIANT|PROPERTY|CHECK_DEADLOCK)/m.test(deadlock.config));
    assert.deepEqual(propertyConfig(cfg, inv('Not-An-Identifier')), {
      error: '`Not-An-Identifier` is not a TLA+ identifier',
    });
  });
});

describe("TLC's -tool report", () => {
  test('a complete breadth-first search establishes the property, in its own words', () => {
    const r = parseTlcReport(fixture('success.out'));
    assert.equal(r.version, 'Version 2.19 of 08 August 2024 (rev: 0000000)');
    assert.equal(r.mode, 'bfs');
    assert.equal(r.success, true);
    assert.deepEqual([r.generated, r.distinct, r.queue, r.depth, r.finished], [9, 4, 0, 4, true]);
    assert.deepEqual(r.fingerprint.at(-1), 'calculated (optimistic):  val = 5.4E-19');
    assert.deepEqual(r.errors, []);
    assert.equal(r.violation, null);
    const v = judgeTlcSearch(r, 0, inv('TypeOK'));
    assert.equal(v.verdict, 'established');
    assert.match(v.reason, /complete breadth-first search, 4 distinct states \(9 generated\), depth 4/);
  });
  test('anything short of that is unknown, each reason named', () => {
    const r = parseTlcReport(fixture('success.out'));
    assert.match(judgeTlcSearch(r, 1, inv('TypeOK')).reason, /TLC exited with status 1/);
    const stopped = parseTlcReport(fixture('success.out').replace(/@!@!@STARTMSG 2186:0[\s\S]*$/, ''));
    assert.match(judgeTlcSearch(stopped, 0, inv('TypeOK')).reason, /did not report that it finished/);
    const queued = parseTlcReport(
      fixture('success.out').replace('4 distinct states found, 0 states', '4 distinct states found, 3 states'),
    );
    assert.match(judgeTlcSearch(queued, 0, inv('TypeOK')).reason, /3 states left on queue/);
    const simulated = parseTlcReport(fixture('success.out').replace(/2187/g, '2188'));
    assert.match(judgeTlcSearch(simulated, 0, inv('TypeOK')).reason, /simulation search, not breadth-first/);
    // An ltl property needs TLC to say it checked temporal properties: success.out checked none.
    assert.match(
      judgeTlcSearch(r, 0, { kind: 'ltl', name: 'Live' }).reason,
      /does not say it checked temporal properties \(for Live\)/,
    );
    const temporal = fixture('success.out').replace(
      '@!@!@STARTMSG 2193:0',
      '@!@!@STARTMSG 2192:0 @!@!@\nChecking temporal properties for the complete state space with 4 total distinct states at (2026-01-01 00:00:01)\n@!@!@ENDMSG 2192 @!@!@\n@!@!@STARTMSG 2193:0',
    );
    assert.equal(judgeTlcSearch(parseTlcReport(temporal), 0, { kind: 'ltl', name: 'Live' }).verdict, 'established');
    const oom = parseTlcReport(fixture('out-of-memory.out'));
    assert.equal(oom.queue, 120431, 'counts may carry thousands separators');
    const v = judgeTlcSearch(oom, 255, inv('TypeOK'));
    assert.equal(v.verdict, 'unknown');
    assert.match(v.reason, /120431 states left on queue/);
    assert.match(v.reason, /TLC error 1001: Java ran out of memory/);
  });
  test('an invariant violation, its trace, and whom it refutes', () => {
    const r = parseTlcReport(fixture('invariant.out'));
    assert.deepEqual(r.violation, {
      kind: 'invariant',
      names: ['Bounded'],
      code: 2110,
      text: 'Invariant Bounded is violated.',
    });
    assert.deepEqual(r.errors, [], 'the trace headers are not errors');
    assert.deepEqual(
      r.trace.map((s) => s.number),
      [1, 2, 3],
    );
    assert.equal(r.trace[1]!.action, '<Inc line 9, col 8 to line 11, col 20 of module Counter>');
    assert.equal(printedStates(r), 3);
    assert.deepEqual(judgeTlcSearch(r, 12, inv('Bounded')), {
      verdict: 'violation',
      violation: 'invariant Bounded',
      reason: 'Invariant Bounded is violated.',
    });
    assert.match(
      judgeTlcSearch(r, 12, inv('TypeOK')).reason,
      /stopped at invariant Bounded .* which is not invariant TypeOK/,
    );
    assert.match(judgeTlcSearch(r, 0, inv('Bounded')).reason, /exited with status 0, not 12/);
    assert.equal(judgeTlcSearch(r, 12, { kind: 'deadlock', name: 'd' }).verdict, 'unknown');
  });
  test('an invariant violated by an initial state prints its one state inside the message', () => {
    const initial = [
      '@!@!@STARTMSG 2107:1 @!@!@',
      'Invariant TypeOK is violated by the initial state:',
      '/\\ x = -1',
      '@!@!@ENDMSG 2107 @!@!@',
    ].join('\n');
    const r = parseTlcReport(initial);
    assert.deepEqual(r.violation?.names, ['TypeOK']);
    assert.equal(printedStates(r), 1);
  });
  test('deadlock and temporal violations', () => {
    const d = parseTlcReport(fixture('deadlock.out'));
    assert.equal(d.violation?.kind, 'deadlock');
    assert.equal(judgeTlcSearch(d, 11, { kind: 'deadlock', name: 'no-deadlock' }).verdict, 'violation');
    assert.equal(judgeTlcSearch(d, 11, inv('TypeOK')).verdict, 'unknown');
    const t = parseTlcReport(fixture('temporal.out'));
    assert.deepEqual(t.violation?.names, ['EventuallyTwo']);
    assert.deepEqual(t.traceEnd, { kind: 'back-to-state', to: 1 });
    assert.equal(printedStates(t), 2);
    const ltl = { kind: 'ltl' as const, name: 'EventuallyTwo' };
    assert.equal(judgeTlcSearch(t, 13, ltl).verdict, 'violation');
    assert.equal(judgeTlcSearch(t, 13, { kind: 'ltl', name: 'Other' }).verdict, 'unknown');
    // Older builds name no property; the run checks exactly one, so it is that one.
    const older = parseTlcReport(
      fixture('temporal.out').replace(
        'Temporal property EventuallyTwo was violated.',
        'Temporal properties were violated.',
      ),
    );
    assert.equal(judgeTlcSearch(older, 13, ltl).verdict, 'violation');
    const two = parseTlcReport(
      fixture('temporal.out').replace(
        'Temporal property EventuallyTwo was violated.',
        'Temporal properties A and B were violated.',
      ),
    );
    assert.deepEqual(two.violation?.names, ['A', 'B']);
    assert.equal(judgeTlcSearch(two, 13, { kind: 'ltl', name: 'A' }).verdict, 'unknown');
  });
  test('frames: unframed text is ignored, an unterminated frame is dropped', () => {
    assert.deepEqual(parseToolMessages('noise\n@!@!@STARTMSG 2185:0 @!@!@\nStarting...\n@!@!@ENDMSG 2185 @!@!@\n'), [
      { code: 2185, severity: 0, text: 'Starting...' },
    ]);
    assert.deepEqual(parseToolMessages('@!@!@STARTMSG 2193:0 @!@!@\nModel checking completed.'), []);
  });
  test('errors become diagnostics, located in the captured module when TLC names one', () => {
    const r = parseTlcReport(fixture('evaluation-error.out'));
    const withFile = tlcDiagnostics(r, 'specs', (p) => p === 'specs/Counter.tla');
    assert.equal(withFile.length, 2);
    assert.deepEqual(
      { ...withFile[1], message: undefined },
      { severity: 'error', message: undefined, file: 'specs/Counter.tla', line: 12, column: 8 },
    );
    assert.equal(tlcDiagnostics(r, 'specs', () => false)[1]!.file, undefined);
    assert.match(judgeTlcSearch(r, 75, inv('TypeOK')).reason, /TLC error 1000/);
  });
});

describe('the JSON witness and its replay', () => {
  test('both dump shapes parse; a lasso is found; an inconsistent witness is unusable', () => {
    const t = trace('trace-invariant.json');
    assert.equal(t.shape, 'counterexample');
    assert.deepEqual(t.vars, ['x', 'y']);
    assert.deepEqual(
      t.states.map((s) => s.values.x),
      [0, 1, 2],
    );
    assert.equal(t.actions.length, 2);
    assert.equal(t.lasso, null);
    const p = trace('trace-plain.json');
    assert.equal(p.shape, 'plain');
    assert.equal(p.vars, null);
    assert.equal(trace('trace-lasso.json').lasso, 1);
    assert.match(
      (parseTlcTrace(fixture('trace-misnumbered.json')) as { error: string }).error,
      /state 2 is numbered 3/,
    );
    const lying = JSON.parse(fixture('trace-invariant.json'));
    lying.counterexample.action[1][2][1].x = 9;
    assert.match((parseTlcTrace(JSON.stringify(lying)) as { error: string }).error, /not the trace's state 3/);
    assert.match((parseTlcTrace('[1]') as { error: string }).error, /not a JSON object/);
  });
  test('a replay that matches: same violation, states, values and steps', () => {
    const c = compareTlcTraces(
      { violation: 'invariant Bounded', trace: trace('trace-invariant.json'), printed: 3 },
      { violation: 'invariant Bounded', trace: trace('replay-same.json') },
    );
    assert.deepEqual(c, {
      matched: true,
      violation: { expected: 'invariant Bounded', replayed: 'invariant Bounded' },
      steps: { witness: 3, replayed: 3, compared: 3 },
      values_compared: 6,
      mismatch: null,
    });
  });
  test('every difference refuses the match, and the first one is named', () => {
    const w = { violation: 'invariant Bounded', trace: trace('trace-invariant.json'), printed: 3 };
    const diverges = compareTlcTraces(w, { violation: 'invariant Bounded', trace: trace('replay-diverges.json') });
    assert.equal(diverges.matched, false);
    assert.equal(diverges.mismatch, 'state 3: x is 2 in the witness, 3 in the replay');
    assert.equal(diverges.steps.compared, 2);
    const other = compareTlcTraces(w, { violation: 'deadlock', trace: trace('replay-same.json') });
    assert.match(other.mismatch!, /ended in deadlock, the search reported invariant Bounded/);
    assert.match(compareTlcTraces(w, { violation: null, trace: null }).mismatch!, /ended in no violation/);
    assert.match(
      compareTlcTraces(w, { violation: 'invariant Bounded', trace: null }).mismatch!,
      /the replay wrote no trace/,
    );
    assert.match(
      compareTlcTraces({ ...w, printed: 2 }, { violation: 'invariant Bounded', trace: trace('replay-same.json') })
        .mismatch!,
      /printed 2 states .* holds 3/,
    );
    assert.match(
      compareTlcTraces(w, { violation: 'invariant Bounded', trace: trace('trace-plain.json') }).mismatch!,
      /the variables differ/,
    );
    const lasso = trace('trace-lasso.json');
    const open = { ...lasso, lasso: null, actions: lasso.actions.filter((a) => a.to > a.from) };
    assert.match(
      compareTlcTraces(
        { violation: 'temporal EventuallyTwo', trace: lasso, printed: 2 },
        { violation: 'temporal EventuallyTwo', trace: open },
      ).mismatch!,
      /the witness has 2 steps, the replay 1/,
    );
  });
});

describe('BLOCKED here: every missing asset named, nothing ever established', () => {
  test('with nothing configured, each missing asset is its own entry', async () => {
    const { missing } = await tlcMissing(undefined, {}, undefined, LINUX);
    assert.deepEqual(missing.slice(0, 2), [
      'VKIT_TLC_IMAGE not set: give the full `sha256:` id of the installed TLC worker image (the pinned Java runtime at /opt/java)',
      'VKIT_TLC_JAR not set: give the absolute path of the pinned TLA+ tools jar (tla2tools.jar)',
    ]);
    assert.equal(missing.length, 4);
    assert.match(missing[2]!, /^pin digest not recorded: tla2tools\.jar 1\.8\.0 /);
    assert.match(missing[3]!, /^pin digest not recorded: java-runtime 21 /);
    const mac = await tlcMissing(undefined, {}, undefined, { os: 'darwin', arch: 'arm64' });
    assert.equal(mac.missing[0], 'this profile requires Linux x86_64, this host is darwin/arm64');
  });
  test('with the image and the jar present, only the unrecorded pins remain; a recorded pin is compared', async () => {
    const jar = join(tmp, 'tla2tools.jar');
    writeFileSync(jar, 'not a jar: a placeholder so the path check passes\n');
    const env = { VKIT_TLC_IMAGE: ID, VKIT_TLC_JAR: jar };
    const got = await tlcMissing(engineWith({ [ID]: ID }), env, undefined, LINUX);
    assert.equal(got.image, ID);
    assert.equal(got.jar, jar);
    assert.deepEqual(
      got.missing.map((m) => m.split(' (')[0]),
      ['pin digest not recorded: tla2tools.jar 1.8.0', 'pin digest not recorded: java-runtime 21'],
    );
    const pinned = {
      pins: [
        { asset: 'tla2tools.jar', version: '1.8.0', what: 'jar', sha256: `sha256:${'e'.repeat(64)}` },
        { asset: 'java-runtime', version: '21', what: 'jre', sha256: `sha256:${'d'.repeat(64)}` },
      ],
    };
    const compared = await tlcMissing(engineWith({ [ID]: ID }), env, pinned, LINUX);
    assert.equal(compared.missing.length, 1, compared.missing.join('\n'));
    assert.match(compared.missing[0]!, /^VKIT_TLC_JAR .* is sha256:[0-9a-f]{64}, pinned sha256:e{64}$/);
    const tag = await tlcMissing(engineWith({}), { ...env, VKIT_TLC_IMAGE: 'tlc:latest' }, pinned, LINUX);
    assert.match(tag.missing[0]!, /must be a full `sha256:<64 hex>` image id/);
  });
  test('the item itself: a .tla model, a .cfg configuration, no macros', () => {
    assert.deepEqual(tlcModelProblems({ model: 'specs/Counter.tla', config: 'specs/Counter.cfg', defines: [] }), []);
    assert.deepEqual(tlcModelProblems({ model: 'specs/Counter.pml', config: undefined, defines: ['N=3'] }), [
      'the model `specs/Counter.pml` is not a TLA+ module (`.tla`)',
      'no `config`: TLC needs the model configuration (`.cfg`) as a captured input',
      '`defines` (N=3): TLA+ has no macros; use CONSTANTS in the configuration',
    ]);
  });
  test('registered; checker() names the assets; run() leaves every property unknown and starts nothing', async () => {
    assert.equal(await loadModelProfile('tlc-linux-x86_64-v1'), tlcProfile);
    assert.deepEqual(tlcProfile.propertyKinds, ['invariant', 'deadlock', 'ltl']);
    const plan = await tlcProfile.checker(undefined, {});
    assert.equal(plan.image, undefined);
    assert.ok(plan.missing.some((m) => m.startsWith('VKIT_TLC_JAR not set')));
    const model = {
      id: 'counter',
      profile: 'tlc-linux-x86_64-v1',
      model: 'specs/Counter.tla',
      config: 'specs/Counter.cfg',
      defines: [],
      properties: [
        { name: 'TypeOK', kind: 'invariant', defines: [], required: true },
        { name: 'no-deadlock', kind: 'deadlock', defines: [], required: true },
      ],
      bounds: { depth: 100_000, memory_mb: 1024, timeout_s: 300, minimize_s: 20 },
      inputs: ['specs/**'],
      required: true,
    } as ResolvedModel;
    const outcome = await tlcProfile.run({
      model,
      source: tmp,
      out: tmp,
      sandbox: engineWith({}),
      env: {},
      signal: new AbortController().signal,
      containerPrefix: 'vkit-test',
    });
    assert.deepEqual(
      outcome.properties.map((p) => p.claim),
      ['unknown', 'unknown'],
    );
    for (const p of outcome.properties) assert.match(p.reason, /^checker unavailable: .*VKIT_TLC_IMAGE.*VKIT_TLC_JAR/);
    assert.equal(foldModel(outcome.properties).outcome, 'BLOCKED');
  });
});

test('vkit policy accept refuses a TLC item naming the missing assets; vkit build is BLOCKED, never READY', () => {
  const repo = tempRepo({
    'specs/Counter.tla': "---- MODULE Counter ----\nVARIABLE x\nInit == x = 0\nNext == x' = x\n====\n",
    'specs/Counter.cfg': 'INIT Init\nNEXT Next\nINVARIANT TypeOK\n',
  });
  const env = Object.fromEntries(
    Object.keys(process.env)
      .filter((k) => k.startsWith('VKIT_TLC'))
      .map((k) => [k, '']),
  );
  try {
    repo.manifest({
      formal: {
        models: [
          {
            id: 'counter',
            profile: 'tlc-linux-x86_64-v1',
            model: 'specs/Counter.tla',
            config: 'specs/Counter.cfg',
            properties: [{ name: 'TypeOK', kind: 'invariant' }],
            inputs: ['specs/**'],
          },
        ],
      },
    });
    const accept = cli(repo, ['policy', 'accept', '--json'], env);
    assert.equal(accept.code, 3, accept.stdout + accept.stderr);
    const refused = accept.json().refused;
    assert.equal(refused.length, 1);
    assert.equal(refused[0].component, 'model:counter');
    const reasons = refused[0].reasons.join('\n');
    for (const asset of [
      'VKIT_TLC_IMAGE',
      'VKIT_TLC_JAR',
      'pin digest not recorded: tla2tools.jar',
      'pin digest not recorded: java-runtime',
    ])
      assert.ok(reasons.includes(asset), `refusal names ${asset}: ${reasons}`);
    const build = cli(repo, ['build', '--json'], env);
    assert.equal(build.code, 3, build.stdout + build.stderr);
    const gate = build.json().gate;
    assert.equal(gate.status, 'BLOCKED');
    const item = gate.items.find((i: { id: string }) => i.id === 'model:counter');
    assert.equal(item.status, 'BLOCKED');
    assert.match(item.reason, /not accepted/);
  } finally {
    repo.cleanup();
  }
});
