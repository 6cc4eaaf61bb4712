/**
 * The README and docs/ are checked like code: every relative link resolves (an `#anchor` to a heading
 * of its file, by GitHub's slug), the README stays a short guide, no internal decision number leaks
 * outside the decisions record, and the README's tutorial runs as written in a fresh project, each
 * command giving the exit code the README states and the output lines it shows.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, VKIT_BIN } from '../_support/repo.js';
import { awaitWorkersGoneSync } from '../_support/wait.js';
import { headingSlugs, markdownLinks, type TutorialBlock, tutorialBlocks } from '../_support/markdown.js';

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

/** A directory whose `npx` runs the built CLI for `npx vkit ...` and refuses anything else. */
function npxShim(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const npx = join(bin, 'npx');
  writeFileSync(
    npx,
    `#!/bin/sh\nif [ "$1" != vkit ]; then echo "the tutorial test runs only npx vkit, not npx $1" >&2; exit 127; fi\nshift\nexec "${process.execPath}" "${VKIT_BIN}" "$@"\n`,
  );
  chmodSync(npx, 0o755);
  return bin;
}

/** Durations vary from run to run: `1.6s`, `413ms` are compared as one placeholder. */
const normalised = (line: string) => line.replace(/\b\d+(\.\d+)?m?s\b/g, '<time>').trimEnd();

/** Whether `expected` lines appear in `output`, in order (other lines may come between them). */
function missingLines(expected: string[], output: string): string[] {
  const lines = output.split('\n').map(normalised);
  let at = 0;
  const missing: string[] = [];
  for (const want of expected.map(normalised)) {
    const found = lines.indexOf(want, at);
    if (found < 0) missing.push(want);
    else at = found + 1;
  }
  return missing;
}

/** Runs one command of the tutorial in `cwd` with `sh`; returns its result and the directory it ended in. */
function runCommand(command: string, cwd: string, bin: string, scratch: string) {
  const pwdFile = join(scratch, 'pwd');
  const script = `cd "$1" || exit 99\n${command}\nrc=$?\npwd > "$2"\nexit $rc\n`;
  const r = spawnSync('sh', ['-c', script, 'tutorial', cwd, pwdFile], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1' },
    timeout: 120_000,
    killSignal: 'SIGKILL',
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}`, cwd: read(pwdFile).trim() };
}

function runTutorial(blocks: TutorialBlock[], dir: string): void {
  const bin = npxShim(dir);
  const project = join(dir, 'project');
  mkdirSync(project);
  let cwd = project;
  for (const [b, block] of blocks.entries()) {
    let last = '';
    for (const { text, exit } of block.commands) {
      const r = runCommand(text, cwd, bin, dir);
      assert.equal(
        r.status,
        exit,
        `tutorial block ${b + 1}, \`${text.split('\n')[0]}\`: exit ${r.status}, README says ${exit}\n${r.output}`,
      );
      cwd = r.cwd;
      last = r.output;
    }
    if (block.output.length > 0)
      assert.deepEqual(
        missingLines(block.output, last),
        [],
        `tutorial block ${b + 1}: lines the README shows\n${last}`,
      );
  }
}

test("the README's tutorial runs as written: each command's exit code and the output it shows", () => {
  const blocks = tutorialBlocks(read(README));
  const commands = blocks.flatMap((b) => b.commands);
  assert.ok(blocks.length >= 5, `the tutorial's marked blocks were found (${blocks.length})`);
  assert.ok(
    commands.some((c) => /\bvkit init\b/.test(c.text)),
    'the tutorial starts from vkit init',
  );
  assert.ok(
    commands.some((c) => c.exit !== 0),
    'the tutorial shows a failure and its exit code',
  );
  const dir = mkdtempSync(join(tmpdir(), 'vkit-tutorial-'));
  try {
    runTutorial(blocks, dir);
  } finally {
    awaitWorkersGoneSync(dir);
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
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
