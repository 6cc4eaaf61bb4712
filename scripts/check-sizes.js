#!/usr/bin/env node
// Size limits of the house (`npm run lint`): no function over 150 lines and no file over 600 lines
// in src/ and rules/ TypeScript. A function that long holds several steps that want names; a file
// that long holds several concerns. Counted with TypeScript's own parser (a function is any function
// declaration, method, arrow or function expression, from its first line to its last).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import ts from 'typescript';

const MAX_FUNCTION = 150;
const MAX_FILE = 600;

const files = execFileSync(
  'git',
  // A plain pathspec's `*` crosses `/`: `src/*.ts` is every .ts file at any depth under src/.
  ['ls-files', '-co', '--exclude-standard', 'src/*.ts', 'src/*.tsx', 'rules/*.ts'],
  {
    encoding: 'utf8',
  },
)
  .split('\n')
  .filter(Boolean);
const found = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue; // listed but deleted in the work tree
  }
  const lines = text.split('\n').length;
  if (lines > MAX_FILE) found.push(`${file}: ${lines} lines (at most ${MAX_FILE} per file)`);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node) => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node)
    ) {
      const first = lineOf(node.getStart(source));
      const length = lineOf(node.end) - first + 1;
      if (length > MAX_FUNCTION)
        found.push(`${file}:${first}: ${nameOf(node)} is ${length} lines (at most ${MAX_FUNCTION})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

function nameOf(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) return parent.name.getText();
  return 'a function';
}

if (found.length) {
  process.stderr.write(`check-sizes: ${found.length} over the limits:\n${found.map((f) => `  ${f}\n`).join('')}`);
  process.exit(1);
}
