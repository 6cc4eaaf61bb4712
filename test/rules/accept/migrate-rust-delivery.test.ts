/**
 * `vkit acceptance migrate` on 0.3 documents shaped like the reference's rust-delivery example
 * (iban-check): the package sits beside the crate directory `iban-check/`, names no subject root,
 * and its evidence `inputs` are relative to the crate. Migrate writes `[subject] root` when exactly
 * one directory holds every input with its recorded digest (none or several: left to a human);
 * it lists every 0.3 field without a 0.4 meaning (`[document] minor`, a specification's
 * `[subject]`, `[acceptance] phase`, a party's `contact`, `[coverage] clauses_total`); and it
 * removes a claim's `band` together with the comment lines that explain it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { m11, subjectDigest } from '../../_support/acceptance-docs.js';
import { tempRepo, vkit, type TempRepo } from '../../_support/repo.js';

const CRATE: Record<string, string> = {
  'Cargo.toml': '[package]\nname = "iban-check"\nversion = "0.1.0"\nedition = "2021"\n',
  'src/lib.rs': 'pub fn validate(s: &str) -> bool { !s.is_empty() }\n',
  'tests/malformed.rs': '#[test]\nfn empty_is_rejected() { assert!(!iban_check::validate("")); }\n',
};
const RECORD = 'running 1 test\ntest empty_is_rejected ... ok\ntest result: ok. 1 passed; 0 failed\n';

const CONTRACT = `[document]
protocol  = "acceptance-protocol/0"
minor     = 0
kind      = "contract"
id        = "AC-2026-0001"
version   = 1
issued_at = "2026-08-01T10:00:00Z"
issued_by = "consumer"
status    = "issued"

[parties]
consumer = { name = "Acme Bank", role = "payments-lead", contact = "payments@acme.example" }
producer = { name = "Crate Works", role = "maintainer" }

[subject]
kind        = "rust-crate"
name        = "iban-check"
description = "an IBAN validator"

[acceptance]
rule                  = "all-mandatory-satisfied"
authority             = "Acme Bank"
consumer_verification = "re-execute-all"
profiles_required     = ["acceptance/verification"]
stale_after           = "P180D"
phase                 = "final"

[[requirement]]
id            = "R1"
statement     = "malformed input is rejected"
mandatory     = true
waivable      = false
domain        = "correctness"
clause_source = "consumer-statement"

  [requirement.evidence]
  min_tier          = "T3"
  weighted_required = false
  control_required  = false
  freshness         = "any"
  independence      = "none"
`;

const inputs = (files: string[]) =>
  files
    .map((p) => `\n  [[claim.evidence.inputs]]\n  path   = "${p}"\n  digest = "${m11('subject', CRATE[p]!)}"\n`)
    .join('');

function packageText(): string {
  return `[format]
id       = "acceptance/0"
protocol = "acceptance-protocol/0"
profile  = "acceptance/verification"

[subject]
name   = "iban-check"
kind   = "rust-crate"
digest = "${subjectDigest(CRATE)}"

[contract]
id                 = "AC-2026-0001"
hash               = "${m11('contract', CONTRACT)}"
requirements_total = 1

[spec]
path    = "acceptance-contract.toml"
version = "AC-2026-0001@v1"

[coverage]
clauses_total = 1
claims_total  = 1

# IB-001: the one claim
[[claim]]
id            = "IB-001"
clause        = "R1"
statement     = "malformed input is rejected"
band          = "A1"   # the 0.3 assurance band
# A1: sampled dynamic evidence, the band the
# contract asked for.
status        = "evidenced"
grade         = "test-only"
clause_source = "spec-document"

  [[claim.evidence]]
  kind           = "unit-test"
  family         = "dynamic"
  epistemic_tier = "T3"
  ref            = "tests/malformed.rs"
  result         = "pass"
  tool           = "cargo test"
  record         = "evidence/malformed-test.txt"
  record_hash    = "${m11('record', RECORD)}"
${inputs(['Cargo.toml', 'src/lib.rs', 'tests/malformed.rs'])}`;
}

function fixture(extra: Record<string, string> = {}): TempRepo {
  const files: Record<string, string> = {
    'acceptance-contract.toml': CONTRACT,
    'acceptance.toml': packageText(),
    'evidence/malformed-test.txt': RECORD,
    ...extra,
  };
  for (const [p, t] of Object.entries(CRATE)) files[`iban-check/${p}`] = t;
  return tempRepo(files, { git: false });
}

const ARGS = ['acceptance', 'migrate', 'acceptance-contract.toml', 'acceptance.toml'];

interface AttentionJson {
  file: string;
  line: number;
  field: string;
  wants: string;
}

test('the subject root is inferred from where every evidence input is, with its digest: the inputs then resolve', () => {
  const repo = fixture();
  try {
    const r = vkit([...ARGS, '--write', '--root', repo.dir]);
    assert.match(r.stdout, /\[subject\] root = "iban-check" \(every evidence input was found there/, r.stdout);
    const pkg = readFileSync(join(repo.dir, 'acceptance.toml'), 'utf8');
    assert.match(
      pkg,
      /^\[subject\]\nname {3}= "iban-check"\nkind {3}= "rust-crate"\ndigest = "[^"]+"\nroot = "iban-check"\n/m,
    );
    const check = vkit(['acceptance', 'check', 'acceptance.toml', '--root', repo.dir, '--json']);
    const findings = (check.json().files[0].findings as { message: string }[]).map((f) => f.message);
    assert.ok(
      !findings.some((m) => /does not exist under the subject root/.test(m)),
      `inputs still unresolved: ${findings.join('\n')}`,
    );
  } finally {
    repo.cleanup();
  }
});

test('two directories holding every input: no root is guessed, the choice is left to a human', () => {
  const copy: Record<string, string> = {};
  for (const [p, t] of Object.entries(CRATE)) copy[`vendor/iban-check-copy/${p}`] = t;
  const repo = fixture(copy);
  try {
    const r = vkit([...ARGS, '--root', repo.dir, '--json']);
    const json = r.json();
    const pkg = json.files.find((f: { file: string }) => f.file === 'acceptance.toml');
    assert.ok(!pkg.changes.some((c: string) => c.startsWith('[subject] root')), pkg.changes.join('\n'));
    const item = (json.attention as AttentionJson[]).find((a) => a.file === 'acceptance.toml' && a.field === 'subject');
    assert.ok(item, JSON.stringify(json.attention, null, 1));
    assert.match(item.wants, /2 directories hold all 3 evidence inputs .*iban-check, vendor\/iban-check-copy/);
  } finally {
    repo.cleanup();
  }
});

test('0.3 fields without a 0.4 meaning are all listed: minor, the specification [subject], phase, contact, clauses_total', () => {
  const repo = fixture();
  try {
    const r = vkit([...ARGS, '--root', repo.dir, '--json']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const listed = (r.json().attention as AttentionJson[])
      .filter((a) => !a.wants.startsWith('the 0.4 validator says: '))
      .map((a) => `${a.file} ${a.field}`);
    for (const field of [
      'acceptance-contract.toml document.minor',
      'acceptance-contract.toml subject',
      'acceptance-contract.toml acceptance.phase',
      'acceptance-contract.toml parties.consumer.contact',
      'acceptance.toml coverage.clauses_total',
    ])
      assert.ok(listed.includes(field), `${field} is not listed: ${listed.join(', ')}`);
  } finally {
    repo.cleanup();
  }
});

test("a claim's band is removed with the comment lines below it; the comment above the claim stays", () => {
  const repo = fixture();
  try {
    const r = vkit([...ARGS, '--write', '--root', repo.dir]);
    assert.match(r.stdout, /claim 'IB-001' band "A1" removed, with its comment lines/);
    const pkg = readFileSync(join(repo.dir, 'acceptance.toml'), 'utf8');
    assert.doesNotMatch(pkg, /band|A1:|contract asked for/);
    assert.match(pkg, /^# IB-001: the one claim\n\[\[claim\]\]\n/m);
    assert.match(pkg, /^statement {5}= "malformed input is rejected"\nstatus {8}= "evidenced"\n/m);
    assert.doesNotMatch(r.stdout, /NEEDS-ATTENTION \S+ claim\[0\]\.band/);
  } finally {
    repo.cleanup();
  }
});
