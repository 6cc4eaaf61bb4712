/**
 * Tailing a running check's live logs (what `vkit watch`'s TUI does) records nothing: the same check
 * run twice, once with a reader polling its output files throughout and once without, gives the same
 * receipt byte for byte, apart from what names the run (its run and attempt ids, its timings).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readLiveOutput } from '../../src/store/live-log.js';
import { blobPath, cli, storeDir } from '../_support/evidence.js';
import { nodeCheck, tempRepo, VKIT_BIN } from '../_support/repo.js';
import { sleep } from '../_support/wait.js';

/** The receipt's bytes with the run's own names and times replaced by placeholders. */
function withoutRunNames(bytes: string): string {
  return bytes
    .replace(/"run":"[^"]+"/, '"run":"-"')
    .replace(/"attempt":"[^"]+"/, '"attempt":"-"')
    .replace(/"timings":\{[^}]*\}/, '"timings":"-"');
}

test('a receipt is the same with and without a reader tailing the check’s live output', async () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    const code =
      "for (let i = 0; i < 50; i++) console.log('line ' + i); console.error('warn'); setTimeout(() => console.log('end'), 1000)";
    repo.manifest({ checks: [{ id: 'slow', run: nodeCheck(code), inputs: ['a.txt'] }] });
    const store = storeDir(repo);
    const child = spawn(
      process.execPath,
      [VKIT_BIN, 'verify', '--check', 'slow', '--root', repo.dir, '--store', store],
      {
        cwd: repo.dir,
        stdio: 'ignore',
      },
    );
    const exited = new Promise<number | null>((done) => child.on('exit', done));
    let ended = false;
    void exited.then(() => {
      ended = true;
    });
    // Read as the TUI does, as often as it can, until the check ends.
    const seen = new Set<string>();
    let reads = 0;
    while (!ended) {
      let names: string[] = [];
      try {
        names = readdirSync(join(store, 'tmp'));
      } catch {}
      for (const name of names) {
        const hex = /-live-([0-9a-f]{64})\.stdout$/.exec(name)?.[1];
        const live = hex ? readLiveOutput(store, `sha256:${hex}`) : undefined;
        if (!live) continue;
        reads++;
        for (const l of [...live.stdout.lines, ...live.stderr.lines]) seen.add(l);
      }
      await sleep(10);
    }
    assert.equal(await exited, 0);
    assert.ok(reads > 5 && seen.has('line 49') && seen.has('warn'), `the output was read live (${reads} reads)`);

    const second = cli(repo, ['verify', '--check', 'slow']);
    assert.equal(second.code, 0, second.stderr);
    const runs = cli(repo, ['runs', '--json']).json().runs as Array<{ run: string; receipt: string }>;
    assert.equal(runs.length, 2);
    const [tailed, quiet] = [runs[1]!, runs[0]!].map((r) => readFileSync(blobPath(repo, r.receipt), 'utf8'));
    assert.notEqual(tailed, quiet, 'two runs: their ids and times differ');
    assert.equal(withoutRunNames(tailed!), withoutRunNames(quiet!));
    const stdout = (JSON.parse(tailed!) as { artifacts: Array<{ name: string; sha256: string }> }).artifacts.find(
      (a) => a.name === 'stdout',
    )!;
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i}\n`).join('');
    assert.equal(readFileSync(blobPath(repo, stdout.sha256), 'utf8'), `${lines}end\n`, 'the whole log kept');
  } finally {
    repo.cleanup();
  }
});
