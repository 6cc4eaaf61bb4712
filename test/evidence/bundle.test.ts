/**
 * Evidence bundles: the same run exports to identical bytes; export then replay in another clone
 * passes; a byte flipped in any entry, or in the manifest, is refused naming it; a bundle recording
 * PASS for a check that fails now replays FAIL, even a consistently forged one; different identities
 * are BLOCKED.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { replayEvidence } from '../../src/service/evidence.js';
import { canonicalJson, sha256Id } from '../../src/hash/index.js';
import { buildManifest, manifestBytes, parseManifest } from '../../src/evidence/manifest.js';
import type { Receipt } from '../../src/store/receipt.js';
import { blobPath, cli, flipByte, openOpts, receiptJson, storeDir } from '../_support/evidence.js';
import { nodeCheck, tempRepo, vkit, type TempRepo } from '../_support/repo.js';
import { makeTar, tarEntries } from './_tar.js';

/** `check:a` passes while the undeclared `flag.txt` says ok: a failure the key cannot see. */
function repoWithCheck(): TempRepo {
  const repo = tempRepo({ 'a.txt': 'a\n', 'flag.txt': 'ok' });
  repo.manifest({
    checks: [
      {
        id: 'a',
        run: nodeCheck(
          "console.log('out'); console.error('err'); process.exit(require('fs').readFileSync('flag.txt','utf8') === 'ok' ? 0 : 1)",
        ),
        inputs: ['a.txt'],
      },
    ],
  });
  repo.commitAll('init');
  return repo;
}

function runOf(repo: TempRepo): string {
  const b = cli(repo, ['build', '--json']);
  assert.ok(b.code === 0 || b.code === 1, b.stderr);
  return b.json().actions[0].run;
}

function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), 'vkit-bundle-test-'));
}

test('export: deterministic bytes, validated, names its limits of trust; replay in another clone passes', () => {
  const repo = repoWithCheck();
  const out = scratchDir();
  const clone = join(out, 'clone');
  try {
    const run = runOf(repo);
    const a = cli(repo, ['evidence', 'export', '--run', run, '--out', join(out, 'a.tar'), '--json']);
    assert.equal(a.code, 0, a.stderr);
    const b = cli(repo, ['evidence', 'export', '--run', run, '--out', join(out, 'b.tar'), '--json']);
    assert.equal(b.code, 0, b.stderr);
    assert.ok(
      readFileSync(join(out, 'a.tar')).equals(readFileSync(join(out, 'b.tar'))),
      'the same run exports to identical bytes',
    );
    const r = a.json();
    assert.equal(r.recorded_outcome, 'PASS');
    assert.match(r.integrity, /integrity relative to trusted state/);
    assert.match(r.integrity, /do not authenticate/);
    const names = tarEntries(readFileSync(join(out, 'a.tar'))).map((e) => e.name);
    assert.deepEqual(names.slice(0, 3), ['manifest.json', 'job.json', 'receipt.json']);
    assert.ok(names.slice(3).every((n) => /^artifacts\/[0-9a-f]{64}$/.test(n)));

    const assets = cli(repo, ['evidence', 'export', '--run', run, '--out', join(out, 'c.tar'), '--include-assets']);
    assert.equal(assets.code, 0, assets.stderr);
    assert.match(assets.stdout, /no formal profile asset exists in this bundle/);
    assert.match(assets.stdout, /do not authenticate/);

    execFileSync('git', ['clone', '-q', repo.dir, clone]);
    const replay = vkit(['evidence', 'replay', join(out, 'a.tar'), '--restore-assets', '--root', clone, '--json'], {
      cwd: clone,
    });
    assert.equal(replay.code, 0, replay.stdout + replay.stderr);
    const p = replay.json();
    assert.equal(p.status, 'PASS');
    assert.ok(p.identities.every((i: { match: boolean }) => i.match));
    assert.notEqual(p.replayed.run, run, 'the check ran again');
    assert.equal(p.recorded.accepted, false);
    assert.match(p.assets.note, /no formal profile asset/);
    assert.match(p.integrity, /do not authenticate/);

    const missing = cli(repo, ['evidence', 'export', '--run', 'run_nope', '--out', join(out, 'x.tar')]);
    assert.equal(missing.code, 2);
    // The store's copies are re-hashed before export: a damaged artifact is never bundled.
    const stdout = receiptJson(repo, a.json().receipt).artifacts.find((x: { name: string }) => x.name === 'stdout');
    flipByte(blobPath(repo, stdout.sha256));
    const damaged = cli(repo, ['evidence', 'export', '--run', run, '--out', join(out, 'd.tar'), '--json']);
    assert.equal(damaged.code, 3, damaged.stderr);
    assert.equal(damaged.json().error.code, 'ERR_EVIDENCE_DAMAGED');
    assert.ok(!existsSync(join(out, 'd.tar')));
  } finally {
    repo.cleanup();
    rmSync(out, { recursive: true, force: true });
  }
});

test('a byte flipped in any entry, or in the manifest, is refused naming it (exit 2)', () => {
  const repo = repoWithCheck();
  const out = scratchDir();
  try {
    const run = runOf(repo);
    const bundle = join(out, 'good.tar');
    assert.equal(cli(repo, ['evidence', 'export', '--run', run, '--out', bundle]).code, 0);
    const good = readFileSync(bundle);
    const entries = tarEntries(good);
    assert.ok(entries.length >= 5);
    for (const e of entries) {
      for (const where of [0, Math.floor(e.body.length / 2), e.body.length - 1]) {
        if (e.body.length === 0) continue;
        const bad = Buffer.from(good);
        bad[e.offset + where] = bad[e.offset + where]! ^ 0xff;
        const file = join(out, 'bad.tar');
        writeFileSync(file, bad);
        const r = cli(repo, ['evidence', 'replay', file, '--json']);
        assert.equal(r.code, 2, `${e.name}@${where}: ${r.stdout}${r.stderr}`);
        assert.equal(r.json().error.code, 'ERR_BUNDLE_REFUSED');
        assert.ok(r.stderr.includes(`\`${e.name}\``), `${e.name}@${where} is named: ${r.stderr}`);
      }
    }
    // A manifest edited into other valid JSON (a label renamed) no longer matches what its entries give.
    const m = JSON.parse(entries[0]!.body.toString('utf8'));
    const relabelled = makeTar([
      { name: 'manifest.json', body: canonicalJson({ ...m, label: 'check:b' }) },
      ...entries.slice(1).map((e) => ({ name: e.name, body: e.body })),
    ]);
    writeFileSync(join(out, 'relabelled.tar'), relabelled);
    const rl = cli(repo, ['evidence', 'replay', join(out, 'relabelled.tar')]);
    assert.equal(rl.code, 2, rl.stderr);
    assert.match(rl.stderr, /`manifest\.json`: it is not the manifest its receipt, job and entries give/);

    // A flipped header byte breaks the tar itself: refused too, never a crash.
    const header = Buffer.from(good);
    header[entries[1]!.offset - 512 + 3] ^= 0xff;
    writeFileSync(join(out, 'header.tar'), header);
    const h = cli(repo, ['evidence', 'replay', join(out, 'header.tar')]);
    assert.equal(h.code, 2, h.stderr);
  } finally {
    repo.cleanup();
    rmSync(out, { recursive: true, force: true });
  }
});

test('imported success flags never satisfy replay: recorded PASS, failing now -> FAIL; a forged PASS -> FAIL', async () => {
  const repo = repoWithCheck();
  const out = scratchDir();
  try {
    const run = runOf(repo);
    const bundle = join(out, 'pass.tar');
    assert.equal(cli(repo, ['evidence', 'export', '--run', run, '--out', bundle]).code, 0);
    writeFileSync(join(repo.dir, 'flag.txt'), 'no');
    const r = cli(repo, ['evidence', 'replay', bundle, '--json']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(r.json().status, 'FAIL');
    assert.equal(r.json().recorded.outcome, 'PASS');
    assert.ok(
      r.json().identities.every((i: { match: boolean }) => i.match),
      'same identities: only the fresh run decides',
    );

    // A consistent forgery: a FAIL run's bundle rewritten to say PASS, every digest redone.
    const failRun = cli(repo, ['verify', '--check', 'a', '--json']).json().action.run;
    const failBundle = join(out, 'fail.tar');
    assert.equal(cli(repo, ['evidence', 'export', '--run', failRun, '--out', failBundle]).code, 0);
    const forged = forgePass(readFileSync(failBundle));
    writeFileSync(join(out, 'forged.tar'), forged);
    const f = await replayEvidence(openOpts(repo), { file: join(out, 'forged.tar') });
    assert.equal(f.recorded.outcome, 'PASS', 'the forgery was accepted as a well-formed bundle');
    assert.equal(f.status, 'FAIL');
  } finally {
    repo.cleanup();
    rmSync(out, { recursive: true, force: true });
  }
});

test('different accepted identities are BLOCKED (exit 3), even when the check passes here', () => {
  const repo = repoWithCheck();
  const out = scratchDir();
  try {
    const bundle = join(out, 'b.tar');
    assert.equal(cli(repo, ['evidence', 'export', '--run', runOf(repo), '--out', bundle]).code, 0);
    repo.write('a.txt', 'changed\n');
    const r = cli(repo, ['evidence', 'replay', bundle, '--json']);
    assert.equal(r.code, 3, r.stdout + r.stderr);
    const p = r.json();
    assert.equal(p.status, 'BLOCKED');
    assert.equal(p.replayed.outcome, 'PASS');
    const differ = p.identities.filter((i: { match: boolean }) => !i.match).map((i: { field: string }) => i.field);
    assert.deepEqual(differ, ['key', 'capture']);

    repo.manifest({ checks: [{ id: 'other', run: nodeCheck('0'), inputs: ['a.txt'] }] });
    const gone = cli(repo, ['evidence', 'replay', bundle]);
    assert.equal(gone.code, 3);
    assert.match(gone.stdout, /declares no `check:a`/);
    assert.equal(storeDir(repo).length > 0, true);
  } finally {
    repo.cleanup();
    rmSync(out, { recursive: true, force: true });
  }
});

/** Rewrites a bundle's receipt to PASS and redoes every digest, as a forger would. */
function forgePass(tar: Buffer): Buffer {
  const entries = tarEntries(tar);
  const byName = new Map(entries.map((e) => [e.name, e.body]));
  const receipt = JSON.parse(byName.get('receipt.json')!.toString('utf8')) as Receipt;
  const passing: Receipt = {
    ...receipt,
    outcome: 'PASS',
    claim: 'established',
    reason: null,
    exit_code: 0,
    obligations: receipt.obligations.map((o) => ({ ...o, outcome: 'PASS', claim: 'established' })),
  };
  const receiptBytes = Buffer.from(canonicalJson(passing));
  const old = parseManifest(byName.get('manifest.json')!);
  if (typeof old === 'string') throw new Error(old);
  const list = old.entries.map((e) =>
    e.name === 'receipt.json' ? { ...e, sha256: sha256Id(receiptBytes), size: receiptBytes.length } : e,
  );
  const manifest = buildManifest({
    receipt: passing,
    receiptSha256: sha256Id(receiptBytes),
    job: old.job,
    entries: list,
    assets: old.assets,
  });
  return makeTar([
    { name: 'manifest.json', body: manifestBytes(manifest) },
    ...entries
      .filter((e) => e.name !== 'manifest.json')
      .map((e) => ({ name: e.name, body: e.name === 'receipt.json' ? receiptBytes : e.body })),
  ]);
}
