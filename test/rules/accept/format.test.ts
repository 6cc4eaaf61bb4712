/**
 * The format validator (`vkit acceptance check`): every rule failing and passing, table-driven
 * from one valid package; weight refusals; records, inputs and paths against real files; verdict
 * order; and, through the real CLI, exit codes, JSON, 0.3 refusal and parse errors.
 */
import assert from 'node:assert/strict';
import { rmSync, symlinkSync } from 'node:fs';
import { test } from 'node:test';
import type { Verdict } from '../../../rules/accept/lib/report.js';
import { checkFiles } from '../../../rules/accept/service/check.js';
import { vkit } from '../../_support/repo.js';
import { m11 } from '../../_support/acceptance-docs.js';
import { BASE, COMMIT, edit, FILES, lineOf, RECORD, SOURCE, tempDir, withGap } from './_format-fixtures.js';

interface Case {
  name: string;
  text: string;
  /** Files to add (or, with null, remove) beside the base files. */
  files?: Record<string, string | Buffer | null>;
  strict?: boolean;
  strictWeight?: boolean;
  verdict: Verdict;
  /** A finding whose message contains this, at `level` (default ERROR)... */
  fragment?: string;
  level?: 'ERROR' | 'WARN' | 'NOTE';
  /** ...on this line. */
  line?: number;
  weighted?: number;
}

async function run(text: string, opts: { files?: Case['files']; strict?: boolean; strictWeight?: boolean } = {}) {
  const files: Record<string, string | Buffer> = { ...FILES, 'acceptance.toml': text };
  for (const [p, c] of Object.entries(opts.files ?? {})) {
    if (c === null) delete files[p];
    else files[p] = c;
  }
  const d = tempDir(files);
  try {
    const o = await checkFiles(['acceptance.toml'], {
      root: d.dir,
      strict: opts.strict,
      strictWeight: opts.strictWeight,
    });
    return { ...o.json.files[0]!, lines: o.lines, exitCode: o.exitCode };
  } finally {
    d.cleanup();
  }
}

const HEX = 'ab'.repeat(64);
const ANOTHER = m11('subject', 'another subject');
const TWO_CLAIMS = (t: string) => edit(t, 'claims_total = 1', 'claims_total = 2');

const CASES: Case[] = [
  { name: 'the base package passes with its one claim weighted', text: BASE, verdict: 'PASS', weighted: 1 },
  // [format]
  {
    name: 'format id other than acceptance/0.4',
    text: edit(BASE, 'id = "acceptance/0.4"', 'id = "acceptance/0.5"'),
    verdict: 'FAIL',
    fragment: '[format].id must be "acceptance/0.4"',
    line: 2,
  },
  {
    name: 'profile missing',
    text: edit(BASE, 'profile = "acceptance/verification"\n', ''),
    verdict: 'FAIL',
    fragment: '[format].profile is required',
    line: 1,
  },
  {
    name: 'profile not implemented',
    text: edit(BASE, '"acceptance/verification"', '"acceptance/conformance"'),
    verdict: 'FAIL',
    fragment: 'is not a profile this vkit implements',
    line: 3,
  },
  {
    name: 'profile with an unknown suffix',
    text: edit(BASE, '"acceptance/verification"', '"acceptance/verification/tool"'),
    verdict: 'FAIL',
    fragment: 'has an unknown suffix',
    line: 3,
  },
  {
    name: 'profile with a language binding',
    text: edit(BASE, '"acceptance/verification"', '"acceptance/verification/code/rust"'),
    verdict: 'PASS',
    weighted: 1,
  },
  {
    name: 'unknown top-level table',
    text: `${BASE}\n[extras]\nnote = "x"\n`,
    verdict: 'FAIL',
    fragment: "unknown key 'extras'",
    line: lineOf(`${BASE}\n[extras]\n`, '[extras]'),
  },
  {
    name: 'unknown claim key (bands are not part of 0.4 here)',
    text: edit(BASE, 'grade = "probe"', 'grade = "probe"\nband = "A1"'),
    verdict: 'FAIL',
    fragment: "claim 'WT-1': unknown key 'band'",
    line: lineOf(edit(BASE, 'grade = "probe"', 'grade = "probe"\nband = "A1"'), 'band'),
  },
  {
    name: 'protocol tables of a package are accepted',
    text: edit(
      BASE,
      '[coverage]',
      '[specification]\nid = "AS-1"\nhash = "x"\nrequirements_total = 1\n\n[[deviation]]\nrequirement = "R9"\n\n[coverage]',
    ),
    verdict: 'PASS',
    weighted: 1,
  },
  // [subject]
  {
    name: 'no certified identity',
    text: edit(BASE, `commit = "${COMMIT}"\ndirty = false\n`, ''),
    verdict: 'FAIL',
    fragment: '[subject] needs exactly one certified identity',
    line: 5,
  },
  {
    name: 'two certified identities',
    text: edit(BASE, 'dirty = false', `dirty = false\ndigest = "${ANOTHER}"`),
    verdict: 'FAIL',
    fragment: 'more than one certified identity (commit and digest)',
    line: 5,
  },
  {
    name: 'commit not 40 lowercase hex',
    text: edit(BASE, COMMIT, COMMIT.toUpperCase()),
    verdict: 'FAIL',
    fragment: '[subject].commit must be 40 lowercase hex',
    line: 8,
  },
  {
    name: 'commit without dirty',
    text: edit(BASE, 'dirty = false\n', ''),
    verdict: 'FAIL',
    fragment: '[subject].dirty must be true or false',
    line: 5,
  },
  {
    name: 'digest identity passes (not recomputed by check: a NOTE says so)',
    text: edit(BASE, `commit = "${COMMIT}"\ndirty = false`, `digest = "${ANOTHER}"`),
    verdict: 'PASS',
    fragment: 'is not recomputed by `check`',
    level: 'NOTE',
  },
  {
    name: 'bare sha-512 subject digest',
    text: edit(BASE, `commit = "${COMMIT}"\ndirty = false`, `digest = "sha-512:${HEX}"`),
    verdict: 'FAIL',
    fragment: "retired bare form 'sha-512:<hex>'",
    line: 8,
  },
  {
    name: 'subject digest in another domain',
    text: edit(BASE, `commit = "${COMMIT}"\ndirty = false`, `digest = "record:sha-512:${HEX}"`),
    verdict: 'FAIL',
    fragment: "is in domain 'record', expected 'subject'",
    line: 8,
  },
  {
    name: 'components with their aggregate digest',
    text: edit(
      BASE,
      `commit = "${COMMIT}"\ndirty = false`,
      `digest = "${m11('subject', `${`b=content-digest:${ANOTHER}\na=git-revision:${COMMIT}\n`.split('\n').filter(Boolean).sort().join('\n')}\n`)}"\n\n[[subject.components]]\nname = "b"\ndigest = "${ANOTHER}"\n\n[[subject.components]]\nname = "a"\ncommit = "${COMMIT}"`,
    ),
    verdict: 'PASS',
    weighted: 1,
  },
  {
    name: 'components whose aggregate digest is not theirs',
    text: edit(
      BASE,
      `commit = "${COMMIT}"\ndirty = false`,
      `digest = "${ANOTHER}"\n\n[[subject.components]]\nname = "a"\ncommit = "${COMMIT}"`,
    ),
    verdict: 'FAIL',
    fragment: '[subject].digest is not the digest of its components',
    line: 8,
  },
  {
    name: 'prospective subject: PASS-PROSPECTIVE',
    text: edit(BASE, `commit = "${COMMIT}"\ndirty = false`, 'mode = "prospective"\nread_at_commit = "unpinned"'),
    verdict: 'PASS-PROSPECTIVE',
  },
  {
    name: 'prospective subject with an identity',
    text: edit(BASE, 'dirty = false', 'dirty = false\nmode = "prospective"\nread_at_commit = "unpinned"'),
    verdict: 'FAIL',
    fragment: '[subject].commit: a prospective subject carries no certified identity',
    line: 8,
  },
  {
    name: 'subject root escaping --root',
    text: edit(BASE, 'kind = "tool"', 'kind = "tool"\nroot = "../elsewhere"'),
    verdict: 'FAIL',
    fragment: '[subject].root "../elsewhere" must be a relative directory inside --root',
    line: 8,
  },
  // [spec]
  {
    name: '[spec] missing',
    text: edit(BASE, '[spec]\npath = "SPEC.md"\nversion = "v1"\n', ''),
    verdict: 'FAIL',
    fragment: '[spec] table missing',
  },
  {
    name: '[spec] path escaping --root',
    text: edit(BASE, 'path = "SPEC.md"', 'path = "../SPEC.md"'),
    verdict: 'FAIL',
    fragment: "[spec].path '../SPEC.md' is outside --root",
    line: 12,
  },
  {
    name: '[spec] path absolute',
    text: edit(BASE, 'path = "SPEC.md"', 'path = "/etc/passwd"'),
    verdict: 'FAIL',
    fragment: "[spec].path '/etc/passwd' is absolute",
    line: 12,
  },
  {
    name: '[spec] path naming no file: unresolvable reference',
    text: BASE,
    files: { 'SPEC.md': null },
    verdict: 'INDETERMINATE',
    fragment: "INDETERMINATE: [spec].path 'SPEC.md' cannot be read",
    level: 'WARN',
    line: 12,
  },
  {
    name: '[spec] version missing',
    text: edit(BASE, 'version = "v1"\n', ''),
    verdict: 'FAIL',
    fragment: '[spec].version must be a nonempty string',
    line: 11,
  },
  // [[claim]]
  {
    name: 'duplicate claim id',
    text: withGap(BASE).replace('id = "G-1"', 'id = "WT-1"'),
    verdict: 'FAIL',
    fragment: "claim 'WT-1': duplicate claim id",
    line: lineOf(withGap(BASE), 'id = "G-1"'),
  },
  {
    name: 'claim without statement',
    text: edit(BASE, /statement = "slug[^\n]*\n/, ''),
    verdict: 'FAIL',
    fragment: "claim 'WT-1': statement must be a nonempty string",
    line: 18,
  },
  {
    name: 'unknown status',
    text: edit(BASE, 'status = "evidenced"', 'status = "done"'),
    verdict: 'FAIL',
    fragment: 'status must be one of evidenced, partial, gap, parked, blocked, not-applicable, got "done"',
    line: 22,
  },
  {
    name: 'evidenced without evidence',
    text: BASE.slice(0, BASE.indexOf('  [[claim.evidence]]')),
    verdict: 'FAIL',
    fragment: "status 'evidenced' needs at least one [[claim.evidence]] record",
    line: 22,
  },
  {
    name: 'a gap with evidence',
    text: edit(
      edit(BASE, 'status = "evidenced"', 'status = "gap"\ngap_reason = "not yet"'),
      'grade = "probe"',
      'grade = "not-covered"',
    ),
    verdict: 'FAIL',
    fragment: "status 'gap' must have no evidence records",
  },
  {
    name: 'a gap without its reason',
    text: edit(withGap(BASE), 'gap_reason = "nothing checks this yet"\n', ''),
    verdict: 'FAIL',
    fragment: "claim 'G-1': status 'gap' needs a nonempty gap_reason",
    line: lineOf(withGap(BASE), 'status = "gap"'),
  },
  {
    name: 'a parked claim with its reason',
    text: edit(
      withGap(BASE),
      'status = "gap"\ngrade = "not-covered"\ngap_reason',
      'status = "parked"\ngrade = "not-covered"\nparked_reason',
    ),
    verdict: 'PASS',
  },
  {
    name: 'a blocked claim needs blocked_by',
    text: edit(
      withGap(BASE),
      'status = "gap"\ngrade = "not-covered"\ngap_reason',
      'status = "blocked"\ngrade = "not-covered"\nparked_reason',
    ),
    verdict: 'FAIL',
    fragment: "status 'blocked' needs a nonempty blocked_by",
  },
  {
    name: 'unknown grade',
    text: edit(BASE, 'grade = "probe"', 'grade = "solid"'),
    verdict: 'FAIL',
    fragment: 'grade must be one of contract, probe',
    line: 24,
  },
  {
    name: 'grade missing',
    text: edit(BASE, 'grade = "probe"\n', ''),
    verdict: 'FAIL',
    fragment: "claim 'WT-1': grade is required",
  },
  {
    name: 'weighted claim whose status and grade do not cohere',
    text: edit(BASE, 'grade = "probe"', 'grade = "not-covered"'),
    verdict: 'FAIL',
    fragment: "status 'evidenced' does not cohere with grade 'not-covered'",
    line: 24,
  },
  {
    name: 'bounds without a limit',
    text: edit(BASE, 'bounds = "bounded: 5 concrete input strings"', 'bounds = "bounded"'),
    verdict: 'FAIL',
    fragment: "bounds must start with 'bounded' or 'unbounded'",
    line: 25,
  },
  {
    name: 'bounds token glued to a word',
    text: edit(BASE, 'bounds = "bounded: 5 concrete input strings"', 'bounds = "boundedness: unwind=8"'),
    verdict: 'FAIL',
    fragment: "bounds must start with 'bounded' or 'unbounded'",
    line: 25,
  },
  {
    name: 'unbounded with its reach',
    text: edit(BASE, 'bounds = "bounded: 5 concrete input strings"', 'bounds = "unbounded: every string"'),
    verdict: 'PASS',
    weighted: 1,
  },
  {
    name: 'unknown clause_source',
    text: edit(BASE, 'clause_source = "spec-document"', 'clause_source = "folklore"'),
    verdict: 'FAIL',
    fragment: 'clause_source must be one of spec-document',
    line: 26,
  },
  {
    name: 'clause_source test-name is warned and refuses weight',
    text: edit(BASE, 'clause_source = "spec-document"', 'clause_source = "test-name"'),
    verdict: 'PASS',
    fragment: "clause_source 'test-name' cannot carry weight",
    level: 'WARN',
    line: 23,
    weighted: 0,
  },
  {
    name: 'weight other than weighted/unweighted',
    text: edit(BASE, 'weight = "weighted"', 'weight = "heavy"'),
    verdict: 'FAIL',
    fragment: 'weight must be weighted or unweighted',
    line: 23,
  },
  {
    name: 'supersedes naming itself',
    text: edit(BASE, 'clause = "S-1"', 'clause = "S-1"\nsupersedes = "WT-1"'),
    verdict: 'FAIL',
    fragment: 'supersedes must name the id of the claim this one replaces',
  },
  // [claim.self_verify] and its watched_fail
  {
    name: 'command without expect',
    text: edit(BASE, '  expect = "TEST-SLUG PASS: 5 cases"\n', ''),
    verdict: 'FAIL',
    fragment: 'self_verify.command needs self_verify.expect',
    line: 28,
  },
  {
    name: 'unknown expect_stream',
    text: edit(
      BASE,
      '  expect = "TEST-SLUG PASS: 5 cases"',
      '  expect = "TEST-SLUG PASS: 5 cases"\n  expect_stream = "stdlog"',
    ),
    verdict: 'FAIL',
    fragment: 'self_verify.expect_stream must be one of stdout, stderr, combined',
    line: 31,
  },
  {
    name: 'watched_fail of another command',
    text: edit(BASE, 'of_command = "node   test.js"', 'of_command = "node other.js"'),
    verdict: 'FAIL',
    fragment: "watched_fail.of_command 'node other.js' is not this claim's self_verify.command",
    line: 33,
  },
  {
    name: 'watched_fail perturbed in one word',
    text: edit(BASE, 'perturbed = "removed toLowerCase from slug"', 'perturbed = "mutated"'),
    verdict: 'FAIL',
    fragment: 'watched_fail.perturbed must say what was perturbed in more than one word',
    line: 34,
  },
  {
    name: 'watched_fail observed in one word',
    text: edit(BASE, 'observed = "TEST-SLUG FAILED: 2/5 cases"', 'observed = "red"'),
    verdict: 'FAIL',
    fragment: 'watched_fail.observed must say what was observed in more than one word',
    line: 35,
  },
  {
    name: 'watched_fail date not a calendar date',
    text: edit(BASE, 'date = 2026-08-28', 'date = "2026-02-30"'),
    verdict: 'FAIL',
    fragment: "watched_fail.date must be a date YYYY-MM-DD, got '2026-02-30'",
    line: 36,
  },
  {
    name: 'watched_fail date with a time',
    text: edit(BASE, 'date = 2026-08-28', 'date = 2026-08-28T10:00:00Z'),
    verdict: 'FAIL',
    fragment: 'watched_fail.date must be a date YYYY-MM-DD',
    line: 36,
  },
  {
    name: 'watched_fail with an extra key',
    text: edit(BASE, 'date = 2026-08-28', 'date = 2026-08-28\n    by = "me"'),
    verdict: 'FAIL',
    fragment: "watched_fail has unknown key 'by'",
    line: 37,
  },
  {
    name: 'watched_fail missing observed',
    text: edit(BASE, '    observed = "TEST-SLUG FAILED: 2/5 cases"\n', ''),
    verdict: 'FAIL',
    fragment: "watched_fail requires 'observed'",
    line: 32,
  },
  // [[claim.evidence]]
  {
    name: 'record result not pass/fail/unsupported',
    text: edit(BASE, 'result = "pass"', 'result = "green"'),
    verdict: 'FAIL',
    fragment: "claim 'WT-1' evidence[0]: result must be one of pass, fail, unsupported",
    line: 42,
  },
  {
    name: 'record without tool',
    text: edit(BASE, '  tool = "node@20 + test.js"\n', ''),
    verdict: 'FAIL',
    fragment: 'evidence[0]: tool must be a nonempty string',
    line: 38,
  },
  {
    name: 'unknown family',
    text: edit(BASE, 'family = "dynamic"', 'family = "vibes"'),
    verdict: 'FAIL',
    fragment: "unknown family 'vibes'",
    line: 40,
  },
  {
    name: 'kind of another family',
    text: edit(BASE, 'kind = "unit-test"', 'kind = "kani-harness"'),
    verdict: 'FAIL',
    fragment: "kind 'kani-harness' belongs to family 'bmc', not 'dynamic'",
    line: 40,
  },
  {
    name: 'kind outside the registry is warned',
    text: edit(BASE, 'kind = "unit-test"', 'kind = "snapshot-test"'),
    verdict: 'PASS',
    fragment: "kind 'snapshot-test' is not in the verification profile's registry",
    level: 'WARN',
    line: 39,
  },
  {
    name: 'tier above the family ceiling',
    text: edit(BASE, 'epistemic_tier = "T3"', 'epistemic_tier = "T1"'),
    verdict: 'FAIL',
    fragment: "epistemic_tier T1 is above the ceiling T3 of family 'dynamic'",
    line: 44,
  },
  {
    name: 'tier below the ceiling is fine',
    text: edit(BASE, 'epistemic_tier = "T3"', 'epistemic_tier = "T4"'),
    verdict: 'PASS',
  },
  {
    name: 'tier not a tier',
    text: edit(BASE, 'epistemic_tier = "T3"', 'epistemic_tier = "T0"'),
    verdict: 'FAIL',
    fragment: 'epistemic_tier must be one of T1',
    line: 44,
  },
  {
    name: 'record path escaping --root',
    text: edit(BASE, 'record = "evidence/run.txt"', 'record = "../run.txt"'),
    verdict: 'FAIL',
    fragment: "evidence[0]: record '../run.txt' is outside --root",
    line: 45,
  },
  {
    name: 'record path absolute',
    text: edit(BASE, 'record = "evidence/run.txt"', 'record = "/tmp/run.txt"'),
    verdict: 'FAIL',
    fragment: "evidence[0]: record '/tmp/run.txt' is absolute",
    line: 45,
  },
  {
    name: 'record changed after it was cited',
    text: BASE,
    files: { 'evidence/run.txt': `${RECORD}edited\n` },
    verdict: 'FAIL',
    fragment: "record 'evidence/run.txt' does not match its record_hash",
    line: 46,
  },
  {
    name: 'record_hash in the retired bare form',
    text: edit(BASE, m11('record', RECORD), `sha-512:${m11('record', RECORD).split(':')[2]}`),
    verdict: 'FAIL',
    fragment: "record_hash uses the retired bare form 'sha-512:<hex>'; write 'record:sha-512:<128 hex>'",
    line: 46,
  },
  {
    name: 'record_hash in another domain',
    text: edit(BASE, m11('record', RECORD), m11('artifact', RECORD)),
    verdict: 'FAIL',
    fragment: "record_hash is in domain 'artifact', expected 'record'",
    line: 46,
  },
  {
    name: 'missing record: a warning',
    text: BASE,
    files: { 'evidence/run.txt': null },
    verdict: 'PASS',
    fragment: "record 'evidence/run.txt' does not exist",
    level: 'WARN',
    line: 45,
  },
  {
    name: 'missing record under --strict: an error',
    text: BASE,
    files: { 'evidence/run.txt': null },
    strict: true,
    verdict: 'FAIL',
    fragment: "record 'evidence/run.txt' does not exist",
    line: 45,
  },
  {
    name: 'input changed after the evidence was captured',
    text: BASE,
    files: { 'src/slug.js': SOURCE.replace('toLowerCase()', 'toString()') },
    verdict: 'FAIL',
    fragment: "inputs[0]: 'src/slug.js' does not match its digest",
    line: 50,
  },
  {
    name: 'input digest in the artifact domain',
    text: edit(BASE, m11('subject', SOURCE), m11('artifact', SOURCE)),
    verdict: 'FAIL',
    fragment: "inputs[0].digest is in domain 'artifact', expected 'subject'",
    line: 50,
  },
  {
    name: 'missing input: a warning',
    text: BASE,
    files: { 'src/slug.js': null },
    verdict: 'PASS',
    fragment: "inputs[0]: 'src/slug.js' does not exist under the subject root",
    level: 'WARN',
    line: 49,
  },
  {
    name: 'inputs resolve under [subject] root',
    text: edit(BASE, 'kind = "tool"', 'kind = "tool"\nroot = "src"').replace(
      'path = "src/slug.js"',
      'path = "slug.js"',
    ),
    verdict: 'PASS',
    weighted: 1,
  },
  {
    name: 'build_inputs recomputed in the artifact domain',
    text:
      BASE +
      `\n    [[claim.evidence.build_inputs]]\n    path = "src/slug.js"\n    digest = "${m11('artifact', 'other bytes')}"\n`,
    verdict: 'FAIL',
    fragment: "build_inputs[0]: 'src/slug.js' does not match its digest",
  },
  {
    name: 'toolchain entry without digest or commit',
    text: `${BASE}\n    [[claim.evidence.toolchain]]\n    name = "node"\n    version = "20"\n`,
    verdict: 'FAIL',
    fragment: 'toolchain[0] needs a digest (artifact:sha-512:...) or a commit',
  },
  {
    name: 'toolchain entry with an artifact digest',
    text:
      BASE +
      `\n    [[claim.evidence.toolchain]]\n    name = "node"\n    version = "20"\n    digest = "${m11('artifact', 'node binary')}"\n`,
    verdict: 'PASS',
    weighted: 1,
  },
  {
    name: 'control naming another claim',
    text:
      BASE +
      '\n    [claim.evidence.control]\n    kind = "mutation"\n    expectation = "red"\n    observed = "red"\n    of_claim = "WT-9"\n',
    verdict: 'FAIL',
    fragment: "control.of_claim 'WT-9' does not name this claim 'WT-1'",
  },
  {
    name: 'control of an unknown kind',
    text:
      BASE +
      '\n    [claim.evidence.control]\n    kind = "prayer"\n    expectation = "red"\n    observed = "red"\n    of_claim = "WT-1"\n',
    verdict: 'FAIL',
    fragment: 'control.kind must be one of mutation, ablation, planted-twin',
  },
  // Weight
  {
    name: 'an observed-red mutation control on its own record is a witness',
    text:
      edit(BASE, / {4}\[claim\.self_verify\.watched_fail\][\s\S]*?date = 2026-08-28\n/, '') +
      '\n    [claim.evidence.control]\n    kind = "mutation"\n    expectation = "red"\n    observed = "red"\n    of_claim = "WT-1"\n',
    verdict: 'PASS',
    weighted: 1,
  },
  {
    name: 'a control that stayed green is no witness',
    text:
      edit(BASE, / {4}\[claim\.self_verify\.watched_fail\][\s\S]*?date = 2026-08-28\n/, '') +
      '\n    [claim.evidence.control]\n    kind = "mutation"\n    expectation = "red"\n    observed = "green"\n    of_claim = "WT-1"\n',
    verdict: 'PASS',
    fragment: "claim 'WT-1': WEIGHT REFUSED: no watched-fail witness",
    level: 'WARN',
    weighted: 0,
  },
  {
    name: 'no clause_source: weight refused',
    text: edit(BASE, 'clause_source = "spec-document"\n', ''),
    verdict: 'PASS',
    fragment: "claim 'WT-1': WEIGHT REFUSED: clause_source not recorded",
    level: 'WARN',
    line: 23,
    weighted: 0,
  },
  {
    name: 'a grade that is never weight-capable',
    text: edit(BASE, 'grade = "probe"', 'grade = "inspection-argued"'),
    verdict: 'PASS',
    fragment: "claim 'WT-1': WEIGHT REFUSED: grade 'inspection-argued' is never weight-capable",
    level: 'WARN',
    weighted: 0,
  },
  {
    name: 'probe without bounds',
    text: edit(BASE, 'bounds = "bounded: 5 concrete input strings"\n', ''),
    verdict: 'PASS',
    fragment: "claim 'WT-1': WEIGHT REFUSED: grade 'probe' needs bounds",
    level: 'WARN',
    weighted: 0,
  },
  {
    name: 'test-only needs no bounds',
    text: edit(
      edit(BASE, 'bounds = "bounded: 5 concrete input strings"\n', ''),
      'grade = "probe"',
      'grade = "test-only"',
    ),
    verdict: 'PASS',
    weighted: 1,
  },
  {
    name: 'contract on dynamic evidence only',
    text: edit(BASE, 'grade = "probe"', 'grade = "contract"'),
    verdict: 'PASS',
    fragment:
      "claim 'WT-1': WEIGHT REFUSED: grade 'contract' needs a passing record from a family that reasons over a symbolic domain",
    level: 'WARN',
    weighted: 0,
  },
  {
    name: 'contract with a passing bounded model check',
    text:
      edit(BASE, 'grade = "probe"', 'grade = "contract"') +
      `\n  [[claim.evidence]]\n  kind = "kani-harness"\n  family = "bmc"\n  ref = "verification::slug_lowercase"\n  result = "pass"\n  tool = "kani 0.67"\n  record = "evidence/run.txt"\n`,
    verdict: 'PASS',
    weighted: 1,
  },
  {
    name: 'a weighted gap graded not-covered needs a positive control',
    text: edit(
      withGap(BASE),
      'gap_reason = "nothing checks this yet"',
      'gap_reason = "nothing checks this yet"\nweight = "weighted"\nclause_source = "spec-document"\n\n  [claim.self_verify]\n  command = "node gap.js"\n  expect = "GAP CONFIRMED"\n\n    [claim.self_verify.watched_fail]\n    of_command = "node gap.js"\n    perturbed = "added digit handling"\n    observed = "GAP NOT CONFIRMED here"\n    date = 2026-08-28',
    ),
    verdict: 'PASS',
    fragment: "claim 'G-1': WEIGHT REFUSED: grade 'not-covered' needs self_verify.positive_control",
    level: 'WARN',
    weighted: 1,
  },
  {
    name: 'an error in a weighted claim also refuses weight',
    text: edit(BASE, 'result = "pass"', 'result = "green"'),
    verdict: 'FAIL',
    weighted: 0,
  },
  // Counts and verdict order
  {
    name: 'claims_total not the number of claims',
    text: edit(BASE, 'claims_total = 1', 'claims_total = 3'),
    verdict: 'FAIL',
    fragment: '[coverage].claims_total is 3 but the document has 1 [[claim]] table',
    line: 16,
  },
  {
    name: 'zero claims',
    text: BASE.slice(0, BASE.indexOf('[[claim]]')).replace('claims_total = 1', 'claims_total = 0'),
    verdict: 'FAIL',
    fragment: 'no [[claim]] tables',
  },
  {
    name: 'zero claims even when the count says zero and the subject is prospective',
    text: BASE.slice(0, BASE.indexOf('[[claim]]'))
      .replace('claims_total = 1', 'claims_total = 0')
      .replace(`commit = "${COMMIT}"\ndirty = false`, 'mode = "prospective"\nread_at_commit = "unpinned"'),
    verdict: 'FAIL',
    fragment: 'no [[claim]] tables',
  },
  {
    name: 'only gaps: PASS-PROSPECTIVE',
    text:
      BASE.slice(0, BASE.indexOf('[[claim]]')) +
      withGap('claims_total = 1').slice('claims_total = 2'.length).replace('[coverage]', ''),
    verdict: 'PASS-PROSPECTIVE',
  },
  {
    name: 'every claim not-applicable: INDETERMINATE',
    text:
      BASE.slice(0, BASE.indexOf('[[claim]]')) +
      '[[claim]]\nid = "NA-1"\nclause = "S-1"\nstatement = "no locale handling"\nstatus = "not-applicable"\napplicability_reason = "the subject handles ASCII only"\n',
    verdict: 'INDETERMINATE',
    fragment: 'INDETERMINATE: every claim is not-applicable',
    level: 'WARN',
  },
  {
    name: 'a not-applicable claim asking for weight',
    text:
      TWO_CLAIMS(BASE) +
      '\n[[claim]]\nid = "NA-1"\nclause = "S-1"\nstatement = "no locale handling"\nstatus = "not-applicable"\napplicability_reason = "ASCII only"\nweight = "weighted"\n',
    verdict: 'FAIL',
    fragment: "claim 'NA-1': a not-applicable claim cannot ask for weight",
  },
];

for (const c of CASES) {
  test(`format: ${c.name}`, async () => {
    const r = await run(c.text, { files: c.files, strict: c.strict, strictWeight: c.strictWeight });
    const shown = r.lines.join('\n');
    assert.equal(r.verdict, c.verdict, shown);
    if (c.fragment) {
      const f = r.findings.find((x) => x.level === (c.level ?? 'ERROR') && x.message.includes(c.fragment!));
      assert.ok(f, `no ${c.level ?? 'ERROR'} containing "${c.fragment}" in:\n${shown}`);
      if (c.line !== undefined) assert.equal(f.line, c.line, `line of "${f.message}"`);
    }
    if (c.verdict === 'PASS' || c.verdict === 'PASS-PROSPECTIVE') assert.equal(r.errors, 0, shown);
    if (c.weighted !== undefined) assert.equal(r.weighted, c.weighted, shown);
  });
}

test('format: the summary line leads, findings follow, counts are exact', async () => {
  const text = edit(BASE, 'clause_source = "spec-document"\n', '');
  const r = await run(text, { files: { 'evidence/run.txt': null } });
  assert.equal(r.lines[0], 'PASS acceptance.toml (0 errors, 2 warnings) [weighted: 0, unweighted: 1]');
  assert.ok(
    r.lines.includes(
      `WARN acceptance.toml: claim 'WT-1': WEIGHT REFUSED: clause_source not recorded (line ${lineOf(text, 'weight = ')})`,
    ),
    r.lines.join('\n'),
  );
  const clean = await run(BASE);
  assert.deepEqual(clean.lines, ['PASS acceptance.toml [weighted: 1, unweighted: 0]']);
});

test('format: every weight refusal gets its own line, and each reason is named', async () => {
  const text = edit(
    edit(
      edit(BASE, / {4}\[claim\.self_verify\.watched_fail\][\s\S]*?date = 2026-08-28\n/, ''),
      'clause_source = "spec-document"\n',
      '',
    ),
    'bounds = "bounded: 5 concrete input strings"\n',
    '',
  );
  const r = await run(text);
  const refused = r.findings
    .filter((f) => f.message.startsWith("claim 'WT-1': WEIGHT REFUSED: "))
    .map((f) => f.message.slice("claim 'WT-1': WEIGHT REFUSED: ".length));
  assert.deepEqual(refused, [
    "grade 'probe' needs bounds ('bounded: ...' or 'unbounded: ...')",
    'clause_source not recorded',
    'no watched-fail witness',
  ]);
});

test('format: a record path that leaves the root through a symbolic link fails', async () => {
  const outside = tempDir({ 'run.txt': RECORD });
  const d = tempDir({ ...FILES, 'acceptance.toml': BASE });
  try {
    rmSync(`${d.dir}/evidence/run.txt`);
    symlinkSync(`${outside.dir}/run.txt`, `${d.dir}/evidence/run.txt`);
    const o = await checkFiles(['acceptance.toml'], { root: d.dir });
    assert.equal(o.json.verdict, 'FAIL', o.lines.join('\n'));
    assert.ok(
      o.lines.some((l) => l.includes("record 'evidence/run.txt' leads outside --root through a symbolic link")),
      o.lines.join('\n'),
    );
  } finally {
    d.cleanup();
    outside.cleanup();
  }
});

test('format: a package in a subdirectory resolves records beside itself and is judged against --root', async () => {
  const d = tempDir({});
  try {
    for (const [p, c] of Object.entries(FILES)) d.write(`pkg/${p}`, c);
    d.write('pkg/acceptance.toml', BASE);
    const o = await checkFiles(['pkg/acceptance.toml'], { root: d.dir });
    assert.equal(o.json.verdict, 'PASS', o.lines.join('\n'));
    // Rooted at the package's own directory the same document still passes; rooted below it, it escapes.
    const inner = await checkFiles([`${d.dir}/pkg/acceptance.toml`], { root: `${d.dir}/pkg/evidence` });
    assert.equal(inner.json.verdict, 'FAIL', inner.lines.join('\n'));
  } finally {
    d.cleanup();
  }
});

const CITED = (hash: string) => `
  [[claim.evidence]]
  kind = "acceptance-claim"
  family = "reference"
  result = "pass"
  manifest = "lib/acceptance.toml"
  manifest_hash = "${hash}"
  claim = "WT-1"
`;

test('format: evidence citing another package: valid, unreadable (INDETERMINATE), changed (FAIL)', async () => {
  const libFiles = Object.fromEntries(Object.entries(FILES).map(([p, c]) => [`lib/${p}`, c]));
  const ok = await run(BASE + CITED(m11('manifest', BASE)), { files: { ...libFiles, 'lib/acceptance.toml': BASE } });
  assert.equal(ok.verdict, 'PASS', ok.lines.join('\n'));
  const gone = await run(BASE + CITED(m11('manifest', BASE)));
  assert.equal(gone.verdict, 'INDETERMINATE', gone.lines.join('\n'));
  assert.equal(gone.exitCode, 3);
  assert.ok(gone.findings.some((f) => f.message.includes("cited package 'lib/acceptance.toml' cannot be read")));
  const changed = await run(BASE + CITED(m11('manifest', `${BASE}# edited\n`)), {
    files: { ...libFiles, 'lib/acceptance.toml': BASE },
  });
  assert.equal(changed.verdict, 'FAIL', changed.lines.join('\n'));
  assert.ok(changed.findings.some((f) => f.message.includes('does not match its manifest_hash')));
  const failing = edit(BASE, 'result = "pass"', 'result = "green"');
  const bad = await run(BASE + CITED(m11('manifest', failing)), {
    files: { ...libFiles, 'lib/acceptance.toml': failing },
  });
  assert.equal(bad.verdict, 'FAIL', bad.lines.join('\n'));
  assert.ok(bad.findings.some((f) => f.message.includes("cited package 'lib/acceptance.toml' fails validation")));
});

// ---------------------------------------------------------------------------------------------
// Through the real CLI: exit codes, JSON, refusal of 0.3, parse errors, several files.
// ---------------------------------------------------------------------------------------------

const NO_WITNESS = edit(BASE, / {4}\[claim\.self_verify\.watched_fail\][\s\S]*?date = 2026-08-28\n/, '');

test('cli: WEIGHT REFUSED without a watched-fail witness is a warning, and FAIL under --strict-weight', () => {
  const d = tempDir({ ...FILES, 'acceptance.toml': NO_WITNESS });
  try {
    const weightLine = lineOf(NO_WITNESS, 'weight = ');
    const warn = vkit(['acceptance', 'check', 'acceptance.toml', '--root', d.dir]);
    assert.equal(warn.code, 0, warn.stdout + warn.stderr);
    assert.equal(
      warn.stdout,
      `PASS acceptance.toml (0 errors, 1 warning) [weighted: 0, unweighted: 1]\nWARN acceptance.toml: claim 'WT-1': WEIGHT REFUSED: no watched-fail witness (line ${weightLine})\n`,
    );
    const strict = vkit(['acceptance', 'check', 'acceptance.toml', '--root', d.dir, '--strict-weight']);
    assert.equal(strict.code, 1, strict.stdout + strict.stderr);
    assert.equal(
      strict.stdout,
      `FAIL acceptance.toml (1 error, 0 warnings) [weighted: 0, unweighted: 1]\nERROR acceptance.toml: claim 'WT-1': WEIGHT REFUSED: no watched-fail witness (line ${weightLine})\n`,
    );
  } finally {
    d.cleanup();
  }
});

test('cli: record hash mismatch exits 1; missing record exits 0 with a warning and 1 under --strict', () => {
  const d = tempDir({ ...FILES, 'acceptance.toml': BASE, 'evidence/run.txt': 'tampered\n' });
  try {
    const r = vkit(['acceptance', 'check', 'acceptance.toml', '--root', d.dir]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^FAIL acceptance\.toml \(1 error, 0 warnings\)/);
    assert.match(
      r.stdout,
      /ERROR acceptance\.toml: claim 'WT-1' evidence\[0\]: record 'evidence\/run\.txt' does not match its record_hash .*\(line 46\)/,
    );
    rmSync(`${d.dir}/evidence/run.txt`);
    const warn = vkit(['acceptance', 'check', 'acceptance.toml', '--root', d.dir]);
    assert.equal(warn.code, 0, warn.stdout + warn.stderr);
    assert.match(
      warn.stdout,
      /^WARN acceptance\.toml: claim 'WT-1' evidence\[0\]: record 'evidence\/run\.txt' does not exist or cannot be read \(line 45\)$/m,
    );
    const strict = vkit(['acceptance', 'check', 'acceptance.toml', '--root', d.dir, '--strict']);
    assert.equal(strict.code, 1, strict.stdout + strict.stderr);
    assert.match(
      strict.stdout,
      /^ERROR acceptance\.toml: claim 'WT-1' evidence\[0\]: record 'evidence\/run\.txt' does not exist/m,
    );
  } finally {
    d.cleanup();
  }
});

test('cli: an escaping record path exits 1 naming the field and line', () => {
  const text = edit(BASE, 'record = "evidence/run.txt"', 'record = "../../etc/passwd"');
  const d = tempDir({ ...FILES, 'acceptance.toml': text });
  try {
    const r = vkit(['acceptance', 'check', 'acceptance.toml', '--root', d.dir]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /ERROR acceptance\.toml: claim 'WT-1' evidence\[0\]: record '\.\.\/\.\.\/etc\/passwd' is outside --root.*\(line 45\)/,
    );
  } finally {
    d.cleanup();
  }
});

test('cli: a 0.3 document exits 2 naming vkit acceptance migrate; unparsable TOML exits 2 with the line', () => {
  const d = tempDir({
    ...FILES,
    'old.toml': edit(BASE, 'id = "acceptance/0.4"', 'id = "acceptance/0.3"'),
    'broken.toml': BASE.replace('status = "evidenced"', 'status = "evidenced'),
    'contract.toml': `${BASE}\n[contract]\nid = "AC-1"\n`,
  });
  try {
    for (const file of ['old.toml', 'contract.toml']) {
      const r = vkit(['acceptance', 'check', file, '--root', d.dir]);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, /acceptance 0\.3 document/);
      assert.match(r.stderr, /vkit acceptance migrate/);
    }
    const b = vkit(['acceptance', 'check', 'broken.toml', '--root', d.dir]);
    assert.equal(b.code, 2, b.stdout + b.stderr);
    assert.match(b.stderr, new RegExp(`broken\\.toml:${lineOf(BASE, 'status = "evidenced"')}`));
    assert.equal(vkit(['acceptance', 'check', 'missing.toml', '--root', d.dir]).code, 2);
    assert.equal(vkit(['acceptance', 'check', '--root', d.dir]).code, 2, 'no FILE is a usage error');
    assert.equal(vkit(['acceptance', 'check', 'old.toml', '--bogus']).code, 2, 'an unknown flag is a usage error');
    const help = vkit(['acceptance', 'check', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--strict-weight/);
  } finally {
    d.cleanup();
  }
});

test('cli: several files: the worst verdict decides the exit; --json carries every file', () => {
  const prospective = edit(
    BASE,
    `commit = "${COMMIT}"\ndirty = false`,
    'mode = "prospective"\nread_at_commit = "unpinned"',
  );
  const indeterminate = edit(BASE, 'path = "SPEC.md"', 'path = "MISSING.md"');
  const failing = edit(BASE, 'claims_total = 1', 'claims_total = 2');
  const d = tempDir({ ...FILES, 'a.toml': BASE, 'p.toml': prospective, 'i.toml': indeterminate, 'f.toml': failing });
  try {
    const pass = vkit(['acceptance', 'check', 'a.toml', 'p.toml', '--root', d.dir]);
    assert.equal(pass.code, 0, pass.stdout + pass.stderr);
    assert.equal(
      pass.stdout,
      'PASS a.toml [weighted: 1, unweighted: 0]\nPASS-PROSPECTIVE p.toml [weighted: 1, unweighted: 0]\n',
    );
    const ind = vkit(['acceptance', 'check', 'a.toml', 'i.toml', 'p.toml', '--root', d.dir]);
    assert.equal(ind.code, 3, ind.stdout + ind.stderr);
    const fail = vkit(['acceptance', 'check', 'i.toml', 'f.toml', 'a.toml', '--root', d.dir, '--json']);
    assert.equal(fail.code, 1, fail.stdout + fail.stderr);
    const j = fail.json();
    assert.equal(j.schema, 'vkit.acceptance-check/1');
    assert.equal(j.verdict, 'FAIL');
    assert.deepEqual(
      j.files.map((f: { file: string; verdict: string; errors: number; weighted: number; unweighted: number }) => [
        f.file,
        f.verdict,
        f.errors,
        f.weighted,
        f.unweighted,
      ]),
      [
        ['i.toml', 'INDETERMINATE', 0, 1, 0],
        ['f.toml', 'FAIL', 1, 1, 0],
        ['a.toml', 'PASS', 0, 1, 0],
      ],
    );
    const finding = j.files[1].findings[0];
    assert.equal(finding.level, 'ERROR');
    assert.equal(finding.path, 'coverage.claims_total');
    assert.equal(finding.line, 16);
  } finally {
    d.cleanup();
  }
});
