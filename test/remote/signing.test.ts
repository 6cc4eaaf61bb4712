/**
 * The signing layer, pure: DSSE's pre-authentication encoding (the spec's own example), Ed25519
 * envelopes that verify only under a trusted key and only over the exact payload, the in-toto
 * statement binding the action key, the receipt's digest and every artifact; and the trusted
 * signers of vkit.lock.json (a key that does not hash to its recorded id is invalid input).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { canonicalJson, sha256Id } from '../../src/hash/index.js';
import { badSignature, openEnvelope, pae, signatureVerifies, signEnvelope } from '../../src/remote/dsse.js';
import { type PublicKey, parsePublicKey, readSigningKey } from '../../src/remote/keys.js';
import { INLINE_UP_TO, readReceiptStatement, receiptStatement } from '../../src/remote/statement.js';
import { keyFiles as keysIn } from '../_support/keys.js';
import { tempRepo, vkit } from '../_support/repo.js';

/** What an import makes of an envelope: its payload and signer, or why it is refused. */
async function verifyEnvelope(data: unknown, trusted: ReadonlyMap<string, PublicKey>) {
  const opened = openEnvelope(data, trusted);
  if (!opened.ok) return opened;
  return (await signatureVerifies(opened))
    ? { ok: true as const, payload: opened.payload, keyid: opened.keyid }
    : { ok: false as const, reason: badSignature(opened.keyid) };
}

const dir = mkdtempSync(join(tmpdir(), 'vkit-keys-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
const keyFiles = (name: string) => keysIn(dir, name);

test("PAE is DSSE's: the spec's example encodes byte for byte", () => {
  assert.equal(
    pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString(),
    'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
  );
});

test('an envelope verifies only under a trusted key, over its exact payload and type', async () => {
  const a = readSigningKey(keyFiles('a').key);
  const b = readSigningKey(keyFiles('b').key);
  const trusted = new Map([[a.keyid, a]]);
  const e = signEnvelope(Buffer.from('{"x":1}'), a);
  const ok = await verifyEnvelope(e, trusted);
  assert.ok(ok.ok && ok.keyid === a.keyid && ok.payload.toString() === '{"x":1}');
  const reason = async (data: unknown) => ((await verifyEnvelope(data, trusted)) as { reason: string }).reason;
  assert.match(await reason(signEnvelope(Buffer.from('{}'), b)), /untrusted/);
  const swapped = { ...e, payload: Buffer.from('{"x":2}').toString('base64') };
  assert.match(await reason(swapped), /bad signature/);
  // A signature of the wrong length is refused like a wrong one, not an error.
  assert.match(await reason({ ...e, signatures: [{ keyid: a.keyid, sig: 'AAAA' }] }), /bad signature/);
  // Base64 in its one canonical spelling only: no other alphabet, whitespace or dropped padding.
  const text = e.payload;
  for (const respelt of [text.replace(/=+$/, ''), `${text.slice(0, 4)}\n${text.slice(4)}`, ` ${text}`])
    assert.match(await reason({ ...e, payload: respelt }), /payload is not base64/, JSON.stringify(respelt));
  const urlSafe = signEnvelope(Buffer.from([0xfb, 0xff, 0xfe]), a); // standard base64 `+//+`
  assert.equal((await verifyEnvelope(urlSafe, trusted)).ok, true);
  assert.match(
    await reason({ ...urlSafe, payload: urlSafe.payload.replace(/\+/g, '-').replace(/\//g, '_') }),
    /not base64/,
  );
  assert.equal((await verifyEnvelope({ ...e, payloadType: 'text/plain' }, trusted)).ok, false);
  assert.equal((await verifyEnvelope({ ...e, signatures: [] }, trusted)).ok, false);
  assert.equal((await verifyEnvelope('nope', trusted)).ok, false);
  // The key id is the sha256 of the SPKI DER: the same for the public half read on its own.
  assert.equal(parsePublicKey(a.pem).keyid, a.keyid);
});

test('a statement binds the action key, the receipt digest and every artifact', () => {
  const key = `sha256:${'1'.repeat(64)}`;
  const blob = `sha256:${'2'.repeat(64)}`;
  const receipt = { key, run: 'r', artifacts: [{ name: 'stdout', sha256: blob, size: 3 }] };
  const id = sha256Id(canonicalJson(receipt));
  const payload = receiptStatement(key, id, receipt);
  const read = readReceiptStatement(payload, key);
  assert.ok(read.ok);
  assert.deepEqual(read.ok && [read.receiptId, read.blobs], [id, [{ sha256: blob, size: 3 }]]);
  const reason = (p: Buffer, k = key) => (readReceiptStatement(p, k) as { reason: string }).reason;
  assert.match(reason(payload, `sha256:${'3'.repeat(64)}`), /signed for action key/);
  const edit = (f: (s: any) => void) => {
    const s = JSON.parse(payload.toString());
    f(s);
    return Buffer.from(JSON.stringify(s));
  };
  assert.match(reason(edit((s) => (s.predicate.receipt.run = 'other'))), /does not hash/);
  assert.match(reason(edit((s) => s.subject.pop())), /not a subject/);
  assert.match(reason(edit((s) => (s.predicate.receipt.key = blob))), /another action/);
  assert.match(reason(edit((s) => (s._type = 'x'))), /Statement/);
});

test('small artifacts travel inline, checked like a download; nothing else may travel', () => {
  const key = `sha256:${'1'.repeat(64)}`;
  const log = Buffer.from('checked\n');
  const big = Buffer.alloc(INLINE_UP_TO + 1, 0x61);
  const byId = new Map<string, Buffer>([log, big].map((b) => [sha256Id(b), b]));
  const receipt = {
    key,
    artifacts: [
      { name: 'stdout', sha256: sha256Id(log), size: log.length },
      { name: 'report', sha256: sha256Id(big), size: big.length },
    ],
  };
  const payload = receiptStatement(key, sha256Id(canonicalJson(receipt)), receipt, undefined, (id) => byId.get(id));
  const read = readReceiptStatement(payload, key);
  assert.ok(read.ok);
  assert.deepEqual(
    read.blobs.map((b) => b.bytes?.toString()),
    ['checked\n', undefined],
    'the log inline, the artifact over the limit fetched',
  );
  const edit = (f: (inline: Record<string, string>) => void) => {
    const s = JSON.parse(payload.toString());
    f(s.predicate.inline);
    return (readReceiptStatement(Buffer.from(JSON.stringify(s)), key) as { reason: string }).reason;
  };
  const hexLog = sha256Id(log).slice(7);
  assert.match(
    edit((i) => (i[hexLog] = Buffer.from('checkeD\n').toString('base64'))),
    /inline bytes of artifact stdout/,
  );
  assert.match(
    edit((i) => (i[hexLog] = 'not base64!')),
    /inline bytes of artifact stdout/,
  );
  assert.match(
    edit((i) => (i['3'.repeat(64)] = '')),
    /inline bytes for a blob the receipt does not name/,
  );
});

test('policy trust-signer writes a reviewed list; a key that does not hash to its id is invalid (exit 2)', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [{ id: 'a', run: 'true', inputs: ['a.txt'] }] });
    const { pub } = keyFiles('signer');
    const added = vkit(['policy', 'trust-signer', pub, '--name', 'ci', '--json'], { cwd: repo.dir });
    assert.equal(added.code, 0, added.stderr);
    assert.equal(added.json().action, 'added');
    assert.equal(vkit(['policy', 'trust-signer', pub, '--json'], { cwd: repo.dir }).json().action, 'unchanged');
    const lockFile = join(repo.dir, 'vkit.lock.json');
    const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
    assert.equal(lock.trusted_signers[0].name, 'ci');
    const status = vkit(['cache', 'status', '--json'], { cwd: repo.dir, env: { VKIT_REMOTE: '' } });
    assert.equal(status.code, 0, status.stderr);
    assert.deepEqual(status.json().trusted_signers, [{ keyid: lock.trusted_signers[0].keyid, name: 'ci' }]);
    assert.equal(status.json().url, null);
    // The config's remote is the default: a dead port answers nothing, which status says (exit 0).
    repo.manifest({
      remote: { url: 'http://127.0.0.1:9' },
      checks: [{ id: 'a', run: 'true', inputs: ['a.txt'] }],
    });
    const dead = vkit(['cache', 'status', '--json'], { cwd: repo.dir, env: { VKIT_REMOTE: '' } }).json();
    assert.deepEqual([dead.url, dead.reachable], ['http://127.0.0.1:9', false]);
    lock.trusted_signers[0].keyid = `sha256:${'0'.repeat(64)}`;
    writeFileSync(lockFile, JSON.stringify(lock));
    const broken = vkit(['cache', 'status'], { cwd: repo.dir });
    assert.equal(broken.code, 2, broken.stdout + broken.stderr);
    assert.match(broken.stderr, /trusted_signers\[0\]\.keyid/);
    assert.equal(vkit(['policy', 'trust-signer', join(dir, 'missing.pem')], { cwd: repo.dir }).code, 2);
  } finally {
    repo.cleanup();
  }
});
