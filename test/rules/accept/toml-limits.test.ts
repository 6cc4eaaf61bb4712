/**
 * The limits of the TOML reader and of findings, one test per defect they once had: documents
 * nested thousands deep crashed (exit 4) on a recursive walk; line numbers cost a walk over the
 * whole text per finding (quadratic in the findings); invalid UTF-8 was silently replaced by
 * U+FFFD and accepted; a document with 200,000 findings crashed when they were merged.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { validateFormat } from '../../../rules/accept/lib/format.js';
import { Findings } from '../../../rules/accept/lib/report.js';
import { locate, MAX_DEPTH, parseDoc } from '../../../rules/accept/lib/toml.js';
import { InvalidInputError } from '../../../src/errors.js';
import { REPO_ROOT, vkit } from '../../_support/repo.js';

const EXAMPLE = join(REPO_ROOT, 'examples', 'weighted-toy');
const segments = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`).join('.');

/** `parseDoc` refuses the bytes as unparsable (exit 2) with a message matching `what`, at `line`. */
function refused(bytes: Buffer | string, what: RegExp, line?: number): void {
  assert.throws(
    () => parseDoc(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes), 'doc.toml'),
    (e: unknown) => {
      assert.ok(e instanceof InvalidInputError, `expected an InvalidInputError, got ${String(e)}`);
      assert.equal(e.exitCode, 2);
      assert.equal(e.code, 'ERR_ACCEPTANCE_PARSE');
      assert.equal(e.issues[0]!.file, 'doc.toml');
      assert.match(e.message, what);
      if (line !== undefined) assert.equal(e.issues[0]!.line, line);
      return true;
    },
  );
}

// ---------------------------------------------------------------------------------------------
// 1. Nesting depth
// ---------------------------------------------------------------------------------------------

test('a dotted key of 5,000 segments is a parse error naming the depth limit and the line, not a crash', () => {
  refused(`x = 1\n${segments(5000)} = 1\n`, new RegExp(`deeper than ${MAX_DEPTH}`), 2);
  refused(`[${segments(5000)}]\nx = 1\n`, new RegExp(`deeper than ${MAX_DEPTH}`), 1);
  refused(`[[${segments(3000)}]]\nx = 1\n`, new RegExp(`deeper than ${MAX_DEPTH}`), 1);
});

test('inline arrays and tables nested 100,000 deep are a parse error naming the depth limit', () => {
  const n = 100_000;
  refused(`a = 1\nb = ${'['.repeat(n)}${']'.repeat(n)}\n`, new RegExp(`deeper than ${MAX_DEPTH}`), 2);
  refused(`a = ${'{b='.repeat(n)}1${'}'.repeat(n)}\n`, new RegExp(`deeper than ${MAX_DEPTH}`), 1);
  refused(`a = ${'[{b='.repeat(n)}1${'}]'.repeat(n)}\n`, new RegExp(`deeper than ${MAX_DEPTH}`), 1);
});

test('the depth counts headers, dotted keys and inline values together; exactly the limit is fine', () => {
  // A value at path length MAX_DEPTH is accepted; one more level is refused, at the key's line.
  const header = segments(40);
  const inline = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;
  const atLimit = `[${header}]\nx = ${inline(MAX_DEPTH - 41)}\n`;
  assert.doesNotThrow(() => parseDoc(Buffer.from(atLimit), 'doc.toml'));
  refused(`[${header}]\n\nx = ${inline(MAX_DEPTH - 40)}\n`, new RegExp(`deeper than ${MAX_DEPTH}`), 3);
  assert.doesNotThrow(() => parseDoc(Buffer.from(`${segments(MAX_DEPTH)} = 1\n`), 'doc.toml'));
  refused(`${segments(MAX_DEPTH + 1)} = 1\n`, new RegExp(`deeper than ${MAX_DEPTH}`), 1);
});

test('every acceptance verb refuses a deeply nested document with exit 2, never exit 4', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-toml-deep-'));
  try {
    writeFileSync(join(dir, 'deep.toml'), `${segments(5000)} = 1\n`);
    writeFileSync(join(dir, 'spec.toml'), readFileSync(join(EXAMPLE, 'acceptance-specification.toml')));
    for (const args of [
      ['check', 'deep.toml'],
      ['check-spec', 'deep.toml'],
      ['check-package', 'deep.toml', '--spec', 'spec.toml'],
      ['coverage', 'deep.toml', '--spec', 'spec.toml'],
      ['render', 'spec.toml', 'deep.toml'],
      ['migrate', 'deep.toml'],
    ]) {
      const r = vkit(['acceptance', ...args, '--root', dir]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`deep\\.toml:1: .*deeper than ${MAX_DEPTH}`), args.join(' '));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------------------
// 2. Lines for many findings
// ---------------------------------------------------------------------------------------------

/** A package of `count` claims, each citing a record that does not exist (one WARN each). */
function manyClaims(count: number): string {
  const claims = Array.from(
    { length: count },
    (_, i) => `
[[claim]]
id            = "C-${i}"
clause        = "S-1"
statement     = "claim ${i}"
status        = "evidenced"
grade         = "probe"
bounds        = "bounded: one case"
clause_source = "spec-document"

  [[claim.evidence]]
  kind           = "unit-test"
  family         = "dynamic"
  epistemic_tier = "T3"
  ref            = "case ${i}"
  result         = "pass"
  tool           = "test"
  record         = "evidence/missing-${i}.txt"
`,
  );
  return `[format]
id      = "acceptance/0.4"
profile = "acceptance/verification"

[subject]
name   = "many"
kind   = "other"
mode   = "prospective"
read_at_commit = "unpinned"

[spec]
path    = "acceptance-specification.toml"
version = "WT-SPEC-0001@v1"
${claims.join('')}`;
}

/**
 * The fastest of three timings: what the code costs, with as little of the machine's other load in it
 * as one can get. Growth is judged by the ratio of two such timings, never by a wall-clock limit.
 */
async function fastestOf3(run: () => unknown): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await run();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/**
 * Ten times the claims may cost at most 30 times the time: linear is 10x, a quadratic pass 100x.
 * The smaller timing counts as at least 10 ms: below that, timer resolution and JIT warm-up decide.
 */
const LINEAR_AT_10X = 30;
const grewLinearly = (small: number, large: number) => large < LINEAR_AT_10X * Math.max(small, 10);

test('3,000 findings get their lines from one pass over the text: ten times the claims, not a hundred times the time', async () => {
  const claimLine = (i: number) => 15 + 18 * i; // each claim: a blank line, `[[claim]]` and 16 lines more
  const lookUps = (count: number) => {
    const doc = parseDoc(Buffer.from(manyClaims(count)), 'acceptance.toml');
    return () => {
      for (let i = 0; i < count; i++) {
        assert.equal(doc.line(['claim', i, 'evidence', 0, 'record']), claimLine(i) + 16);
        assert.equal(doc.line(['claim', i, 'weight']), claimLine(i), 'a missing key points at its table');
      }
    };
  };
  const small = await fastestOf3(lookUps(300));
  const large = await fastestOf3(lookUps(3000));
  assert.ok(grewLinearly(small, large), `6,000 look-ups took ${large.toFixed(0)} ms, 600 took ${small.toFixed(0)} ms`);
});

test('validating a package of 3,000 claims with one finding each: ten times the claims, not a hundred times the time', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-toml-many-'));
  try {
    mkdirSync(join(dir, 'evidence'));
    writeFileSync(
      join(dir, 'acceptance-specification.toml'),
      readFileSync(join(EXAMPLE, 'acceptance-specification.toml')),
    );
    const validate = async (count: number) => {
      const doc = parseDoc(Buffer.from(manyClaims(count)), 'acceptance.toml', join(dir, 'acceptance.toml'));
      const r = await validateFormat(doc, { root: dir });
      const located = r.findings.list.filter((f) => f.message.includes('does not exist') && f.line !== undefined);
      assert.equal(located.length, count);
    };
    const small = await fastestOf3(() => validate(300));
    const large = await fastestOf3(() => validate(3000));
    assert.ok(
      grewLinearly(small, large),
      `validating 3,000 claims took ${large.toFixed(0)} ms, 300 took ${small.toFixed(0)} ms`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('200,000 findings merge into another list without overflowing the stack', () => {
  const many = new Findings('acceptance.toml');
  for (let i = 0; i < 200_000; i++) many.error(`unknown key 'k${i}'`);
  const all = new Findings('acceptance.toml');
  all.warn('first');
  all.merge(many);
  assert.equal(all.list.length, 200_001);
  assert.equal(all.errors, 200_000);
  assert.equal(all.warnings, 1);
});

test('a line of thousands of blanks inside a value costs the locator linear time', () => {
  // Valid TOML whose second line looks like the start of a table header to a line scanner.
  const text = `x = [\n[${' '.repeat(3000)}1], [2]\n]\n`;
  const doc = parseDoc(Buffer.from(text), 'doc.toml');
  const t0 = performance.now();
  assert.equal(doc.line(['x', 0]), 1);
  assert.ok(performance.now() - t0 < 500);
});

test('a CRLF document gets the same lines as its LF twin, commented headers included', () => {
  const lf =
    '[format] # the format\nid = "x"\n\n[[claim]] # first\nid = "A"\n\n  [claim.self_verify] # how\n  command = "c"\n';
  const crlf = lf.replaceAll('\n', '\r\n');
  for (const path of [
    ['format', 'id'],
    ['claim', 0, 'id'],
    ['claim', 0, 'self_verify', 'command'],
    ['claim', 0, 'self_verify', 'expect'],
  ]) {
    assert.equal(locate(crlf, path), locate(lf, path), path.join('.'));
  }
  assert.equal(locate(crlf, ['claim', 0, 'self_verify', 'command']), 8);
});

// ---------------------------------------------------------------------------------------------
// 3. UTF-8
// ---------------------------------------------------------------------------------------------

const withBytes = (before: string, bad: number[], after = '"\n') =>
  Buffer.concat([Buffer.from(before), Buffer.from(bad), Buffer.from(after)]);

test('invalid UTF-8 inside a string is a parse error naming the byte offset and the line', () => {
  refused(withBytes('a = "', [0xff, 0xfe]), /not valid UTF-8 at byte 5\b/, 1);
  refused(withBytes('x = 1\ny = "ok"\na = "ab', [0xff]), /not valid UTF-8 at byte 22\b/, 3);
});

test('encoded surrogates, overlong forms, code points past U+10FFFF and cut sequences are refused', () => {
  const cases: [string, number[]][] = [
    ['surrogate D800', [0xed, 0xa0, 0x80]],
    ['surrogate DFFF', [0xed, 0xbf, 0xbf]],
    ['overlong slash (2 bytes)', [0xc0, 0xaf]],
    ['overlong slash (3 bytes)', [0xe0, 0x80, 0xaf]],
    ['overlong slash (4 bytes)', [0xf0, 0x80, 0x80, 0xaf]],
    ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['F5 lead byte', [0xf5, 0x80, 0x80, 0x80]],
    ['lone continuation', [0x80]],
    ['cut 3-byte sequence', [0xe2, 0x82]],
  ];
  for (const [name, bad] of cases) {
    assert.throws(
      () => parseDoc(withBytes('a = "', bad), 'doc.toml'),
      (e: unknown) => e instanceof InvalidInputError && e.exitCode === 2 && /at byte 5\b/.test(e.message),
      name,
    );
  }
  refused(Buffer.from([0x61, 0x20, 0x3d, 0x20, 0x22, 0xe2, 0x82]), /at byte 5\b/, 1); // cut at the end of the file
});

test('valid multi-byte UTF-8 is read as before', () => {
  const doc = parseDoc(Buffer.from('a = "é € 😀 \u{10FFFF}"\n'), 'doc.toml');
  assert.equal(doc.data.a, 'é € 😀 \u{10FFFF}');
});

test('a UTF-8 byte-order mark at the start is accepted and kept in the bytes; lines are unchanged', () => {
  const text = '[format]\nid = "acceptance/0.4"\n';
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
  const doc = parseDoc(bytes, 'doc.toml');
  assert.deepEqual(doc.data, { format: { id: 'acceptance/0.4' } });
  assert.equal(doc.line(['format', 'id']), 2);
  assert.equal(doc.line(['format']), 1);
  assert.ok(doc.bytes.equals(bytes), 'hashes are over the raw bytes, BOM included');
  refused(
    Buffer.concat([Buffer.from(text), Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('b = 1\n')]),
    /Cannot parse TOML/,
    3,
  );
});

test('NUL bytes and CR-only line ends are parse errors, not crashes', () => {
  refused('a = "x\0y"\n', /Cannot parse TOML/, 1);
  refused('a = 1\n\0 = 2\n', /Cannot parse TOML/, 2);
  refused('a = 1\rb = 2\r', /Cannot parse TOML/, 1);
});
