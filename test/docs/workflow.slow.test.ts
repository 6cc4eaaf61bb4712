/**
 * The README's GitHub Actions workflow runs here as a script: each `run:` step in order in a project
 * with a passing and a failing check, `npx vkit` being the built CLI and `$GITHUB_STEP_SUMMARY` a
 * file, the `if: always()` steps after a failing one as GitHub runs them. What cannot run here is
 * named exactly (the actions, the project's install and the runner's machine setup): a step added
 * to the README fails this test until it runs here or is named.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { nodeCheck, REPO_ROOT, tempRepo, VKIT_BIN } from '../_support/repo.js';
import { sarifErrors } from '../_support/sarif.js';
import { awaitWorkersGoneSync } from '../_support/wait.js';

/** Steps of the workflow that only a GitHub runner has: actions, the project's own install, the runner's setup. */
const NOT_HERE = [
  'uses: actions/checkout@v4',
  'uses: actions/setup-node@v4',
  'run: npm ci',
  'run: sudo apt-get install -y bubblewrap',
  'run: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0',
  'uses: github/codeql-action/upload-sarif@v3',
  'uses: actions/upload-artifact@v4',
];

interface Step {
  line: string;
  always: boolean;
}

/** The workflow's steps, from the README's YAML block under its GitHub Actions heading. */
function workflowSteps(readme: string): Step[] {
  const section = readme.slice(readme.indexOf('## In CI: GitHub Actions'));
  const yaml = section.slice(section.indexOf('```yaml') + 7, section.indexOf('```', section.indexOf('```yaml') + 7));
  const steps: Step[] = [];
  let always = false;
  for (const raw of yaml.split('\n')) {
    const line = raw.trim().replace(/^- /, '');
    if (line === 'if: always()') always = true;
    else if (line.startsWith('run: ') || line.startsWith('uses: ')) {
      steps.push({ line, always });
      always = false;
    }
  }
  return steps;
}

test("the README's GitHub Actions workflow runs as a script: gate summary, SARIF that validates, the HTML report", () => {
  const steps = workflowSteps(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
  assert.deepEqual(
    steps.filter((s) => NOT_HERE.includes(s.line)).map((s) => s.line),
    NOT_HERE,
    'every step this test does not run is one a GitHub runner alone has',
  );
  const repo = tempRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', '.gitignore': 'vkit.sarif\nvkit-report/\n' });
  try {
    repo.age('a.txt');
    repo.age('b.txt');
    repo.manifest({
      checks: [
        { id: 'fine', run: nodeCheck('0'), inputs: ['a.txt'] },
        { id: 'broken', run: nodeCheck("console.error('AssertionError: 1 !== 2');process.exit(1)"), inputs: ['b.txt'] },
      ],
    });
    const bin = join(repo.dir, '.bin');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'npx'),
      `#!/bin/sh\n[ "$1" = vkit ] || exit 127\nshift\nexec "${process.execPath}" "${VKIT_BIN}" "$@"\n`,
    );
    chmodSync(join(bin, 'npx'), 0o755);
    repo.write('.git/info/exclude', '.bin/\n');
    const summary = join(repo.dir, '.git', 'step-summary.md');
    // A failing step fails the job: later steps run only with `if: always()`, as on GitHub.
    let failed = false;
    const exits: Record<string, number | null> = {};
    for (const step of steps) {
      if (NOT_HERE.includes(step.line) || (failed && !step.always)) continue;
      const command = step.line.slice('run: '.length);
      const r = spawnSync('bash', ['-e', '-c', command], {
        cwd: repo.dir,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, GITHUB_STEP_SUMMARY: summary, NO_COLOR: '1' },
        timeout: 120_000,
      });
      exits[command] = r.status;
      if (r.status !== 0) failed = true;
    }
    assert.equal(exits['npx vkit build'], 1, 'the build step carries the verdict: REJECTED fails the job');
    assert.ok(
      Object.entries(exits).every(([c, code]) => c === 'npx vkit build' || code === 0),
      JSON.stringify(exits),
    );
    assert.match(readFileSync(summary, 'utf8'), /REJECTED/);
    assert.match(readFileSync(summary, 'utf8'), /check:broken/);
    const sarif = JSON.parse(readFileSync(join(repo.dir, 'vkit.sarif'), 'utf8'));
    assert.equal(sarifErrors(sarif), undefined);
    assert.ok(sarif.runs[0].results.some((r: { ruleId: string }) => r.ruleId === 'check:broken'));
    const page = join(repo.dir, 'vkit-report', 'index.html');
    assert.ok(existsSync(page), 'the report step wrote the page the artifact step uploads');
    assert.match(readFileSync(page, 'utf8'), /REJECTED/);
  } finally {
    awaitWorkersGoneSync(repo.dir);
    repo.cleanup();
  }
});
