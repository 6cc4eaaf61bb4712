/**
 * `vkit doctor` on this machine as it is, on a machine without bubblewrap (hidden in a private mount
 * namespace: root only), and on one whose user namespaces are disabled: the sandbox in use is the
 * one that really confined `/bin/true`, each missing part names the command that adds it, and the
 * exit code says whether sandboxed checks can run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { findBwrap } from '../../src/checkers/sandbox.js';
import { VKIT_BIN } from '../_support/repo.js';
import { NO_USER_NAMESPACES } from '../_support/sandboxes.js';

interface Part {
  part: string;
  status: string;
  detail: string;
  fix?: string;
}

function doctor(prefix: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const argv = [...prefix, process.execPath, VKIT_BIN, 'doctor', '--json'];
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
  const report = r.stdout ? (JSON.parse(r.stdout) as { sandbox: string | null; parts: Part[] }) : undefined;
  const part = (name: string) => report?.parts.find((p) => p.part === name);
  return { code: r.status, report, part, said: r.stdout + r.stderr };
}

test('doctor names the sandbox checks get here, each backend tried for real, and the other parts', () => {
  const d = doctor();
  assert.equal(d.code, 0, d.said);
  const builtin = d.part('sandbox: built-in (util-linux)');
  assert.equal(builtin?.status, 'ok', d.said);
  const bwrap = d.part('sandbox: bubblewrap');
  assert.equal(bwrap?.status, findBwrap() ? 'ok' : 'missing');
  assert.equal(d.report?.sandbox, findBwrap() ? 'bubblewrap' : 'built-in (util-linux)');
  for (const p of [
    'container engine',
    'formal: coq-linux-x86_64-v1',
    'model checking: spin-linux-x86_64-v1',
    'remote cache',
    'resident daemon',
  ])
    assert.ok(d.part(p), `${p} in ${d.said}`);
  for (const p of d.report!.parts) if (p.status === 'missing') assert.ok(p.fix, `${p.part} names its fix`);
  // VKIT_SANDBOX is honoured, as the workers honour it.
  assert.equal(doctor([], { VKIT_SANDBOX: 'builtin' }).report?.sandbox, 'built-in (util-linux)');
});

test('without bubblewrap the built-in sandbox is in use, and bubblewrap is named with the command that installs it', {
  skip: process.getuid?.() === 0 ? false : 'hiding bwrap needs a private mount namespace (root)',
}, () => {
  const hide = [
    'unshare',
    '--mount',
    '--propagation',
    'private',
    'sh',
    '-c',
    'for d in $(echo "$PATH" | tr : " "); do [ -f "$d/bwrap" ] && mount --bind /dev/null "$d/bwrap"; done; exec "$@"',
    'sh',
  ];
  const d = doctor(hide);
  assert.equal(d.code, 0, d.said);
  assert.equal(d.report?.sandbox, 'built-in (util-linux)');
  const bwrap = d.part('sandbox: bubblewrap');
  assert.equal(bwrap?.status, 'missing');
  assert.match(bwrap?.fix ?? '', /apt-get install bubblewrap/);
});

test('where user namespaces are disabled no sandbox can run: exit 3, and the remedies named', () => {
  const d = doctor(NO_USER_NAMESPACES);
  assert.equal(d.code, 3, d.said);
  assert.equal(d.report?.sandbox, null);
  const builtin = d.part('sandbox: built-in (util-linux)');
  assert.equal(builtin?.status, 'missing');
  assert.match(builtin?.fix ?? '', /user namespaces/);
});
