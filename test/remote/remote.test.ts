/**
 * The shared remote cache for real: nginx on loopback speaking Bazel's HTTP protocol, two clones
 * of one repository each with its own store. A builds and publishes signed evidence; B builds with
 * nothing run and READY, its provenance naming A's key and the cache. Then every attack on B's
 * remote read must leave B running the check itself, and the check is one that fails on B (a
 * marker outside its key says "this is machine B"), so a READY on B could only come from a remote
 * entry it should have refused.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { sign } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { canonicalJson, sha256Id } from '../../src/hash/index.js';
import { pae } from '../../src/remote/dsse.js';
import { keyFiles } from '../_support/keys.js';
import { type Nginx, nginxSkip, serveHttp, startNginx } from '../_support/nginx.js';
import { tempRepo, vkit, WATCHED_FROM_OUTSIDE } from '../_support/repo.js';

const skip = nginxSkip();
const work = mkdtempSync(join(tmpdir(), 'vkit-remote-'));
const marker = join(work, 'this-is-machine-b');

const A = keyFiles(work, 'a');
const intruder = keyFiles(work, 'intruder');

interface Built {
  actions: {
    label: string;
    key: string;
    status: string;
    outcome: string;
    run: string;
    notes?: string[];
    remote?: { state: string; keyid?: string; signer?: string; reason?: string };
  }[];
  gate: { status: string };
  stats: { ran: number; cached: number };
}

let nginx: Nginx;
let origin: string;
let keys: Record<string, string> = {};

/** A fresh clone (its own store under its own .git), the marker saying it is machine B. */
function machineB(): string {
  const dir = mkdtempSync(join(work, 'b-'));
  execFileSync('git', ['clone', '-q', origin, dir]);
  return dir;
}

function build(dir: string, env: Record<string, string>, args: string[] = []) {
  const r = vkit(['build', '--json', ...args], { cwd: dir, env: { VKIT_REMOTE_TIMEOUT_MS: '500', ...env } });
  return { ...r, built: r.json() as Built };
}

const acFile = (label: string) => join(nginx.data, 'ac', keys[label]!.replace(/^sha256:/, ''));

describe('remote cache over nginx', { skip: skip.skip }, () => {
  before(async () => {
    nginx = await startNginx();
    const repo = tempRepo({ 'src/a.txt': 'a\n', 'src/b.txt': 'b\n' });
    repo.manifest({
      checks: [
        // Passes on A, fails on B: the marker is outside the key, so only a remote entry could make B pass.
        // hello's log (20 kB) is too big to travel inline and is downloaded into memory; other's
        // (1.2 MB) is streamed into a file; their empty stderr logs travel inline in the statement.
        {
          id: 'hello',
          run: `echo hello from $0 && head -c 20000 /dev/zero | tr '\\0' x && test ! -e ${marker}`,
          inputs: ['src/a.txt'],
          sandbox: WATCHED_FROM_OUTSIDE,
        },
        {
          id: 'other',
          run: `head -c 1200000 /dev/zero | tr '\\0' y && test ! -e ${marker}`,
          inputs: ['src/b.txt'],
          sandbox: WATCHED_FROM_OUTSIDE,
        },
      ],
    });
    assert.equal(vkit(['policy', 'trust-signer', A.pub, '--name', 'ci'], { cwd: repo.dir }).code, 0);
    repo.commitAll();
    origin = repo.dir;
    const a = build(repo.dir, { VKIT_REMOTE: nginx.url, VKIT_SIGNING_KEY: A.key });
    assert.equal(a.built.gate.status, 'READY', a.stderr);
    keys = Object.fromEntries(a.built.actions.map((x) => [x.label, x.key]));
    writeFileSync(marker, 'b\n');
  });
  after(async () => {
    await nginx?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  test('machine B: nothing runs, READY, each hit naming the signer and the cache', () => {
    const b = build(machineB(), { VKIT_REMOTE: nginx.url }, ['--remote-only-read']);
    assert.equal(b.built.gate.status, 'READY', b.stdout + b.stderr);
    assert.deepEqual([b.built.stats.ran, b.built.stats.cached], [0, 2]);
    assert.equal((b.built.stats as { remote_hits?: number }).remote_hits, 2);
    const keyid = JSON.parse(readFileSync(join(origin, 'vkit.lock.json'), 'utf8')).trusted_signers[0].keyid;
    for (const x of b.built.actions) {
      assert.deepEqual(x.remote, { state: 'hit', url: nginx.url, keyid, signer: 'ci' });
      assert.ok(
        x.notes?.some((n) => n === `remote hit from ${nginx.url}, signed by ${keyid} (ci)`),
        JSON.stringify(x.notes),
      );
    }
  });

  test('cache push uploads evidence already in the store; B then hits it', () => {
    for (const d of ['ac', 'cas']) rmSync(join(nginx.data, d), { recursive: true, force: true });
    const cold = build(machineB(), { VKIT_REMOTE: nginx.url, VKIT_SIGNING_KEY: '' });
    assert.equal(cold.built.gate.status, 'REJECTED', 'nothing on the server: B ran its own check');
    // Publishing is on but B has no key: said once, not once per result, and nothing is uploaded.
    assert.equal(cold.stderr.split('VKIT_SIGNING_KEY is not set').length - 1, 1, cold.stderr);
    assert.ok(!existsSync(join(nginx.data, 'ac')), 'nothing uploaded unsigned');
    const pushed = vkit(['cache', 'push', '--remote', nginx.url, '--json'], {
      cwd: origin,
      env: { VKIT_SIGNING_KEY: A.key },
    });
    assert.equal(pushed.code, 0, pushed.stdout + pushed.stderr);
    assert.deepEqual(
      pushed
        .json()
        .pushed.map((p: { label: string; ok: boolean }) => [p.label, p.ok])
        .sort(),
      [
        ['check:hello', true],
        ['check:other', true],
      ],
    );
    const b = build(machineB(), { VKIT_REMOTE: nginx.url }, ['--remote-only-read']);
    assert.equal(b.built.gate.status, 'READY', b.stdout + b.stderr);
    assert.equal(b.built.stats.ran, 0);
    const unsigned = vkit(['cache', 'push', '--remote', nginx.url], { cwd: origin, env: { VKIT_SIGNING_KEY: '' } });
    assert.equal(unsigned.code, 2, 'nothing is uploaded unsigned');
  });

  test('--explain says which check refused a remote entry', () => {
    const dir = machineB();
    const keyid = JSON.parse(readFileSync(join(dir, 'vkit.lock.json'), 'utf8')).trusted_signers[0].keyid;
    assert.equal(vkit(['policy', 'trust-signer', '--remove', keyid], { cwd: dir }).code, 0);
    const r = vkit(['build', '--json', '--explain', '--remote', nginx.url, '--remote-only-read'], { cwd: dir });
    const hello = (r.json() as { actions: { label: string; explain?: string[] }[] }).actions.find(
      (x) => x.label === 'check:hello',
    )!;
    assert.ok(
      hello.explain?.some((l) => /^remote entry refused: signed only by untrusted key/.test(l)),
      JSON.stringify(hello.explain),
    );
  });

  /** Runs B against the remote with `tamper` applied to the server's files, restoring them after. */
  function attacked(tamper: () => void, expect: RegExp, env: Record<string, string> = {}, dir = machineB()) {
    const saved = new Map<string, Buffer>();
    const keep = (file: string) => saved.has(file) || saved.set(file, readFileSync(file));
    for (const label of ['check:hello', 'check:other']) keep(acFile(label));
    const snapshot = execFileSync('ls', [join(nginx.data, 'cas')], { encoding: 'utf8' })
      .trim()
      .split('\n');
    for (const f of snapshot) keep(join(nginx.data, 'cas', f));
    try {
      tamper();
      const b = build(dir, { VKIT_REMOTE: nginx.url, ...env }, ['--remote-only-read']);
      assert.notEqual(b.built.gate.status, 'READY', b.stdout);
      const hello = b.built.actions.find((x) => x.label === 'check:hello')!;
      assert.equal(hello.outcome, 'FAIL', 'B ran the check itself');
      assert.equal(hello.remote?.state, 'refused');
      assert.match(b.stderr, expect);
      return b.built;
    } finally {
      for (const [file, bytes] of saved) writeFileSync(file, bytes);
    }
  }

  const envelopeOf = (label: string) => JSON.parse(readFileSync(acFile(label), 'utf8'));

  test('an entry signed by an untrusted key is refused', () => {
    attacked(() => {
      const e = envelopeOf('check:hello');
      const payload = Buffer.from(e.payload, 'base64');
      e.signatures = [
        {
          keyid: 'sha256:'.padEnd(71, 'f'),
          sig: sign(null, pae(e.payloadType, payload), intruder.privateKey).toString('base64'),
        },
      ];
      writeFileSync(acFile('check:hello'), JSON.stringify(e));
    }, /check:hello: remote entry refused: signed only by untrusted key/);
  });

  test('a valid signature over another action key is refused', () => {
    attacked(
      () => writeFileSync(acFile('check:hello'), readFileSync(acFile('check:other'))),
      /check:hello: remote entry refused: signed for action key/,
    );
  });

  test('a flipped byte in a blob is refused, held in memory or streamed to a file', () => {
    const built = attacked(() => {
      for (const label of ['check:hello', 'check:other']) {
        const receipt = JSON.parse(Buffer.from(envelopeOf(label).payload, 'base64').toString()).predicate.receipt;
        let flipped = 0;
        for (const a of receipt.artifacts) {
          const file = join(nginx.data, 'cas', a.sha256.replace(/^sha256:/, ''));
          const bytes = readFileSync(file);
          if (bytes.length === 0) continue;
          bytes[bytes.length - 2] = bytes[bytes.length - 2]! ^ 1;
          writeFileSync(file, bytes);
          flipped++;
        }
        assert.ok(flipped > 0, `${label}: a non-empty blob to flip (the check prints)`);
      }
    }, /check:hello: remote entry refused: blob [0-9a-f]{12}: got/);
    const other = built.actions.find((x) => x.label === 'check:other')!;
    assert.equal(other.outcome, 'FAIL', 'B ran the check itself');
    assert.match(other.remote?.reason ?? '', /^blob [0-9a-f]{12}: got 1200000 bytes hashing to/);
  });

  test('inline bytes that are not their blob are refused, even under a trusted signature', () => {
    attacked(() => {
      const e = envelopeOf('check:hello');
      const statement = JSON.parse(Buffer.from(e.payload, 'base64').toString());
      const inline = statement.predicate.inline as Record<string, string>;
      const [digest] = Object.keys(inline);
      assert.ok(digest, 'the empty stderr log travels inline');
      inline[digest] = Buffer.from('x').toString('base64');
      const payload = Buffer.from(JSON.stringify(statement));
      e.payload = payload.toString('base64');
      e.signatures[0].sig = sign(null, pae(e.payloadType, payload), A.privateKey).toString('base64');
      writeFileSync(acFile('check:hello'), JSON.stringify(e));
    }, /check:hello: remote entry refused: the inline bytes of artifact \S+ are not the blob its digest names/);
  });

  test('a receipt that is not a vkit.receipt/1 is refused, even signed by a trusted key with its digest right', () => {
    attacked(() => {
      const e = envelopeOf('check:hello');
      const statement = JSON.parse(Buffer.from(e.payload, 'base64').toString());
      // Every field the import reads is still there; only the full shape check can see this.
      delete statement.predicate.receipt.capture;
      const subject = statement.subject.find((x: { name: string }) => x.name === 'receipt');
      subject.digest.sha256 = sha256Id(canonicalJson(statement.predicate.receipt)).replace(/^sha256:/, '');
      const payload = Buffer.from(JSON.stringify(statement));
      e.payload = payload.toString('base64');
      e.signatures[0].sig = sign(null, pae(e.payloadType, payload), A.privateKey).toString('base64');
      writeFileSync(acFile('check:hello'), JSON.stringify(e));
    }, /check:hello: remote entry refused: the receipt is not a vkit.receipt\/1/);
  });

  test('a receipt replaced under the signature of another is refused', () => {
    attacked(() => {
      const e = envelopeOf('check:hello');
      const statement = JSON.parse(Buffer.from(e.payload, 'base64').toString());
      statement.predicate.receipt.reason = 'replaced';
      e.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
      writeFileSync(acFile('check:hello'), JSON.stringify(e));
    }, /check:hello: remote entry refused: bad signature by trusted key/);
  });

  test('a key removed from trusted_signers stops counting', () => {
    const dir = machineB();
    const keyid = JSON.parse(readFileSync(join(dir, 'vkit.lock.json'), 'utf8')).trusted_signers[0].keyid;
    assert.equal(vkit(['policy', 'trust-signer', '--remove', keyid], { cwd: dir }).code, 0);
    attacked(() => {}, /remote entry refused: signed only by untrusted key/, {}, dir);
  });

  test('a server that answers 500, hangs, or cuts a body short: B runs the check itself, within the timeout', async () => {
    const honest = (path: string) => readFileSync(join(nginx.data, path));
    const cases: [string, Parameters<typeof serveHttp>[0]][] = [
      ['500', (_req, res) => res.writeHead(500).end()],
      ['hang', () => {}],
      [
        'truncated',
        (req, res) => {
          const body = honest(req.url!.slice(1));
          if (req.url!.startsWith('/ac/')) return res.writeHead(200).end(body);
          res.writeHead(200, { 'content-length': String(body.length) });
          res.end(body.subarray(0, Math.max(0, body.length - 1)));
          res.socket?.destroy();
        },
      ],
    ];
    for (const [name, handle] of cases) {
      const s = await serveHttp(handle);
      try {
        const t0 = performance.now();
        const b = build(machineB(), { VKIT_REMOTE: s.url }, ['--remote-only-read']);
        const seconds = (performance.now() - t0) / 1000;
        assert.notEqual(b.built.gate.status, 'READY', `${name}: ${b.stdout}`);
        assert.equal(b.built.actions.find((x) => x.label === 'check:hello')!.outcome, 'FAIL', name);
        // Two actions, three attempts of 0.5 s each at most plus backoff, plus the build itself.
        assert.ok(seconds < 15, `${name}: the build took ${seconds} s`);
        assert.match(b.stderr, /remote entry refused/, name);
      } finally {
        s.close();
      }
    }
  });
});
