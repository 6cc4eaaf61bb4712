/**
 * What vkit tells the holder of a 0.3 document must be true. A 0.3 specification or package is
 * converted with `vkit acceptance migrate`; a 0.3 decision cannot be (migrate refuses decisions,
 * exit 2), so the refusal of a 0.3 decision points at `vkit acceptance decide` instead, after the
 * specification and package are migrated. Real CLI, documents in a temp directory.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempRepo, vkit } from '../../_support/repo.js';
import { CHECK_DECISION, m11, TRIO_PATHS, validTrio, writeTrio } from '../../_support/acceptance-docs.js';

/** A decision as the 0.3.2 reference writes one (protocol `acceptance-protocol/0`). */
function decision03(spec: string, pkg: string): string {
  return `# A 0.3 decision.
[document]
protocol  = "acceptance-protocol/0"
kind      = "decision"
id        = "AD-OLD-0001"
issued_at = "2026-09-01T10:00:00Z"
issuer    = "Example Consumer / platform-lead"
verdict   = "accepted"

[binds]
contract = { id = "AS-TEST-0001", hash = "${m11('contract', spec)}" }
package  = { hash = "${m11('manifest', pkg)}" }
`;
}

/** The trio's 0.4 specification and package beside a 0.3 decision. */
function withOldDecision() {
  const trio = validTrio();
  const repo = tempRepo({}, { git: false });
  writeTrio(repo.dir, { ...trio, decision: decision03(trio.spec, trio.pkg) });
  return repo;
}

const checkDecision = (dir: string, ...extra: string[]) => vkit([...CHECK_DECISION, '--root', dir, ...extra]);

test('check-decision on a 0.3 decision says it cannot be migrated and names decide, never migrate as its conversion', () => {
  const repo = withOldDecision();
  try {
    const r = checkDecision(repo.dir);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /^vkit: acceptance-decision\.toml: an acceptance 0\.3 decision/);
    assert.match(r.stderr, /A 0\.3 decision cannot be migrated/);
    assert.match(r.stderr, /issue a new 0\.4 decision with `vkit acceptance decide`/);
    assert.doesNotMatch(r.stderr, /Convert it with/);
    // The hint is true: migrate does refuse the decision.
    const migrate = vkit(['acceptance', 'migrate', TRIO_PATHS.decision, '--root', repo.dir]);
    assert.equal(migrate.code, 2, migrate.stderr);
    assert.match(migrate.stderr, /migrate never rewrites a decision/);
    // The same refusal, as JSON, carries the same message; render refuses the same way.
    const json = checkDecision(repo.dir, '--json').json();
    assert.equal(json.error.code, 'ERR_ACCEPTANCE_VERSION');
    assert.match(json.error.message, /vkit acceptance decide/);
    const render = vkit([
      'acceptance',
      'render',
      TRIO_PATHS.spec,
      TRIO_PATHS.pkg,
      TRIO_PATHS.decision,
      '--root',
      repo.dir,
    ]);
    assert.equal(render.code, 2, render.stdout + render.stderr);
    assert.match(render.stderr, /A 0\.3 decision cannot be migrated/);
  } finally {
    repo.cleanup();
  }
});

test('a 0.3 specification or package still points at migrate', () => {
  const trio = validTrio();
  const repo = tempRepo({}, { git: false });
  try {
    writeTrio(repo.dir, {
      ...trio,
      spec: trio.spec.replace('protocol = "acceptance-protocol/0.4"', 'protocol = "acceptance-protocol/0"'),
    });
    const r = checkDecision(repo.dir);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /^vkit: acceptance-specification\.toml: an acceptance 0\.3 document/);
    assert.match(r.stderr, /Convert it with `vkit acceptance migrate acceptance-specification\.toml`/);
    assert.doesNotMatch(r.stderr, /vkit acceptance decide/);
  } finally {
    repo.cleanup();
  }
});

test('the help of check-decision and render says what happens to each kind of 0.3 document', () => {
  for (const verb of ['check-decision', 'render']) {
    const r = vkit(['acceptance', verb, '--help']);
    assert.equal(r.code, 0, r.stderr);
    const text = r.stdout.replace(/\s+/g, ' ');
    assert.match(text, /a 0\.3 specification or package: convert it with vkit acceptance migrate/, verb);
    assert.match(text, /a 0\.3 decision cannot be migrated: issue a new one with vkit acceptance decide/, verb);
  }
});

test('the 0.3 refusal is one message: the file as its location, `vkit acceptance migrate FILE` in it, no hint line', () => {
  const trio = validTrio();
  const repo = tempRepo({}, { git: false });
  try {
    writeTrio(repo.dir, { ...trio, pkg: trio.pkg.replace('id = "acceptance/0.4"', 'id = "acceptance/0.3"') });
    for (const args of [
      ['acceptance', 'check', TRIO_PATHS.pkg],
      ['acceptance', 'check-package', TRIO_PATHS.pkg, '--spec', TRIO_PATHS.spec],
    ]) {
      const r = vkit([...args, '--root', repo.dir]);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      const lines = r.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, `one line: ${r.stderr}`);
      assert.match(
        lines[0]!,
        /^vkit: acceptance\.toml: an acceptance 0\.3 document, and this vkit checks 0\.4\.0 only\. Convert it with `vkit acceptance migrate acceptance\.toml` /,
      );
      assert.doesNotMatch(lines[0]!, /acceptance\.toml: acceptance\.toml/, 'the file is not named twice in a row');
    }
  } finally {
    repo.cleanup();
  }
});
