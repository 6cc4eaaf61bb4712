/**
 * One valid package (format acceptance/0.4) and the files it names, for the format validator's
 * tests. Cases start from `BASE`, apply one `edit` (which refuses an edit that matches nothing, so
 * a case can never pass by changing nothing) and check the verdict, a message fragment and its line.
 * Every digest is computed here with node:crypto, never with vkit's hash module.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { m11 } from '../../_support/acceptance-docs.js';

export const COMMIT = '1c65772c4f078ca520f899ce3974565c612da56e';
export const RECORD = 'TEST-SLUG PASS: 5 cases\n';
export const SOURCE = 'export const slug = (s) => s.trim().toLowerCase().replace(/\\s+/g, "-");\n';

export const FILES: Record<string, string> = {
  'SPEC.md': '# slug\n\nS-1: slug(s) never returns an uppercase ASCII letter.\n',
  'evidence/run.txt': RECORD,
  'src/slug.js': SOURCE,
};

export const BASE = `[format]
id = "acceptance/0.4"
profile = "acceptance/verification"

[subject]
name = "toy"
kind = "tool"
commit = "${COMMIT}"
dirty = false

[spec]
path = "SPEC.md"
version = "v1"

[coverage]
claims_total = 1

[[claim]]
id = "WT-1"
clause = "S-1"
statement = "slug(s) never returns an uppercase ASCII letter"
status = "evidenced"
weight = "weighted"
grade = "probe"
bounds = "bounded: 5 concrete input strings"
clause_source = "spec-document"

  [claim.self_verify]
  command = "node test.js"
  expect = "TEST-SLUG PASS: 5 cases"

    [claim.self_verify.watched_fail]
    of_command = "node   test.js"
    perturbed = "removed toLowerCase from slug"
    observed = "TEST-SLUG FAILED: 2/5 cases"
    date = 2026-08-28

  [[claim.evidence]]
  kind = "unit-test"
  family = "dynamic"
  ref = "test.js"
  result = "pass"
  tool = "node@20 + test.js"
  epistemic_tier = "T3"
  record = "evidence/run.txt"
  record_hash = "${m11('record', RECORD)}"

    [[claim.evidence.inputs]]
    path = "src/slug.js"
    digest = "${m11('subject', SOURCE)}"
`;

/** A second claim appended to the base (with claims_total raised to 2). */
const GAP_CLAIM = `
[[claim]]
id = "G-1"
clause = "S-2"
statement = "slug(s) keeps digits"
status = "gap"
grade = "not-covered"
gap_reason = "nothing checks this yet"
`;

/** `text` with `from` replaced by `to`; throws when `from` does not occur (a no-op edit is a test bug). */
export function edit(text: string, from: string | RegExp, to: string): string {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`edit matched nothing: ${String(from)}`);
  return out;
}

/** Adds the gap claim and fixes the count. */
export const withGap = (text: string) => edit(text, 'claims_total = 1', 'claims_total = 2') + GAP_CLAIM;

/** The 1-based line of the first occurrence of `needle` (at or after the occurrence of `after`). */
export function lineOf(text: string, needle: string, after?: string): number {
  const start = after === undefined ? 0 : text.indexOf(after);
  const at = text.indexOf(needle, Math.max(start, 0));
  if (at < 0) throw new Error(`needle not found: ${needle}`);
  return text.slice(0, at).split('\n').length;
}

export interface Dir {
  dir: string;
  write(path: string, content: string | Buffer): void;
  cleanup(): void;
}

/** A temp directory holding `files` (no git: the validator reads files, not history). */
export function tempDir(files: Record<string, string | Buffer>): Dir {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-format-'));
  const d: Dir = {
    dir,
    write(path, content) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
  for (const [p, c] of Object.entries(files)) d.write(p, c);
  return d;
}
