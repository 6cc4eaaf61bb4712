/**
 * Fuzzing `vkit.manifest.json`: seeded hostile documents (test/_support/fuzz-manifests.ts: valid
 * manifests, near-valid mutations, byte damage) must never crash vkit (exit 4, a stack), hang, or
 * end READY when a check it declares fails or did not run. Most cases run in-process (the gate
 * service over a tree without git: loading, validation, the workspace's glob checks, the graph);
 * a few go through the real CLI in a git repository (`gate --json`, `build --json`, `build`, `gate`,
 * properties in test/_support/fuzz-cli.ts).
 *
 * Reproducible: the seed is printed, and each case draws from its own generator (seed, case
 * number). A longer run: `npm run fuzz:config`, or
 *   VKIT_FUZZ_SEED=7 VKIT_FUZZ_MANIFEST_CASES=2000 VKIT_FUZZ_MANIFEST_CLI_CASES=200 node scripts/run-tests.js config/manifest-fuzz
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { VkitError } from '../../src/errors.js';
import { gateExitCode } from '../../src/gate/evaluate.js';
import { gate } from '../../src/service/index.js';
import { cliCase, runCliCases, runVkit } from '../_support/fuzz-cli.js';
import { generateManifest, knownOf, setModelRequest, type ManifestCase } from '../_support/fuzz-manifests.js';
import { caseRng } from '../_support/random.js';
import { REPO_ROOT, tempRepo } from '../_support/repo.js';

const SEED = Number(process.env.VKIT_FUZZ_SEED ?? 0x5eed);
const CASES = Number(process.env.VKIT_FUZZ_MANIFEST_CASES ?? 60);
const CLI_CASES = Number(process.env.VKIT_FUZZ_MANIFEST_CLI_CASES ?? 4);
/** Per CLI invocation: far above any case (a slow check under a 1 s timeout included), far below a hang's cost. */
const INVOCATION_MS = 60_000;
const CASE_MS = 20_000;
const NAME = 'vkit.manifest.json';

const scratch = mkdtempSync(join(tmpdir(), 'vkit-manifest-fuzz-'));
before(() => {
  console.log(
    `manifest fuzz: VKIT_FUZZ_SEED=${SEED} VKIT_FUZZ_MANIFEST_CASES=${CASES} VKIT_FUZZ_MANIFEST_CLI_CASES=${CLI_CASES}`,
  );
  setModelRequest(readFileSync(join(REPO_ROOT, 'examples', 'model-comparison', 'request.json'), 'utf8'));
});
after(() => rmSync(scratch, { recursive: true, force: true }));

const knownData = (c: ManifestCase) => {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(c.bytes)) as unknown;
  } catch {
    return undefined;
  }
};

const write = (dir: string, files: Record<string, string | Uint8Array>) => {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
};

test('in-process: the gate answers every generated manifest with exit 0-3, a named file on exit 2, never READY with requirements and no evidence', async () => {
  const t0 = performance.now();
  const exits = new Map<string, number>();
  for (let index = 0; index < CASES; index++) {
    const dir = join(scratch, `p${index}`);
    const c = generateManifest(caseRng(SEED, index), join(dir, '..', `marks-p${index}`));
    const what = `case ${index} (${c.generator}) of VKIT_FUZZ_SEED=${SEED}`;
    mkdirSync(dir);
    write(dir, { ...c.files, [NAME]: c.bytes });
    const started = performance.now();
    let exit: number;
    let message = '';
    try {
      // One store for every case: its file-state cache then hashes node and the shell once, not per case.
      exit = gateExitCode((await gate({ root: dir, store: join(scratch, 'store') })).gate.status);
    } catch (error) {
      if (!(error instanceof VkitError))
        assert.fail(`${what}: crashed (exit 4): ${(error as Error)?.stack ?? String(error)}`);
      exit = error.exitCode;
      message = error.message;
    }
    const ms = performance.now() - started;
    const known = knownOf(knownData(c));
    assert.ok([0, 1, 2, 3].includes(exit), `${what}: exit ${exit}: ${message}`);
    // A comparison's invalid request file is reported under its own name and JSON path.
    if (exit === 2)
      assert.ok(
        [NAME, ...known.named].some((f) => message.includes(f)),
        `${what}: exit 2 without naming ${NAME}: ${message.slice(0, 500)}`,
      );
    if (c.invalid) assert.equal(exit, 2, `${what}: ${c.invalid}, answered ${exit}`);
    if (exit === 0)
      assert.equal(known.requirements, 0, `${what}: READY with requirements and no evidence (a false green)`);
    assert.ok(ms < CASE_MS, `${what}: took ${ms.toFixed(0)} ms`);
    exits.set(String(exit), (exits.get(String(exit)) ?? 0) + 1);
    rmSync(dir, { recursive: true, force: true });
  }
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  const line = ['0', '1', '2', '3'].map((k) => `${k}:${exits.get(k) ?? 0}`).join(' ');
  console.log(`manifest fuzz (in-process): ${CASES} cases in ${s} s, exits ${line}`);
  console.log(
    `FUZZ-FIGURES ${JSON.stringify({ fuzzer: 'manifest (in-process gate)', seed: SEED, cases: CASES, exits: Object.fromEntries(exits), hangs: 0, seconds: Number(s) })}`,
  );
});

test('the CLI: gate and build answer generated manifests with exit 0-3, no stack, no hang, READY only when every check ran and passed', async () => {
  const cases = Array.from({ length: CLI_CASES }, (_, k) => CASES + k); // not the in-process cases again
  const failures = await runCliCases('manifest', SEED, cases, async (index, repo, marks, tally) => {
    // The first case is a valid manifest, so that even a short run goes through a real build.
    const c = generateManifest(caseRng(SEED, index), marks, index === CASES ? { mutations: 0 } : {});
    write(repo.dir, { ...c.files, [NAME]: c.bytes });
    const known = knownOf(knownData(c));
    const mustPass = c.generator === 'valid' && known.requirements > 0 && known.cannotPass.length === 0 && !c.invalid;
    return cliCase({
      what: `case ${index} (${c.generator}) of VKIT_FUZZ_SEED=${SEED}`,
      root: repo.dir,
      configName: NAME,
      known,
      invalid: c.invalid,
      mustPass,
      timeoutMs: INVOCATION_MS,
      tally,
    });
  });
  assert.deepEqual(failures, []);
});

// Regressions: each was a failing fuzz case (CHANGELOG, Unreleased), kept as a fixed test.

test('regression (case 107 of seed 24301): a manifest that is not UTF-8 is exit 2 naming the byte and line, not read with U+FFFD in its place', async () => {
  const text =
    '{\n  "checks": [\n    { "id": "x", "run": ["node", "-e", "process.exit(0) // \u0000"], "inputs": ["a.txt"] }\n  ]\n}\n';
  const bytes = Buffer.from(text.replace('\u0000', 'é'));
  const at = bytes.indexOf(Buffer.from('é')) + 1; // the continuation byte of é, made invalid
  bytes[at] = 0xff;
  const repo = tempRepo({ 'a.txt': 'a\n', [NAME]: bytes });
  try {
    for (const args of [['gate'], ['build', '--json']]) {
      const r = await runVkit([...args, '--root', repo.dir], { cwd: repo.dir, timeoutMs: INVOCATION_MS });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /vkit\.manifest\.json:3\b.*not valid UTF-8.*byte (offset )?\d+/s);
    }
  } finally {
    repo.cleanup();
  }
});

/** A manifest whose formal component's `parameters` (any JSON) holds `value` as its text. */
const withParameters = (value: string) =>
  `{"checks": [{"id": "x", "run": "true", "inputs": ["a.txt"]}],\n "formal": {"components": [{"id": "f", "package": {"id": "p", "version": "1", "sha256": "sha256:${'0'.repeat(64)}"}, "contract": "c", "source": {"entry": "a.txt"}, "profile": "coq-linux-x86_64-v1", "bindings": {}, "inputs": ["a.txt"],\n "parameters": {"x": ${value}}}]}}\n`;

const refusals: Array<[string, string, RegExp]> = [
  // case 12 of seed 1 ('odd unicode'): a lone surrogate in an argv string
  [
    'a lone surrogate in a string (case 12 of seed 1)',
    '{"checks": [{"id": "x", "run": ["node", "-\\udfffe", "0"], "inputs": ["a.txt"]}]}',
    /vkit\.manifest\.json:1 checks\[0\]\.run\[1\].*lone surrogate/s,
  ],
  [
    'a number past the largest double',
    withParameters('1e400'),
    /vkit\.manifest\.json:3 formal\.components\[0\]\.parameters\.x.*1e400/s,
  ],
  [
    'a value nested 100,000 levels deep',
    withParameters(`${'['.repeat(100_000)}1${']'.repeat(100_000)}`),
    /vkit\.manifest\.json:3 formal\.components\[0\]\.parameters\.x.*nested more than 64 levels/s,
  ],
];
for (const [name, text, message] of refusals) {
  test(`regression: ${name} in vkit.manifest.json is exit 2 at its field, not an internal error (exit 4)`, async () => {
    const repo = tempRepo({ 'a.txt': 'a\n', [NAME]: text });
    try {
      for (const args of [['build', '--json']]) {
        const r = await runVkit([...args, '--root', repo.dir], { cwd: repo.dir, timeoutMs: INVOCATION_MS });
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout.slice(0, 2000)}${r.stderr.slice(0, 2000)}`);
        assert.match(r.stderr, message);
        assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
      }
    } finally {
      repo.cleanup();
    }
  });
}
