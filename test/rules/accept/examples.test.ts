/**
 * The two worked examples, examples/weighted-toy/ and examples/rust-delivery/, kept honest:
 *
 * - every `vkit acceptance` command their READMEs show is run through the real CLI and must give
 *   the README's exit code and exactly its output (the README is the test's script);
 * - every hash the documents carry is recomputed here, independently of vkit (node:crypto);
 * - the evidence commands are re-run for real (`node --test`, `cargo test --offline`) and must still
 *   print each claim's `expect` text (the self_verify contract), and the recorded perturbations
 *   must still turn them red;
 * - one changed byte of the toy's source makes its decision fail on a temp copy, never in the repo.
 *
 * Without cargo the Rust re-runs skip, naming $HOME/.cargo/bin; with VKIT_REQUIRE_SYSTEM=1 they fail.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { test } from 'node:test';
import { parse } from 'smol-toml';
import { REPO_ROOT, vkit } from '../../_support/repo.js';
import { m11, sha512 } from '../../_support/acceptance-docs.js';

const EXAMPLES = join(REPO_ROOT, 'examples');
const TOY = join(EXAMPLES, 'weighted-toy');
const RUST = join(EXAMPLES, 'rust-delivery');

const CARGO_BIN = join(homedir(), '.cargo', 'bin');
const PATH_WITH_CARGO = `${CARGO_BIN}${delimiter}${process.env.PATH ?? ''}`;
const hasCargo = spawnSync('cargo', ['--version'], { env: { ...process.env, PATH: PATH_WITH_CARGO } }).status === 0;
const required = process.env.VKIT_REQUIRE_SYSTEM === '1';
const noCargo =
  !hasCargo && !required
    ? `cargo is not installed (looked on PATH and in $HOME/.cargo/bin = ${CARGO_BIN}): install rustup, or set VKIT_REQUIRE_SYSTEM=1 to make this a failure`
    : false;

// ---------------------------------------------------------------------------------------------
// Independent hashing (node:crypto only; never the code under test)

/** The subject digest of acceptance-details §4, by a plain walk: `<path> NUL <sha-512 hex> \n` per file, sorted bytewise. */
function dirDigest(dir: string): string {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const rel = relative(dir, join(d, e.name)).split('\\').join('/');
      if (rel === 'target' || rel === '.git') continue;
      if (e.isDirectory()) walk(join(d, e.name));
      else files.push(rel);
    }
  };
  walk(dir);
  files.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return m11('subject', files.map((f) => `${f}\0${sha512(readFileSync(join(dir, f)))}\n`).join(''));
}

const toml = (file: string) => parse(readFileSync(file, 'utf8')) as any;

/**
 * This file runs under `node --test`, which marks its children with NODE_TEST_CONTEXT; a
 * `node --test` started with that variable reports to a parent that is not listening and runs no
 * test (exit 0, no output). The example's commands must run as a user runs them, so it is removed
 * (an undefined value leaves the variable out of the child's environment).
 */
const CLEAN_ENV: NodeJS.ProcessEnv = { NODE_TEST_CONTEXT: undefined };

/** A copy of an example in a fresh temp directory (build output left behind). */
function copyExample(src: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-example-'));
  cpSync(src, dir, { recursive: true, filter: (p) => !/[\\/]target$/.test(p) });
  return dir;
}

// ---------------------------------------------------------------------------------------------
// The README is the script: a ```sh block holding one `node bin/vkit.js ...` line, then a line
// saying `(exit N)`, then a ```text block with the exact stdout.

interface ReadmeCommand {
  line: string;
  args: string[];
  exit: number;
  stdout: string;
}

function readmeCommands(readme: string): ReadmeCommand[] {
  const out: ReadmeCommand[] = [];
  const re = /```sh\n(node bin\/vkit\.js [^\n]+)\n```\n+[^\n]*\(exit (\d)\)[^\n]*\n+```text\n([\s\S]*?)```/g;
  for (const m of readme.matchAll(re)) {
    const line = m[1]!;
    out.push({ line, args: line.split(/\s+/).slice(2), exit: Number(m[2]), stdout: m[3]! });
  }
  return out;
}

function runReadme(example: string, filter: (c: ReadmeCommand) => boolean, env?: NodeJS.ProcessEnv) {
  const cmds = readmeCommands(readFileSync(join(example, 'README.md'), 'utf8')).filter(filter);
  assert.ok(cmds.length > 0, `no commands found in ${example}/README.md`);
  for (const c of cmds) {
    const r = vkit(c.args, { cwd: REPO_ROOT, env: { ...CLEAN_ENV, ...env } });
    assert.equal(r.stdout, c.stdout, `stdout of \`${c.line}\` differs from the README (stderr: ${r.stderr})`);
    assert.equal(r.code, c.exit, `exit code of \`${c.line}\` (stderr: ${r.stderr})`);
  }
  return cmds;
}

const isRun = (c: ReadmeCommand) => c.args[1] === 'run';

test('weighted-toy: every README command gives the documented exit code and output', () => {
  const cmds = runReadme(TOY, () => true);
  const verbs = new Set(cmds.map((c) => c.args[1]));
  for (const verb of ['check', 'check-spec', 'check-package', 'coverage', 'check-decision', 'run'])
    assert.ok(verbs.has(verb), `README shows \`acceptance ${verb}\``);
  assert.ok(
    cmds.some((c) => c.args.includes('--effect') && c.exit === 1),
    'README shows an expired decision being refused',
  );
});

test('rust-delivery: every README command gives the documented exit code and output (run needs cargo)', () => {
  const cmds = runReadme(RUST, (c) => !isRun(c));
  const verbs = new Set(cmds.map((c) => c.args[1]));
  for (const verb of ['check', 'check-spec', 'check-package', 'coverage', 'check-decision', 'render'])
    assert.ok(verbs.has(verb), `README shows \`acceptance ${verb}\``);
  assert.ok(
    cmds.some((c) => c.args[1] === 'coverage' && c.exit === 1 && c.stdout.includes('R4: deviation-declared')),
    'README shows R4 declared, not met',
  );
  assert.ok(
    cmds.some((c) => c.args.includes('--allow-conditions') && c.exit === 0),
    'README shows the conditional decision honoured with --allow-conditions',
  );
  assert.ok(
    cmds.some((c) => c.args.includes('--effect') && !c.args.includes('--allow-conditions') && c.exit === 1),
    'README shows it refused without',
  );
});

test('rust-delivery: README `acceptance run` re-executes the cargo commands as documented', { skip: noCargo }, () => {
  assert.ok(hasCargo, `cargo is required (VKIT_REQUIRE_SYSTEM=1): looked on PATH and in ${CARGO_BIN}`);
  const target = mkdtempSync(join(tmpdir(), 'vkit-cargo-target-'));
  try {
    runReadme(RUST, isRun, { PATH: PATH_WITH_CARGO, CARGO_TARGET_DIR: target });
  } finally {
    rmSync(target, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------------------

for (const [name, dir] of [
  ['weighted-toy', TOY],
  ['rust-delivery', RUST],
] as const) {
  test(`${name}: every hash in the documents is the digest of the bytes it names (computed independently)`, () => {
    const pkg = toml(join(dir, 'acceptance.toml'));
    const dec = toml(join(dir, 'acceptance-decision.toml'));
    const specHash = m11('specification', readFileSync(join(dir, 'acceptance-specification.toml')));
    const subject = dirDigest(join(dir, pkg.subject.root));
    assert.equal(pkg.specification.hash, specHash);
    assert.equal(dec.binds.specification.hash, specHash);
    assert.equal(dec.binds.specification.id, pkg.specification.id);
    assert.equal(pkg.subject.digest, subject);
    assert.equal(dec.binds.subject.digest, subject);
    assert.equal(dec.binds.package.hash, m11('manifest', readFileSync(join(dir, 'acceptance.toml'))));
    let records = 0;
    for (const claim of pkg.claim)
      for (const ev of claim.evidence ?? []) {
        assert.equal(ev.record_hash, m11('record', readFileSync(join(dir, ev.record))), `${claim.id}: ${ev.record}`);
        records += 1;
      }
    assert.ok(records > 0);
    // The layout the README argues for: no document or record lies inside the subject it certifies.
    for (const doc of ['acceptance.toml', 'acceptance-specification.toml', 'acceptance-decision.toml', 'evidence'])
      assert.ok(
        relative(join(dir, pkg.subject.root), join(dir, doc)).startsWith('..'),
        `${doc} is outside the subject root`,
      );
  });
}

// ---------------------------------------------------------------------------------------------
// The self_verify contract: the recorded commands still pass and still print `expect`.

function runClaim(command: string, cwd: string, env?: NodeJS.ProcessEnv) {
  return spawnSync('sh', ['-c', command], { cwd, env: { ...process.env, ...CLEAN_ENV, ...env }, encoding: 'utf8' });
}

test('weighted-toy: `node --test` still prints the expected line, and the recorded output holds it', () => {
  const pkg = toml(join(TOY, 'acceptance.toml'));
  const [claim] = pkg.claim;
  const r = runClaim(claim.self_verify.command, join(TOY, pkg.subject.root));
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.ok(r.stdout.includes(claim.self_verify.expect), `stdout lacks \`${claim.self_verify.expect}\`:\n${r.stdout}`);
  assert.ok(
    readFileSync(join(TOY, claim.evidence[0].record), 'utf8').includes(claim.self_verify.expect),
    'the record is the passing output',
  );
  assert.ok(
    !claim.self_verify.command.includes(claim.self_verify.expect),
    'the expected text is not in the command itself',
  );
});

test('weighted-toy: the recorded perturbation still turns the check red (on a temp copy)', () => {
  const dir = copyExample(TOY);
  try {
    const pkg = toml(join(dir, 'acceptance.toml'));
    const [claim] = pkg.claim;
    const file = join(dir, pkg.subject.root, 'slug.js');
    const text = readFileSync(file, 'utf8');
    assert.equal(text.split('.toLowerCase()').length, 2, 'slug.js has exactly one .toLowerCase()');
    writeFileSync(file, text.replace('.toLowerCase()', ''));
    const r = runClaim(claim.self_verify.command, join(dir, pkg.subject.root));
    assert.notEqual(r.status, 0);
    assert.ok(!r.stdout.includes(claim.self_verify.expect));
    assert.ok(r.stdout.includes('SLUG-TEST FAILED: 3/6 cases'), r.stdout);
    assert.ok(
      claim.self_verify.watched_fail.observed.includes('SLUG-TEST FAILED: 3/6 cases'),
      'the witness records what the run shows',
    );
    assert.ok(
      readFileSync(join(TOY, 'evidence', 'watched-fail-run.txt'), 'utf8').includes('SLUG-TEST FAILED: 3/6 cases'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("rust-delivery: `cargo test --offline` still prints every claim's expected line", { skip: noCargo }, () => {
  assert.ok(hasCargo, `cargo is required (VKIT_REQUIRE_SYSTEM=1): looked on PATH and in ${CARGO_BIN}`);
  const pkg = toml(join(RUST, 'acceptance.toml'));
  const target = mkdtempSync(join(tmpdir(), 'vkit-cargo-target-'));
  try {
    let ran = 0;
    for (const claim of pkg.claim) {
      if (!claim.self_verify) continue;
      const r = runClaim(claim.self_verify.command, join(RUST, pkg.subject.root), {
        PATH: PATH_WITH_CARGO,
        CARGO_TARGET_DIR: target,
      });
      assert.equal(r.status, 0, `${claim.id}: ${r.stdout}${r.stderr}`);
      assert.ok(
        r.stdout.includes(claim.self_verify.expect),
        `${claim.id}: stdout lacks \`${claim.self_verify.expect}\`:\n${r.stdout}`,
      );
      const record = claim.evidence.find((e: any) => e.result === 'pass').record;
      assert.ok(
        readFileSync(join(RUST, record), 'utf8').includes(claim.self_verify.expect),
        `${claim.id}: ${record} holds the expected line`,
      );
      ran += 1;
    }
    assert.equal(ran, 4);
  } finally {
    rmSync(target, { recursive: true, force: true });
  }
});

test('rust-delivery: record-evidence.sh reproduces the evidence on a temp copy: every mutant goes red, the restored crate passes', {
  skip: noCargo,
}, () => {
  assert.ok(hasCargo, `cargo is required (VKIT_REQUIRE_SYSTEM=1): looked on PATH and in ${CARGO_BIN}`);
  const dir = copyExample(RUST);
  const target = mkdtempSync(join(tmpdir(), 'vkit-cargo-target-'));
  try {
    const before = dirDigest(join(dir, 'ean-check'));
    const r = spawnSync('sh', [join(dir, 'record-evidence.sh')], {
      env: { ...process.env, ...CLEAN_ENV, PATH: PATH_WITH_CARGO, CARGO_TARGET_DIR: target },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.equal(dirDigest(join(dir, 'ean-check')), before, 'every perturbation was reverted byte for byte');
    const pkg = toml(join(RUST, 'acceptance.toml'));
    for (const claim of pkg.claim)
      for (const ev of claim.evidence ?? []) {
        const fresh = readFileSync(join(dir, ev.record), 'utf8');
        const summary = (t: string) => t.match(/^test result: .*?(?=; finished)/m)?.[0];
        assert.ok(summary(fresh), `${ev.record} has a test result line`);
        assert.equal(
          summary(fresh),
          summary(readFileSync(join(RUST, ev.record), 'utf8')),
          `${ev.record}: same verdict and counts as the committed record`,
        );
        if (ev.result === 'fail') assert.match(fresh, /^exit: 101$/m, `${ev.record}: the mutant went red`);
      }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(target, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------------------
// The decisions bind the bytes: a change anywhere they cover fails closed (temp copies only).

const DECIDE = [
  'acceptance',
  'check-decision',
  'acceptance-decision.toml',
  '--spec',
  'acceptance-specification.toml',
  '--package',
  'acceptance.toml',
];

test('weighted-toy: one changed byte of slug.js makes check-decision fail naming the subject (exit 1)', () => {
  const dir = copyExample(TOY);
  try {
    const intact = vkit([...DECIDE, '--root', dir]);
    assert.equal(intact.code, 0, `the untouched copy passes: ${intact.stdout}${intact.stderr}`);
    const file = join(dir, 'subject', 'slug.js');
    const bytes = readFileSync(file);
    const at = bytes.indexOf("'-'");
    assert.ok(at > 0);
    bytes[at + 1] = '_'.charCodeAt(0); // slug now joins words with '_': one byte
    writeFileSync(file, bytes);
    const r = vkit([...DECIDE, '--root', dir]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^ERROR .*subject digest does not match the bytes under `subject`/m);
    assert.doesNotMatch(r.stdout, /^EFFECT-ELIGIBLE/m);
    const eff = vkit([...DECIDE, '--root', dir, '--effect', '--now', '2027-01-15']);
    assert.equal(eff.code, 1, 'a changed subject is never effect-eligible');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('weighted-toy: without its watched_fail the claim loses weight, and the decision is stale', () => {
  const dir = copyExample(TOY);
  try {
    const file = join(dir, 'acceptance.toml');
    const text = readFileSync(file, 'utf8');
    const start = text.indexOf('    [claim.self_verify.watched_fail]');
    const end = text.indexOf('  [[claim.evidence]]');
    assert.ok(start > 0 && end > start);
    writeFileSync(file, text.slice(0, start) + text.slice(end));
    const lax = vkit(['acceptance', 'check', 'acceptance.toml', '--root', dir]);
    assert.match(lax.stdout, /^WARN acceptance\.toml: claim 'WT-1': WEIGHT REFUSED: no watched-fail witness/m);
    assert.match(lax.stdout, /\[weighted: 0, unweighted: 1\]/);
    const strict = vkit(['acceptance', 'check', 'acceptance.toml', '--root', dir, '--strict-weight']);
    assert.equal(strict.code, 1);
    assert.match(strict.stdout, /^FAIL acceptance\.toml/m);
    assert.match(strict.stdout, /^ERROR acceptance\.toml: claim 'WT-1': WEIGHT REFUSED: no watched-fail witness/m);
    const decision = vkit([...DECIDE, '--root', dir]);
    assert.equal(decision.code, 1);
    assert.match(decision.stdout, /stale: renewed decision required/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rust-delivery: one changed byte of the crate makes check-decision fail naming the subject (exit 1)', () => {
  const dir = copyExample(RUST);
  try {
    assert.equal(vkit([...DECIDE, '--root', dir]).code, 0, 'the untouched copy passes');
    const file = join(dir, 'ean-check', 'src', 'lib.rs');
    writeFileSync(file, readFileSync(file, 'utf8').replace('(10 - sum % 10) % 10', '(10 - sum % 10) % 11'));
    const r = vkit([...DECIDE, '--root', dir]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^ERROR .*subject digest does not match the bytes under `ean-check`/m);
    assert.ok(!existsSync(join(dir, 'ean-check', 'target')), 'the copy carries no build output');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
