/**
 * What vkit tells its users works where they are: in a project that installed vkit's package, not in
 * a clone of vkit. No string of src/ or rules/ (comments excluded: the TypeScript scanner finds the
 * literals) names vkit's repository or one of its npm scripts (`npm run setup:system`,
 * `npm run image:worker`, ...); a hint names a vkit verb or the system's own command instead.
 * `npm run <script>` and `npm run ${script}`, a user's own script named by placeholder, are allowed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { REPO_ROOT } from '../_support/repo.js';

/** A concrete npm script after `npm run` (a placeholder `<...>` or `${...}` is a user's own script). */
const NPM_SCRIPT = /\bnpm run (?![<$])\S/;
const REPOSITORY = /vkit'?s repository|repository of vkit/i;
/** Strings meant for vkit's repository alone: the marker of its own docs/cli.md, which `npm run docs:cli` finds. */
const FOR_THE_REPOSITORY = [/^<!-- cli-table:start \(npm run docs:cli /];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** Every string and template literal of a file (comments are not nodes), with its line. */
function literals(file: string): Array<{ line: number; text: string }> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Array<{ line: number; text: string }> = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateExpression(node) || ts.isJsxText(node)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push({ line, text: ts.isTemplateExpression(node) ? node.getText(source) : node.text });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `file:line: text` for each literal naming vkit's repository or one of its npm scripts. */
function repositoryHints(files: string[]): string[] {
  return files.flatMap((file) =>
    literals(file)
      .filter(({ text }) => NPM_SCRIPT.test(text) || REPOSITORY.test(text))
      .filter(({ text }) => !FOR_THE_REPOSITORY.some((allowed) => allowed.test(text)))
      .map(({ line, text }) => `${relative(REPO_ROOT, file)}:${line}: ${text.slice(0, 160)}`),
  );
}

test("no user-facing string of src/ or rules/ names an npm script or vkit's repository", () => {
  const files = [...sourceFiles(join(REPO_ROOT, 'src')), ...sourceFiles(join(REPO_ROOT, 'rules'))];
  assert.ok(files.length > 100, `found ${files.length} source files under ${REPO_ROOT}`);
  assert.deepEqual(repositoryHints(files), []);
});

test('the scan sees strings, not comments, and lets a placeholder script through', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-hints-'));
  try {
    const sample = join(dir, 'sample.ts');
    writeFileSync(
      sample,
      [
        "// run `npm run setup:system` in vkit's repository (a comment: not user-facing)",
        '/* npm run image:worker */ const ok = 1;',
        "const a = 'build it with `npm run image:worker -- spin`';",
        "const b = `in vkit's repository`;",
        'const c = `start ${ok} with npm run setup:podman`;',
        "const d = 'a check per script: `npm run <script>`';",
        'const e = `npm run ${a} runs the build`;',
        'const f = /\\bnpm run build\\b/;',
        'export { b, c, d, e, f };',
      ].join('\n'),
    );
    const lines = repositoryHints([sample]).map((h) => h.split(':')[1]);
    // The string, the template and the template with a substitution (lines 3 to 5) are flagged;
    // the comments (1, 2), the placeholders (6, 7) and the regular expression (8) are not.
    assert.deepEqual(lines, ['3', '4', '5']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
