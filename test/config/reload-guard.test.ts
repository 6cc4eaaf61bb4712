/** Which bundles can load code esbuild cannot follow (src/config/reload-guard.ts): those are never reloaded in-process. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Metafile } from 'esbuild';
import { loadsDynamically } from '../../src/config/reload-guard.js';

const meta = (imports: string[] = []): Metafile =>
  ({
    inputs: {
      'vkit.config.ts': {
        bytes: 0,
        imports: imports.map((path) => ({ path, kind: 'import-statement', external: true })),
      },
    },
    outputs: {},
  }) as unknown as Metafile;

test('computed imports, the module API, eval and Function load unseen code; strings naming require do not', () => {
  const cases: Array<[string, string[], boolean]> = [
    [`const c = [{ run: ["node", "-e", "require('fs')"] }];`, [], false],
    ['const m = await import("some-package");', [], false],
    ['const m = await import(name);', [], true],
    ['const m = await import(`./${name}.js`);', [], true],
    ['const r = createRequire(import.meta.url);', ['node:module'], true],
    ['const r = x;', ['module'], true],
    ['const m = process.getBuiltinModule("module");', [], true],
    ['const v = eval("1");', [], true],
    ['const f = new Function("return 1");', [], true],
    ['const checks = [{ id: "eval-suite", required: true }];', [], false],
  ];
  for (const [text, imports, expected] of cases) assert.equal(loadsDynamically(text, meta(imports)), expected, text);
});
