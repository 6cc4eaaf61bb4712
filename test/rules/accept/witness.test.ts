/**
 * `vkit acceptance witness`: a real mutation of a tiny node project (a slug function and its test
 * script) turns the claim's command red in a scratch copy; the package gains exactly one valid
 * `[claim.self_verify.watched_fail]` (the rest of its text byte-identical), then passes
 * `vkit acceptance check --strict-weight`, and the hash change is reported with digests computed
 * here. A survivor perturbation writes nothing and exits 1. The user's tree is byte-identical
 * afterwards in every case (only the package changes, and only when witnessed).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { parse } from 'smol-toml';
import { tempRepo, vkit, type TempRepo } from '../../_support/repo.js';
import { m11 } from '../../_support/acceptance-docs.js';

const sha256 = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

const SLUG = `// slug(s): lowercase s and replace each run of whitespace with '-'.
export function slug(s) {
  return s.trim().toLowerCase().replace(/\\s+/g, '-');
}
`;
const SLUG_TEST = `import assert from 'node:assert/strict';
import { slug } from './slug.js';
const cases = [['hello', 'hello'], ['HELLO', 'hello'], ['Hello  World', 'hello-world']];
let failed = 0;
for (const [input, want] of cases) {
  const got = slug(input);
  if (got !== want) { failed++; console.log('not ok: slug(' + JSON.stringify(input) + ') = ' + JSON.stringify(got) + ', want ' + JSON.stringify(want)); }
}
if (failed) { console.log('SLUG-TEST FAILED: ' + failed + '/3 cases'); process.exit(1); }
console.log('SLUG-TEST PASS: 3/3 cases');
`;
const RECORD = 'node slug.test.js\nSLUG-TEST PASS: 3/3 cases\n';

/** A weighted claim without its watched-fail witness (yet). */
const PACKAGE = `# The package of the slug toy. This comment, the alignment and the order must survive.
[format]
id      = "acceptance/0.4"
profile = "acceptance/verification"

[subject]
name   = "slug"
kind   = "npm-package"
root   = "subject"
digest = "subject:sha-512:${'0'.repeat(128)}"

[spec]
path    = "SPEC.md"
version = "v1"

[[claim]]
id            = "WT-1"
clause        = "S-1"
statement     = "slug(s) never returns a string containing an uppercase ASCII letter"
status        = "evidenced"
weight        = "weighted"
grade         = "probe"
bounds        = "bounded: 3 concrete input strings"
clause_source = "spec-document"

  [claim.self_verify]
  command = "node slug.test.js"           # run in subject/
  expect  = "SLUG-TEST PASS: 3/3 cases"

  [[claim.evidence]]
  kind           = "unit-test"
  family         = "dynamic"
  epistemic_tier = "T3"
  ref            = "slug.test.js"
  result         = "pass"
  tool           = "node + slug.test.js"
  record         = "evidence/run.txt"
  record_hash    = "${m11('record', RECORD)}"

[[claim]]
id            = "WT-2"
clause        = "S-2"
statement     = "a claim with no recipe"
status        = "gap"
grade         = "ungraded"
gap_reason    = "not checked yet"
`;

const PATCH = `--- a/slug.js
+++ b/slug.js
@@ -1,4 +1,4 @@
 // slug(s): lowercase s and replace each run of whitespace with '-'.
 export function slug(s) {
-  return s.trim().toLowerCase().replace(/\\s+/g, '-');
+  return s.trim().replace(/\\s+/g, '-');
 }
`;

function project(): TempRepo {
  return tempRepo(
    {
      'acceptance.toml': PACKAGE,
      'SPEC.md': '# slug\n\nS-1: slug(s) never returns an uppercase ASCII letter.\n',
      'evidence/run.txt': RECORD,
      'subject/package.json': '{ "type": "module" }\n',
      'subject/slug.js': SLUG,
      'subject/slug.test.js': SLUG_TEST,
      'perturb/upper.diff': PATCH,
    },
    { commit: true },
  );
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out[relative(dir, join(d, e.name))] = sha256(readFileSync(join(d, e.name)));
    }
  };
  walk(dir);
  return out;
}

const withoutPackage = (s: Record<string, string>) =>
  Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'acceptance.toml'));

test('a real mutation goes red: watched_fail is spliced in, the package passes --strict-weight, the hash change is reported, the tree is untouched', () => {
  const repo = project();
  try {
    const before = snapshot(repo.dir);
    const refused = vkit(['acceptance', 'check', 'acceptance.toml', '--strict-weight', '--root', repo.dir]);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stdout, /claim 'WT-1': WEIGHT REFUSED: no watched-fail witness/);

    const r = vkit([
      'acceptance',
      'witness',
      'acceptance.toml',
      '--claim',
      'WT-1',
      '--replace',
      'subject/slug.js',
      '--old',
      '.toLowerCase()',
      '--new',
      '',
      '--root',
      repo.dir,
    ]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const after = readFileSync(join(repo.dir, 'acceptance.toml'), 'utf8');
    const description = `replaced ".toLowerCase()" with "" in subject/slug.js (sha256:${sha256(JSON.stringify({ new: '', old: '.toLowerCase()', path: 'subject/slug.js' }))})`;
    const today = new Date().toISOString().slice(0, 10);
    const block = `
    [claim.self_verify.watched_fail]
    of_command = "node slug.test.js"
    perturbed = ${JSON.stringify(description)}
    observed = "not ok: slug(\\"HELLO\\") = \\"HELLO\\", want \\"hello\\" (exit 1)"
    date = "${today}"
`;
    assert.equal(
      after,
      PACKAGE.replace('  expect  = "SLUG-TEST PASS: 3/3 cases"\n', `  expect  = "SLUG-TEST PASS: 3/3 cases"\n${block}`),
      'exactly the new table, after the self_verify table; everything else byte-identical',
    );
    const wf = (parse(after) as any).claim[0].self_verify.watched_fail;
    assert.equal(wf.of_command, 'node slug.test.js');
    assert.equal(wf.perturbed, description);

    assert.match(r.stdout, /^WITNESSED WT-1: node slug\.test\.js$/m);
    assert.ok(
      r.stdout.includes(`package hash changed: ${m11('manifest', PACKAGE)} -> ${m11('manifest', after)}`),
      r.stdout,
    );
    assert.match(r.stdout, /decision bound to the old package hash is now stale/);
    assert.deepEqual(
      withoutPackage(snapshot(repo.dir)),
      withoutPackage(before),
      'the user tree (slug.js included) is byte-identical',
    );
    assert.equal(repo.git('status', '--porcelain').trim(), 'M acceptance.toml');

    const check = vkit(['acceptance', 'check', 'acceptance.toml', '--strict-weight', '--root', repo.dir]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /weighted: 1/);

    // Witnessing again (with a patch) replaces the values in place: still one table, comments kept.
    const patchPath = 'perturb/upper.diff';
    const again = vkit([
      'acceptance',
      'witness',
      'acceptance.toml',
      '--claim',
      'WT-1',
      '--patch',
      patchPath,
      '--root',
      repo.dir,
      '--json',
    ]);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    const j = again.json();
    assert.equal(j.result, 'WITNESSED');
    assert.equal(j.watched_fail.perturbed, `applied patch ${patchPath} to slug.js (sha256:${sha256(PATCH)})`);
    const twice = readFileSync(join(repo.dir, 'acceptance.toml'), 'utf8');
    assert.equal(twice.split('[claim.self_verify.watched_fail]').length, 2, 'one watched_fail table');
    assert.equal(twice, after.replace(JSON.stringify(description), JSON.stringify(j.watched_fail.perturbed)));
    assert.equal(j.package_hash.old, m11('manifest', after));
    assert.equal(j.package_hash.new, m11('manifest', twice));
    assert.deepEqual(withoutPackage(snapshot(repo.dir)), withoutPackage(before));
  } finally {
    repo.cleanup();
  }
});

test('a perturbation the command survives is a SURVIVOR: exit 1, nothing written, tree untouched', () => {
  const repo = project();
  try {
    const before = snapshot(repo.dir);
    // Changing the comment breaks nothing the test can see.
    const r = vkit([
      'acceptance',
      'witness',
      'acceptance.toml',
      '--claim',
      'WT-1',
      '--replace',
      'subject/slug.js',
      '--old',
      'lowercase s',
      '--new',
      'LOWERCASE S',
      '--root',
      repo.dir,
    ]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^SURVIVOR WT-1: node slug\.test\.js$/m);
    assert.match(r.stdout, /nothing written/);
    assert.deepEqual(snapshot(repo.dir), before, 'package and tree byte-identical');
  } finally {
    repo.cleanup();
  }
});

test('a command that is red before any perturbation witnesses nothing: exit 1, nothing written', () => {
  const repo = project();
  try {
    repo.write('subject/slug.js', SLUG.replace('.toLowerCase()', ''));
    const before = snapshot(repo.dir);
    const r = vkit([
      'acceptance',
      'witness',
      'acceptance.toml',
      '--claim',
      'WT-1',
      '--replace',
      'subject/slug.js',
      '--old',
      's.trim()',
      '--new',
      's',
      '--root',
      repo.dir,
    ]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^BASELINE-NOT-GREEN WT-1/m);
    assert.deepEqual(snapshot(repo.dir), before);
  } finally {
    repo.cleanup();
  }
});

test('bad perturbations and requests are exit 2 and write nothing', () => {
  const repo = project();
  try {
    repo.write('bad.diff', '--- a/nope.js\n+++ b/nope.js\n@@ -1 +1 @@\n-x\n+y\n');
    const before = snapshot(repo.dir);
    const run = (...args: string[]) => vkit(['acceptance', 'witness', 'acceptance.toml', ...args, '--root', repo.dir]);
    const twice = run('--claim', 'WT-1', '--replace', 'subject/slug.test.js', '--old', 'slug(', '--new', 'x(');
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, /--old must occur exactly once in subject\/slug\.test\.js; it occurs \d+ times/);
    const none = run('--claim', 'WT-1', '--replace', 'subject/slug.js', '--old', 'absent text', '--new', 'x');
    assert.equal(none.code, 2);
    assert.match(none.stderr, /occurs 0 times/);
    const outside = run('--claim', 'WT-1', '--replace', 'evidence/run.txt', '--old', 'PASS', '--new', 'FAIL');
    assert.equal(outside.code, 2);
    assert.match(outside.stderr, /must name a file inside the subject root `subject`/);
    const patch = run('--claim', 'WT-1', '--patch', 'bad.diff');
    assert.equal(patch.code, 2);
    assert.match(patch.stderr, /patch `bad\.diff` does not apply/);
    assert.equal(run('--claim', 'WT-1').code, 2, 'no perturbation');
    const two = run(
      '--claim',
      'WT-1',
      '--patch',
      'bad.diff',
      '--replace',
      'subject/slug.js',
      '--old',
      'a',
      '--new',
      'b',
    );
    assert.equal(two.code, 2, `two perturbations: ${two.stderr}`);
    assert.equal(run('--claim', 'WT-1', '--replace', 'subject/slug.js', '--old', 'a').code, 2, '--new missing');
    const unknown = run('--claim', 'NOPE', '--replace', 'subject/slug.js', '--old', '.toLowerCase()', '--new', '');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no claim `NOPE`/);
    const norecipe = run('--claim', 'WT-2', '--replace', 'subject/slug.js', '--old', '.toLowerCase()', '--new', '');
    assert.equal(norecipe.code, 2);
    assert.match(norecipe.stderr, /claim 'WT-2' has no \[claim\.self_verify\] command/);
    assert.equal(vkit(['acceptance', 'witness', '--help']).code, 0);
    assert.deepEqual(snapshot(repo.dir), before);
  } finally {
    repo.cleanup();
  }
});
