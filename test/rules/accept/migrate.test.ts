/**
 * `vkit acceptance migrate`: 0.3 contract + package (written here, shaped like the 0.3.2 reference:
 * `acceptance-protocol/0`, kind contract, `[format] id = "acceptance/0"`, `[contract]` binding,
 * a legacy bare record hash) become 0.4 documents that the 0.4 checkers accept; the text is
 * spliced (comments, alignment and order survive, checked byte for byte against an expected text
 * built here); every hash is recomputed here with node:crypto. Preview writes nothing; decisions
 * are never rewritten; bindings that do not verify are never rebound. Also the splice helpers.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import {
  insertTable,
  lineDiff,
  renameTable,
  scanToml,
  setValue,
  tomlString,
} from '../../../rules/accept/lib/splice.js';
import { parseDoc } from '../../../rules/accept/lib/toml.js';
import { tempRepo, vkit, type TempRepo } from '../../_support/repo.js';
import { m11, sha512, subjectDigest } from '../../_support/acceptance-docs.js';

const SLUG = `export const slug = (s) => s.trim().toLowerCase().replace(/\\s+/g, '-');\n`;
const SLUG_TEST = `import { slug } from './slug.js';
const cases = ['hello', 'HELLO', 'Hello World', '1234', 'a-b'];
const bad = cases.filter((c) => /[A-Z]/.test(slug(c)));
if (bad.length) { console.log('SLUG FAILED: ' + bad.length + '/5 cases'); process.exit(1); }
console.log('SLUG PASS: 5 cases');
`;
const RECORD = 'node slug.test.js\nSLUG PASS: 5 cases\nexit: 0\n';
const SUBJECT_FILES: Record<string, string> = {
  'package.json': '{ "type": "module" }\n',
  'slug.js': SLUG,
  'slug.test.js': SLUG_TEST,
};

function contractText(v: '0.3' | '0.4'): string {
  return `# acceptance-contract.toml: the consumer's criteria for slug(), written before the code.
[document]
protocol  = "${v === '0.3' ? 'acceptance-protocol/0' : 'acceptance-protocol/0.4'}"   # exact string
kind      = "${v === '0.3' ? 'contract' : 'specification'}"
id        = "AC-MIG-0001"
version   = 1
issued_at = "2026-08-01T10:00:00Z"
issued_by = "consumer"
status    = "issued"

[parties]
consumer = { name = "Example Consumer", role = "platform-lead" }
producer = { name = "Example Producer", role = "maintainer" }

[acceptance]
rule                  = "all-mandatory-satisfied"
authority             = "Example Consumer"
consumer_verification = "re-execute-all"
profiles_required     = ["acceptance/verification"]
stale_after           = "P180D"

# ---- S-1: the one requirement -----------------------------------------------------------
[[requirement]]
id            = "S-1"
statement     = "slug(s) never returns an uppercase ASCII letter"
mandatory     = true
waivable      = false
domain        = "correctness"
clause_source = "consumer-statement"

  [requirement.evidence]
  min_tier          = "T3"
  weighted_required = true    # the check must be shown able to fail
  control_required  = false
  freshness         = "any"
  independence      = "none"
`;
}

function packageText(v: '0.3' | '0.4', bindingHash: string, recordHash: string): string {
  return `# acceptance.toml: the producer's package for slug(). Comments like this one must survive.
[format]
id       = "${v === '0.3' ? 'acceptance/0' : 'acceptance/0.4'}"
protocol = "${v === '0.3' ? 'acceptance-protocol/0' : 'acceptance-protocol/0.4'}"
profile  = "acceptance/verification"

[subject]
name   = "slug"
kind   = "tool"
root   = "subject"
digest = "${subjectDigest(SUBJECT_FILES)}"

[spec]
path    = "acceptance-contract.toml"   # the contract is the spec the claims answer
version = "AC-MIG-0001@v1"

[${v === '0.3' ? 'contract' : 'specification'}]
id                 = "AC-MIG-0001"
hash               = "${bindingHash}"
requirements_total = 1

[coverage]
claims_total = 1

[[claim]]
id            = "WT-1"
clause        = "S-1"
statement     = "slug(s) never returns a string containing an uppercase ASCII letter"
status        = "evidenced"
weight        = "weighted"
grade         = "probe"
bounds        = "bounded: 5 concrete input strings"
clause_source = "spec-document"

  [claim.self_verify]
  command = "node slug.test.js"
  expect  = "SLUG PASS: 5 cases"

    [claim.self_verify.watched_fail]
    of_command = "node slug.test.js"
    perturbed  = "removed the toLowerCase call from slug"
    observed   = "SLUG FAILED: 2/5 cases"
    date       = "2026-08-28"

  [[claim.evidence]]
  kind           = "unit-test"
  family         = "dynamic"
  epistemic_tier = "T3"
  ref            = "slug.test.js"
  result         = "pass"
  tool           = "node@20 + slug.test.js"
  record         = "evidence/slug-run.txt"
  record_hash    = "${recordHash}"   # legacy wire in 0.3
  author         = "Example Producer"
`;
}

const C03 = contractText('0.3');
const C04 = contractText('0.4');
/** 0.3: the contract hash in the `contract` domain; the record hash in the bare legacy wire over `evidence-record:` + bytes. */
const P03 = packageText('0.3', m11('contract', C03), `sha-512:${sha512('evidence-record:', RECORD)}`);
const P04 = packageText('0.4', m11('specification', C04), m11('record', RECORD));

function fixture(extra: Record<string, string> = {}): TempRepo {
  const files: Record<string, string> = {
    'acceptance-contract.toml': C03,
    'acceptance.toml': P03,
    'evidence/slug-run.txt': RECORD,
    ...extra,
  };
  for (const [k, v] of Object.entries(SUBJECT_FILES)) files[`subject/${k}`] = v;
  return tempRepo(files, { git: false });
}

/** Every file under the directory with its bytes (to assert "nothing written"). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out[relative(dir, join(d, e.name))] = readFileSync(join(d, e.name)).toString('base64');
    }
  };
  walk(dir);
  return out;
}

test('a 0.3 contract and package, given together, migrate to exactly the expected 0.4 text; preview first writes nothing', () => {
  const repo = fixture();
  try {
    const before = snapshot(repo.dir);
    const preview = vkit(['acceptance', 'migrate', 'acceptance-contract.toml', 'acceptance.toml', '--root', repo.dir]);
    assert.equal(preview.code, 0, preview.stdout + preview.stderr);
    assert.deepEqual(snapshot(repo.dir), before, 'preview writes nothing');
    assert.match(preview.stdout, /^-kind {6}= "contract"$/m);
    assert.match(preview.stdout, /^\+kind {6}= "specification"$/m);
    assert.match(preview.stdout, /^-\[contract\]$/m);
    assert.match(preview.stdout, /^\+\[specification\]$/m);
    assert.ok(preview.stdout.includes(`+hash               = "${m11('specification', C04)}"`), preview.stdout);
    assert.ok(
      preview.stdout.includes(`+  record_hash    = "${m11('record', RECORD)}"   # legacy wire in 0.3`),
      preview.stdout,
    );
    assert.match(preview.stdout, /preview only: nothing written; add --write/);
    assert.doesNotMatch(preview.stdout, /^[-+]# /m, 'comment lines are not changed');

    const json = vkit([
      'acceptance',
      'migrate',
      'acceptance-contract.toml',
      'acceptance.toml',
      '--root',
      repo.dir,
      '--json',
    ]).json();
    assert.equal(json.written, false);
    assert.deepEqual(
      json.files.map((f: any) => [f.file, f.kind, f.status]),
      [
        ['acceptance-contract.toml', 'specification', 'migrated'],
        ['acceptance.toml', 'package', 'migrated'],
      ],
    );

    const r = vkit([
      'acceptance',
      'migrate',
      'acceptance-contract.toml',
      'acceptance.toml',
      '--write',
      '--root',
      repo.dir,
    ]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(readFileSync(join(repo.dir, 'acceptance-contract.toml'), 'utf8'), C04);
    assert.equal(readFileSync(join(repo.dir, 'acceptance.toml'), 'utf8'), P04);
    assert.match(r.stdout, /decisions .* not migrated: the consumer must issue new ones/);

    // Running it again changes nothing.
    const again = vkit([
      'acceptance',
      'migrate',
      'acceptance-contract.toml',
      'acceptance.toml',
      '--write',
      '--root',
      repo.dir,
    ]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /UNCHANGED acceptance-contract\.toml: already 0\.4, unchanged/);
    assert.match(again.stdout, /UNCHANGED acceptance\.toml: already 0\.4, unchanged/);
    assert.equal(readFileSync(join(repo.dir, 'acceptance.toml'), 'utf8'), P04);
  } finally {
    repo.cleanup();
  }
});

test('the migrated documents pass the 0.4 checkers; before migration each checker refuses them with exit 2 naming migrate', () => {
  const repo = fixture();
  try {
    const spec03 = vkit(['acceptance', 'check-spec', 'acceptance-contract.toml', '--root', repo.dir]);
    assert.equal(spec03.code, 2, spec03.stdout + spec03.stderr);
    assert.match(spec03.stderr, /0\.3.*\n?.*vkit acceptance migrate acceptance-contract\.toml/);
    const pkg03 = vkit(['acceptance', 'check', 'acceptance.toml', '--root', repo.dir]);
    assert.equal(pkg03.code, 2, pkg03.stdout + pkg03.stderr);
    assert.match(pkg03.stderr, /vkit acceptance migrate acceptance\.toml/);

    assert.equal(
      vkit(['acceptance', 'migrate', 'acceptance-contract.toml', 'acceptance.toml', '--write', '--root', repo.dir])
        .code,
      0,
    );
    const spec = vkit(['acceptance', 'check-spec', 'acceptance-contract.toml', '--root', repo.dir]);
    assert.equal(spec.code, 0, spec.stdout + spec.stderr);
    const check = vkit(['acceptance', 'check', 'acceptance.toml', '--strict', '--strict-weight', '--root', repo.dir]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /^PASS acceptance\.toml .*weighted: 1, unweighted: 0/m);
    const pkg = vkit([
      'acceptance',
      'check-package',
      'acceptance.toml',
      '--spec',
      'acceptance-contract.toml',
      '--root',
      repo.dir,
    ]);
    assert.equal(pkg.code, 0, pkg.stdout + pkg.stderr);
  } finally {
    repo.cleanup();
  }
});

test('a package given alone finds its 0.3 contract through [spec] path and migrates both', () => {
  const repo = fixture();
  try {
    const r = vkit(['acceptance', 'migrate', 'acceptance.toml', '--write', '--root', repo.dir]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /MIGRATE acceptance-contract\.toml: .*found through its path/);
    assert.equal(readFileSync(join(repo.dir, 'acceptance-contract.toml'), 'utf8'), C04);
    assert.equal(readFileSync(join(repo.dir, 'acceptance.toml'), 'utf8'), P04);
  } finally {
    repo.cleanup();
  }
});

test('a binding that does not verify is never rebound: exit 1, nothing written', () => {
  // The contract changed after the package was bound to it.
  const repo = fixture({
    'acceptance-contract.toml': C03.replace('min_tier          = "T3"', 'min_tier          = "T4"'),
  });
  try {
    const before = snapshot(repo.dir);
    const r = vkit([
      'acceptance',
      'migrate',
      'acceptance-contract.toml',
      'acceptance.toml',
      '--write',
      '--root',
      repo.dir,
    ]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /ERROR acceptance\.toml: \[contract\] hash does not match acceptance-contract\.toml .*not rebound \(line \d+\)/,
    );
    assert.match(r.stdout, /nothing written/);
    assert.deepEqual(snapshot(repo.dir), before, 'all or nothing: the contract is not written either');
  } finally {
    repo.cleanup();
  }
});

test('a legacy record hash that does not match its record is not re-expressed: exit 1', () => {
  const repo = fixture({ 'evidence/slug-run.txt': `${RECORD}tampered\n` });
  try {
    const before = snapshot(repo.dir);
    const r = vkit([
      'acceptance',
      'migrate',
      'acceptance-contract.toml',
      'acceptance.toml',
      '--write',
      '--root',
      repo.dir,
    ]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /legacy record_hash does not match `evidence\/slug-run\.txt`/);
    assert.deepEqual(snapshot(repo.dir), before);
  } finally {
    repo.cleanup();
  }
});

test('a package whose contract is already 0.4 cannot be rebound (its 0.3 bytes are gone): exit 1', () => {
  const repo = fixture();
  try {
    assert.equal(vkit(['acceptance', 'migrate', 'acceptance-contract.toml', '--write', '--root', repo.dir]).code, 0);
    assert.equal(readFileSync(join(repo.dir, 'acceptance-contract.toml'), 'utf8'), C04);
    const r = vkit(['acceptance', 'migrate', 'acceptance.toml', '--write', '--root', repo.dir]);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /already 0\.4: the \[contract\] hash binds its 0\.3 bytes/);
    assert.equal(readFileSync(join(repo.dir, 'acceptance.toml'), 'utf8'), P03);
  } finally {
    repo.cleanup();
  }
});

const DECISION03 = `# A 0.3 decision.
[document]
protocol  = "acceptance-protocol/0"
minor     = 0
kind      = "decision"
id        = "AD-MIG-0001"
issued_at = "2026-09-01T10:00:00Z"
issuer    = "Example Consumer / platform-lead"
verdict   = "accepted"

[binds]
contract = { id = "AC-MIG-0001", hash = "${m11('contract', C03)}" }
package  = { hash = "${m11('manifest', P03)}" }
`;

test('a 0.3 decision is never rewritten: exit 2 saying the consumer must issue a new one, nothing written', () => {
  const repo = fixture({ 'acceptance-decision.toml': DECISION03 });
  try {
    const before = snapshot(repo.dir);
    const r = vkit([
      'acceptance',
      'migrate',
      'acceptance-contract.toml',
      'acceptance.toml',
      'acceptance-decision.toml',
      '--write',
      '--root',
      repo.dir,
    ]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /acceptance-decision\.toml.*0\.3 decision: migrate never rewrites a decision/);
    assert.match(r.stderr, /must issue a new decision/);
    assert.deepEqual(snapshot(repo.dir), before, 'nothing written, not even the contract and package');
    const alone = vkit(['acceptance', 'migrate', 'acceptance-decision.toml', '--root', repo.dir, '--json']);
    assert.equal(alone.code, 2);
    assert.equal(alone.json().error.code, 'ERR_ACCEPTANCE_MIGRATE_DECISION');
  } finally {
    repo.cleanup();
  }
});

test('bad input is exit 2 with file and line: unparsable TOML, not an acceptance document, no FILE', () => {
  const repo = fixture({ 'broken.toml': '[document]\nkind = "contract"\nid = = 3\n', 'other.toml': 'title = "x"\n' });
  try {
    const broken = vkit(['acceptance', 'migrate', 'broken.toml', '--root', repo.dir]);
    assert.equal(broken.code, 2, broken.stderr);
    assert.match(broken.stderr, /broken\.toml:3/);
    const other = vkit(['acceptance', 'migrate', 'other.toml', '--root', repo.dir]);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /neither an acceptance specification \(contract\) nor a package/);
    assert.equal(vkit(['acceptance', 'migrate', '--root', repo.dir]).code, 2);
    assert.equal(vkit(['acceptance', 'migrate', 'missing.toml', '--root', repo.dir]).code, 2);
    assert.equal(vkit(['acceptance', 'migrate', '--help']).code, 0);
  } finally {
    repo.cleanup();
  }
});

test('CRLF documents keep their line endings', () => {
  const crlf = (s: string) => s.replace(/\n/g, '\r\n');
  const c03 = crlf(C03);
  const p03 = packageText('0.3', m11('contract', c03), `sha-512:${sha512(RECORD)}`).replace(/\n/g, '\r\n');
  const repo = fixture({ 'acceptance-contract.toml': c03, 'acceptance.toml': p03 });
  try {
    const r = vkit([
      'acceptance',
      'migrate',
      'acceptance-contract.toml',
      'acceptance.toml',
      '--write',
      '--root',
      repo.dir,
    ]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const c04 = crlf(C04);
    assert.equal(readFileSync(join(repo.dir, 'acceptance-contract.toml'), 'utf8'), c04);
    assert.equal(
      readFileSync(join(repo.dir, 'acceptance.toml'), 'utf8'),
      crlf(packageText('0.4', m11('specification', c04), m11('record', RECORD))),
      'bare sha512(raw) legacy wire re-expressed too',
    );
  } finally {
    repo.cleanup();
  }
});

// ---------------------------------------------------------------------------------------------
// The splice helpers

const DOC = `# top comment
title = "x"   # trailing

[a]
k = 1 # one
arr = [
  "x", # inside
  "y",
]
s = """
[not a header]
k = 2
"""

# banner for b
[[b]]
id = "first"

[[b]]
id = "second"
  [b.c]
  v = 'lit'   # keep

# banner for d
[d]
`;

test('scanToml resolves arrays of tables and finds values that span lines', () => {
  const scan = scanToml(DOC);
  const key = (path: string) => scan.keys.find((k) => k.path.join('.') === path);
  assert.equal(DOC.slice(key('a.arr')!.valueStart, key('a.arr')!.valueEnd), '[\n  "x", # inside\n  "y",\n]');
  assert.equal(DOC.slice(key('a.s')!.valueStart, key('a.s')!.valueEnd), '"""\n[not a header]\nk = 2\n"""');
  assert.equal(key('a.k')!.line, 4);
  assert.ok(
    !scan.tables.some((t) => t.path.join('.') === 'not a header'),
    'text inside a multi-line string is not a header',
  );
  assert.deepEqual(
    scan.tables.map((t) => t.path.join('.')),
    ['a', 'b.0', 'b.1', 'b.1.c', 'd'],
  );
  assert.equal(DOC.slice(key('b.1.c.v')!.valueStart, key('b.1.c.v')!.valueEnd), "'lit'");
});

test('setValue replaces in place (comments stay) or adds a key after the table body, before a detached banner', () => {
  const out = setValue(DOC, ['b', 1, 'c'], 'v', tomlString('new "q"\n'));
  assert.equal(out, DOC.replace(`v = 'lit'   # keep`, `v = "new \\"q\\"\\n"   # keep`));
  assert.equal(
    Array.isArray(parseDoc(Buffer.from(out), 'x').data.b) && (parseDoc(Buffer.from(out), 'x').data.b as any)[1].c.v,
    'new "q"\n',
  );
  const added = setValue(DOC, ['b', 0], 'extra', '7');
  assert.equal(added, DOC.replace('id = "first"\n', 'id = "first"\nextra = 7\n'));
  const nested = setValue(DOC, ['b', 1, 'c'], 'w', '2');
  assert.equal(
    nested,
    DOC.replace("  v = 'lit'   # keep\n", "  v = 'lit'   # keep\n  w = 2\n"),
    'indented like the table keys, before the banner of [d]',
  );
  const root = setValue(DOC, [], 'title', '"y"');
  assert.equal(root, DOC.replace('title = "x"', 'title = "y"'));
  assert.throws(() => setValue(DOC, ['zzz'], 'k', '1'), /no \[zzz\] table/);
});

test('insertTable adds a sub-table after the parent and its sub-tables; renameTable renames headers only', () => {
  const out = insertTable(DOC, ['b', 1, 'c', 'e'], [['of', '"x"']]);
  assert.equal(out, DOC.replace("  v = 'lit'   # keep\n", '  v = \'lit\'   # keep\n\n    [b.c.e]\n    of = "x"\n'));
  assert.deepEqual((parseDoc(Buffer.from(out), 'x').data as any).b[1].c.e, { of: 'x' });
  assert.throws(() => insertTable(DOC, ['b', 1, 'c'], []), /already exists/);
  const renamed = renameTable('[contract] # c\nid = 1\n[contract.sub]\nx = 2\n', 'contract', 'specification');
  assert.equal(renamed, '[specification] # c\nid = 1\n[specification.sub]\nx = 2\n');
});

test('lineDiff reports the changed lines with their line numbers', () => {
  const a = ['1', '2', '3', '4', '5'];
  const b = ['1', 'two', '3', '4', 'x', '5'];
  assert.deepEqual(lineDiff(a, b), [
    { oldLine: 2, newLine: 2, removed: ['2'], added: ['two'] },
    { oldLine: 5, newLine: 5, removed: [], added: ['x'] },
  ]);
  assert.deepEqual(lineDiff(a, a), []);
  assert.deepEqual(lineDiff([], ['a']), [{ oldLine: 1, newLine: 1, removed: [], added: ['a'] }]);
  assert.deepEqual(lineDiff(['a'], []), [{ oldLine: 1, newLine: 1, removed: ['a'], added: [] }]);
});
