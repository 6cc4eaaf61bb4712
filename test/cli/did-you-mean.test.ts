/**
 * A typo is answered with the name it most likely meant: commands, flags, config keys and check ids
 * (exit 2, as every usage or config error). A word near no known name, or as near two of them, gets
 * no guess.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nearestName } from '../../src/text/suggest.js';
import { tempRepo, vkit } from '../_support/repo.js';

test('the nearest name, only when it is near and alone', () => {
  assert.equal(nearestName('biuld', ['build', 'gate', 'verify']), 'build');
  assert.equal(nearestName('timeout', ['id', 'run', 'timeout_s', 'inputs']), 'timeout_s');
  assert.equal(nearestName('frobnicate', ['build', 'gate']), undefined, 'too far');
  assert.equal(nearestName('ab', ['ac', 'ad']), undefined, 'two equally near: no guess');
});

test('commands, flags, config keys and check ids: exit 2 with a did-you-mean', () => {
  const repo = tempRepo({ 'a.txt': 'a\n' });
  try {
    repo.manifest({
      checks: [
        { id: 'lint', run: ['true'], inputs: ['a.txt'] },
        { id: 'unit', run: ['true'], inputs: ['a.txt'], after: ['lint'] },
      ],
    });
    const at = (args: string[]) => vkit(args, { cwd: repo.dir, env: { VKIT_DAEMON: '0' } });
    const typo = (args: string[], pattern: RegExp) => {
      const r = at(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout + r.stderr, pattern, args.join(' '));
    };
    typo(['biuld'], /unknown command `biuld` \(did you mean `build`\?\)/);
    typo(['run', 'shwo'], /unknown command `run shwo` \(did you mean `run show`\?\)/);
    typo(['build', '--forse'], /Unknown flag `--forse` \(did you mean `--force`\?\)/);
    typo(['build', '--only', 'lnt'], /got `lnt` \(did you mean `lint`\?\)/);
    typo(['build', '--only', 'check:lnt'], /\(did you mean `check:lint`\?\)/);
    typo(['verify', '--check', 'unti'], /got `unti` \(did you mean `unit`\?\)/);
    const far = at(['frobnicate']);
    assert.equal(far.code, 2);
    assert.doesNotMatch(far.stderr, /did you mean/);

    repo.manifest({
      checks: [
        { id: 'lint', run: ['true'], inputs: ['a.txt'], timeout: 5 },
        { id: 'unit', run: ['true'], inputs: ['a.txt'], after: ['lnt'] },
      ],
    });
    const r = at(['build', '--json']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    const issues = (JSON.parse(r.stdout) as { error: { issues: Array<{ path: string; message: string }> } }).error
      .issues;
    assert.ok(
      issues.some((i) => i.path === 'checks[0].timeout' && /did you mean `timeout_s`\?/.test(i.message)),
      JSON.stringify(issues),
    );

    repo.manifest({
      checks: [
        { id: 'lint', run: ['true'], inputs: ['a.txt'] },
        { id: 'unit', run: ['true'], inputs: ['a.txt'], after: ['lnt'] },
      ],
    });
    typo(['build'], /checks\[1\]\.after\[0\].*got `lnt` \(did you mean `lint`\?\)/s);
  } finally {
    repo.cleanup();
  }
});
