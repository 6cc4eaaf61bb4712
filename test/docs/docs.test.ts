/**
 * The README and docs/ are checked like code: every relative link resolves (an `#anchor` to a heading
 * of its file, by GitHub's slug), every page is linked, the README stays a short guide, and no
 * internal decision number leaks outside the decisions record. The README's tutorial is run by
 * tutorial.slow.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { headingSlugs, markdownLinks } from '../_support/markdown.js';
import { REPO_ROOT } from '../_support/repo.js';

const README = join(REPO_ROOT, 'README.md');
const DOCS = join(REPO_ROOT, 'docs');
/** The user-facing pages: the README and every page of docs/. */
const PAGES = [
  README,
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(DOCS, f)),
];
const read = (file: string) => readFileSync(file, 'utf8');
const shown = (file: string) => relative(REPO_ROOT, file);

test('every relative link of the README and docs/ resolves, and every #anchor names a heading of its file', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of PAGES) {
    for (const { target, line } of markdownLinks(read(page))) {
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto: ...
      checked++;
      const [path = '', anchor] = target.split('#', 2);
      const file = path === '' ? page : join(dirname(page), decodeURIComponent(path));
      if (!existsSync(file)) {
        broken.push(`${shown(page)}:${line}: ${target}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!file.endsWith('.md'))
        broken.push(`${shown(page)}:${line}: ${target}: an anchor into a file that is not Markdown`);
      else if (!headingSlugs(read(file)).has(anchor))
        broken.push(`${shown(page)}:${line}: ${target}: no heading of ${shown(file)} has the anchor #${anchor}`);
    }
  }
  assert.deepEqual(broken, [], 'broken links');
  assert.ok(checked > 50, `links were found and checked (${checked})`);
});

test('every docs page is reachable from the README and from the docs index', () => {
  const linked = (page: string) =>
    new Set(markdownLinks(read(page)).map(({ target }) => join(dirname(page), target.split('#')[0] ?? '')));
  const fromReadme = linked(README);
  const fromIndex = linked(join(DOCS, 'README.md'));
  for (const page of PAGES.filter((p) => p !== README && p !== join(DOCS, 'README.md'))) {
    assert.ok(fromReadme.has(page), `README.md links to ${shown(page)}`);
    assert.ok(fromIndex.has(page), `docs/README.md links to ${shown(page)}`);
  }
});

test('the README is a short guide: at most 260 lines', () => {
  const lines = read(README).split('\n').length - 1;
  assert.ok(lines <= 260, `README.md has ${lines} lines; move reference text to a page of docs/`);
});

test('no internal decision number (D51, ...) outside docs/decisions.md', () => {
  const leaks: string[] = [];
  for (const page of PAGES.filter((p) => p !== join(DOCS, 'decisions.md'))) {
    read(page)
      .split('\n')
      .forEach((text, i) => {
        for (const [number] of text.matchAll(/\bD\d+\b/g)) leaks.push(`${shown(page)}:${i + 1}: ${number}`);
      });
  }
  assert.deepEqual(leaks, [], 'link to docs/decisions.md instead of naming a decision');
});

test("anchors are GitHub's: punctuation dropped, code and links as their text, repeats numbered", () => {
  const page =
    '# What makes a no-op fast, and why it stays honest\n## `vkit gate` and [links](x.md)\n## Again\n## Again\n```sh\n# not a heading\n```\n';
  assert.deepEqual(
    [...headingSlugs(page)],
    ['what-makes-a-no-op-fast-and-why-it-stays-honest', 'vkit-gate-and-links', 'again', 'again-1'],
  );
  assert.deepEqual(markdownLinks('[a](b.md) `[c](d.md)`\n```\n[e](f.md)\n```\n[g](h.md#i "t")'), [
    { target: 'b.md', line: 1 },
    { target: 'h.md#i', line: 5 },
  ]);
});

test("ARCHITECTURE.md's code map reads at a glance: no table cell over 400 characters", () => {
  const long: string[] = [];
  read(join(REPO_ROOT, 'ARCHITECTURE.md'))
    .split('\n')
    .forEach((line, i) => {
      if (!line.startsWith('|')) return;
      for (const cell of line.split('|').slice(1, -1))
        if (cell.length > 400) long.push(`line ${i + 1}: ${cell.length} characters`);
    });
  assert.deepEqual(long, [], 'split the row or say less: details belong in the files and docs/');
});
