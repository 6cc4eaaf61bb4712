/**
 * The stack check end to end, on a copy of examples/paint-stack in a real git repository: the app
 * is accepted over inv-cargo; each way of breaking a library fails naming it; what cannot be
 * decided (a registry crate, a cycle, depth, max_elements, no store) is indeterminate (exit 3).
 * Documents are re-stamped with the example's own restamp.mjs (node:crypto, not vkit's code).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { REPO_ROOT, tempRepo, vkit, type TempRepo } from '../../_support/repo.js';

const EX = 'examples/paint-stack';
const APP = `${EX}/paint-app`;
const STORE = `${EX}/store/ochre-accepted`;

let repo: TempRepo;
let commit: string;

/** Copies the example, commits the crates, stamps the app's commit, commits the documents. */
before(() => {
  repo = tempRepo();
  cpSync(join(REPO_ROOT, EX), join(repo.dir, EX), { recursive: true, filter: (src) => !src.includes('/target') });
  repo.commitAll('crates');
  execFileSync(process.execPath, ['restamp.mjs', '--commit', 'HEAD'], { cwd: join(repo.dir, EX) });
  commit = repo.git('rev-parse', 'HEAD').trim();
  repo.commitAll('documents');
});
after(() => repo.cleanup());

const read = (rel: string) => readFileSync(join(repo.dir, rel), 'utf8');
const write = (rel: string, text: string) => writeFileSync(join(repo.dir, rel), text);
const restamp = () => execFileSync(process.execPath, ['restamp.mjs'], { cwd: join(repo.dir, EX) });

/** Runs a change, then puts every file back as committed (documents and crates). */
function withChange(change: () => void, body: () => void): void {
  try {
    change();
    body();
  } finally {
    repo.git('checkout', '-q', '--', '.');
    repo.git('clean', '-fdq', '--', EX);
  }
}

function checkDecision(...extra: string[]) {
  return vkit([
    'acceptance',
    'check-decision',
    `${APP}/acceptance-decision.toml`,
    '--spec',
    `${APP}/acceptance-specification.toml`,
    '--package',
    `${APP}/acceptance-package.toml`,
    '--root',
    repo.dir,
    '--store',
    `ochre-accepted=${STORE}`,
    '--tree',
    `${commit}=.`,
    ...extra,
  ]);
}

function checkPackage(...extra: string[]) {
  return vkit([
    'acceptance',
    'check-package',
    `${APP}/acceptance-package.toml`,
    '--spec',
    `${APP}/acceptance-specification.toml`,
    '--root',
    repo.dir,
    '--store',
    `ochre-accepted=${STORE}`,
    '--tree',
    `${commit}=.`,
    ...extra,
  ]);
}

/** Undecidable: check-package and check-decision exit 3 with the INDETERMINATE reason; never VALID. */
function assertIndeterminate(reason: RegExp, pkgArgs: string[] = [], decisionArgs: string[] = pkgArgs): void {
  const p = checkPackage(...pkgArgs);
  assert.equal(p.code, 3, p.stdout + p.stderr);
  assert.match(p.stdout, reason);
  const d = checkDecision(...decisionArgs);
  assert.equal(d.code, 3, d.stdout);
  assert.match(d.stdout, reason);
  assert.doesNotMatch(d.stdout, /DECISION VALID/);
}

/** Edits a file by exact replacement; refuses an edit that matches nothing. */
function edit(rel: string, from: string | RegExp, to: string): void {
  const text = read(rel);
  const next = text.replace(from, to);
  assert.notEqual(next, text, `edit of ${rel} matched nothing`);
  write(rel, next);
}

test('the paint stack is accepted: both libraries checked recursively, in stack order', () => {
  const r = checkDecision('--json');
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const json = r.json();
  const stack = json.stack ?? json.check?.stack;
  assert.ok(stack, JSON.stringify(json).slice(0, 400));
  assert.equal(stack.status, 'pass');
  assert.deepEqual(
    stack.elements.map((e: { name: string }) => e.name),
    ['raster-draw', 'geom-math'],
  );
  assert.deepEqual(
    stack.elements.map((e: { status: string }) => e.status),
    ['accepted', 'accepted'],
  );
  assert.deepEqual(
    stack.elements.map((e: { issuer: { name: string } }) => e.issuer.name),
    ['Ochre Raster', 'Studio Ochre'],
  );
  assert.deepEqual(
    stack.relations.map((x: { relation: string; inventories: string }) => `${x.relation}=${x.inventories}`),
    [
      'build-tool=uncovered',
      'language=uncovered',
      'platform=uncovered',
      'runtime=inv-cargo / verified',
      'verification-tool=uncovered',
    ],
  );
  const text = checkDecision();
  assert.equal(text.code, 0, text.stdout);
  assert.match(text.stdout, /DECISION VALID/);
});

test('render prints the relation table and the stack lines in stack order', () => {
  const r = vkit([
    'acceptance',
    'render',
    `${APP}/acceptance-specification.toml`,
    `${APP}/acceptance-package.toml`,
    `${APP}/acceptance-decision.toml`,
    '--root',
    repo.dir,
    '--store',
    `ochre-accepted=${STORE}`,
    '--tree',
    `${commit}=.`,
  ]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.ok(r.stdout.includes('| runtime | inv-cargo / verified |  |  |'), r.stdout);
  assert.ok(
    r.stdout.includes(
      'accepted by Ochre Raster / maintainer, Studio Ochre / tools-lead under their own specifications',
    ),
    r.stdout,
  );
  assert.ok(
    r.stdout.indexOf('raster-draw: declared binding: build-time-copy') <
      r.stdout.indexOf('geom-math: declared binding: build-time-copy'),
  );
  assert.match(r.stdout, /^stack accepted over inv-cargo for runtime at 2026-11-30T12:00:00Z$/m);
});

test('removing one library decision fails the app and names the library', () => {
  withChange(
    () => rmSync(join(repo.dir, STORE, 'geom-math', 'acceptance-decision.toml')),
    () => {
      const r = checkDecision();
      assert.equal(r.code, 1, r.stdout);
      assert.match(
        r.stdout,
        /ERROR examples\/paint-stack\/paint-app\/acceptance-package\.toml: library 'geom-math': .*lacks acceptance-decision\.toml/,
      );
      assert.match(r.stdout, /DECISION INVALID/);
    },
  );
});

test('one changed byte of a library source fails the app and names the library', () => {
  withChange(
    () => edit(`${EX}/crates/geom-math/src/lib.rs`, 'never negative', 'never  negative'),
    () => {
      const r = checkDecision();
      assert.equal(r.code, 1, r.stdout);
      assert.match(
        r.stdout,
        /paint-app\/acceptance-package\.toml: library 'geom-math': the bytes consumed from crates\/geom-math changed/,
      );
    },
  );
  // An untracked file the build would compile is part of the bytes consumed, too.
  withChange(
    () => write(`${EX}/crates/raster-draw/build.rs`, 'fn main() {}\n'),
    () => {
      const r = checkDecision();
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stdout, /library 'raster-draw': the bytes consumed from crates\/raster-draw changed/);
    },
  );
});

test('a library package that certifies other bytes than the inventory names fails naming the library', () => {
  withChange(
    () => {
      // The library's package (and its decision) re-stamped for a changed crate, the app's inventory left as is.
      edit(`${EX}/crates/geom-math/src/lib.rs`, 'never negative', 'never  negative');
      const appPkg = read(`${APP}/acceptance-package.toml`);
      restamp();
      write(`${APP}/acceptance-package.toml`, appPkg);
    },
    () => {
      const r = checkDecision();
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stdout, /library 'geom-math'/);
    },
  );
});

test('a registry dependency anywhere in the closure makes the stack indeterminate (exit 3), naming the package', () => {
  withChange(
    () => {
      edit(
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
    () => assertIndeterminate(/INDETERMINATE: package 'libm' 0\.2\.15 comes from registry\+https/),
  );
});

test('--effect --now after a library decision expired fails naming the expired library; before, eligible', () => {
  const expired = checkDecision('--effect', '--now', '2027-03-15');
  assert.equal(expired.code, 1, expired.stdout);
  assert.match(expired.stdout, /library 'geom-math': its decision is not effect-eligible at 2027-03-15: .*2027-02-27/);
  assert.doesNotMatch(expired.stdout, /library 'raster-draw': its decision is not effect-eligible/);
  assert.match(expired.stdout, /EFFECT-INELIGIBLE/);
  const fine = checkDecision('--effect', '--now', '2027-02-01');
  assert.equal(fine.code, 0, fine.stdout);
  assert.match(fine.stdout, /EFFECT-ELIGIBLE/);
});

/** Changes the app's chain requirement and re-stamps (the specification is hash-bound). */
function chainEdit(from: string | RegExp, to: string) {
  return () => {
    edit(`${APP}/acceptance-specification.toml`, from, to);
    restamp();
  };
}

test('a stack deeper than `depth` is indeterminate', () => {
  withChange(chainEdit(/depth\s+= "all"/, 'depth = 1'), () =>
    assertIndeterminate(/INDETERMINATE: library 'geom-math' is at depth 2, deeper than depth = 1/),
  );
});

test('more elements than max_elements is indeterminate', () => {
  withChange(chainEdit('max_elements     = 500', 'max_elements     = 1'), () =>
    assertIndeterminate(
      /INDETERMINATE: chain requirement 'runtime': the stack has 2 elements, more than max_elements = 1/,
    ),
  );
});

test('a dependency cycle in Cargo.lock is indeterminate', () => {
  withChange(
    () =>
      edit(
        `${EX}/Cargo.lock`,
        /name = "geom-math"\nversion = "0.1.0"\n/,
        'name = "geom-math"\nversion = "0.1.0"\ndependencies = [\n "raster-draw",\n]\n',
      ),
    () => assertIndeterminate(/INDETERMINATE: dependency cycle raster-draw -> geom-math -> raster-draw/),
  );
});

test('the inventory must equal what Cargo.lock resolves (completeness verified)', () => {
  withChange(
    () => {
      edit(
        `${APP}/acceptance-package.toml`,
        /\n {2}\[\[inventory\.element\]\]\n {2}name {4}= "geom-math"[\s\S]*$/,
        '\n',
      );
      restamp();
    },
    () => {
      const r = checkDecision();
      assert.equal(r.code, 1, r.stdout);
      assert.match(
        r.stdout,
        /inventory 'inv-cargo': Cargo\.lock resolves 'geom-math' 0\.1\.0 for the app, but the inventory does not list it/,
      );
    },
  );
  withChange(
    () => {
      edit(
        `${APP}/acceptance-package.toml`,
        /name {4}= "geom-math"\n {2}version = "0\.1\.0"/,
        'name    = "geom-math"\n  version = "0.1.1"',
      );
      restamp();
    },
    () => {
      const r = checkDecision();
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stdout, /'geom-math' is listed at version "0\.1\.1", Cargo\.lock has 0\.1\.0/);
    },
  );
});

test('without a --store for the trusted acceptor the stack is indeterminate; an untrusted store does not count', () => {
  const p = vkit([
    'acceptance',
    'check-package',
    `${APP}/acceptance-package.toml`,
    '--spec',
    `${APP}/acceptance-specification.toml`,
    '--root',
    repo.dir,
    '--tree',
    `${commit}=.`,
    '--store',
    `someone-else=${STORE}`,
  ]);
  assert.equal(p.code, 3, p.stdout + p.stderr);
  assert.match(p.stdout, /library 'raster-draw': no --store given for the trusted acceptor\(s\) ochre-accepted/);
});

test('unaccepted = "gap" records a library without a decision as a gap instead of failing', () => {
  withChange(
    () => {
      edit(`${APP}/acceptance-specification.toml`, 'unaccepted       = "refuse"', 'unaccepted       = "gap"');
      rmSync(join(repo.dir, STORE, 'geom-math'), { recursive: true });
      restamp();
      // raster-draw's own chain still refuses an unaccepted geom-math, so it alone is checked here:
      edit(
        `${STORE}/raster-draw/acceptance-specification.toml`,
        'unaccepted       = "refuse"',
        'unaccepted       = "gap"',
      );
      restamp();
    },
    () => {
      const r = checkDecision('--json');
      const stack = r.json().stack;
      assert.deepEqual(
        stack.elements.map((e: { name: string; status: string }) => `${e.name}:${e.status}`),
        ['raster-draw:accepted', 'geom-math:gap'],
      );
      assert.deepEqual(stack.relations.find((x: { relation: string }) => x.relation === 'runtime').gaps, ['geom-math']);
    },
  );
});

/** Declares geom-math outside the checked boundary in the app's inventory, with `reason`, and re-stamps. */
function declareBoundary(reason: string) {
  return () => {
    edit(
      `${APP}/acceptance-package.toml`,
      /(name {4}= "geom-math"[\s\S]*?binding = "[^"]*")/,
      `$1\n  boundary = ${JSON.stringify(reason)}`,
    );
    restamp();
  };
}

test('an element declared outside the checked boundary is listed, shown in the Boundary column, and never counted as accepted', () => {
  withChange(declareBoundary('vendored; audited outside this stack'), () => {
    const r = checkDecision('--json');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const stack = r.json().stack;
    assert.deepEqual(
      stack.elements.map((e: { name: string; status: string }) => `${e.name}:${e.status}`),
      ['raster-draw:accepted', 'geom-math:boundary'],
    );
    assert.deepEqual(stack.relations.find((x: { relation: string }) => x.relation === 'runtime').boundary, [
      'geom-math',
    ]);
    assert.equal(
      stack.elements.find((e: { name: string }) => e.name === 'geom-math').issuer,
      undefined,
      'no acceptance is read for it',
    );
    const text = checkDecision();
    assert.match(
      text.stdout,
      /NOTE .*library 'geom-math': declared outside the checked boundary \(vendored; audited outside this stack\): listed, not accepted/,
    );
    const rendered = vkit([
      'acceptance',
      'render',
      `${APP}/acceptance-specification.toml`,
      `${APP}/acceptance-package.toml`,
      `${APP}/acceptance-decision.toml`,
      '--root',
      repo.dir,
      '--store',
      `ochre-accepted=${STORE}`,
      '--tree',
      `${commit}=.`,
    ]);
    assert.equal(rendered.code, 0, rendered.stdout + rendered.stderr);
    assert.ok(rendered.stdout.includes('| runtime | inv-cargo / verified | geom-math |  |'), rendered.stdout);
    assert.ok(
      rendered.stdout.includes(
        'outside the checked boundary (listed, not accepted): geom-math (vendored; audited outside this stack)',
      ),
      rendered.stdout,
    );
    // Only raster-draw's acceptor: geom-math's issuer is not read, so never listed as accepting it.
    assert.ok(
      rendered.stdout.includes('accepted by Ochre Raster / maintainer under their own specifications'),
      rendered.stdout,
    );
  });
});

test('a boundary element must still be listed truly: an empty reason or a digest that no longer holds fails naming it', () => {
  withChange(declareBoundary('  '), () => {
    const r = checkDecision();
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      /paint-app\/acceptance-package\.toml: library 'geom-math': `boundary` must be a nonempty reason/,
    );
  });
  withChange(
    () => {
      declareBoundary('vendored')();
      edit(`${EX}/crates/geom-math/src/lib.rs`, 'never negative', 'never  negative');
    },
    () => {
      const r = checkDecision();
      assert.equal(r.code, 1, r.stdout);
      assert.match(
        r.stdout,
        /paint-app\/acceptance-package\.toml: library 'geom-math': the bytes consumed from crates\/geom-math changed/,
      );
    },
  );
});

test('an inventory element key the format does not know is an error naming it', () => {
  withChange(
    () => {
      edit(
        `${APP}/acceptance-package.toml`,
        /(name {4}= "geom-math"[\s\S]*?binding = "[^"]*")/,
        '$1\n  boundry = "typo"',
      );
      restamp();
    },
    () => {
      const r = checkPackage();
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stdout, /unknown key 'boundry'/);
    },
  );
});
