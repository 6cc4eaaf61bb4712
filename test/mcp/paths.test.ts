/**
 * Where `evidence_export` may write an agent's `out`: inside the root or an `--allow-write` directory,
 * by real path (a symlink pointing out is out), never in `.git` or the store whatever `overwrite`
 * says, and over an existing file only with `overwrite: true`. Each refusal leaves the file system as
 * it was.
 */
import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, test } from 'node:test';
import { connect, type McpSession } from '../_support/mcp-client.js';
import { nodeCheck, tempRepo, type TempRepo } from '../_support/repo.js';

let repo: TempRepo;
let allowed: string;
let elsewhere: string;
let store: string;
let mcp: McpSession;
let run: string;

before(async () => {
  repo = tempRepo({ 'a.txt': 'a\n' });
  repo.manifest({ checks: [{ id: 'a', run: nodeCheck("console.log('a')"), inputs: ['a.txt'] }] });
  allowed = mkdtempSync(join(tmpdir(), 'vkit-allowed-'));
  elsewhere = mkdtempSync(join(tmpdir(), 'vkit-elsewhere-'));
  // The store sits inside the allowed directory: being allowed never opens the store to writes.
  store = join(allowed, 'store');
  mcp = await connect(repo, store, ['--allow-write', allowed]);
  const verified = await mcp.call('verify', { check: 'a', wait_s: 30 });
  assert.equal(verified.isError, false, JSON.stringify(verified.json));
  run = verified.json.run;
});

after(async () => {
  await mcp?.close();
  repo?.cleanup();
  for (const dir of [allowed, elsewhere]) if (dir) rmSync(dir, { recursive: true, force: true });
});

async function refused(args: Record<string, unknown>, why: RegExp): Promise<void> {
  const r = await mcp.call('evidence_export', { run, ...args });
  const shown = JSON.stringify(args);
  assert.equal(r.isError, true, `${shown} was written: ${JSON.stringify(r.json)}`);
  assert.equal(r.json.error.code, 'ERR_OUT_PATH', `${shown}: ${JSON.stringify(r.json)}`);
  assert.equal(r.json.error.exit_code, 2, shown);
  assert.equal(r.json.error.issues[0].path, 'out', shown);
  assert.match(r.json.error.message, why, shown);
}

const noTempLeft = (dir: string) =>
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.includes('.partial-')),
    [],
    `no temp file left in ${dir}`,
  );

test('out outside the root, relative or absolute, is refused and nothing is written there', async () => {
  const escapeName = `vkit-escape-${basename(repo.dir)}.tar`;
  await refused({ out: `../${escapeName}` }, /outside/);
  assert.equal(existsSync(join(repo.dir, '..', escapeName)), false);
  await refused({ out: '../../x.tar' }, /outside/);
  await refused({ out: join(elsewhere, 'abs.tar') }, /outside/);
  await refused({ out: join(elsewhere, 'abs.tar'), overwrite: true }, /outside/);
  assert.deepEqual(readdirSync(elsewhere), []);
});

test('.git is never written, whatever overwrite says; nor through a link into it', async () => {
  const hook = join(repo.dir, '.git', 'hooks', 'pre-commit');
  writeFileSync(hook, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  await refused({ out: '.git/hooks/pre-commit' }, /\.git/);
  await refused({ out: '.git/hooks/pre-commit', overwrite: true }, /\.git/);
  await refused({ out: '.git/hooks/post-checkout' }, /\.git/);
  await refused({ out: '.git/config', overwrite: true }, /\.git/);
  symlinkSync(join(repo.dir, '.git', 'hooks'), join(repo.dir, 'hooks-link'));
  await refused({ out: 'hooks-link/pre-push', overwrite: true }, /\.git/);
  assert.equal(readFileSync(hook, 'utf8'), '#!/bin/sh\nexit 0\n');
  assert.equal(existsSync(join(repo.dir, '.git', 'hooks', 'post-checkout')), false);
  assert.equal(existsSync(join(repo.dir, '.git', 'hooks', 'pre-push')), false);
  noTempLeft(join(repo.dir, '.git', 'hooks'));
});

test('the store is never written, even inside an allowed directory', async () => {
  await refused({ out: join(store, 'x.tar') }, /evidence store/);
  await refused({ out: join(store, 'index.sqlite'), overwrite: true }, /evidence store/);
  assert.equal(existsSync(join(store, 'x.tar')), false);
});

test('an existing file is refused without overwrite: true; with it, replaced', async () => {
  const manifest = readFileSync(join(repo.dir, 'vkit.manifest.json'), 'utf8');
  await refused({ out: 'vkit.manifest.json' }, /exists/);
  assert.equal(readFileSync(join(repo.dir, 'vkit.manifest.json'), 'utf8'), manifest);

  const first = await mcp.call('evidence_export', { run, out: 'bundle.tar' });
  assert.equal(first.isError, false, JSON.stringify(first.json));
  await refused({ out: 'bundle.tar' }, /exists/);
  const again = await mcp.call('evidence_export', { run, out: 'bundle.tar', overwrite: true });
  assert.equal(again.isError, false, JSON.stringify(again.json));
  assert.equal(again.json.sha256, first.json.sha256);
  noTempLeft(repo.dir);
});

test('a symlink inside the root that points outside is outside', async () => {
  symlinkSync(elsewhere, join(repo.dir, 'escape'));
  await refused({ out: 'escape/x.tar' }, /outside/);
  await refused({ out: 'escape/x.tar', overwrite: true }, /outside/);
  assert.deepEqual(readdirSync(elsewhere), []);

  // A link at the name itself, dangling to outside: a file there, replaced (never written through) only when asked.
  symlinkSync(join(elsewhere, 'made.tar'), join(repo.dir, 'dangling.tar'));
  await refused({ out: 'dangling.tar' }, /exists/);
  const replaced = await mcp.call('evidence_export', { run, out: 'dangling.tar', overwrite: true });
  assert.equal(replaced.isError, false, JSON.stringify(replaced.json));
  assert.equal(lstatSync(join(repo.dir, 'dangling.tar')).isFile(), true);
  assert.deepEqual(readdirSync(elsewhere), []);
});

test('inside the root (through `..` that stays inside) and inside --allow-write, the bundle is written', async () => {
  mkdirSync(join(repo.dir, 'out'));
  const inside = await mcp.call('evidence_export', { run, out: 'out/../out/inside.tar' });
  assert.equal(inside.isError, false, JSON.stringify(inside.json));
  assert.equal(inside.json.bundle, join(repo.dir, 'out', 'inside.tar'));
  const there = await mcp.call('evidence_export', { run, out: join(allowed, 'there.tar') });
  assert.equal(there.isError, false, JSON.stringify(there.json));
  assert.equal(there.json.bundle, join(allowed, 'there.tar'));
  assert.equal(there.json.sha256, inside.json.sha256);
});
