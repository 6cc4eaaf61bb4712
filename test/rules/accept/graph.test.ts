/**
 * The acceptance graph (lib/graph.ts): an acceptance item expands into one `accept` node
 * per library of its stack and, with `run_commands`, one `self-verify` node per claim.
 *
 * - paint-stack (a copy of examples/paint-stack in a real git repository, documents re-stamped by
 *   the example's own restamp.mjs): each library is a required gate item; editing one library's
 *   byte re-checks that library and its dependents only, and they name it; a registry crate leaves
 *   the app BLOCKED, never PASS.
 * - run_commands: each claim's self_verify is a cached check keyed by the whole subject root; the
 *   outcome mapping, the action's environment, and the record's dependency on its runs.
 * - examples/weighted-toy as vkit.config.ts declares it (the repository's own dogfood).
 *
 * Decisions in the paint-stack copy are given long validity (and re-stamped) so the test does not
 * depend on the day it runs: effect is judged at every gate evaluation with today's date.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli } from '../../_support/evidence.js';
import { REPO_ROOT, tempRepo, type CliResult, type TempRepo } from '../../_support/repo.js';
import {
  acceptanceRepo,
  edit,
  LASTING,
  rebind,
  SLUG_SUBJECT,
  validTrio,
  writeTrio,
} from '../../_support/acceptance-docs.js';

type Item = { id: string; status: string; reason: string; required: boolean };
type Action = { label: string; status: string; outcome: string; reason: string | null };
const items = (r: CliResult): Item[] => r.json().gate.items;
const itemOf = (r: CliResult, id: string) => items(r).find((i) => i.id === id);
const actionOf = (r: CliResult, label: string): Action | undefined =>
  r.json().actions.find((a: Action) => a.label === label);

describe('paint-stack: one accept node per library', () => {
  const EX = 'examples/paint-stack';
  const APP = `${EX}/paint-app`;
  const STORE = `${EX}/store/ochre-accepted`;
  const APP_ITEM = 'accept:paint';
  const GEOM = 'accept:paint/geom-math';
  const RASTER = 'accept:paint/raster-draw';
  let repo: TempRepo;

  const read = (rel: string) => readFileSync(join(repo.dir, rel), 'utf8');
  const write = (rel: string, text: string) => writeFileSync(join(repo.dir, rel), text);
  const change = (rel: string, from: string | RegExp, to: string) => {
    const text = read(rel);
    const next = text.replace(from, to);
    assert.notEqual(next, text, `edit of ${rel} matched nothing`);
    write(rel, next);
  };
  const restamp = (...args: string[]) =>
    execFileSync(process.execPath, ['restamp.mjs', ...args], { cwd: join(repo.dir, EX) });
  /** Runs a change, then puts every file back as committed. */
  const withChange = (doChange: () => void, body: () => void) => {
    try {
      doChange();
      body();
    } finally {
      repo.git('checkout', '-q', '--', '.');
      repo.git('clean', '-fdq', '--', EX);
    }
  };
  const build = () => cli(repo, ['build', '--json']);

  before(() => {
    repo = tempRepo();
    cpSync(join(REPO_ROOT, EX), join(repo.dir, EX), { recursive: true, filter: (src) => !src.includes('/target') });
    const docDirs = [APP, ...readdirSync(join(repo.dir, STORE)).map((lib) => `${STORE}/${lib}`)];
    for (const dir of docDirs) {
      change(`${dir}/acceptance-specification.toml`, /stale_after(\s*)=(\s*)"P\d+D"/, 'stale_after$1=$2"P36500D"');
      change(`${dir}/acceptance-decision.toml`, /stale_after = "\d{4}-\d{2}-\d{2}"/, 'stale_after = "2098-01-01"');
    }
    repo.commitAll('crates');
    restamp('--commit', 'HEAD');
    const commit = repo.git('rev-parse', 'HEAD').trim();
    repo.manifest({
      acceptance: [
        {
          id: 'paint',
          spec: `${APP}/acceptance-specification.toml`,
          package: `${APP}/acceptance-package.toml`,
          decision: `${APP}/acceptance-decision.toml`,
          acceptors: { 'ochre-accepted': STORE },
          tree: `${commit}=.`,
        },
      ],
    });
    repo.commitAll('documents');
  });
  after(() => repo.cleanup());

  test('each library of the closure is a required accept item; the stack is READY, then fully cached', () => {
    const first = build();
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.equal(first.json().gate.status, 'READY');
    for (const id of [APP_ITEM, RASTER, GEOM]) {
      assert.equal(itemOf(first, id)?.status, 'PASS', `${id}: ${JSON.stringify(itemOf(first, id))}`);
      assert.equal(itemOf(first, id)?.required, true, id);
      assert.equal(actionOf(first, id)?.status, 'ran', id);
    }
    assert.deepEqual(
      items(first)
        .filter((i) => i.id.startsWith('accept:'))
        .map((i) => i.id)
        .sort(),
      [APP_ITEM, GEOM, RASTER].sort(),
    );
    const second = build();
    for (const id of [APP_ITEM, RASTER, GEOM]) assert.equal(actionOf(second, id)?.status, 'cached', id);
  });

  test('one byte of geom-math: geom-math and its dependents re-check and name it; raster-draw edited instead: geom-math stays cached', () => {
    assert.equal(build().code, 0);
    withChange(
      () => change(`${EX}/crates/geom-math/src/lib.rs`, 'never negative', 'never  negative'),
      () => {
        const r = build();
        assert.equal(r.json().gate.status, 'REJECTED', r.stdout);
        assert.equal(actionOf(r, GEOM)?.status, 'failed');
        assert.equal(itemOf(r, GEOM)?.status, 'FAIL');
        assert.match(itemOf(r, GEOM)!.reason, /geom-math/);
        // Its dependents are not PASS, and say which library is at the root of it.
        for (const id of [RASTER, APP_ITEM]) {
          assert.equal(itemOf(r, id)?.status, 'BLOCKED', id);
          assert.match(itemOf(r, id)!.reason, /dependency accept:paint\/geom-math is FAIL/, id);
        }
      },
    );
    withChange(
      () => change(`${EX}/crates/raster-draw/src/lib.rs`, /\n$/, '\n\n'),
      () => {
        const r = build();
        assert.equal(actionOf(r, GEOM)?.status, 'cached', 'a library below the edit is not re-checked');
        assert.equal(itemOf(r, GEOM)?.status, 'PASS');
        assert.equal(actionOf(r, RASTER)?.status, 'failed');
        assert.match(itemOf(r, RASTER)!.reason, /raster-draw/);
        assert.equal(itemOf(r, APP_ITEM)?.status, 'BLOCKED');
        assert.match(itemOf(r, APP_ITEM)!.reason, /dependency accept:paint\/raster-draw is FAIL/);
        assert.notEqual(r.json().gate.status, 'READY');
      },
    );
    // Put back as committed: the earlier evidence is current again.
    const back = build();
    assert.equal(back.json().gate.status, 'READY');
    for (const id of [APP_ITEM, RASTER, GEOM]) assert.equal(actionOf(back, id)?.status, 'cached', id);
  });

  test('a removed library decision: that library fails naming its store entry, the app is blocked on it', () => {
    withChange(
      () => execFileSync('rm', [join(repo.dir, STORE, 'geom-math', 'acceptance-decision.toml')]),
      () => {
        const r = build();
        assert.notEqual(r.json().gate.status, 'READY');
        // Without its documents geom-math has no node of its own; raster-draw's own check names it.
        assert.equal(itemOf(r, GEOM), undefined);
        assert.equal(itemOf(r, RASTER)?.status, 'FAIL');
        assert.match(itemOf(r, RASTER)!.reason, /geom-math/);
        assert.equal(itemOf(r, APP_ITEM)?.status, 'BLOCKED');
      },
    );
  });

  test('a registry crate in Cargo.lock: the app is BLOCKED (indeterminate), never PASS, and no library stands in for it', () => {
    withChange(
      () => {
        change(
          `${EX}/Cargo.lock`,
          /name = "geom-math"\nversion = "0.1.0"\n/,
          'name = "geom-math"\nversion = "0.1.0"\ndependencies = [\n "libm",\n]\n',
        );
        write(
          `${EX}/Cargo.lock`,
          read(`${EX}/Cargo.lock`) +
            '\n[[package]]\nname = "libm"\nversion = "0.2.15"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "f9fbbcab0aa80ef1c66a3b04b44b0d4d36b1da5e4a0e1c4d4ab7a1b5e6ea5c0f"\n',
        );
      },
      () => {
        const r = build();
        assert.equal(r.code, 3, r.stdout);
        assert.equal(r.json().gate.status, 'BLOCKED');
        assert.equal(itemOf(r, APP_ITEM)?.status, 'BLOCKED');
        assert.match(itemOf(r, APP_ITEM)!.reason, /indeterminate: .*libm/);
        assert.ok(
          !items(r).some((i) => i.status === 'PASS' && i.id.startsWith(`${APP_ITEM}/`)),
          JSON.stringify(items(r)),
        );
      },
    );
  });

  test('an element declared outside the checked boundary gets no node and is never accepted', () => {
    withChange(
      () => {
        change(
          `${APP}/acceptance-package.toml`,
          /(name {4}= "geom-math"[\s\S]*?binding = "[^"]*")/,
          '$1\n  boundary = "vendored; audited outside this stack"',
        );
        restamp();
      },
      () => {
        const r = build();
        assert.equal(r.code, 0, r.stdout + r.stderr);
        assert.equal(itemOf(r, GEOM), undefined, 'no acceptance is asked of a boundary element');
        assert.equal(itemOf(r, RASTER)?.status, 'PASS');
        assert.equal(itemOf(r, APP_ITEM)?.status, 'PASS');
      },
    );
  });
});

describe('run_commands: one cached self-verify node per claim', () => {
  const TEST = 'acc/subject/test/slug-test.js';
  const RUN1 = 'accept:slug/run:WT-1';
  const RUN2 = 'accept:slug/run:WT-2';

  /** A committed subject holding the claims' test script, a trio bound to it, run_commands on. */
  function setup(): TempRepo {
    const script = validTrio().files['test/slug-test.js']!;
    return acceptanceRepo({ files: { ...SLUG_SUBJECT, [TEST]: script }, item: { run_commands: true } }).repo;
  }

  test('every claim runs as its own action; the record depends on them; a second build is cached', () => {
    const repo = setup();
    try {
      const r = cli(repo, ['build', '--json']);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.equal(r.json().gate.status, 'READY');
      for (const id of [RUN1, RUN2, 'accept:slug']) {
        assert.equal(itemOf(r, id)?.status, 'PASS', `${id}: ${JSON.stringify(itemOf(r, id))}`);
        assert.equal(itemOf(r, id)?.required, true);
      }
      assert.equal(actionOf(r, RUN1)?.status, 'ran');
      const again = cli(repo, ['build', '--json']);
      for (const id of [RUN1, RUN2, 'accept:slug']) assert.equal(actionOf(again, id)?.status, 'cached', id);
      // Keyed by the whole subject root: a new file there re-runs the claims, one outside does not.
      repo.write('acc/subject/NOTES.md', 'notes\n');
      const inside = cli(repo, ['build', '--json']);
      assert.equal(actionOf(inside, RUN1)?.status, 'ran');
      repo.write('elsewhere.txt', 'x\n');
      const outside = cli(repo, ['build', '--json']);
      assert.equal(actionOf(outside, RUN1)?.status, 'cached');
    } finally {
      repo.cleanup();
    }
  });

  test('EXECUTED-FAIL and EXPECT-MISMATCH fail the claim and block the record naming it', () => {
    const repo = setup();
    try {
      assert.equal(cli(repo, ['build']).code, 0);
      repo.write(TEST, "console.log('SLUG FAILED: 2/5 cases'); process.exit(1);\n");
      const failed = cli(repo, ['build', '--json']);
      assert.equal(failed.json().gate.status, 'REJECTED', failed.stdout);
      assert.equal(itemOf(failed, RUN1)?.status, 'FAIL');
      assert.match(itemOf(failed, RUN1)!.reason, /WT-1 EXECUTED-FAIL: SLUG FAILED/);
      assert.equal(itemOf(failed, 'accept:slug')?.status, 'BLOCKED');
      assert.match(itemOf(failed, 'accept:slug')!.reason, /dependency accept:slug\/run:WT-\d is FAIL/);
      repo.write(TEST, "console.log('SLUG looks fine');\n");
      const mismatch = cli(repo, ['build', '--json']);
      assert.equal(itemOf(mismatch, RUN1)?.status, 'FAIL');
      assert.match(itemOf(mismatch, RUN1)!.reason, /EXPECT-MISMATCH/);
    } finally {
      repo.cleanup();
    }
  });

  test('a self-fulfilling command is never run: BLOCKED, never PASS', () => {
    const repo = setup();
    try {
      const trio = validTrio({ commit: repo.git('rev-parse', 'HEAD').trim(), subjectRoot: 'subject', ...LASTING });
      const pkg = edit(
        trio.pkg,
        '\n  command = "node test/slug-test.js"\n',
        '\n  command = "touch RAN; echo SLUG PASS: 5 cases"\n',
      );
      writeTrio(join(repo.dir, 'acc'), rebind({ ...trio, pkg }));
      const r = cli(repo, ['build', '--json']);
      assert.equal(itemOf(r, RUN1)?.status, 'BLOCKED', JSON.stringify(itemOf(r, RUN1)));
      assert.match(itemOf(r, RUN1)!.reason, /SELF-FULFILLING-SUSPECT/);
      assert.notEqual(r.json().gate.status, 'READY');
      assert.throws(() => readFileSync(join(repo.dir, 'acc/subject/RAN')), 'the command must not have run');
    } finally {
      repo.cleanup();
    }
  });

  test("a claim id used twice is the record's error to report, never a crash of the graph", () => {
    const repo = setup();
    try {
      const trio = validTrio({ commit: repo.git('rev-parse', 'HEAD').trim(), subjectRoot: 'subject', ...LASTING });
      writeTrio(join(repo.dir, 'acc'), rebind({ ...trio, pkg: edit(trio.pkg, 'id = "WT-2"', 'id = "WT-1"') }));
      const r = cli(repo, ['build', '--json']);
      assert.notEqual(r.code, 4, r.stderr);
      assert.equal(items(r).filter((i) => i.id.startsWith('accept:slug/run:')).length, 1, JSON.stringify(items(r)));
      assert.equal(itemOf(r, 'accept:slug')?.status, 'FAIL', JSON.stringify(itemOf(r, 'accept:slug')));
      assert.notEqual(r.json().gate.status, 'READY');
    } finally {
      repo.cleanup();
    }
  });

  test('the command sees only the action environment, in the subject root', () => {
    const repo = setup();
    try {
      // Passes only when the variable set for vkit never reaches it and it runs in the subject root.
      repo.write(
        TEST,
        "const fs = require('node:fs');\nif (process.env.VKIT_GRAPH_LEAK || !fs.existsSync('slug.js')) { console.log('SLUG FAILED: env leaked or wrong cwd'); process.exit(1); }\nconsole.log('SLUG PASS: 5 cases');\n",
      );
      const r = cli(repo, ['build', '--json'], { VKIT_GRAPH_LEAK: '1' });
      assert.equal(itemOf(r, RUN1)?.status, 'PASS', JSON.stringify(itemOf(r, RUN1)));
    } finally {
      repo.cleanup();
    }
  });
});

test('examples/weighted-toy as vkit.config.ts declares it: the claim runs and the record is READY', () => {
  const repo = tempRepo();
  try {
    cpSync(join(REPO_ROOT, 'examples/weighted-toy'), join(repo.dir, 'examples/weighted-toy'), { recursive: true });
    repo.manifest({
      acceptance: [
        {
          id: 'weighted-toy',
          root: 'examples/weighted-toy',
          spec: 'examples/weighted-toy/acceptance-specification.toml',
          package: 'examples/weighted-toy/acceptance.toml',
          decision: 'examples/weighted-toy/acceptance-decision.toml',
          run_commands: true,
        },
      ],
    });
    repo.commitAll();
    const r = cli(repo, ['build', '--json']);
    assert.equal(itemOf(r, 'accept:weighted-toy/run:WT-1')?.status, 'PASS', r.stdout + r.stderr);
    assert.equal(itemOf(r, 'accept:weighted-toy')?.status, 'PASS', JSON.stringify(itemOf(r, 'accept:weighted-toy')));
  } finally {
    repo.cleanup();
  }
});
