/**
 * No-op records of TS configs (D53): a config whose data is a function of its own code (sealed:
 * fast/seal.ts) has its repeated no-op answered from a record, with a full run's answer, and a
 * change to any module it stands on (even outside the work tree), or to a settings file esbuild
 * would read above one, is never answered from it. A config that reads its environment, a file, the
 * clock or chance is never recorded: its answers follow the world. "Recalled" is observed from
 * outside, as in noop-record.slow.test.ts: git on PATH logs its calls, and a recalled answer runs none.
 */
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gitLogger } from '../_support/git-log.js';
import { refusedUnsettled, retryUntilRecalled, SETTLE_MS } from '../_support/noop-records.js';
import { tempRepo, vkit, type TempRepo } from '../_support/repo.js';
import { sleep } from '../_support/wait.js';

const bin = mkdtempSync(join(tmpdir(), 'vkit-seal-bin-'));
const LOG = join(bin, 'git-calls.log');
const shared = mkdtempSync(join(tmpdir(), 'vkit-seal-shared-'));
const ENV = { PATH: `${bin}:${process.env.PATH}`, VKIT_DAEMON: '0', VKIT_NOOP_DEBUG: '1' };
let repo: TempRepo;

const run = (args: string[], env: NodeJS.ProcessEnv = {}) => vkit(args, { cwd: repo.dir, env: { ...ENV, ...env } });
let observe: ReturnType<typeof gitLogger>;
const observed = (args: string[], env: NodeJS.ProcessEnv = {}) => observe(() => run(args, env));
/**
 * Runs until an answer comes from a record (or `tries` runs, a settle apart after each that kept no
 * record: VKIT_NOOP_DEBUG=1 says so); the last run and whether it was recalled.
 */
const untilRecalled = (args: string[], tries = 5, env: NodeJS.ProcessEnv = {}) =>
  retryUntilRecalled(() => observed(args, env), tries);
/**
 * Runs `tries` times unless one is answered from a record (it must not be), on settled state: a
 * settle apart only after a run that refused for a path changed within the racy window.
 */
const neverRecalled = (args: string[], tries: number) =>
  retryUntilRecalled(() => observed(args), tries, refusedUnsettled);
const withoutMs = (report: { stats: Record<string, unknown> }) => ({ ...report, stats: { ...report.stats, ms: 0 } });

/** A config taking its second check from `<shared>/sub/extra.ts`, outside the work tree. */
function sealedConfig() {
  repo.write(
    'vkit.config.ts',
    `import { defineConfig } from 'vkit';
import { extra } from '${shared}/sub/extra.ts';
export default defineConfig(() => ({
  checks: [{ id: 'a', run: ['node', 'check.js'], inputs: ['check.js', 'src/**'] }, ...extra],
}));
`,
  );
}
function extra(exitCode: number) {
  writeFileSync(
    join(shared, 'sub', 'extra.ts'),
    `export const extra = [{ id: 'b', run: ['node', '-e', 'process.exit(${exitCode})'], inputs: ['check.js'] }];\n`,
  );
}

before(async () => {
  observe = gitLogger(bin, LOG);
  mkdirSync(join(shared, 'sub'));
  extra(0);
  repo = tempRepo({ 'src/a.txt': 'a\n', 'check.js': 'process.exit(0)\n' });
  sealedConfig();
  repo.commitAll();
  assert.equal(run(['build']).code, 0);
  await sleep(SETTLE_MS);
});

after(() => {
  repo.cleanup();
  rmSync(bin, { recursive: true, force: true });
  rmSync(shared, { recursive: true, force: true });
});

test("a sealed TS config's repeated no-op is answered from its record, with a full run's answer", async () => {
  const { r, recalled } = await untilRecalled(['build', '--json']);
  assert.ok(recalled, r.stderr);
  assert.equal(r.code, 0, r.stderr);
  const rootBefore = lstatSync(repo.dir, { bigint: true });
  const full = run(['build', '--json'], { VKIT_NOOP_RECORDS: '0' });
  assert.deepEqual(withoutMs(r.json()), withoutMs(full.json()));
  // Evaluated from memory: no temp module was written beside the config, so the root's own state
  // (which every record stands on) is not changed by each full run.
  const rootAfter = lstatSync(repo.dir, { bigint: true });
  assert.equal(rootAfter.mtimeNs, rootBefore.mtimeNs);
  assert.equal(rootAfter.ctimeNs, rootBefore.ctimeNs);
});

test('an edit to a module the config imports from outside the work tree is never answered from the record', async () => {
  assert.ok((await untilRecalled(['gate'])).recalled);
  extra(1); // the second check now fails: a recalled READY would be a false green
  const { r, recalled } = observed(['build']);
  assert.equal(recalled, false);
  assert.equal(r.code, 1, r.stdout);
  assert.match(r.stdout, /gate REJECTED/);
  extra(0);
  assert.equal(run(['build']).code, 0);
});

test('a package.json appearing above an imported module is never answered from the record', async () => {
  assert.ok((await untilRecalled(['gate'])).recalled);
  writeFileSync(join(shared, 'package.json'), '{"type": "module"}\n');
  try {
    assert.equal(observed(['gate']).recalled, false);
  } finally {
    rmSync(join(shared, 'package.json'));
  }
});

test('a tsconfig.json above an imported module that extends another file: not recorded (the base could change resolution)', async () => {
  writeFileSync(join(shared, 'tsconfig.json'), '{"extends": "./base.json"}\n');
  writeFileSync(join(shared, 'base.json'), '{}\n');
  try {
    const { r, recalled } = await neverRecalled(['gate'], 3);
    assert.equal(recalled, false);
    assert.match(r.stderr, /extends another file/);
  } finally {
    rmSync(join(shared, 'tsconfig.json'));
    rmSync(join(shared, 'base.json'));
  }
});

test('a config that reads its environment, a file, the clock or chance is never recorded', async (t) => {
  const cases: Record<string, { config: string; why: RegExp }> = {
    env: {
      config: `export default { checks: [{ id: 'a', run: ['node', 'check.js'], inputs: [typeof process === 'object' ? (process.env.INPUTS ?? 'check.js') : 'check.js'] }] };`,
      why: /reads process/,
    },
    file: {
      config: `import { readFileSync } from 'node:fs';
export default { checks: JSON.parse(readFileSync('${shared}/checks.json', 'utf8')) };`,
      why: /imports more than vkit/,
    },
    clock: {
      config: `export default { checks: [{ id: 'a' + (Date.now() > 0 ? '' : 'x'), run: ['node', 'check.js'], inputs: ['check.js'] }] };`,
      why: /reads Date/,
    },
    chance: {
      config: `let id = 'a'; try { if (Math.random() > 2) id = 'z'; } catch {}
export default { checks: [{ id, run: ['node', 'check.js'], inputs: ['check.js'] }] };`,
      why: /reads Math\.random/,
    },
  };
  writeFileSync(
    join(shared, 'checks.json'),
    JSON.stringify([{ id: 'a', run: ['node', 'check.js'], inputs: ['check.js'] }]),
  );
  try {
    for (const [name, c] of Object.entries(cases)) {
      await t.test(name, async () => {
        repo.write('vkit.config.ts', c.config);
        repo.commitAll(name);
        const first = run(['build']);
        assert.equal(first.code, 0, first.stderr);
        await sleep(SETTLE_MS);
        const { r, recalled } = await neverRecalled(['build'], 3);
        assert.equal(recalled, false, `${name} was answered from a record`);
        assert.match(r.stderr, c.why);
      });
    }
    // The file's config follows the file: a failing check listed there fails the gate.
    repo.write('vkit.config.ts', cases.file!.config);
    repo.commitAll('file again');
    writeFileSync(
      join(shared, 'checks.json'),
      JSON.stringify([{ id: 'a', run: ['node', '-e', 'process.exit(1)'], inputs: ['check.js'] }]),
    );
    const followed = run(['build']);
    assert.equal(followed.code, 1, followed.stdout);
  } finally {
    sealedConfig();
    repo.commitAll('sealed again');
  }
});
