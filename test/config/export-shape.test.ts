/**
 * A config whose default export is not the object `defineConfig` returns (a promise, a function
 * that returns a function, a Map, a class instance) has no own keys a config has: it once read as
 * an empty config, BLOCKED "no requirements". It is exit 2 naming what was exported and the fix.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storeDir } from '../_support/evidence.js';
import { tempRepo, vkit } from '../_support/repo.js';

const CONFIG = `{ checks: [{ id: 'a', run: ['node', '-e', '0'], inputs: ['a.txt'] }] }`;

const wrong: Array<[string, string, RegExp]> = [
  ['a promise', `export default Promise.resolve(${CONFIG});`, /the default export is a promise/],
  [
    'defineConfig given a promise',
    `import { defineConfig } from 'vkit';\nexport default defineConfig(Promise.resolve(${CONFIG}) as any);`,
    /the default export is a promise/,
  ],
  [
    'a function returning a function',
    `export default () => () => (${CONFIG});`,
    /the default export is a function that returned a function/,
  ],
  ['a function returning nothing', 'export default function () {}', /a function that returned undefined/],
  ['a Map', 'export default new Map([["checks", []]]);', /the default export is a Map/],
  ['a class instance', `class Config { checks = []; }\nexport default new Config();`, /the default export is a Config/],
];

for (const [name, text, message] of wrong) {
  test(`a default export that is ${name}: exit 2 naming it, never BLOCKED "no requirements"`, () => {
    const repo = tempRepo({ 'a.txt': 'a\n', 'vkit.config.ts': `${text}\n` });
    try {
      for (const verb of ['gate', 'build']) {
        const r = vkit([verb, '--root', repo.dir, '--store', storeDir(repo)], {
          env: { VKIT_DAEMON: '0' },
          timeoutMs: 60_000,
        });
        assert.equal(r.code, 2, `${verb}: ${r.stdout}${r.stderr}`);
        assert.match(r.stderr, /vkit\.config\.ts/);
        assert.match(r.stderr, message);
        assert.match(r.stderr, /export default defineConfig\(\{/);
        assert.doesNotMatch(r.stdout + r.stderr, /no requirements|internal error/);
      }
    } finally {
      repo.cleanup();
    }
  });
}

test('an async function returning the config still is the config', () => {
  const repo = tempRepo({ 'a.txt': 'a\n', 'vkit.config.ts': `export default async () => (${CONFIG});\n` });
  try {
    const r = vkit(['build', '--root', repo.dir, '--store', storeDir(repo)], { env: { VKIT_DAEMON: '0' } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
  } finally {
    repo.cleanup();
  }
});
