/**
 * `vkit acceptance render` through the real CLI: a view over documents that are not valid says so
 * at the top of the Markdown and on stderr (the verdict line and the first ten deciding findings),
 * and a cross-cutting requirement's floor is what its `[requirement.demands]` demand.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CliResult } from '../../_support/repo.js';
import { edit, rebind, TRIO_PATHS, type Trio, committedRepo } from '../../_support/acceptance-docs.js';

const { spec: SPEC, pkg: PKG, decision: DECISION } = TRIO_PATHS;

/** Runs each argument list over `make(the valid trio)` in one committed repository. */
function inRepo(make: (t: Trio) => Trio, ...runs: string[][]): CliResult[] {
  const repo = committedRepo(make);
  try {
    return runs.map((args) => repo.run(...args));
  } finally {
    repo.cleanup();
  }
}

/** WT-1 gains `count` keys the format does not know: each one an error. */
function withUnknownKeys(count: number): (t: Trio) => Trio {
  const keys = Array.from({ length: count }, (_, i) => `extra_${i + 1} = "x"`).join('\n');
  return (t) => rebind({ ...t, pkg: edit(t.pkg, 'clause = "R1"\n', `clause = "R1"\n${keys}\n`) });
}

const errorLines = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('ERROR '));

test('invalid documents: the verdict and the first 10 errors open the Markdown and go to stderr, then "(and N more)"', () => {
  const [render, pkg] = inRepo(withUnknownKeys(12), ['render', SPEC, PKG], ['check-package', PKG, '--spec', SPEC]);
  assert.equal(render!.code, 1, render!.stdout + render!.stderr);
  const errors = errorLines(pkg!.stdout);
  assert.ok(errors.length > 10, pkg!.stdout);
  const verdict = pkg!.stdout.trim().split('\n').at(-1)!;
  assert.match(
    verdict,
    /^INVALID acceptance\.toml against acceptance-specification\.toml \(\d+ errors, \d+ warnings?\)$/,
  );
  const more = `(and ${errors.length - 10} more)`;
  assert.equal(render!.stderr, `${[verdict, ...errors.slice(0, 10), more].join('\n')}\n`);
  const md = render!.stdout.split('\n');
  assert.match(md[0]!, /^# Acceptance: /);
  assert.deepEqual(md.slice(1, 16), [
    '',
    `**${verdict}**`,
    '',
    ...errors.slice(0, 10).map((e) => `- ${e}`),
    `- ${more}`,
    '',
  ]);
  // The view itself still prints below.
  assert.ok(render!.stdout.includes('| Requirement | Mandatory | Floor |'), render!.stdout);
});

test('at most 10 errors: no "(and N more)" line', () => {
  const [render] = inRepo(withUnknownKeys(1), ['render', SPEC, PKG]);
  assert.equal(render!.code, 1);
  assert.match(render!.stderr, /^INVALID acceptance\.toml against acceptance-specification\.toml /);
  assert.match(render!.stderr, /^ERROR acceptance\.toml: claim 'WT-1': unknown key 'extra_1' /m);
  assert.doesNotMatch(render!.stderr + render!.stdout, /\(and \d+ more\)/);
});

test('a stale decision: the decision verdict line and the stale error, on stderr and at the top', () => {
  const [render] = inRepo(
    (t) => ({ ...t, pkg: edit(t.pkg, 'acceptance.toml for slug().', 'acceptance.toml for slug()!') }),
    ['render', SPEC, PKG, DECISION],
  );
  assert.equal(render!.code, 1);
  const stderr = render!.stderr.trim().split('\n');
  assert.deepEqual(stderr.length, 2, render!.stderr);
  assert.equal(
    stderr[0],
    'DECISION STALE acceptance-decision.toml: stale: renewed decision required (1 error, 0 warnings)',
  );
  assert.match(
    stderr[1]!,
    /^ERROR acceptance-decision\.toml: stale: renewed decision required: the package acceptance\.toml changed since the decision /,
  );
  assert.ok(render!.stdout.includes(`**${stderr[0]}**\n\n- ${stderr[1]}\n`), render!.stdout);
});

test('valid documents: nothing on stderr, no verdict block', () => {
  const [render] = inRepo((t) => t, ['render', SPEC, PKG, DECISION]);
  assert.equal(render!.code, 0, render!.stdout + render!.stderr);
  assert.equal(render!.stderr, '');
  assert.doesNotMatch(render!.stdout, /^\*\*/m);
});

test('a cross-cutting requirement renders what its [requirement.demands] demand, over which requirements', () => {
  const crossCutting = `
[[requirement]]
id = "R3"
statement = "every claim of R1 is a weighted, witnessed probe"
mandatory = false
waivable = true
domain = "correctness"
clause_source = "consumer-statement"
kind = "cross-cutting"
over = ["R1"]

  [requirement.demands]
  min_tier = "T3"
  weighted_required = true
  control_required = true

  [requirement.demands.fields]
  bounds = "bounded"

  [requirement.demands.fields_exact]
  grade = "probe"
`;
  const [render] = inRepo(
    (t) =>
      rebind({
        ...t,
        spec: t.spec + crossCutting,
        pkg: edit(t.pkg, 'requirements_total = 2', 'requirements_total = 3'),
      }),
    ['render', SPEC, PKG],
  );
  assert.equal(render!.code, 0, render!.stdout + render!.stderr);
  const row = render!.stdout.split('\n').find((l) => l.startsWith('| R3 |'));
  assert.equal(
    row,
    "| R3 | no | over R1: T3, weighted, control, bounds starts 'bounded', grade = 'probe' | - | satisfied (WT-1) | - | - |",
  );
});
