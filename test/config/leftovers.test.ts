/**
 * What a config leaves when its answer is taken (config/thread-leftovers.ts). A floating rejection
 * from a timer is the config's error (exit 2) whatever its delay, every time: the answer waits for
 * the config's timers, so it cannot depend on timing. A process the config started does not
 * outlive its evaluation, detached or not, nor a shell's background job; a config that runs a
 * command to its end (`execSync('git rev-parse HEAD')`) still works.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { storeDir } from '../_support/evidence.js';
import { tempRepo, vkit, type TempRepo } from '../_support/repo.js';
import { processGone, waitFor } from '../_support/wait.js';

const CHECK = `{ id: 'a', run: ['node', '-e', '0'], inputs: ['a.txt'] }`;
const config = (before: string) =>
  `import { defineConfig } from 'vkit';\n${before}\nexport default defineConfig({ checks: [${CHECK}] });\n`;

const cli = (repo: TempRepo, verb: string) =>
  vkit([verb, '--root', repo.dir, '--store', storeDir(repo)], { env: { VKIT_DAEMON: '0' }, timeoutMs: 60_000 });

for (const ms of [0, 50, 300]) {
  test(`a rejection from a timer at ${ms} ms: exit 2 on every run`, () => {
    const repo = tempRepo({
      'a.txt': 'a\n',
      'vkit.config.ts': config(`setTimeout(() => Promise.reject(new Error('late ${ms}')), ${ms});`),
    });
    try {
      for (let i = 0; i < 3; i++)
        for (const verb of ['gate', 'build']) {
          const r = cli(repo, verb);
          assert.equal(r.code, 2, `${verb} #${i}: ${r.stdout}${r.stderr}`);
          assert.match(r.stderr, new RegExp(`late ${ms}`));
        }
    } finally {
      repo.cleanup();
    }
  });
}

test('an interval and a timer past the time limit are cleared: the config answers at once', () => {
  const repo = tempRepo({
    'a.txt': 'a\n',
    'vkit.config.ts': config(
      `setInterval(() => Promise.reject(new Error('interval')), 1000);\nsetTimeout(() => Promise.reject(new Error('never')), 1e9);`,
    ),
  });
  try {
    const started = Date.now();
    const r = cli(repo, 'build');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.ok(Date.now() - started < 20_000);
  } finally {
    repo.cleanup();
  }
});

const started: Array<[string, string]> = [
  [
    'a detached child',
    `import { spawn } from 'node:child_process';\nimport { writeFileSync } from 'node:fs';\nconst child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });\nchild.unref();\nwriteFileSync(process.env.PID_FILE!, String(child.pid));`,
  ],
  [
    'a child with an environment of its own',
    `import { spawn } from 'node:child_process';\nimport { writeFileSync } from 'node:fs';\nconst child = spawn('sleep', ['300'], { stdio: 'ignore', env: {} });\nchild.unref();\nwriteFileSync(process.env.PID_FILE!, String(child.pid));`,
  ],
  [
    "a shell's background job",
    `import { execSync } from 'node:child_process';\nimport { writeFileSync } from 'node:fs';\nwriteFileSync(process.env.PID_FILE!, execSync('sleep 300 > /dev/null 2>&1 & echo $!', { encoding: 'utf8' }).trim());`,
  ],
];

for (const [name, before] of started) {
  test(`${name} started by the config does not outlive vkit; the config still answers`, async () => {
    const repo = tempRepo({ 'a.txt': 'a\n', 'vkit.config.ts': config(before) });
    const pidFile = join(repo.dir, '.git', 'child.pid');
    try {
      const r = vkit(['build', '--root', repo.dir, '--store', storeDir(repo)], {
        env: { VKIT_DAEMON: '0', PID_FILE: pidFile },
        timeoutMs: 60_000,
      });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const pid = Number(readFileSync(pidFile, 'utf8'));
      assert.ok(pid > 0);
      await waitFor(() => processGone(pid), 5_000, `process ${pid} gone`);
    } finally {
      repo.cleanup();
    }
  });
}

test('a config that runs git to its end still works', () => {
  const repo = tempRepo(
    {
      'a.txt': 'a\n',
      'vkit.config.ts': config(
        `import { execSync } from 'node:child_process';\nconst head = execSync('git rev-parse HEAD', { encoding: 'utf8' }).trim();\nif (!/^[0-9a-f]{40}$/.test(head)) throw new Error('no head: ' + head);`,
      ),
    },
    { commit: true },
  );
  try {
    const r = cli(repo, 'build');
    assert.equal(r.code, 0, r.stdout + r.stderr);
  } finally {
    repo.cleanup();
  }
});
