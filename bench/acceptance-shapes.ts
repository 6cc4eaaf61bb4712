/**
 * The claim-heavy packages `npm run bench:acceptance` times through the real CLI: many claims
 * citing a few record files, the shape where a per-claim read of the same record shows.
 *
 * - small: `count` one-record claims answering the weighted toy's specification, the records
 *   drawn from a pool of 20 files, every record_hash right (`check` must PASS).
 * - rust-delivery: the rust-delivery example's five claims (self_verify with a watched fail, a
 *   passing and a watched-fail record, toolchain) repeated under fresh ids until `count` claims,
 *   so each of its eight records is cited 400 times; the example's specification, crate and
 *   evidence beside it (`check` must PASS, `check-package` must be valid).
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const m11 = (domain: string, bytes: string | Buffer) =>
  `${domain}:sha-512:${createHash('sha512').update(`${domain}:`).update(bytes).digest('hex')}`;

const RECORD_POOL = 20;

/** Writes the small shape into `work` (which must exist); returns the package's file name. */
export function writeSmallClaims(work: string, repo: string, count: number): string {
  mkdirSync(join(work, 'subject'), { recursive: true });
  mkdirSync(join(work, 'evidence'), { recursive: true });
  writeFileSync(
    join(work, 'acceptance-specification.toml'),
    readFileSync(join(repo, 'examples', 'weighted-toy', 'acceptance-specification.toml')),
  );
  const hashes: string[] = [];
  for (let r = 0; r < RECORD_POOL; r++) {
    const text = `case ${r}: test result: ok. 1 passed; 0 failed\n`;
    writeFileSync(join(work, 'evidence', `case-${r}.txt`), text);
    hashes.push(m11('record', text));
  }
  const claim = (i: number) => `
[[claim]]
id            = "C-${i}"
clause        = "S-1"
statement     = "claim ${i} of ${count}"
status        = "evidenced"
grade         = "probe"
bounds        = "bounded: one generated case"
clause_source = "spec-document"

  [[claim.evidence]]
  kind           = "unit-test"
  family         = "dynamic"
  epistemic_tier = "T3"
  ref            = "case ${i}"
  result         = "pass"
  tool           = "bench"
  record         = "evidence/case-${i % RECORD_POOL}.txt"
  record_hash    = "${hashes[i % RECORD_POOL]}"
`;
  const text = `[format]
id      = "acceptance/0.4"
profile = "acceptance/verification"

[subject]
name   = "bench-small-claims"
kind   = "other"
root   = "subject"
digest = "${m11('subject', '')}"

[spec]
path    = "acceptance-specification.toml"
version = "WT-SPEC-0001@v1"
${Array.from({ length: count }, (_, i) => claim(i)).join('')}`;
  writeFileSync(join(work, 'acceptance.toml'), text);
  return 'acceptance.toml';
}

/**
 * Writes the rust-delivery shape into `work`: the example copied (without target/), its package's
 * claims repeated under fresh ids. Returns the package's and the specification's file names.
 */
export function writeRustDeliveryClaims(work: string, repo: string, count: number): { pkg: string; spec: string } {
  const example = join(repo, 'examples', 'rust-delivery');
  cpSync(example, work, { recursive: true, filter: (src) => !src.split(/[\\/]/).includes('target') });
  const text = readFileSync(join(example, 'acceptance.toml'), 'utf8');
  const first = text.indexOf('\n[[claim]]');
  const deviation = text.lastIndexOf('\n# ----', text.indexOf('\n[[deviation]]'));
  if (first < 0 || deviation < first) throw new Error('examples/rust-delivery/acceptance.toml changed shape');
  const claims = text.slice(first, deviation);
  const perCopy = claims.match(/^\[\[claim\]\]$/gm)!.length;
  const copies = Math.ceil(count / perCopy);
  const body = Array.from({ length: copies }, (_, k) => claims.replace(/"(EAN-\d{3})"/g, `"$1-${k}"`)).join('');
  const header = text.slice(0, first).replace(/claims_total = \d+/, `claims_total = ${copies * perCopy}`);
  writeFileSync(join(work, 'acceptance.toml'), header + body + text.slice(deviation));
  return { pkg: 'acceptance.toml', spec: 'acceptance-specification.toml' };
}
