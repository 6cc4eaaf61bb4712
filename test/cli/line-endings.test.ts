/**
 * Line endings and a check's identity (issue 14). By default a check's key sees text inputs with
 * CRLF -> LF (the reference's content identity), so a check whose verdict depends on line endings
 * kept its PASS after an input turned CRLF, and nothing said so. Now: `line_endings: 'raw'` keys a
 * check on raw bytes (it reruns, and here FAILs); the default still reuses the evidence but the build
 * output, `build --json`, `gate --json` and `gate --explain` say the inputs differ in line endings
 * only; every receipt of a normalising capture records the raw digests beside the normalised ones,
 * and an unchanged input is not read again to know them. Real git repositories, the real CLI.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli, openStoreOf, receiptJson } from '../_support/evidence.js';
import { nodeCheck, tempRepo } from '../_support/repo.js';
import { sha256Id } from '../../src/hash/index.js';

/** Exits 1 when `a.txt` holds a CR: a "no CRLF" lint. */
const noCrlf = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  run: nodeCheck("if (require('fs').readFileSync('a.txt', 'latin1').includes('\\r')) process.exit(1)"),
  inputs: ['a.txt'],
  ...extra,
});
const NOTE =
  /inputs differ only in line endings \(a\.txt\); reused because the identity normalises CRLF; set line_endings: 'raw' if the check reads them/;

test("line_endings: 'raw' reruns a CRLF-sensitive check when an input turns CRLF; the default reuses its PASS and says so everywhere", () => {
  const repo = tempRepo({ 'a.txt': 'one\ntwo\n' });
  try {
    repo.manifest({ checks: [noCrlf('lint-raw', { line_endings: 'raw' }), noCrlf('lint-default')] });
    const first = cli(repo, ['build']);
    assert.equal(first.code, 0, first.stdout + first.stderr);

    repo.write('a.txt', 'one\r\ntwo\r\n');
    const second = cli(repo, ['build']);
    assert.equal(second.code, 1, `the raw check sees the CRLF and fails: ${second.stdout}${second.stderr}`);
    assert.match(second.stdout, /^failed\s+check:lint-raw/m);
    assert.match(second.stdout, /^cached\s+check:lint-default\n\s+note: inputs differ only in line endings/m);
    assert.match(second.stdout, NOTE);

    const json = cli(repo, ['build', '--json']).json();
    const cached = json.actions.find((a: { label: string }) => a.label === 'check:lint-default');
    assert.equal(cached.status, 'cached');
    assert.match(cached.notes[0], NOTE);
    assert.match(json.gate.items.find((i: { id: string }) => i.id === 'check:lint-default').notes[0], NOTE);
    assert.equal(json.actions.find((a: { label: string }) => a.label === 'check:lint-raw').notes, undefined);

    const gate = cli(repo, ['gate', '--json']);
    assert.equal(gate.code, 1);
    const item = gate.json().items.find((i: { id: string }) => i.id === 'check:lint-default');
    assert.equal(item.status, 'PASS');
    assert.match(item.notes[0], NOTE);
    assert.doesNotMatch(cli(repo, ['gate']).stdout, /note:/, 'a plain gate lists only items that are not PASS');
    const explained = cli(repo, ['gate', '--explain']);
    assert.match(explained.stdout, /PASS\s+check:lint-default[^\n]*\n\s+note: inputs differ only in line endings/);

    // Back to LF: the raw check's first PASS is reused again, and nothing differs from either evidence.
    repo.write('a.txt', 'one\ntwo\n');
    const back = cli(repo, ['build', '--json']);
    assert.equal(back.code, 0, back.stdout);
    assert.deepEqual(
      back.json().actions.map((a: { status: string; notes?: string[] }) => [a.status, a.notes]),
      [
        ['cached', undefined],
        ['cached', undefined],
      ],
    );
  } finally {
    repo.cleanup();
  }
});

test('a receipt of a normalising capture records the raw digests beside the normalised ones; a raw one needs none', () => {
  const repo = tempRepo({ 'a.txt': 'x\r\ny\r\n', 'b.txt': 'plain\n' });
  try {
    repo.manifest({
      checks: [
        { id: 'norm', run: nodeCheck('0'), inputs: ['*.txt'] },
        { id: 'raw', run: nodeCheck('0'), inputs: ['*.txt'], line_endings: 'raw' },
      ],
    });
    const built = cli(repo, ['build', '--json']);
    assert.equal(built.code, 0, built.stdout + built.stderr);
    const receipts = Object.fromEntries(
      built.json().actions.map((a: { label: string; receipt: string }) => [a.label, receiptJson(repo, a.receipt)]),
    );
    const norm = receipts['check:norm'].capture;
    assert.deepEqual(norm.files, [
      { path: 'a.txt', mode: '100644', sha256: sha256Id('x\ny\n'), raw_sha256: sha256Id('x\r\ny\r\n') },
      { path: 'b.txt', mode: '100644', sha256: sha256Id('plain\n') },
    ]);
    assert.match(norm.raw_digest, /^sha256:[0-9a-f]{64}$/);
    assert.notEqual(norm.raw_digest, norm.digest);
    const raw = receipts['check:raw'];
    assert.deepEqual(
      raw.capture.files.map((f: { sha256: string }) => f.sha256),
      [sha256Id('x\r\ny\r\n'), sha256Id('plain\n')],
    );
    assert.equal(raw.capture.raw_digest, undefined, 'a raw capture is its own raw digest');
    assert.equal(raw.definition.line_endings, 'raw');
    // The raw tree digest is the tree digest of the raw capture (the same files, raw bytes).
    assert.equal(norm.raw_digest, raw.capture.digest);
  } finally {
    repo.cleanup();
  }
});

test("a no-op build knows its inputs' raw digests without reading them again (the file-state cache holds both)", () => {
  const repo = tempRepo({ 'a.txt': 'one\r\ntwo\r\n', 'b.txt': 'lf\n' });
  try {
    repo.age('a.txt');
    repo.age('b.txt');
    repo.manifest({ checks: [{ id: 't', run: nodeCheck('0'), inputs: ['*.txt'] }] });
    assert.equal(cli(repo, ['build']).code, 0);
    const noop = cli(repo, ['build', '--json']).json();
    assert.equal(noop.actions[0].status, 'cached');
    assert.deepEqual([noop.stats.hashed, noop.stats.reused_hashes], [0, 2]);
    // One read per changed file gives both digests.
    repo.write('a.txt', 'one\ntwo\n');
    repo.age('a.txt');
    const edited = cli(repo, ['build', '--json']).json();
    assert.equal(edited.stats.hashed, 1);
    assert.match(edited.actions[0].notes[0], NOTE);
  } finally {
    repo.cleanup();
  }
});

test('a receipt without raw digests (from an earlier vkit) is still read: reused, with nothing said about line endings', () => {
  const repo = tempRepo({ 'a.txt': 'one\ntwo\n' });
  try {
    repo.manifest({ checks: [noCrlf('lint')] });
    const built = cli(repo, ['build', '--json']);
    assert.equal(built.code, 0, built.stdout);
    // The same receipt as an earlier vkit wrote it: no raw fields. Filed where the build looks first.
    const { key, receipt } = built.json().actions[0];
    const old = receiptJson(repo, receipt);
    delete old.capture.raw_digest;
    const store = openStoreOf(repo);
    try {
      const id = store.actions.putReceipt(old);
      store.actions.cachePut({ key, receipt: id, label: 'check:lint' });
      store.actions.setLatest({ label: 'check:lint', receipt: id, key });
      // An earlier vkit's run recorded that receipt (a hit must be its run's own).
      store.db.prepare('UPDATE runs SET receipt = ? WHERE id = ?').run(id, old.run);
    } finally {
      store.close();
    }
    repo.write('a.txt', 'one\r\ntwo\r\n');
    const after = cli(repo, ['build', '--json']);
    assert.equal(after.code, 0, after.stdout);
    assert.equal(after.json().actions[0].status, 'cached');
    assert.equal(after.json().actions[0].notes, undefined);
    assert.equal(cli(repo, ['gate', '--deep']).code, 0, 'the full receipt schema reads it');
  } finally {
    repo.cleanup();
  }
});

test('line_endings takes `normalise` or `raw`; anything else is exit 2 at its field path', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [noCrlf('lint', { line_endings: 'crlf' })] });
    const r = cli(repo, ['build']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /checks\[0\]\.line_endings/);
    assert.match(r.stderr, /Expected `normalise` or `raw`/);
    repo.manifest({ checks: [noCrlf('lint', { line_endings: 'normalise' })] });
    assert.equal(cli(repo, ['build']).code, 0);
  } finally {
    repo.cleanup();
  }
});
