/**
 * `vkit acceptance migrate` on 0.3 documents shaped like the ones people wrote for 0.3.2: parties
 * without roles, an authority written `"Name / role"`, a gap claim without `gap_reason`, a
 * deviation's `statement`, an absent `control_required` (0.3 default false), `band` (removed),
 * a party's `contact`, `semantics`, `[[filler]]` and extra `[contract]` keys. What has
 * a 0.4 meaning is converted; everything else is listed as needing attention (file, line, field,
 * what 0.4 wants), marked with a TODO comment above its line in the output, and migrate exits 1.
 * It ends by running the 0.4 validators on its own output: every error they still report sits
 * under a TODO. A bare `sha-512:` binding is refused as 0.3.2 refuses it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempRepo, vkit, type TempRepo } from '../../_support/repo.js';
import { m11, sha512, subjectDigest } from '../../_support/acceptance-docs.js';

const SLUG = `export const slug = (s) => s.trim().toLowerCase().replace(/\\s+/g, '-');\n`;
const SUBJECT: Record<string, string> = { 'slug.js': SLUG };
const RECORD = 'node slug.test.js\nSLUG PASS: 5 cases\nexit: 0\n';

const CONTRACT = `# A consumer's contract, written for acceptance 0.3.2.
[document]
protocol  = "acceptance-protocol/0"
kind      = "contract"
id        = "AC-2026-0001"
version   = 1
issued_at = "2026-08-01T10:00:00Z"
issued_by = "consumer"
status    = "issued"

[parties]
consumer = { name = "Acme Ltd", contact = "platform@acme.example" }
producer = { name = "Supplier X" }

[acceptance]
rule                  = "all-mandatory-satisfied"
authority             = "Acme Ltd / platform-lead"
consumer_verification = "re-execute-all"
profiles_required     = ["acceptance/verification"]
stale_after           = "P180D"

[[requirement]]
id            = "R1"
statement     = "slug(s) never returns an uppercase ASCII letter"
mandatory     = true
waivable      = false
domain        = "correctness"
clause_source = "consumer-statement"

  [requirement.evidence]
  min_tier          = "T3"
  weighted_required = true
  freshness         = "any"
  independence      = "none"

[[requirement]]
id            = "R2"
statement     = "slug(s) is idempotent"
mandatory     = true
waivable      = true
domain        = "correctness"
clause_source = "consumer-statement"

  [requirement.evidence]
  min_tier          = "T3"
  weighted_required = false
  control_required  = false
  freshness         = "any"
  independence      = "none"
`;

function packageText(bindingHash: string): string {
  return `# The producer's package, written for acceptance 0.3.2.
[format]
id        = "acceptance/0"
protocol  = "acceptance-protocol/0"
profile   = "acceptance/verification"
semantics = "verification"

[subject]
name   = "slug"
kind   = "tool"
root   = "subject"
digest = "${subjectDigest(SUBJECT)}"

[spec]
path    = "acceptance-contract.toml"
version = "AC-2026-0001@v1"

[contract]
id                 = "AC-2026-0001"
hash               = "${bindingHash}"
requirements_total = 2
shape              = "two-requirement"
spec_id            = "AC-2026-0001"
spec_sha           = "${'a'.repeat(64)}"
validator_sha      = "${'b'.repeat(64)}"
illustrative       = false

[coverage]
claims_total = 2

[[claim]]
id            = "WT-1"
clause        = "R1"
statement     = "slug(s) never returns a string containing an uppercase ASCII letter"
status        = "evidenced"
weight        = "weighted"
grade         = "probe"
band          = "A2"
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
  record_hash    = "evidence-record:sha-512:${sha512('evidence-record:', RECORD)}"
  author         = "Supplier X"
  reviewed_by    = "QA"

[[claim]]
id            = "GAP-1"
clause        = "R2"
statement     = "slug(s) is idempotent"
status        = "gap"
grade         = "not-covered"
clause_source = "spec-document"

[[deviation]]
requirement      = "R2"
kind             = "unmet"
statement        = "nothing checks idempotence yet"
cause            = "no property test written"
impact           = "a second slug() may change the text"
remedy           = "add a property test in the next delivery"
waiver_requested = true

[[filler]]
profile = "acceptance/verification"
party   = "Supplier X"
role    = "producer"
`;
}

function fixture(contract = CONTRACT, pkg = packageText(m11('contract', CONTRACT))): TempRepo {
  const files: Record<string, string> = {
    'acceptance-contract.toml': contract,
    'acceptance.toml': pkg,
    'evidence/slug-run.txt': RECORD,
  };
  for (const [k, v] of Object.entries(SUBJECT)) files[`subject/${k}`] = v;
  return tempRepo(files, { git: false });
}

const ARGS = ['acceptance', 'migrate', 'acceptance-contract.toml', 'acceptance.toml'];
/** `NEEDS-ATTENTION <file>:<line> <field>: <what 0.4 wants>`. */
const ATTENTION = /^ {2}NEEDS-ATTENTION (\S+):(\d+) (\S+): (.+)$/gm;

test('real-shaped 0.3 documents: what has a 0.4 meaning is converted, the rest is listed with file, line and field, marked TODO, exit 1', () => {
  const repo = fixture();
  try {
    const r = vkit([...ARGS, '--write', '--root', repo.dir]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const items = [...r.stdout.matchAll(ATTENTION)].map((m) => ({
      file: m[1]!,
      line: Number(m[2]),
      field: m[3]!,
      wants: m[4]!,
    }));
    // The 0.3 fields without a 0.4 meaning; anything else listed comes from the 0.4 validators'
    // own run on the output (here: R1's claim carries `reviewed_by`, which 0.4 does not know).
    const known = items.filter((i) => !i.wants.startsWith('the 0.4 validator says: '));
    const fromValidator = items.filter((i) => !known.includes(i));
    assert.ok(
      fromValidator.some(
        (i) => i.field === 'claim[0].evidence[0].reviewed_by' && /unknown key 'reviewed_by'/.test(i.wants),
      ),
      JSON.stringify(items, null, 1),
    );
    assert.ok(fromValidator.length <= 2, JSON.stringify(items, null, 1));
    const fields = known.map((i) => `${i.file} ${i.field}`).sort();
    assert.deepEqual(fields, [
      'acceptance-contract.toml parties.consumer.contact',
      'acceptance-contract.toml parties.producer',
      'acceptance.toml claim[1].status',
      'acceptance.toml contract.illustrative',
      'acceptance.toml contract.shape',
      'acceptance.toml contract.spec_id',
      'acceptance.toml contract.spec_sha',
      'acceptance.toml contract.validator_sha',
      'acceptance.toml deviation[0].waiver_requested',
      'acceptance.toml filler',
      'acceptance.toml format.semantics',
    ]);
    assert.match(r.stdout, new RegExp(`^migrated with ${items.length} items needing attention`, 'm'));
    assert.match(items.find((i) => i.field === 'claim[1].status')!.wants, /gap_reason/);
    assert.match(items.find((i) => i.field === 'parties.producer')!.wants, /role/);

    const spec = readFileSync(join(repo.dir, 'acceptance-contract.toml'), 'utf8');
    const pkg = readFileSync(join(repo.dir, 'acceptance.toml'), 'utf8');
    // Converted: the authority names the party, whose role it carried; statement -> reason.
    assert.match(spec, /^authority {13}= "Acme Ltd"$/m);
    assert.match(
      spec,
      /^consumer = \{ name = "Acme Ltd", contact = "platform@acme\.example", role = "platform-lead" \}$/m,
    );
    // 0.3's documented default for an absent control_required, written out (0.4 requires the key).
    assert.match(spec, /^ {2}control_required = false$/m);
    assert.match(pkg, /^reason {11}= "nothing checks idempotence yet"$/m);
    assert.match(pkg, /^\[specification\]$/m);
    // Each item's line in the written file holds its field, with a TODO comment right above it.
    for (const item of [...known, ...fromValidator.filter((i) => i.field !== '(document)')]) {
      const lines = (item.file === 'acceptance.toml' ? pkg : spec).split('\n');
      const key = item.field
        .split('.')
        .at(-1)!
        .replace(/\[\d+\]$/, '');
      // A key inside an inline table (a party's contact) sits on its table's line.
      assert.match(
        lines[item.line - 1]!,
        new RegExp(`^\\s*(\\[\\[)?${key}\\b|[{,]\\s*${key}\\s*=`),
        `${item.file}:${item.line} holds ${item.field}`,
      );
      assert.match(lines[item.line - 2]!, /^\s*# TODO\(vkit migrate\): /, `a TODO above ${item.file}:${item.line}`);
    }
    // The validators ran on the output and their verdicts are printed.
    assert.match(r.stdout, /^VALIDATE acceptance-contract\.toml: INVALID/m);
    assert.match(r.stdout, /^VALIDATE acceptance\.toml: INVALID/m);

    // Nothing silent: every error the 0.4 checkers report on the written files sits under a TODO.
    for (const [file, verb] of [
      ['acceptance-contract.toml', ['check-spec', 'acceptance-contract.toml']],
      ['acceptance.toml', ['check-package', 'acceptance.toml', '--spec', 'acceptance-contract.toml']],
    ] as const) {
      const check = vkit(['acceptance', ...verb, '--root', repo.dir, '--json']);
      assert.equal(check.code, 1, check.stdout + check.stderr);
      const text = (file === 'acceptance.toml' ? pkg : spec).split('\n');
      const errors = (
        check.json().findings as { level: string; file: string; line?: number; message: string }[]
      ).filter((f) => f.level === 'ERROR' && f.file === file && f.line);
      assert.ok(errors.length > 0);
      for (const e of errors)
        assert.match(
          text[e.line! - 2] ?? '',
          /# TODO\(vkit migrate\)/,
          `${file}:${e.line} (${e.message}) has no TODO above it`,
        );
    }

    // A human does what the TODOs say, and rebinds as migrate advises: the documents are valid.
    const fixedSpec = spec
      .replace(/^# TODO.*\n/gm, '')
      .replace(', contact = "platform@acme.example"', '')
      .replace('producer = { name = "Supplier X" }', 'producer = { name = "Supplier X", role = "maintainer" }');
    let fixedPkg = pkg
      .replace(/^# TODO.*\n/gm, '')
      .replace(
        /^ *(semantics|shape|spec_id|spec_sha|validator_sha|illustrative|band|waiver_requested|reviewed_by) .*\n/gm,
        '',
      )
      .replace(/\n\[\[filler\]\][\s\S]*$/, '\n')
      .replace('status        = "gap"\n', 'status        = "gap"\ngap_reason    = "no property test yet"\n');
    fixedPkg = fixedPkg.replace(/specification:sha-512:[0-9a-f]{128}/, m11('specification', fixedSpec));
    repo.write('acceptance-contract.toml', fixedSpec);
    repo.write('acceptance.toml', fixedPkg);
    const valid = vkit([
      'acceptance',
      'check-package',
      'acceptance.toml',
      '--spec',
      'acceptance-contract.toml',
      '--root',
      repo.dir,
    ]);
    assert.equal(valid.code, 0, valid.stdout + valid.stderr);
  } finally {
    repo.cleanup();
  }
});

test('preview lists the same items and writes nothing; --json carries them with lines', () => {
  const repo = fixture();
  try {
    const r = vkit([...ARGS, '--root', repo.dir, '--json']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const json = r.json();
    assert.equal(json.written, false);
    assert.equal(json.attention.filter((a: any) => !a.wants.startsWith('the 0.4 validator says: ')).length, 11);
    assert.ok(json.attention.some((a: any) => a.field === 'claim[0].evidence[0].reviewed_by'));
    for (const a of json.attention) {
      assert.equal(typeof a.line, 'number');
      assert.ok(a.field && a.wants && a.file, JSON.stringify(a));
    }
    assert.deepEqual(
      json.validation.map((v: any) => [v.file, v.status]),
      [
        ['acceptance-contract.toml', 'invalid'],
        ['acceptance.toml', 'invalid'],
      ],
    );
    assert.equal(readFileSync(join(repo.dir, 'acceptance.toml'), 'utf8'), packageText(m11('contract', CONTRACT)));
  } finally {
    repo.cleanup();
  }
});

test('a retired bare sha-512 binding is refused as 0.3.2 refuses it, even when its digest matches: exit 1, nothing written', () => {
  const bare = `sha-512:${sha512('contract:', CONTRACT)}`;
  const repo = fixture(CONTRACT, packageText(bare));
  try {
    const r = vkit([...ARGS, '--write', '--root', repo.dir]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /retired bare `sha-512:` form/);
    assert.doesNotMatch(r.stdout, /old binding verified/);
    assert.match(r.stdout, /nothing written/);
    assert.equal(readFileSync(join(repo.dir, 'acceptance.toml'), 'utf8'), packageText(bare));
    assert.equal(readFileSync(join(repo.dir, 'acceptance-contract.toml'), 'utf8'), CONTRACT);
  } finally {
    repo.cleanup();
  }
});
