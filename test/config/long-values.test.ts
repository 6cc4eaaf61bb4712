/**
 * A huge value in an invalid config is never echoed whole: every config error message (and field
 * path) goes through one cut, so a 5 MB string in `timeout_s` gives a message of a few hundred
 * characters that still says what, where and how many characters were left out.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { tempRepo } from '../_support/repo.js';

const HUGE = 5 * 1024 * 1024;

function buildWith(files: Record<string, string>) {
  const repo = tempRepo({ 'a.txt': 'a\n', ...files });
  try {
    const json = cli(repo, ['build', '--json']);
    const text = cli(repo, ['build']);
    return { json, text };
  } finally {
    repo.cleanup();
  }
}

function assertBounded(files: Record<string, string>, path: RegExp, omitted: number) {
  const { json, text } = buildWith(files);
  assert.equal(json.code, 2, json.stderr.slice(0, 2000));
  assert.equal(text.code, 2, text.stderr.slice(0, 2000));
  assert.ok(
    json.stdout.length + json.stderr.length < 8_000,
    `--json output is ${json.stdout.length + json.stderr.length} characters`,
  );
  assert.ok(text.stderr.length < 4_000, `stderr is ${text.stderr.length} characters`);
  const issue = json.json().error.issues[0];
  assert.match(issue.path, path);
  assert.ok(issue.message.length < 1_100, `message is ${issue.message.length} characters`);
  const cut = /… \((\d+) more characters\)/.exec(issue.message + issue.path);
  assert.ok(cut, `says what was cut: ${issue.path}: ${issue.message}`);
  assert.ok(Number(cut[1]) >= omitted, `${cut[1]} more characters, expected at least ${omitted}`);
  assert.match(text.stderr, /… \(\d+ more characters\)/);
}

test('a 5 MB string as timeout_s in vkit.manifest.json: exit 2, the value cut, the field path whole', () => {
  const manifest = { checks: [{ id: 'a', run: ['true'], inputs: ['a.txt'], timeout_s: 'x'.repeat(HUGE) }] };
  assertBounded({ 'vkit.manifest.json': JSON.stringify(manifest) }, /^checks\[0\]\.timeout_s$/, HUGE - 200);
});

test('the same in vkit.config.ts (the user-config path), and for a huge value with spaces in it', () => {
  const config = (value: string) =>
    `import { defineConfig } from 'vkit';\nexport default defineConfig({ checks: [{ id: 'a', run: ['true'], inputs: ['a.txt'], timeout_s: ${JSON.stringify(value)} as any }] });\n`;
  assertBounded({ 'vkit.config.ts': config('x'.repeat(HUGE)) }, /^checks\[0\]\.timeout_s$/, HUGE - 200);
  assertBounded({ 'vkit.config.ts': config('a b '.repeat(HUGE / 4)) }, /^checks\[0\]\.timeout_s$/, HUGE - 1_000);
});

test('a 5 MB unknown key: the field path is cut too', () => {
  const check = { id: 'a', run: ['true'], inputs: ['a.txt'], ['k'.repeat(HUGE)]: 1 };
  assertBounded(
    { 'vkit.manifest.json': JSON.stringify({ checks: [check] }) },
    /^checks\[0\]\.k+… \(\d+ more characters\)$/,
    HUGE - 200,
  );
});
