/**
 * Config errors through the built CLI: every scenario is a fixture folder under fixtures/configs/,
 * copied into a fresh git repository in a temp dir, then `vkit build --json`. Each must exit 2 and
 * print `{error: {code, issues: [{file, path, message, line?}]}}` naming the field path at fault.
 */
import assert from 'node:assert/strict';
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { REPO_ROOT, tempRepo, vkitAsync } from '../_support/repo.js';
import { whenClosed } from '../_support/wait.js';

const FIXTURES = join(REPO_ROOT, 'fixtures', 'configs');

interface Issue {
  file?: string;
  path: string;
  message: string;
  line?: number;
}

interface ErrorReport {
  code: string;
  message: string;
  issues: Issue[];
}

/** Runs the built CLI without blocking, so the scenarios below can run side by side. */
const run = (args: string[]) => whenClosed(vkitAsync(args));

/** Copies one fixture into a fresh git repo (plus extra files), builds it, and returns the error object. */
async function buildFixture(name: string, extra: Record<string, string> = {}): Promise<ErrorReport> {
  const repo = tempRepo();
  try {
    cpSync(join(FIXTURES, name), repo.dir, { recursive: true });
    for (const [path, content] of Object.entries(extra)) repo.write(path, content);
    const r = await run(['build', '--root', repo.dir, '--json', '--store', join(repo.dir, '.store')]);
    assert.equal(r.code, 2, `${name}: expected exit 2, got ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    const out = JSON.parse(r.stdout) as { error: ErrorReport };
    assert.ok(out.error, `${name}: expected an error object on stdout, got ${r.stdout}`);
    assert.ok(Array.isArray(out.error.issues) && out.error.issues.length > 0, `${name}: expected at least one issue`);
    for (const issue of out.error.issues) {
      assert.equal(typeof issue.path, 'string');
      assert.equal(typeof issue.message, 'string');
      assert.ok(issue.message.length > 0);
    }
    return out.error;
  } finally {
    repo.cleanup();
  }
}

interface Case {
  fixture: string;
  code: string;
  /** The field path one of the issues must carry. */
  path: string;
  /** The config file the issue must name (by its last path segment). */
  file?: string;
  line?: number;
  extra?: Record<string, string>;
  more?(error: ErrorReport, issue: Issue): void;
}

const CASES: Case[] = [
  { fixture: 'unknown-key', code: 'ERR_CONFIG_INVALID', path: 'checks[0].bogus', file: 'vkit.manifest.json', line: 3 },
  { fixture: 'missing-inputs', code: 'ERR_CONFIG_INVALID', path: 'checks[0].inputs', file: 'vkit.manifest.json' },
  {
    fixture: 'empty-inputs',
    code: 'ERR_CONFIG_INVALID',
    path: 'checks[0].inputs',
    file: 'vkit.manifest.json',
    line: 3,
  },
  {
    fixture: 'timeout-type',
    code: 'ERR_CONFIG_INVALID',
    path: 'checks[0].timeout_s',
    file: 'vkit.manifest.json',
    line: 3,
  },
  {
    fixture: 'after-unknown',
    code: 'ERR_CONFIG_INVALID',
    path: 'checks[1].after[0]',
    file: 'vkit.manifest.json',
    more: (_e, issue) => assert.match(issue.message, /`nope`/),
  },
  {
    fixture: 'duplicate-ids',
    code: 'ERR_CONFIG_INVALID',
    path: 'checks[1].id',
    file: 'vkit.manifest.json',
    // The first declaration is fine; only the second is at fault.
    more: (e) =>
      assert.ok(!e.issues.some((i) => i.path === 'checks[0].id'), 'the first declaration must not be reported'),
  },
  {
    fixture: 'after-cycle',
    code: 'ERR_CONFIG_CYCLE',
    path: 'checks[0].after',
    file: 'vkit.manifest.json',
    more: (_e, issue) => {
      // The message names the whole loop, each member once plus the closing repeat.
      const loop = /(check:[a-c])(?: -> check:[a-c]){3}/.exec(issue.message);
      assert.ok(loop, `expected the loop in the message, got ${issue.message}`);
      const members = loop[0].split(' -> ');
      assert.equal(members[0], members[3]);
      assert.deepEqual([...new Set(members)].sort(), ['check:a', 'check:b', 'check:c']);
    },
  },
  {
    fixture: 'bare-hex-sha256',
    code: 'ERR_CONFIG_INVALID',
    path: 'formal.components[0].package.sha256',
    file: 'vkit.manifest.json',
    line: 7,
    more: (_e, issue) => assert.match(issue.message, /sha256:/),
  },
  { fixture: 'invalid-json', code: 'ERR_CONFIG_PARSE', path: '', file: 'vkit.manifest.json', line: 4 },
  { fixture: 'no-config', code: 'ERR_CONFIG_NOT_FOUND', path: '' },
  {
    fixture: 'empty-glob',
    code: 'ERR_CONFIG_INPUTS',
    path: 'checks[0].inputs[0]',
    file: 'vkit.manifest.json',
    more: (e) => assert.equal(e.issues.length, 1, 'only the empty glob is at fault, not `a.txt`'),
  },
  {
    fixture: 'secret-input',
    code: 'ERR_CONFIG_INPUTS',
    path: 'checks[0].inputs[1]',
    file: 'vkit.manifest.json',
    // The secret file exists: the error must be about the secret, not about an empty match.
    extra: { '.env': 'TOKEN=not-a-real-secret\n' },
    more: (_e, issue) => assert.match(issue.message, /secret/i),
  },
  { fixture: 'ts-syntax-error', code: 'ERR_CONFIG_PARSE', path: '', file: 'vkit.config.ts', line: 6 },
  {
    fixture: 'ts-default-not-object',
    code: 'ERR_CONFIG_INVALID',
    path: '',
    file: 'vkit.config.ts',
    more: (_e, issue) => assert.match(issue.message, /string/),
  },
];

test('every case has its fixture folder, holding a config file unless the scenario is the lack of one', () => {
  for (const c of CASES) {
    const names = readdirSync(join(FIXTURES, c.fixture));
    const configs = names.filter((n) => n === 'vkit.config.ts' || n === 'vkit.manifest.json');
    assert.equal(configs.length, c.code === 'ERR_CONFIG_NOT_FOUND' ? 0 : 1, `${c.fixture}: ${names.join(', ')}`);
    if (c.file) assert.deepEqual(configs, [c.file], c.fixture);
  }
});

describe('config errors via `vkit build --json`', { concurrency: 4 }, () => {
  for (const c of CASES) {
    test(`${c.fixture} -> exit 2, ${c.code} at \`${c.path || '(file)'}\``, async () => {
      const error = await buildFixture(c.fixture, c.extra);
      assert.equal(error.code, c.code);
      const issue = error.issues.find((i) => i.path === c.path);
      assert.ok(issue, `expected an issue at \`${c.path}\`, got ${JSON.stringify(error.issues)}`);
      if (c.file) {
        assert.ok(issue.file, `expected the issue to name a file, got ${JSON.stringify(issue)}`);
        assert.equal(issue.file.split(/[\\/]/).pop(), c.file);
      }
      if (c.line !== undefined) assert.equal(issue.line, c.line);
      c.more?.(error, issue);
    });
  }
});
