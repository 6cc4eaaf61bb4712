/**
 * The protected gate with a shared cache (real nginx on loopback): a protected run publishes its
 * evidence scoped to its target authority, and a later protected run in another private store
 * reuses it with nothing run. Nothing else counts: a build's entries (even signed by the same
 * trusted key, even copied to the protected address), a protected entry of another authority or
 * candidate kind, or an entry signed by a key that only the candidate's own lock trusts.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hexOf, type Sha256Id } from '../../src/hash/index.js';
import { entryAddress, type ProtectedScope } from '../../src/remote/statement.js';
import { brokenUnitRepo } from '../_support/evidence.js';
import { keyFiles } from '../_support/keys.js';
import { type Nginx, nginxSkip, startNginx } from '../_support/nginx.js';
import { type TempRepo, vkit } from '../_support/repo.js';

const skip = nginxSkip();
const work = mkdtempSync(join(tmpdir(), 'vkit-protected-remote-'));
const ci = keyFiles(work, 'ci');
const dev = keyFiles(work, 'dev');

interface Report {
  target: { authority: string };
  remote: { url: string; publishes: boolean; trusted_signers: string[] } | null;
  actions: {
    label: string;
    key: string;
    status: string;
    remote?: { state: string; keyid?: string; reason?: string };
  }[];
  gate: { status: string };
}

let nginx: Nginx;
let repo: TempRepo;
let ciKeyid: string;

function protectedGate(extra: string[], env: Record<string, string> = {}) {
  const store = mkdtempSync(join(work, 'store-'));
  const r = vkit(
    ['gate', '--protected', '--target', 'main', '--store', store, '--root', repo.dir, '--json', ...extra],
    { cwd: repo.dir, env: { VKIT_REMOTE_TIMEOUT_MS: '1000', VKIT_SIGNING_KEY: '', ...env } },
  );
  assert.ok(r.code === 0 || r.code === 1, r.stdout + r.stderr);
  return { ...r, report: r.json() as Report };
}

const ran = (r: Report) => r.actions.filter((a) => a.status === 'ran' || a.status === 'failed').length;
const clearServer = () => {
  for (const d of ['ac', 'cas']) rmSync(join(nginx.data, d), { recursive: true, force: true });
};
const acFile = (address: string) => join(nginx.data, 'ac', hexOf(address as Sha256Id));

describe('protected gate over a shared cache', { skip: skip.skip }, () => {
  before(async () => {
    nginx = await startNginx();
    repo = brokenUnitRepo();
    assert.equal(vkit(['policy', 'trust-signer', ci.pub, '--name', 'ci'], { cwd: repo.dir }).code, 0);
    ciKeyid = JSON.parse(readFileSync(join(repo.dir, 'vkit.lock.json'), 'utf8')).trusted_signers[0].keyid;
    repo.commitAll('target');
    // The candidate fixes the failing check and also trusts a developer's key in its own lock.
    repo.git('checkout', '-q', '-b', 'candidate');
    writeFileSync(join(repo.dir, 'lib.txt'), 'fixed\n');
    assert.equal(vkit(['policy', 'trust-signer', dev.pub, '--name', 'dev'], { cwd: repo.dir }).code, 0);
    repo.commitAll('fix, and trust dev');
  });
  after(async () => {
    await nginx?.stop();
    repo?.cleanup();
    rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  });

  test("the CI's protected run publishes; another private store then runs nothing and is READY", () => {
    clearServer();
    const first = protectedGate(['--remote', nginx.url], { VKIT_SIGNING_KEY: ci.key });
    assert.equal(first.report.gate.status, 'READY', first.stdout + first.stderr);
    assert.equal(ran(first.report), 2);
    // The target's signers only: the candidate's lock also trusts `dev`, which does not count here.
    assert.deepEqual(first.report.remote, { url: nginx.url, publishes: true, trusted_signers: [ciKeyid] });
    // Filed under the protected address, never under the bare action key a build reads.
    const scope: ProtectedScope = { authority: first.report.target.authority, candidate: 'git_commit' };
    for (const a of first.report.actions) {
      assert.ok(existsSync(acFile(entryAddress(a.key, scope))), `${a.label} published scoped`);
      assert.ok(!existsSync(acFile(a.key)), `${a.label} not published for builds`);
    }

    const second = protectedGate(['--remote', nginx.url, '--remote-only-read']);
    assert.equal(second.report.gate.status, 'READY', second.stdout + second.stderr);
    assert.equal(ran(second.report), 0, 'every result came from the remote');
    for (const a of second.report.actions) assert.equal(a.remote?.keyid, ciKeyid, a.label);
  });

  test("a build's entries never count, even signed by the CI's key and copied to the protected address", () => {
    clearServer();
    // A build on the candidate checkout (its lock trusts ci too) publishes unscoped entries.
    const built = vkit(['build', '--json', '--remote', nginx.url], {
      cwd: repo.dir,
      env: { VKIT_SIGNING_KEY: ci.key },
    });
    assert.equal(built.code, 0, built.stdout + built.stderr);
    const plain = protectedGate(['--remote', nginx.url, '--remote-only-read']);
    assert.equal(ran(plain.report), 2, 'nothing at the protected address: a plain miss, run here');

    // The attacker copies each build entry to the address the protected gate reads.
    const scope: ProtectedScope = { authority: plain.report.target.authority, candidate: 'git_commit' };
    for (const a of plain.report.actions)
      writeFileSync(acFile(entryAddress(a.key, scope)), readFileSync(acFile(a.key)));
    const copied = protectedGate(['--remote', nginx.url, '--remote-only-read']);
    assert.equal(ran(copied.report), 2);
    for (const a of copied.report.actions) {
      assert.equal(a.remote?.state, 'refused', a.label);
      assert.equal(a.remote?.reason, 'made by a build, not by a protected gate run');
    }
  });

  test('a protected entry of another candidate kind (or authority) is refused where it is copied', () => {
    clearServer();
    const published = protectedGate(['--remote', nginx.url], { VKIT_SIGNING_KEY: ci.key });
    assert.equal(ran(published.report), 2);
    // Copied to the working-tree candidate's address: the signed scope says git_commit.
    const authority = published.report.target.authority;
    for (const a of published.report.actions)
      writeFileSync(
        acFile(entryAddress(a.key, { authority, candidate: 'working_tree' })),
        readFileSync(acFile(entryAddress(a.key, { authority, candidate: 'git_commit' }))),
      );
    const tree = protectedGate(['--working-tree', '--remote', nginx.url, '--remote-only-read']);
    assert.equal(ran(tree.report), 2);
    for (const a of tree.report.actions) {
      assert.equal(a.remote?.state, 'refused', a.label);
      assert.match(a.remote?.reason ?? '', /under another target authority or candidate kind/);
    }
  });

  test("entries signed by a key only the candidate's lock trusts are refused", () => {
    clearServer();
    // A protected run signed by dev (trusted by the candidate branch's lock, not by the target's).
    const byDev = protectedGate(['--remote', nginx.url], { VKIT_SIGNING_KEY: dev.key });
    assert.equal(ran(byDev.report), 2);
    assert.ok(readdirSync(join(nginx.data, 'ac')).length >= 2, 'dev published');
    const next = protectedGate(['--remote', nginx.url, '--remote-only-read']);
    assert.equal(ran(next.report), 2, 'nothing reused');
    for (const a of next.report.actions) {
      assert.equal(a.remote?.state, 'refused', a.label);
      assert.match(a.remote?.reason ?? '', /untrusted key/);
    }
  });

  test('--remote and --remote-only-read belong to build and the protected gate (exit 2)', () => {
    const plainGate = vkit(['gate', '--remote', nginx.url], { cwd: repo.dir });
    assert.equal(plainGate.code, 2, plainGate.stderr);
    assert.match(plainGate.stderr, /--remote belongs to the protected gate/);
    const store = mkdtempSync(join(work, 'store-'));
    const noUrl = vkit(['gate', '--protected', '--target', 'main', '--store', store, '--remote-only-read'], {
      cwd: repo.dir,
    });
    assert.equal(noUrl.code, 2, noUrl.stderr);
    assert.match(noUrl.stderr, /--remote URL with --remote-only-read/);
  });
});
