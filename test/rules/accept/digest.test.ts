/** M11 digests: the details page's vector, an independent computation, the parser, and the CLI verb. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { m11Digest, M11_DOMAINS, parseM11 } from '../../../src/hash/index.js';
import { tempRepo, vkit } from '../../_support/repo.js';

test('the details page vector: `illustrative-binary-bytes` in domain record', () => {
  const d = m11Digest('record', Buffer.from('illustrative-binary-bytes'));
  assert.ok(d.startsWith('record:sha-512:3a3bfdb48a6aae61fa94'), d);
  assert.match(d, /^record:sha-512:[0-9a-f]{128}$/);
});

test('M11 equals SHA-512 over `<domain>:` + raw bytes, computed independently, for every domain; bytes are not normalised', () => {
  const bytes = Buffer.from('line one\r\nline two\n\u00e9\u0000');
  for (const domain of M11_DOMAINS) {
    const expected = createHash('sha512')
      .update(Buffer.concat([Buffer.from(`${domain}:`, 'ascii'), bytes]))
      .digest('hex');
    assert.equal(m11Digest(domain, bytes), `${domain}:sha-512:${expected}`);
  }
  assert.notEqual(m11Digest('record', 'a\r\n'), m11Digest('record', 'a\n'), 'CRLF is not normalised');
  assert.notEqual(m11Digest('record', 'x'), m11Digest('artifact', 'x'), 'the domain is part of the digest');
});

test('parseM11 accepts only `<known domain>:sha-512:<128 lowercase hex>`; the bare form is refused', () => {
  const hex = 'a'.repeat(128);
  assert.deepEqual(parseM11(`manifest:sha-512:${hex}`), { domain: 'manifest', hex });
  for (const bad of [
    `sha-512:${hex}`,
    `manifest:sha-512:${hex.toUpperCase()}`,
    `manifest:sha-512:${hex.slice(1)}`,
    `bogus:sha-512:${hex}`,
    `manifest:sha-256:${hex}`,
    42,
  ]) {
    assert.equal(parseM11(bad), undefined, String(bad));
  }
});

test('vkit acceptance digest prints the digest; bad domain or missing file exits 2', () => {
  const repo = tempRepo({ 'spec.toml': 'title = "x"\n' });
  try {
    const r = vkit(['acceptance', 'digest', '--domain', 'specification', 'spec.toml', '--root', repo.dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), m11Digest('specification', 'title = "x"\n'));
    const j = vkit(['acceptance', 'digest', '--domain', 'specification', 'spec.toml', '--root', repo.dir, '--json']);
    assert.equal(j.json().digest, r.stdout.trim());
    assert.equal(vkit(['acceptance', 'digest', '--domain', 'nope', 'spec.toml', '--root', repo.dir]).code, 2);
    assert.equal(vkit(['acceptance', 'digest', '--domain', 'record', 'missing.toml', '--root', repo.dir]).code, 2);
    assert.equal(vkit(['acceptance', 'digest', '--domain', 'record', '--root', repo.dir]).code, 2);
    assert.equal(vkit(['acceptance', 'digest', '--help']).code, 0);
  } finally {
    repo.cleanup();
  }
});

test('vkit acceptance --help lists the group verbs (exit 0); no sub-verb is a usage error (exit 2)', () => {
  const help = vkit(['acceptance', '--help']);
  assert.equal(help.code, 0);
  for (const verb of [
    'digest',
    'check',
    'check-spec',
    'check-package',
    'coverage',
    'decide',
    'check-decision',
    'render',
    'migrate',
    'run',
    'witness',
  ])
    assert.match(help.stdout, new RegExp(`^ {4}${verb} `, 'm'));
  assert.equal(vkit(['acceptance']).code, 2);
});
