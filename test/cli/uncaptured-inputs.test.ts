/**
 * Inputs a check reads but its key would not see (issue 14): a glob that selects a file vkit will not
 * capture (secret-looking, git-ignored, inside a git-ignored directory, a link whose target the
 * inputs do not hold, a special file) is a config error, exit 2, naming each file, why, and the `!`
 * glob that excludes it; once the inputs exclude it explicitly the config is valid. Before, such a
 * file was silently left out of the capture while the check still read it, so editing it left the
 * gate READY. Real git repositories, the real CLI.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../_support/evidence.js';
import { nodeCheck, tempRepo, vkit, type TempRepo } from '../_support/repo.js';

/** A check that reads every file its argv names (so each one truly matters to its verdict). */
const reads = (...paths: string[]) =>
  nodeCheck(`for (const p of ${JSON.stringify(paths)}) require('fs').readFileSync(p)`);

function configError(repo: TempRepo, verb = 'build') {
  const r = cli(repo, [verb]);
  assert.equal(r.code, 2, `${verb} must refuse the config (exit 2), got ${r.code}\n${r.stdout}${r.stderr}`);
  assert.match(r.stderr, /hint: .*`!` glob/);
  return r.stderr;
}

test('a glob selecting a secret-looking file is exit 2 naming it; `!path` excludes it explicitly', () => {
  const repo = tempRepo({ 'config/app.json': '{}\n', 'config/app.key': 'k1\n' });
  try {
    repo.manifest({ checks: [{ id: 'cfg', run: reads('config/app.json', 'config/app.key'), inputs: ['config/*'] }] });
    for (const verb of ['build', 'gate']) {
      const err = configError(repo, verb);
      assert.match(
        err,
        /vkit\.manifest\.json checks\[0\]\.inputs\[0\]: `config\/\*` selects what vkit will not capture/,
      );
      assert.match(err, /`config\/app\.key` \(secret-looking/);
      assert.match(err, /`!config\/app\.key`/);
    }
    repo.manifest({
      checks: [{ id: 'cfg', run: reads('config/app.json', 'config/app.key'), inputs: ['config/*', '!config/app.key'] }],
    });
    const ok = cli(repo, ['build']);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  } finally {
    repo.cleanup();
  }
});

test('the exclusion suggested for a name holding glob characters excludes exactly that file', () => {
  const repo = tempRepo({ 'config/app.json': '{}\n', 'config/a[1].key': 'k\n', 'config/a1.key.txt': 'not a key\n' });
  try {
    repo.manifest({ checks: [{ id: 'cfg', run: reads('config/app.json'), inputs: ['config/*'] }] });
    assert.match(configError(repo), /`config\/a\[1\]\.key` \(secret-looking.*`!config\/a\[\[\]1\]\.key`/);
    repo.manifest({
      checks: [{ id: 'cfg', run: reads('config/app.json'), inputs: ['config/*', '!config/a[[]1].key'] }],
    });
    const ok = cli(repo, ['build', '--json']);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  } finally {
    repo.cleanup();
  }
});

test('a glob selecting a git-ignored file is exit 2 naming it; editing it can no longer leave a READY standing', () => {
  const repo = tempRepo({
    '.gitignore': '*.local.json\n',
    'config/app.json': '{}\n',
    'config/db.local.json': '{"port": 1}\n',
  });
  try {
    repo.manifest({
      checks: [{ id: 'cfg', run: reads('config/app.json', 'config/db.local.json'), inputs: ['config/*.json'] }],
    });
    const err = configError(repo);
    assert.match(err, /checks\[0\]\.inputs\[0\]: `config\/\*\.json` selects what vkit will not capture/);
    assert.match(err, /`config\/db\.local\.json` \(git-ignored\)/);
    assert.match(err, /`!config\/db\.local\.json`/);
    assert.match(err, /stop ignoring/);
    // A literal path to an ignored file says the same (it used to say "matches no file").
    repo.manifest({ checks: [{ id: 'cfg', run: reads('config/db.local.json'), inputs: ['config/db.local.json'] }] });
    assert.match(configError(repo), /`config\/db\.local\.json` \(git-ignored\)/);
  } finally {
    repo.cleanup();
  }
});

test('a glob that can reach into a git-ignored directory needs `!dir/**`; a glob that cannot reach it does not', () => {
  const repo = tempRepo({
    '.gitignore': 'node_modules/\ndist/\n',
    'src/a.ts': 'export {};\n',
    'README.md': 'r\n',
    'node_modules/pkg/index.d.ts': 'export {};\n',
    'dist/a.js': 'x\n',
  });
  try {
    repo.manifest({ checks: [{ id: 'ts', run: reads('src/a.ts'), inputs: ['**/*.ts'] }] });
    const err = configError(repo);
    assert.match(err, /`\*\*\/\*\.ts` selects what vkit will not capture/);
    assert.match(err, /`dist\/` \(git-ignored directory\), `node_modules\/` \(git-ignored directory\)/);
    assert.match(err, /`!dist\/\*\*`, `!node_modules\/\*\*`/);
    // Directories count whatever they hold now: dist/ has no .ts file, yet one could appear there unseen.
    for (const inputs of [
      ['**/*.ts', '!node_modules/**', '!dist/**'],
      ['**/*.ts', '!**/node_modules/**', '!dist/**'],
      ['src/**/*.ts', '*.md'], // neither can match a path inside node_modules/ or dist/
      ['{src/**/*.ts,*.md}'],
    ]) {
      repo.manifest({ checks: [{ id: 'ts', run: reads('src/a.ts'), inputs }] });
      const ok = cli(repo, ['build']);
      assert.equal(ok.code, 0, `${JSON.stringify(inputs)}: ${ok.stdout}${ok.stderr}`);
    }
    // An exclusion narrower than the whole directory does not count: vkit cannot look inside it.
    repo.manifest({
      checks: [{ id: 'ts', run: reads('src/a.ts'), inputs: ['**/*.ts', '!node_modules/**/*.ts', '!dist/**'] }],
    });
    assert.match(configError(repo), /`node_modules\/` \(git-ignored directory\)/);
  } finally {
    repo.cleanup();
  }
});

test('with --root in a subdirectory of the repository, ignored paths are read relative to the root and only below it', () => {
  const repo = tempRepo({
    '.gitignore': 'node_modules/\n*.local.json\n',
    'node_modules/dep/x.ts': 'x\n',
    'app/src/a.ts': 'export {};\n',
    'app/config/db.local.json': '{}\n',
    'app/config/app.json': '{}\n',
  });
  try {
    const root = join(repo.dir, 'app');
    const run = (inputs: string[]) => {
      repo.write('app/vkit.manifest.json', JSON.stringify({ checks: [{ id: 'c', run: reads('src/a.ts'), inputs }] }));
      return vkit(['build', '--root', root, '--store', join(repo.dir, '.git', 'vkit')], { cwd: root });
    };
    // The repository's top-level node_modules/ is not under this root: `**/*.ts` cannot reach it.
    const ok = run(['**/*.ts']);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    const bad = run(['**/*.ts', 'config/*']);
    assert.equal(bad.code, 2, bad.stdout + bad.stderr);
    assert.match(
      bad.stderr,
      /checks\[0\]\.inputs\[1\]: `config\/\*` selects what vkit will not capture.*`config\/db\.local\.json` \(git-ignored\)/,
    );
    assert.doesNotMatch(bad.stderr, /node_modules|app\//);
  } finally {
    repo.cleanup();
  }
});

test('the list is capped per glob: five named, then how many more; each glob reports its own', () => {
  const files: Record<string, string> = {
    '.gitignore': '*.log\n',
    'logs/keep.txt': 'k\n',
    'other/keep.txt': 'k\n',
    'other/x.log': 'x\n',
  };
  for (let i = 1; i <= 8; i++) files[`logs/run${i}.log`] = `${i}\n`;
  const repo = tempRepo(files);
  try {
    repo.manifest({ checks: [{ id: 'logs', run: reads('logs/keep.txt'), inputs: ['logs/*', 'other/*'] }] });
    const err = configError(repo);
    assert.match(
      err,
      /checks\[0\]\.inputs\[0\]: .*`logs\/run1\.log` \(git-ignored\), `logs\/run2\.log` .*`logs\/run5\.log` \(git-ignored\), and 3 more\./,
    );
    assert.doesNotMatch(err, /run6\.log/);
    assert.match(err, /checks\[0\]\.inputs\[1\]: .*`other\/x\.log` \(git-ignored\)\./);
  } finally {
    repo.cleanup();
  }
});

test('an input link whose target the inputs do not capture is exit 2; capturing the target, or excluding the link, is valid', () => {
  const repo = tempRepo({ 'data/a.txt': 'a\n', 'shared/b.txt': 'b1\n', 'shared/dir/c.txt': 'c\n' });
  try {
    symlinkSync('../shared/b.txt', join(repo.dir, 'data/b.txt'));
    const check = (inputs: string[]) =>
      repo.manifest({ checks: [{ id: 'data', run: reads('data/a.txt', 'data/b.txt'), inputs }] });
    check(['data/*']);
    for (const verb of ['build', 'gate']) {
      const err = configError(repo, verb);
      assert.match(err, /checks\[0\]\.inputs\[0\]: `data\/\*` selects what vkit will not capture/);
      assert.match(
        err,
        /`data\/b\.txt` \(a symbolic link to `\.\.\/shared\/b\.txt`, which these inputs do not capture\)/,
      );
      assert.match(err, /`!data\/b\.txt`/);
    }
    // With the target among the inputs the key covers the bytes read through the link.
    check(['data/*', 'shared/b.txt']);
    const first = cli(repo, ['build', '--json']);
    assert.equal(first.code, 0, first.stderr);
    repo.write('shared/b.txt', 'b2\n');
    const second = cli(repo, ['build', '--json']);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.json().actions[0].status, 'ran', 'an edit of the target reruns the check');
    // Excluding the link explicitly is the config's own statement.
    check(['data/*', '!data/b.txt']);
    assert.equal(cli(repo, ['build']).code, 0);

    // A link to a directory, or out of the root, can never be a captured path.
    rmSync(join(repo.dir, 'data/b.txt'));
    symlinkSync('../shared/dir', join(repo.dir, 'data/b.txt'));
    check(['data/*', 'shared/**']);
    assert.match(
      configError(repo),
      /`data\/b\.txt` \(a symbolic link to `\.\.\/shared\/dir`, which these inputs do not capture\)/,
    );
    rmSync(join(repo.dir, 'data/b.txt'));
    symlinkSync('/etc/hostname', join(repo.dir, 'data/b.txt'));
    assert.match(configError(repo), /`data\/b\.txt` \(a symbolic link to `\/etc\/hostname`, outside the root\)/);
  } finally {
    repo.cleanup();
  }
});

test("a special file among a check's inputs is a config error (exit 2) naming it, not a BLOCKED item; `!path` excludes it", () => {
  // git lists a tracked path replaced by a fifo; a tree without git lists the fifo itself.
  for (const useGit of [true, false]) {
    const repo = tempRepo({ 'data/a.txt': 'a\n', 'data/pipe': 'was a file\n' }, { git: useGit });
    try {
      if (useGit) repo.commitAll();
      rmSync(join(repo.dir, 'data/pipe'));
      execFileSync('mkfifo', [join(repo.dir, 'data/pipe')]);
      repo.manifest({ checks: [{ id: 'data', run: reads('data/a.txt'), inputs: ['data/*'] }] });
      const err = configError(repo);
      assert.match(err, /checks\[0\]\.inputs\[0\]: .*`data\/pipe` \(a fifo\)/, `git: ${useGit}`);
      assert.match(err, /`!data\/pipe`/);
      repo.manifest({ checks: [{ id: 'data', run: reads('data/a.txt'), inputs: ['data/*', '!data/pipe'] }] });
      const ok = cli(repo, ['build']);
      assert.equal(ok.code, 0, `git: ${useGit}: ${ok.stdout}${ok.stderr}`);
    } finally {
      repo.cleanup();
    }
  }
});

test('`vkit init` writes a config that excludes the ignored directories its globs reach, and says why', () => {
  const repo = tempRepo({
    '.gitignore': 'node_modules/\ncoverage/\n',
    'package.json': '{"scripts":{"test":"node -e 0"}}\n',
    'index.js': 'module.exports = 1;\n',
    'node_modules/dep/index.js': 'x\n',
    'coverage/lcov.json': '{}\n',
  });
  try {
    const init = vkit(['init', '--root', repo.dir], { cwd: repo.dir });
    assert.equal(init.code, 0, init.stderr);
    const text = execFileSync('cat', [join(repo.dir, 'vkit.config.ts')], { encoding: 'utf8' });
    assert.match(text, /'!\*\*\/coverage\/\*\*'/);
    assert.match(text, /'!\*\*\/node_modules\/\*\*'/);
    assert.match(text, /\/\/ .*git-ignored.*`!`/s);
    const gate = cli(repo, ['gate']);
    assert.equal(
      gate.code,
      3,
      `a valid config with no evidence yet is BLOCKED, not a config error: ${gate.stdout}${gate.stderr}`,
    );
  } finally {
    repo.cleanup();
  }
});
