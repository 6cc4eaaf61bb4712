/**
 * A huge value in an acceptance document is never echoed whole: a 5 MB requirement id appears in
 * many messages (check-decision echoes it once per finding), in the coverage lines and in the
 * render's table, and each echo is cut to 200 characters with an ellipsis and the value's full
 * length. Also: render's floor column names every floor it shows, `recipe_required` included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clip, clipRuns } from '../../../rules/accept/lib/report.js';
import { tempRepo, vkit } from '../../_support/repo.js';
import {
  CHECK_DECISION,
  edit,
  rebind,
  TREE_FLAG,
  TRIO_PATHS,
  validTrio,
  writeTrio,
} from '../../_support/acceptance-docs.js';

const HUGE = 5 * 1024 * 1024;
const { spec: SPEC, pkg: PKG, decision: DECISION } = TRIO_PATHS;

test('a 5 MB requirement id: every verb prints a few kilobytes, each echo cut with its length', () => {
  const t = validTrio();
  const id = 'R'.repeat(HUGE);
  // R2 gets the huge id; the package and the decision still name R2, so both report it.
  const trio = rebind({ ...t, spec: edit(t.spec, 'id = "R2"', `id = "${id}"`) });
  const repo = tempRepo();
  try {
    writeTrio(repo.dir, trio);
    const runs = {
      'check-spec': ['acceptance', 'check-spec', SPEC],
      coverage: ['acceptance', 'coverage', PKG, '--spec', SPEC, ...TREE_FLAG('.')],
      render: ['acceptance', 'render', SPEC, PKG, DECISION, ...TREE_FLAG('.')],
      'check-decision': [...CHECK_DECISION, ...TREE_FLAG('.')],
    };
    let echoed = 0;
    for (const [verb, args] of Object.entries(runs)) {
      const r = vkit([...args, '--root', repo.dir]);
      assert.notEqual(r.code, null, `${verb} finished`);
      assert.ok(r.stdout.length + r.stderr.length < 20_000, `${verb}: ${r.stdout.length + r.stderr.length} characters`);
      const cuts = (r.stdout + r.stderr).match(/R{150,}… \((\d+) characters\)/g) ?? [];
      for (const cut of cuts)
        assert.match(cut, new RegExp(`… \\(${HUGE} characters\\)$`), `${verb}: the id's own length`);
      echoed += cuts.length;
    }
    assert.ok(echoed >= 4, `the id is echoed (cut) by the verbs: ${echoed}`);
  } finally {
    repo.cleanup();
  }
});

test('clip: runs over 200 characters are cut with the length; quotes stay outside; cutting twice changes nothing', () => {
  const long = 'x'.repeat(1_000);
  const once = clipRuns(`requirement '${long}': no claim`);
  assert.match(once, /^requirement 'x+… \(1000 characters\)': no claim$/);
  assert.equal(clipRuns(once), once, 'idempotent');
  assert.ok(once.length < 260);
  const spaced = clip('a b '.repeat(10_000));
  assert.ok(spaced.length <= 2_000, `a long message with blanks is cut too: ${spaced.length}`);
  assert.match(spaced, /… \(40000 characters\)$/);
  assert.equal(clip(spaced), spaced, 'idempotent');
  assert.equal(clip('short'), 'short');
  // A surrogate pair is never split.
  const emoji = clipRuns('😀'.repeat(300));
  assert.doesNotMatch(emoji, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
});

test('render: the floor column names recipe_required', () => {
  const t = validTrio();
  const trio = rebind({
    ...t,
    spec: edit(t.spec, '  methods = ["unit-test"]\n', '  methods = ["unit-test"]\n  recipe_required = true\n'),
  });
  const repo = tempRepo();
  try {
    writeTrio(repo.dir, trio);
    const r = vkit(['acceptance', 'render', SPEC, PKG, DECISION, ...TREE_FLAG('.'), '--root', repo.dir]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const row = r.stdout.split('\n').find((l) => l.startsWith('| R1 |'));
    assert.ok(row, r.stdout);
    assert.match(row, /\| T3, weighted, recipe, fresh, methods unit-test \|/);
    const r2 = r.stdout.split('\n').find((l) => l.startsWith('| R2 |'));
    assert.doesNotMatch(r2!, /recipe/, 'R2 has no recipe floor');
  } finally {
    repo.cleanup();
  }
});
