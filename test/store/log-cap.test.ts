/**
 * Retained check output is capped per stream (head and tail kept, one line saying exactly how many
 * bytes were dropped between them, the receipt's artifact saying so too), and logs are read in
 * bounded pieces: `run show --section log` and a build's failure tail never load a log whole.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { blobPath, cli, receiptJson } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';

const MiB = 1024 * 1024;

test('a passing check printing 200 MiB keeps a capped log (head, exact drop line, tail); gate, gate --deep and run show stay green', () => {
  const repo = tempRepo({ 'in.txt': 'in\n' });
  try {
    repo.age('in.txt');
    // 200 MiB of stdout between a first and a last line, and 3 MiB of stderr: both streams exceed the cap.
    const print =
      "const fs = require('fs'); const a = Buffer.alloc(1 << 20, 97); fs.writeSync(1, 'FIRST LINE\\n'); for (let i = 0; i < 200; i++) fs.writeSync(1, a); fs.writeSync(1, '\\nLAST LINE\\n'); for (let i = 0; i < 3; i++) fs.writeSync(2, a)";
    repo.manifest({ checks: [{ id: 'loud', run: nodeCheck(print), inputs: ['in.txt'] }] });
    const env = { VKIT_LOG_CAP_BYTES: String(MiB) };
    const built = cli(repo, ['build', '--json'], env);
    assert.equal(built.code, 0, built.stderr);
    const receiptId = built.json().actions[0].receipt;
    const receipt = receiptJson(repo, receiptId);

    const printed = { stdout: 'FIRST LINE\n'.length + 200 * MiB + '\nLAST LINE\n'.length, stderr: 3 * MiB };
    for (const name of ['stdout', 'stderr'] as const) {
      const art = receipt.artifacts.find((a: { name: string }) => a.name === name);
      const dropped = printed[name] - MiB;
      assert.equal(art.dropped_bytes, dropped, `${name}: the receipt says how many bytes were dropped`);
      const log = readFileSync(blobPath(repo, art.sha256));
      assert.equal(log.length, art.size);
      assert.ok(art.size < MiB + 300, `${name}: retained ${art.size} bytes, cap ${MiB}`);
      const text = log.toString('latin1');
      const marker = new RegExp(`\\n\\[vkit: ${dropped} bytes dropped here[^\\n]*\\]\\n`);
      assert.match(text, marker, `${name}: one line states exactly what was dropped`);
      const [head, tail] = text.split(marker);
      assert.equal(head!.length + tail!.length, MiB, `${name}: head plus tail is the cap`);
      if (name === 'stdout') {
        assert.ok(head!.startsWith('FIRST LINE\naaaa'));
        assert.ok(tail!.endsWith('aaaa\nLAST LINE\n'));
      }
    }

    const shown = cli(repo, ['run', 'show', '--run', receipt.run, '--section', 'log', '--json'], env);
    assert.equal(shown.code, 0, shown.stderr);
    const stdout = shown.json().log.stdout;
    assert.equal(stdout.dropped_bytes, printed.stdout - MiB);
    assert.equal(stdout.lines[0], 'FIRST LINE');
    for (const args of [['gate'], ['gate', '--deep']]) {
      const g = cli(repo, args, env);
      assert.equal(g.code, 0, `${args.join(' ')}: ${g.stdout}${g.stderr}`);
    }
  } finally {
    repo.cleanup();
  }
});

test('a log of 4 million lines: a failing build shows its tail and run show pages it, both within a 64 MiB heap', () => {
  const repo = tempRepo({ 'in.txt': 'in\n' });
  try {
    repo.age('in.txt');
    const lines = 4_000_000;
    const print = `const fs = require('fs'); let s = ''; for (let i = 0; i < ${lines}; i++) { s += i + '\\n'; if (s.length > 65536) { fs.writeSync(1, s); s = ''; } } fs.writeSync(1, s); process.exit(1)`;
    repo.manifest({ checks: [{ id: 'many', run: nodeCheck(print), inputs: ['in.txt'] }] });
    // Under the cap (about 31 MB of text): the whole log is retained, and must be read in pieces.
    const env = { VKIT_LOG_CAP_BYTES: String(64 * MiB) };
    const small = { ...env, NODE_OPTIONS: '--max-old-space-size=64' };
    const built = cli(repo, ['build', '--json'], small);
    assert.equal(built.code, 1, built.stderr);
    const run = built.json().actions[0].run;
    assert.deepEqual(
      built.json().actions[0].tail,
      Array.from({ length: 12 }, (_, i) => String(lines - 12 + i)),
    );

    for (const [page, first] of [
      [1, 0],
      [12_345, 12_344 * 200],
      [20_000, lines - 200],
    ] as const) {
      const shown = cli(
        repo,
        ['run', 'show', '--run', run, '--section', 'log', '--page', String(page), '--json'],
        small,
      );
      assert.equal(shown.code, 0, shown.stderr);
      const log = shown.json().log.stdout;
      assert.equal(log.total_lines, lines);
      assert.equal(log.pages, lines / 200);
      assert.deepEqual(
        log.lines,
        Array.from({ length: 200 }, (_, i) => String(first + i)),
        `page ${page}`,
      );
    }
  } finally {
    repo.cleanup();
  }
});
