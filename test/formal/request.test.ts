/**
 * Formal requests (schema_version 2): every refusal kind is exit 2 with its own message and JSON
 * path, through the pure validator and through the CLI; a request must match the accepted lock; the
 * published JSON schema matches the code's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FormalRequestSchema, requestLockIssues, validateFormalRequest } from '../../src/formal/request.js';
import { FORMAL_PUBLISHED } from '../../src/formal/schemas.js';
import { jsonSchemaText } from '../../src/schemas.js';
import { cli } from '../_support/evidence.js';
import { connect } from '../_support/mcp-client.js';
import { REPO_ROOT } from '../_support/repo.js';
import { DEAD_SOCKET, LEDGER, ledgerRepo, writeAcceptedLock } from './_formal.js';

const SHA = (c: string) => `sha256:${c.repeat(64)}`;
const valid = () => ({
  schema_version: 2,
  claim: { kind: 'package', component: 'allocation', policy_sha256: SHA('1'), package_sha256: SHA('2') },
  source: { kind: 'working-tree' },
});

type Case = [name: string, mutate: (r: any) => void, path: string, message: RegExp];
const REFUSALS: Case[] = [
  ['finite claim', (r) => (r.claim.kind = 'finite'), 'claim.kind', /finite claims are rejected/],
  [
    'legacy implements kind',
    (r) => (r.claim.kind = 'implements'),
    'claim.kind',
    /legacy `implements` goals are rejected/,
  ],
  [
    'legacy implements goal',
    (r) => (r.implements = 'ledger::reserve'),
    'implements',
    /legacy `implements` goals are rejected/,
  ],
  [
    'replacement formula',
    (r) => (r.claim.formula = 'forall l, true'),
    'claim.formula',
    /replacement formulas are rejected/,
  ],
  ['replacement ensures', (r) => (r.claim.ensures = ['true']), 'claim.ensures', /replacement formulas are rejected/],
  ['checker command', (r) => (r.checker = { command: ['coqc', '-admit'] }), 'checker', /checker commands are rejected/],
  ['command in source', (r) => (r.source.command = 'true'), 'source.command', /checker commands are rejected/],
  [
    'smaller obligation set',
    (r) => (r.claim.obligations = ['reserve']),
    'claim.obligations',
    /smaller obligation sets are rejected/,
  ],
  ['other claim kind', (r) => (r.claim.kind = 'theorem'), 'claim.kind', /Expected claim.kind `package`/],
  ['schema version', (r) => (r.schema_version = 1), 'schema_version', /schema_version 2/],
  ['bare hex digest', (r) => (r.claim.policy_sha256 = '1'.repeat(64)), 'claim.policy_sha256', /sha256:/],
  ['unknown source', (r) => (r.source = { kind: 'tarball' }), 'source.kind', /working-tree|git-commit/],
  ['short commit', (r) => (r.source = { kind: 'git-commit', commit: 'abc123' }), 'source.commit', /full commit id/],
  ['unknown key', (r) => (r.extra = 1), 'extra', /Unknown key/],
];

for (const [name, mutate, path, message] of REFUSALS) {
  test(`validator refuses a request with a ${name} at \`${path || '(root)'}\``, () => {
    const r = valid();
    mutate(r);
    const { value, issues } = validateFormalRequest(r, 'req.json');
    assert.equal(value, undefined);
    const issue = issues.find((i) => i.path === path) ?? issues[0];
    assert.equal(issue?.path, path, JSON.stringify(issues));
    assert.match(issue!.message, message);
  });
}

test('validator accepts both source kinds and defaults reuse to false', () => {
  assert.deepEqual(validateFormalRequest(valid()).value, { ...valid(), reuse: false });
  const commit = { ...valid(), source: { kind: 'git-commit', commit: 'a'.repeat(40) } };
  assert.equal(validateFormalRequest(commit).value?.source.kind, 'git-commit');
});

test('a request must carry the accepted digests; a changed policy or package needs renewed acceptance', () => {
  const req = validateFormalRequest(valid()).value!;
  const entry = {
    policy_sha256: SHA('1'),
    package_sha256: SHA('2'),
    checker_sha256: SHA('3'),
    profile: 'p',
    accepted_at: '2026-01-01T00:00:00.000Z',
  };
  assert.deepEqual(requestLockIssues(req, entry, { policy_sha256: SHA('1'), package_sha256: SHA('2') }), []);
  assert.equal(
    requestLockIssues(req, undefined, { policy_sha256: SHA('1'), package_sha256: SHA('2') })[0]!.path,
    'claim.component',
  );
  assert.equal(
    requestLockIssues(
      req,
      { ...entry, policy_sha256: SHA('9') },
      { policy_sha256: SHA('9'), package_sha256: SHA('2') },
    )[0]!.path,
    'claim.policy_sha256',
  );
  assert.match(
    requestLockIssues(req, entry, { policy_sha256: SHA('8'), package_sha256: SHA('2') })[0]!.message,
    /renewed acceptance required/,
  );
  assert.equal(
    requestLockIssues(
      req,
      { ...entry, package_sha256: SHA('9') },
      { policy_sha256: SHA('1'), package_sha256: SHA('9') },
    )[0]!.path,
    'claim.package_sha256',
  );
  assert.match(
    requestLockIssues(req, entry, { policy_sha256: SHA('1'), package_sha256: null })[0]!.message,
    /renewed acceptance required/,
  );
});

test('vkit verify --request: each refusal kind exits 2 naming its JSON path', () => {
  const repo = ledgerRepo();
  try {
    for (const [name, mutate, path] of REFUSALS.slice(0, 8)) {
      const r = valid();
      mutate(r);
      repo.write('req.json', JSON.stringify(r));
      const out = cli(repo, ['verify', '--request', 'req.json', '--json']);
      assert.equal(out.code, 2, `${name}: ${out.stderr}`);
      assert.ok(
        out.json().error.issues.some((i: { path: string; file: string }) => i.path === path && i.file === 'req.json'),
        `${name}: ${out.stdout}`,
      );
    }
    repo.write('req.json', '{ not json');
    assert.equal(cli(repo, ['verify', '--request', 'req.json']).code, 2);
  } finally {
    repo.cleanup();
  }
});

test('vkit verify --request: unknown or unaccepted component and mismatched digests exit 2; a matching request runs', async () => {
  const repo = ledgerRepo();
  const env = { VKIT_CONTAINER_SOCKET: DEAD_SOCKET };
  const send = (req: unknown) => {
    repo.write('req.json', JSON.stringify(req));
    return cli(repo, ['verify', '--request', 'req.json', '--json'], env);
  };
  const paths = (r: ReturnType<typeof cli>) => r.json().error.issues.map((i: { path: string }) => i.path);
  try {
    const unknown = send({ ...valid(), claim: { ...valid().claim, component: 'nope' } });
    assert.equal(unknown.code, 2);
    assert.deepEqual(paths(unknown), ['claim.component']);
    const unaccepted = send(valid());
    assert.equal(unaccepted.code, 2);
    assert.match(unaccepted.json().error.issues[0].message, /not accepted/);
    const entry = await writeAcceptedLock(repo);
    const wrong = send(valid());
    assert.equal(wrong.code, 2);
    assert.deepEqual(paths(wrong).sort(), ['claim.package_sha256', 'claim.policy_sha256']);
    const good = {
      ...valid(),
      claim: { ...valid().claim, policy_sha256: entry.policy_sha256, package_sha256: LEDGER.sha256 },
    };
    const ran = send(good);
    // Accepted and matching: it runs, and without an engine it is BLOCKED naming the socket (exit 3).
    assert.equal(ran.code, 3, ran.stderr);
    assert.equal(ran.json().action.label, 'formal:allocation');
    assert.match(ran.json().action.reason, /vkit-test-no-engine\.sock/);
    const badCommit = send({ ...good, source: { kind: 'git-commit', commit: 'f'.repeat(40) } });
    assert.equal(badCommit.code, 2, badCommit.stderr);
    assert.deepEqual(paths(badCommit), ['source.commit']);
    const both = cli(repo, ['verify', '--request', 'req.json', '--check', 'ok']);
    assert.equal(both.code, 2);
  } finally {
    repo.cleanup();
  }
});

test('schema/vkit.formal-request-2.schema.json and vkit.lock-1 match the code (npm run schemas)', () => {
  for (const [name, schema] of Object.entries(FORMAL_PUBLISHED)) {
    assert.equal(
      readFileSync(join(REPO_ROOT, 'schema', name), 'utf8'),
      jsonSchemaText(schema, name),
      `schema/${name} is out of date: run \`npm run schemas\``,
    );
  }
  const json = JSON.parse(jsonSchemaText(FormalRequestSchema, 'x'));
  assert.equal(json.additionalProperties, false);
  assert.deepEqual(json.required.sort(), ['claim', 'schema_version', 'source']);
});

test('MCP verify takes the request object: a refusal is a tool error with exit code 2 and the JSON path', async () => {
  const repo = ledgerRepo();
  const mcp = await connect(repo);
  try {
    const r = valid() as any;
    r.claim.obligations = ['reserve'];
    const refused = await mcp.call('verify', { request: r });
    assert.equal(refused.isError, true);
    assert.equal(refused.json.error.exit_code, 2);
    assert.equal(refused.json.error.issues[0].path, 'claim.obligations');
    assert.match(refused.json.error.issues[0].message, /smaller obligation sets/);
    const unaccepted = await mcp.call('verify', { request: valid() });
    assert.equal(unaccepted.json.error.issues[0].path, 'claim.component');
    // Both `check` and `request` break the tool's schema: the call never starts (JSON-RPC -32602).
    await assert.rejects(mcp.client.callTool({ name: 'verify', arguments: { request: valid(), check: 'ok' } }), {
      code: -32602,
      message: /exactly one of `check` and `request`/,
    });
  } finally {
    await mcp.close();
    repo.cleanup();
  }
});
