/**
 * The Lean profile, which cannot run here: the missing toolchain is named, `run()` never establishes
 * (and never refutes) anything and a `formal.models` item with it is BLOCKED through the real CLI.
 * The procedure is tested as pure functions: the exact argv, the generated axioms file, Lean's and
 * Lake's messages (columns made one-based) and `#print axioms` reports read from the hand-written
 * parser fixtures of test/rules/model/fixtures/lean (see its README: never evidence), the
 * per-theorem judgement and the project scan. No test fakes Lean: nothing here runs `lean` or `lake`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Sandbox } from '../../../src/checkers/container.js';
import { treeSha256 } from '../../../rules/model/lib/assets.js';
import type { ResolvedModel } from '../../../rules/model/schema.js';
import { foldModel } from '../../../rules/model/lib/fold.js';
import {
  capturedPath,
  judgeTheorem,
  leanDiagnostics,
  parseAxiomReports,
  parseLeanMessages,
  scanLeanProject,
  toolchainProblem,
} from '../../../rules/model/lib/lean/output.js';
import {
  axiomsFile,
  leanAxiomsArgv,
  leanBuildArgv,
  leanEnv,
  leanName,
  leanProjectRoot,
  moduleOf,
} from '../../../rules/model/lib/lean/procedure.js';
import { leanMissing, leanProfile } from '../../../rules/model/lib/lean/profile.js';
import { loadModelProfile } from '../../../rules/model/lib/profiles.js';
import { cli } from '../../_support/evidence.js';
import { REPO_ROOT, tempRepo } from '../../_support/repo.js';

const FIX = join(REPO_ROOT, 'test', 'rules', 'model', 'fixtures', 'lean');
const fixture = (name: string) => readFileSync(join(FIX, name), 'utf8');
const LINUX = { os: 'linux', arch: 'x64' };
const ID = `sha256:${'b'.repeat(64)}`;
const PINNED = 'leanprover/lean4:v4.22.0';

const tmp = mkdtempSync(join(tmpdir(), 'vkit-lean-test-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A sandbox stand-in that only answers image questions; running anything is a test failure. */
function engineWith(installed: Record<string, string>): Sandbox {
  return {
    socket: 'unix:///test/engine.sock',
    async run() {
      throw new Error('the Lean profile must not start a container without every asset');
    },
    async imageId(ref) {
      return installed[ref];
    },
    async toolTree() {
      throw new Error('not asked');
    },
  };
}

describe('the procedure: exact argv and the generated axioms file', () => {
  test('lake build in the private copy, then lake env lean on the generated file', () => {
    assert.deepEqual(leanBuildArgv(), ['/opt/lean/bin/lake', 'build']);
    assert.deepEqual(leanAxiomsArgv(), ['/opt/lean/bin/lake', 'env', '/opt/lean/bin/lean', '/work/VkitAxioms.lean']);
    assert.deepEqual(leanEnv(), {
      PATH: '/opt/lean/bin:/usr/bin:/bin',
      HOME: '/work',
      TMPDIR: '/work',
      LANG: 'C.UTF-8',
    });
  });
  test('the project root: the directory itself, or a root file the capture check can see', () => {
    assert.equal(leanProjectRoot('lean/demo'), 'lean/demo');
    assert.equal(leanProjectRoot('lean/demo/lean-toolchain'), 'lean/demo');
    assert.equal(leanProjectRoot('lean/demo/lakefile.toml'), 'lean/demo');
    assert.equal(leanProjectRoot('lakefile.toml'), '.');
  });
  test('modules and names, quoted where they are not plain identifiers', () => {
    assert.equal(moduleOf('Demo/Basic.lean'), 'Demo.Basic');
    assert.equal(moduleOf('Demo/with-dash.lean'), 'Demo.«with-dash»');
    assert.equal(moduleOf('lakefile.lean'), null);
    assert.equal(moduleOf('.lake/build/x.lean'), null);
    assert.equal(moduleOf('README.md'), null);
    assert.equal(leanName("Demo.primed'"), "Demo.primed'");
    assert.equal(leanName('Demo.with-dash'), 'Demo.«with-dash»');
    assert.equal(
      axiomsFile(['Demo.Basic', 'Demo'], ['Demo.add_zero', 'Demo.with-dash']),
      'import Demo\nimport Demo.Basic\n\n#print axioms Demo.add_zero\n#print axioms Demo.«with-dash»\n',
    );
  });
});

describe("Lean's and Lake's messages", () => {
  test('a failed build: each positioned message with its continuation, Lake lines left out, columns one-based', () => {
    const m = parseLeanMessages(fixture('build-failure.txt'));
    assert.deepEqual(
      m.map((x) => [x.severity, x.file, x.line, x.column]),
      [
        ['error', '././././Demo/Basic.lean', 7, 3],
        ['warning', '././././Demo/Basic.lean', 11, 9],
        ['error', '././././Demo/Basic.lean', 15, 11],
      ],
    );
    assert.equal(m[0]!.text, 'unsolved goals\nn : Nat\n⊢ n + 0 = 0 + n');
    assert.equal(m[2]!.text, "unknown identifier 'foo'", 'Lake\'s "error: Lean exited" is not part of it');
    const d = leanDiagnostics(m, '/work/project', 'lean/demo');
    assert.deepEqual(d[0], {
      severity: 'error',
      message: 'unsolved goals\nn : Nat\n⊢ n + 0 = 0 + n',
      file: 'lean/demo/Demo/Basic.lean',
      line: 7,
      column: 3,
    });
  });
  test("Lean's own format: error names, end positions, notes; a file outside the project has no captured path", () => {
    const m = parseLeanMessages(fixture('lean-messages.txt'));
    assert.deepEqual(
      m.map((x) => [x.severity, x.file, x.line, x.column, x.text.split('\n')[0]]),
      [
        ['error', 'Demo/Basic.lean', 3, 9, "unknown identifier 'x'"],
        ['warning', 'Demo/Basic.lean', 5, 1, 'unused variable `h`'],
        ['error', '/work/VkitAxioms.lean', 1, 1, "unknown module prefix 'Demo'"],
      ],
    );
    assert.match(m[2]!.text, /No directory 'Demo'/);
    const d = leanDiagnostics(m, '/work/project', '.');
    assert.equal(d[0]!.file, 'Demo/Basic.lean');
    assert.equal(d[2]!.file, undefined);
    assert.match(d[2]!.message, /^\/work\/VkitAxioms\.lean:1:1: unknown module prefix/);
    assert.equal(capturedPath('/work/project/Demo/A.lean', '/work/project', 'lean/demo'), 'lean/demo/Demo/A.lean');
    assert.equal(capturedPath('/opt/lean/lib/lean/Init.lean', '/work/project', '.'), null);
    assert.equal(capturedPath('../x.lean', '/work/project', '.'), null);
    assert.deepEqual(parseLeanMessages(fixture('build-success.txt')).length, 1);
  });
  test('#print axioms reports: none, some, wrapped, quoted and primed names', () => {
    const r = parseAxiomReports(fixture('axioms.txt'));
    assert.deepEqual(Object.fromEntries(r), {
      'Demo.add_zero': [],
      'Demo.add_comm': ['propext'],
      'Demo.classical_thing': ['propext', 'Classical.choice', 'Quot.sound'],
      'Demo.unfinished': ['sorryAx'],
      'Demo.postulated': ['Demo.myAxiom', 'propext'],
      'Demo.with-dash': [],
      "Demo.primed'": ['Quot.sound'],
    });
  });
});

describe('the judgement per theorem: established only with accepted axioms; never refuted', () => {
  const reports = parseAxiomReports(fixture('axioms.txt'));
  const ok = { ok: true } as const;
  const judge = (name: string) => judgeTheorem(name, ok, reports, []);
  test('accepted axioms (or none) establish the theorem', () => {
    assert.deepEqual(judge('Demo.add_zero'), {
      claim: 'established',
      reason: 'kernel-checked by lake build; no axioms',
      axioms: [],
    });
    assert.equal(judge('Demo.classical_thing').claim, 'established');
    assert.equal(judge('Demo.with-dash').claim, 'established');
    assert.equal(judge("Demo.primed'").claim, 'established');
  });
  test('sorry, another axiom, a missing report or a failed build leave it unknown', () => {
    assert.deepEqual(judge('Demo.unfinished'), {
      claim: 'unknown',
      reason: 'Demo.unfinished depends on sorryAx: its proof is incomplete',
      axioms: ['sorryAx'],
    });
    assert.match(
      judge('Demo.postulated').reason,
      /outside the accepted ones \(propext, Classical\.choice, Quot\.sound\): Demo\.myAxiom$/,
    );
    assert.equal(judge('Demo.postulated').claim, 'unknown');
    const missing = judgeTheorem('Demo.missing', ok, reports, [
      "/work/VkitAxioms.lean:10:1: unknown constant 'Demo.missing'",
    ]);
    assert.equal(missing.claim, 'unknown');
    assert.match(missing.reason, /no `#print axioms` report for Demo\.missing: .*unknown constant/);
    const failed = judgeTheorem('Demo.add_zero', { ok: false, reason: 'lake build exit 1' }, reports, []);
    assert.equal(failed.claim, 'unknown');
    assert.match(failed.reason, /did not build \(lake build exit 1\): a rejected proof leaves the theorem unknown/);
    assert.equal(
      judgeTheorem('Demo.add_comm', ok, reports, [], ['Quot.sound']).claim,
      'unknown',
      'the accepted list decides',
    );
  });
});

describe('the project scan (a deny-list on the raw text)', () => {
  const scan = (path: string, text: string) =>
    scanLeanProject([{ path, text }]).map((f) => [f.token, f.line, f.column]);
  test('what could make the build or the axiom report lie is refused, with one-based positions', () => {
    assert.deepEqual(scan('lakefile.lean', 'import Lake'), [['lakefile.lean', 1, 1]]);
    assert.deepEqual(scan('lakefile.toml', 'name = "demo"\nmoreLeanArgs = ["-DautoImplicit=false"]\n[[require]]\n'), [
      ['moreLeanArgs', 2, 1],
      ['require', 3, 3],
    ]);
    assert.deepEqual(scan('lakefile.toml', 'name = "d\\u0065mo"'), [['\\', 1, 10]]);
    assert.deepEqual(scan('Demo/Basic.lean', 'import Demo.Util Lean.Elab\n\nmacro_rules | `(x) => `(y)\n'), [
      ['macro_rules', 3, 1],
      ['import Lean.Elab', 1, 18],
    ]);
    assert.deepEqual(scan('Demo/A.lean', 'set_option debug.skipKernelTC true in\ntheorem t : False := sorry'), [
      ['skipKernelTC', 1, 18],
    ]);
    assert.deepEqual(scan('Demo/A.lean', '#eval IO.println "hi"'), [['#eval', 1, 1]]);
    assert.deepEqual(scan('Demo/Basic.olean', ''), [['Basic.olean', 1, 1]]);
    assert.deepEqual(scan('build/lib/Demo.trace', ''), [['Demo.trace', 1, 1]]);
  });
  test('ordinary proofs pass (an attribute that merely contains a word is not the word)', () => {
    assert.deepEqual(
      scan('Demo/Basic.lean', 'import Demo.Util\n\n@[elab_as_elim] theorem t (n : Nat) : n + 0 = n := by simp\n'),
      [],
    );
    assert.deepEqual(
      scan('lakefile.toml', 'name = "demo"\ndefaultTargets = ["Demo"]\n\n[[lean_lib]]\nname = "Demo"\n'),
      [],
    );
    assert.deepEqual(scan('README.md', 'macro elab #eval'), [], 'only Lean sources and the lakefile are read');
  });
  test("the project's lean-toolchain must name the pinned toolchain", () => {
    assert.equal(toolchainProblem(`${PINNED}\n`, PINNED), undefined);
    assert.equal(
      toolchainProblem('leanprover/lean4:v4.9.0\n', PINNED),
      `the project's lean-toolchain names \`leanprover/lean4:v4.9.0\`; this profile runs ${PINNED}`,
    );
    assert.equal(
      toolchainProblem(null, PINNED),
      `the project has no lean-toolchain file (this profile runs ${PINNED})`,
    );
  });
});

describe('BLOCKED here: the missing toolchain named, nothing ever established', () => {
  test('with nothing configured, each missing asset is its own entry', async () => {
    const { missing } = await leanMissing(undefined, {}, undefined, LINUX);
    assert.deepEqual(missing, [
      'VKIT_LEAN_IMAGE not set: give the full `sha256:` id of the installed Lean worker image',
      'VKIT_LEAN_TOOLCHAIN not set: give the absolute path of the expanded pinned Lean toolchain (holding bin/lean and bin/lake)',
      `pin digest not recorded: lean-toolchain ${PINNED} (the expanded official toolchain (VKIT_LEAN_TOOLCHAIN, holding bin/lean and bin/lake), digest over sorted path, mode and sha256 or link target)`,
    ]);
  });
  test('a toolchain directory without its programs is named; a recorded pin is compared with the tree', async () => {
    const empty = join(tmp, 'empty-toolchain');
    mkdirSync(empty, { recursive: true });
    const got = await leanMissing(
      engineWith({ [ID]: ID }),
      { VKIT_LEAN_IMAGE: ID, VKIT_LEAN_TOOLCHAIN: empty },
      undefined,
      LINUX,
    );
    assert.deepEqual(got.missing.slice(0, 2), [
      `VKIT_LEAN_TOOLCHAIN ${empty} holds no bin/lean`,
      `VKIT_LEAN_TOOLCHAIN ${empty} holds no bin/lake`,
    ]);
    const tc = join(tmp, 'toolchain');
    mkdirSync(join(tc, 'bin'), { recursive: true });
    for (const tool of ['lean', 'lake'])
      writeFileSync(join(tc, 'bin', tool), 'not a program: a placeholder so the path check passes\n');
    const env = { VKIT_LEAN_IMAGE: ID, VKIT_LEAN_TOOLCHAIN: tc };
    const pin = (sha256: string) => ({ pins: [{ asset: 'lean-toolchain', version: PINNED, what: 'tree', sha256 }] });
    const wrong = await leanMissing(engineWith({ [ID]: ID }), env, pin(`sha256:${'0'.repeat(64)}`), LINUX);
    assert.equal(wrong.missing.length, 1);
    assert.match(wrong.missing[0]!, /^VKIT_LEAN_TOOLCHAIN .* is sha256:[0-9a-f]{64}, pinned sha256:0{64}$/);
    const right = await leanMissing(engineWith({ [ID]: ID }), env, pin(await treeSha256(tc)), LINUX);
    assert.deepEqual([right.missing, right.image, right.pinned], [[], ID, PINNED]);
  });
  test('registered; checker() names the toolchain; run() leaves every theorem unknown and starts nothing', async () => {
    assert.equal(await loadModelProfile('lean-linux-x86_64-v1'), leanProfile);
    assert.deepEqual(leanProfile.propertyKinds, ['theorem']);
    assert.equal(leanProfile.assurance, 'kernel_proof');
    const plan = await leanProfile.checker(undefined, {});
    assert.equal(plan.image, undefined);
    assert.ok(plan.missing.some((m) => m.startsWith('VKIT_LEAN_TOOLCHAIN not set')));
    const model = {
      id: 'demo',
      profile: 'lean-linux-x86_64-v1',
      model: 'lean/demo/lean-toolchain',
      defines: [],
      properties: [{ name: 'Demo.add_zero', kind: 'theorem', defines: [], required: true }],
      bounds: { depth: 100_000, memory_mb: 1024, timeout_s: 300, minimize_s: 20 },
      inputs: ['lean/demo/**'],
      required: true,
    } as ResolvedModel;
    const outcome = await leanProfile.run({
      model,
      source: tmp,
      out: tmp,
      sandbox: engineWith({}),
      env: {},
      signal: new AbortController().signal,
      containerPrefix: 'vkit-test',
    });
    assert.equal(outcome.properties.length, 1);
    assert.equal(outcome.properties[0]!.claim, 'unknown');
    assert.match(outcome.properties[0]!.reason, /^checker unavailable: .*VKIT_LEAN_TOOLCHAIN not set/);
    assert.equal(foldModel(outcome.properties).outcome, 'BLOCKED');
  });
});

test('vkit policy accept refuses a Lean item naming the missing toolchain; vkit build is BLOCKED, never READY', () => {
  const repo = tempRepo({
    'lean/demo/lean-toolchain': `${PINNED}\n`,
    'lean/demo/lakefile.toml': 'name = "demo"\ndefaultTargets = ["Demo"]\n\n[[lean_lib]]\nname = "Demo"\n',
    'lean/demo/Demo.lean': 'theorem Demo.add_zero (n : Nat) : n + 0 = n := rfl\n',
  });
  const env = Object.fromEntries(
    Object.keys(process.env)
      .filter((k) => k.startsWith('VKIT_LEAN'))
      .map((k) => [k, '']),
  );
  try {
    repo.manifest({
      formal: {
        models: [
          {
            id: 'demo',
            profile: 'lean-linux-x86_64-v1',
            model: 'lean/demo/lean-toolchain',
            properties: [{ name: 'Demo.add_zero', kind: 'theorem' }],
            inputs: ['lean/demo/**'],
          },
        ],
      },
    });
    const accept = cli(repo, ['policy', 'accept', '--json'], env);
    assert.equal(accept.code, 3, accept.stdout + accept.stderr);
    const refused = accept.json().refused;
    assert.equal(refused.length, 1);
    assert.equal(refused[0].component, 'model:demo');
    const reasons = refused[0].reasons.join('\n');
    for (const asset of ['VKIT_LEAN_IMAGE', 'VKIT_LEAN_TOOLCHAIN', `pin digest not recorded: lean-toolchain ${PINNED}`])
      assert.ok(reasons.includes(asset), `refusal names ${asset}: ${reasons}`);
    const build = cli(repo, ['build', '--json'], env);
    assert.equal(build.code, 3, build.stdout + build.stderr);
    const gate = build.json().gate;
    assert.equal(gate.status, 'BLOCKED');
    const item = gate.items.find((i: { id: string }) => i.id === 'model:demo');
    assert.equal(item.status, 'BLOCKED');
    assert.match(item.reason, /not accepted/);
  } finally {
    repo.cleanup();
  }
});
