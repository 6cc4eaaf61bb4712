/**
 * The README's tutorial runs as written: its shell blocks marked `<!-- tutorial -->` run in order in a
 * fresh directory, `npx vkit` being the built CLI, and each command must give the exit code its
 * comment states (`# exit 1: REJECTED`; 0 when it states none) and, for a block followed by a `text`
 * block, its last command must print those lines in that order (durations aside).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type TutorialBlock, tutorialBlocks } from '../_support/markdown.js';
import { REPO_ROOT, VKIT_BIN } from '../_support/repo.js';
import { awaitWorkersGoneSync } from '../_support/wait.js';

const read = (file: string) => readFileSync(file, 'utf8');

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
  const blocks = tutorialBlocks(read(join(REPO_ROOT, 'README.md')));
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
