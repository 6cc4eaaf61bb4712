/**
 * `executor` in the config and `--executor` on the command line: bad values are exit 2 naming the
 * field or flag, with a did-you-mean for a misspelt kind; the NATS executor without a remote cache
 * is refused before anything runs (its inputs and signed results travel through the cache).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateManifest } from '../../src/config/validate.js';
import { nodeCheck, tempRepo, vkit } from '../_support/repo.js';

const check = { id: 'a', run: nodeCheck('1'), inputs: ['a.txt'] };

function issues(executor: unknown) {
  return validateManifest({ checks: [check], executor }).issues.map((i) => `${i.path}: ${i.message}`);
}

test('config: a misspelt kind gets a did-you-mean; a bad URL, stream or fallback names its field', () => {
  assert.deepEqual(issues({ kind: 'local' }), []);
  assert.deepEqual(issues({ kind: 'nats', url: 'nats://127.0.0.1:4222', stream: 'JOBS', fallback: 'local' }), []);
  const [kind] = issues({ kind: 'nast', url: 'nats://h:1' });
  assert.match(kind!, /^executor\.kind: Unknown executor kind `nast` \(did you mean `nats`\?\)/);
  assert.match(issues({ kind: 'nats', url: 'http://h:1' })[0]!, /^executor\.url: Expected a nats:\/\/HOST:PORT URL/);
  assert.match(
    issues({ kind: 'nats', url: 'nats://h:1', stream: 'a.b' })[0]!,
    /^executor\.stream: Expected a stream name/,
  );
  assert.match(issues({ kind: 'nats', url: 'nats://h:1', fallback: 'remote' })[0]!, /^executor\.fallback: /);
  assert.match(issues({ kind: 'nats', url: 'nats://h:1', strem: 'A' })[0]!, /did you mean `stream`/);
});

test('--executor: exit 2 naming the flag (did-you-mean for a kind), and NATS without a remote cache is refused', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({ checks: [check] });
    const typo = vkit(['build', '--executor', 'locl'], { cwd: repo.dir });
    assert.equal(typo.code, 2, typo.stderr);
    assert.match(typo.stderr, /--executor.*Unknown --executor `locl` \(did you mean `local`\?\)/s);
    const http = vkit(['build', '--executor', 'http://127.0.0.1:4222'], { cwd: repo.dir });
    assert.equal(http.code, 2, http.stderr);
    assert.match(http.stderr, /Expected a nats:\/\/HOST:PORT URL, not a http:\/\/ one for --executor/);
    const noRemote = vkit(['build', '--executor', 'nats://127.0.0.1:1'], { cwd: repo.dir, env: { VKIT_REMOTE: '' } });
    assert.equal(noRemote.code, 2, noRemote.stderr);
    assert.match(noRemote.stderr, /--executor.*The NATS executor needs the remote cache/s);
    repo.manifest({ checks: [check], executor: { kind: 'nats', url: 'nats://127.0.0.1:1' } });
    const config = vkit(['build'], { cwd: repo.dir, env: { VKIT_REMOTE: '' } });
    assert.equal(config.code, 2, config.stderr);
    assert.match(config.stderr, /executor.*The NATS executor needs the remote cache/s);
    repo.manifest({ checks: [check], executor: { kind: 'nat', url: 'nats://127.0.0.1:1' } });
    const misspelt = vkit(['build'], { cwd: repo.dir });
    assert.equal(misspelt.code, 2, misspelt.stderr);
    assert.match(misspelt.stderr, /did you mean `nats`/);
    assert.doesNotMatch(misspelt.stderr + config.stderr + http.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    repo.cleanup();
  }
});
