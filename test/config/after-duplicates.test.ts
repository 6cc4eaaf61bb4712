/**
 * An `after` list naming the same dependency twice is refused (exit 2) at the repeated entry's field
 * path, in a JSON manifest and in a TS config alike, for checks and for actions. vkit refuses rather
 * than treating the list as a set: a repeated entry is usually a typo for another id, and silently
 * merging it would hide the dependency the author meant to declare.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

interface ErrorReport {
  code: string;
  issues: Array<{ file?: string; path: string; message: string; line?: number }>;
}

function buildError(files: Record<string, string>): { code: number | null; error: ErrorReport; stderr: string } {
  const repo = tempRepo({ 'a.txt': 'a\n', ...files });
  try {
    const r = cli(repo, ['build', '--json']);
    return {
      code: r.code,
      error: r.code === 2 ? (r.json().error as ErrorReport) : ({ code: '', issues: [] } as ErrorReport),
      stderr: r.stdout + r.stderr,
    };
  } finally {
    repo.cleanup();
  }
}

test('a check whose `after` repeats an id: exit 2 at checks[1].after[1], naming the first listing', () => {
  const manifest = {
    checks: [
      { id: 'lint', run: nodeCheck('0'), inputs: ['a.txt'] },
      { id: 'test', run: nodeCheck('0'), inputs: ['a.txt'], after: ['lint', 'lint'] },
    ],
  };
  const r = buildError({ 'vkit.manifest.json': JSON.stringify(manifest, null, 2) });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.error.code, 'ERR_CONFIG_INVALID');
  assert.equal(r.error.issues.length, 1, JSON.stringify(r.error.issues));
  const [issue] = r.error.issues;
  assert.equal(issue!.path, 'checks[1].after[1]');
  assert.equal(issue!.file, 'vkit.manifest.json');
  assert.match(issue!.message, /duplicate: `lint` is already listed at after\[0\]/i);
  assert.equal(typeof issue!.line, 'number');
});

test('the same in a TS config, and for an action whose `after` repeats an id', () => {
  const config = `import { defineConfig, defineRule, v } from 'vkit';
const noop = defineRule({ kind: 'noop', version: 1, attrs: v.object({}), plan: () => ({ definition: {}, env: [], execute: async () => ({ outcome: 'PASS', claim: 'established', artifacts: [] }) }) });
export default defineConfig({
  checks: [{ id: 'lint', run: ['node', '-e', '0'], inputs: ['a.txt'] }, { id: 'test', run: ['node', '-e', '0'], inputs: ['a.txt'], after: ['lint', 'test2', 'lint'] }, { id: 'test2', run: ['node', '-e', '0'], inputs: ['a.txt'] }],
  rules: [noop],
  actions: [{ id: 'x', rule: 'noop', inputs: ['a.txt'], after: ['lint', 'lint'] }],
});
`;
  const r = buildError({ 'vkit.config.ts': config });
  assert.equal(r.code, 2, r.stderr);
  assert.deepEqual(
    r.error.issues.map((i) => [i.path, /duplicate: `lint` is already listed at after\[0\]/i.test(i.message)]),
    [
      ['checks[1].after[2]', true],
      ['actions[0].after[1]', true],
    ],
  );
});
