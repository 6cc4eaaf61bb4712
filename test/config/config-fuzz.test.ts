/**
 * Fuzzing `vkit.config.ts`: seeded valid configs wrapped in hostile code (test/_support/fuzz-configs.ts:
 * odd throws, process.exit, rejections, open handles, endless loops, prototype pollution, throwing
 * Proxies, stdout writes, syntax errors, data that is not plain, huge outputs, forged messages on the
 * config thread's channel). Whatever the config does, vkit answers with exit 0-3, never a stack or
 * a hang; exit 2 names the config; what the config prints never reaches `--json` stdout; no bundled
 * temp module stays behind; READY only when every declared check ran and passed. In-process cases
 * load the config (`loadConfig`: bundling, the thread, plain data, validation); a few go through the
 * CLI in a git repository (properties in test/_support/fuzz-cli.ts). Endless loops are bounded by
 * `VKIT_CONFIG_TIMEOUT_S` (1 s in-process, 2 s through the CLI).
 *
 * Reproducible: the seed is printed, and each case draws from its own generator (seed, case
 * number). A longer run: `npm run fuzz:config`, or
 *   VKIT_FUZZ_SEED=7 VKIT_FUZZ_CONFIG_CASES=500 VKIT_FUZZ_CONFIG_CLI_CASES=200 node scripts/run-tests.js config/config-fuzz
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config/load.js';
import { VkitError } from '../../src/errors.js';
import { cliCase, leftoverTempModules, runCliCases, runVkit } from '../_support/fuzz-cli.js';
import { generateConfig } from '../_support/fuzz-configs.js';
import { setModelRequest } from '../_support/fuzz-manifests.js';
import { caseRng } from '../_support/random.js';
import { REPO_ROOT, sections, tempRepo } from '../_support/repo.js';

const SEED = Number(process.env.VKIT_FUZZ_SEED ?? 0x5eed);
const CASES = Number(process.env.VKIT_FUZZ_CONFIG_CASES ?? 20);
const CLI_CASES = Number(process.env.VKIT_FUZZ_CONFIG_CLI_CASES ?? 2);
const INVOCATION_MS = 60_000;
const CASE_MS = 20_000;
const NAME = 'vkit.config.ts';

const scratch = mkdtempSync(join(tmpdir(), 'vkit-config-fuzz-'));
before(() => {
  console.log(
    `config fuzz: VKIT_FUZZ_SEED=${SEED} VKIT_FUZZ_CONFIG_CASES=${CASES} VKIT_FUZZ_CONFIG_CLI_CASES=${CLI_CASES}`,
  );
  setModelRequest(readFileSync(join(REPO_ROOT, 'examples', 'model-comparison', 'request.json'), 'utf8'));
});
after(() => rmSync(scratch, { recursive: true, force: true }));

const write = (dir: string, files: Record<string, string | Uint8Array>) => {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
};

test('in-process: loading answers every generated config with its data or exit 2 naming it, and reads exactly the checks declared', async () => {
  const t0 = performance.now();
  const saved = { ...process.env };
  const exits = new Map<string, number>();
  try {
    for (let index = 0; index < CASES; index++) {
      const dir = join(scratch, `p${index}`);
      const c = generateConfig(caseRng(SEED, index), join(scratch, `marks-p${index}`));
      const what = `case ${index} (${c.generator}) of VKIT_FUZZ_SEED=${SEED}`;
      mkdirSync(dir);
      write(dir, { ...c.files, [NAME]: c.text });
      Object.assign(process.env, c.env, { VKIT_CONFIG_TIMEOUT_S: '1' });
      const started = performance.now();
      let exit = 0;
      let message = '';
      // What the config prints goes to vkit's stderr: not shown here (one case prints 3 MB).
      const stderrWrite = process.stderr.write;
      process.stderr.write = (() => true) as typeof process.stderr.write;
      try {
        const config = await loadConfig(dir);
        await config.close();
        if (c.known)
          assert.deepEqual(
            sections(config.manifest).checks.map((k) => k.id),
            c.known.checks.map((k) => k.id),
            `${what}: the checks vkit read are not the checks declared`,
          );
      } catch (error) {
        if (error instanceof assert.AssertionError) throw error;
        if (!(error instanceof VkitError))
          assert.fail(`${what}: crashed (exit 4): ${(error as Error)?.stack ?? String(error)}`);
        exit = error.exitCode;
        message = error.message;
      } finally {
        process.stderr.write = stderrWrite;
        for (const key of Object.keys(c.env)) delete process.env[key];
        Object.assign(process.env, saved);
      }
      const ms = performance.now() - started;
      assert.ok([0, 2].includes(exit), `${what}: exit ${exit}: ${message}`);
      if (exit === 2)
        assert.ok(message.includes(NAME), `${what}: exit 2 without naming ${NAME}: ${message.slice(0, 500)}`);
      assert.equal(
        exit,
        c.invalid ? 2 : 0,
        `${what}: ${c.invalid ? 'loaded a config that must be refused' : `refused: ${message.slice(0, 1000)}`}`,
      );
      assert.deepEqual(leftoverTempModules(dir), [], `${what}: temp module left`);
      assert.ok(ms < CASE_MS, `${what}: took ${ms.toFixed(0)} ms`);
      exits.set(String(exit), (exits.get(String(exit)) ?? 0) + 1);
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    process.env = saved;
  }
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(
    `config fuzz (in-process): ${CASES} cases in ${s} s, loaded ${exits.get('0') ?? 0}, refused (exit 2) ${exits.get('2') ?? 0}`,
  );
  console.log(
    `FUZZ-FIGURES ${JSON.stringify({ fuzzer: 'config (in-process load)', seed: SEED, cases: CASES, exits: Object.fromEntries(exits), hangs: 0, seconds: Number(s) })}`,
  );
});

test('the CLI: gate and build answer generated configs with exit 0-3, no stack, no hang, clean --json, no temp module, READY only when every check ran and passed', async () => {
  const cases = Array.from({ length: CLI_CASES }, (_, k) => CASES + k);
  const failures = await runCliCases('config', SEED, cases, async (index, repo, marks, tally) => {
    const c = generateConfig(caseRng(SEED, index), marks);
    write(repo.dir, { ...c.files, [NAME]: c.text });
    const mustPass = !c.invalid && !!c.known && c.known.requirements > 0 && c.known.cannotPass.length === 0;
    return cliCase({
      what: `case ${index} (${c.generator}) of VKIT_FUZZ_SEED=${SEED}`,
      root: repo.dir,
      configName: NAME,
      known: c.known,
      invalid: c.invalid ? 'a config that must be refused' : undefined,
      mustPass,
      env: c.env,
      timeoutMs: INVOCATION_MS,
      tally,
    });
  });
  assert.deepEqual(failures, []);
});

// Regressions: each was a failing fuzz case (CHANGELOG, Unreleased), kept as a fixed test.

const CHECK = "{ id: 'fails', run: ['node', '-e', 'process.exit(1)'], inputs: ['a.txt'] }";
const COMPONENT =
  "{ id: 'f', package: { id: 'p', version: '1', sha256: 'sha256:' + '0'.repeat(64) }, contract: 'c', source: { entry: 'a.txt' }, profile: 'coq-linux-x86_64-v1', bindings: {}, inputs: ['a.txt'], parameters: P }";
const port = "(await import('node:worker_threads')).parentPort!";
const regressions: Array<[string, string, RegExp]> = [
  [
    'a lone surrogate in a string',
    `export default defineConfig({ checks: [{ id: 'u', run: ['node', '-e', '0', '\\ud800'], inputs: ['a.txt'] }] });`,
    /lone surrogate/,
  ],
  [
    'a forged output message that is not text',
    `${port}.postMessage({ type: 'out', chunk: { not: 'text' } });\nawait new Promise((r) => setTimeout(r, 20));\nexport default defineConfig({ checks: [${CHECK}] });`,
    /message/,
  ],
  [
    'a forged answer holding a cycle',
    `const c: any = {}; c.self = c;\n${port}.postMessage({ type: 'loaded', data: { checks: [], formal: { components: [${COMPONENT.replace('P', 'c')}] } } });\nawait new Promise(() => {});\nexport default defineConfig({ checks: [${CHECK}] });`,
    /cycle/,
  ],
];
for (const [name, body, message] of regressions) {
  test(`regression: a config with ${name} is exit 2 naming it, not an internal error (exit 4)`, async () => {
    const repo = tempRepo({ 'a.txt': 'a\n', [NAME]: `import { defineConfig } from 'vkit';\n${body}\n` });
    try {
      for (const args of [['build', '--json']]) {
        const r = await runVkit([...args, '--root', repo.dir], { cwd: repo.dir, timeoutMs: INVOCATION_MS });
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout.slice(0, 2000)}${r.stderr.slice(0, 2000)}`);
        assert.match(r.stderr, /vkit\.config\.ts/);
        assert.match(r.stderr, message);
        assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
      }
      assert.deepEqual(leftoverTempModules(repo.dir), []);
    } finally {
      repo.cleanup();
    }
  });
}
