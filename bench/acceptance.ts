/**
 * `npm run bench:acceptance`: a 500-library path-only Cargo workspace stack in a temp directory
 * (every library with its specification, package and decision in an acceptor store), timed when
 * checking the app's decision end to end (goal: median <= 1 s), and again after one library file
 * changed (the check must then fail, naming that library). Then a package of 3,000 claims that
 * each draw one finding, timed through the real CLI (`vkit acceptance check`; goal: median <= 1 s):
 * every finding looks up its line, so this is where a per-finding cost shows. Then 2,000 claims in
 * each of two shapes citing a few record files (acceptance-shapes.ts), timed through `check` and
 * (rust-delivery) `check-package` (goal: median <= 1 s each): where a per-claim read of the same
 * record shows. Prints medians of repeated runs. BENCH_LIBS, BENCH_CLAIMS, BENCH_SHAPE_CLAIMS and
 * BENCH_RUNS change the sizes (0 skips a part).
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { checkDecisionFiles } from '../rules/accept/lib/recursive-checks.js';
import type { DecisionContext, DecisionPaths } from '../rules/accept/lib/model.js';
import { writeRustDeliveryClaims, writeSmallClaims } from './acceptance-shapes.js';

const N = Number(process.env.BENCH_LIBS ?? 500);
const CLAIMS = Number(process.env.BENCH_CLAIMS ?? 3000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SHAPE_CLAIMS = Number(process.env.BENCH_SHAPE_CLAIMS ?? 2000);
const m11 = (domain: string, bytes: string | Buffer) =>
  `${domain}:sha-512:${createHash('sha512').update(`${domain}:`).update(bytes).digest('hex')}`;
const sha512 = (b: string) => createHash('sha512').update(b).digest('hex');
const crateDigest = (files: Record<string, string>) =>
  m11(
    'subject',
    Object.keys(files)
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
      .map((p) => `${p}\0${sha512(files[p]!)}\n`)
      .join(''),
  );

const dir = mkdtempSync(join(tmpdir(), 'vkit-bench-acceptance-'));
const write = (rel: string, text: string) => {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
};
const name = (i: number) => `lib${String(i).padStart(3, '0')}`;

function spec(id: string, authority: string, chain: boolean): string {
  return `[document]
protocol = "acceptance-protocol/0.4"
kind = "specification"
id = "${id}"
version = 1
issued_at = "2026-11-30T09:00:00Z"
issued_by = "consumer"
status = "issued"

[parties]
consumer = { name = "${authority}", role = "lead" }
producer = { name = "Bench Producer", role = "maintainer" }

[acceptance]
rule = "all-mandatory-satisfied"
authority = "${authority}"
consumer_verification = "package-trusted"
profiles_required = ["acceptance/verification"]

[[requirement]]
id = "R1"
statement = "The crate does what its one test says."
mandatory = true
waivable = false
domain = "correctness"
clause_source = "consumer-statement"

  [requirement.evidence]
  min_tier = "T3"
  weighted_required = true
  control_required = false
  freshness = "any"
  independence = "none"
${
  chain
    ? `
[[requirement]]
id = "stack"
statement = "Every library is accepted."
mandatory = true
waivable = false
domain = "correctness"
clause_source = "consumer-statement"
kind = "chain"

  [requirement.chain]
  relations = ["runtime"]
  depth = "all"
  level = "C2"
  completeness = "verified"
  binds = "consumed"
  acceptors = ["bench"]
  allow_conditions = false
  unaccepted = "refuse"
  max_elements = ${N}
`
    : ''
}`;
}

function pkg(
  crate: string,
  root: string,
  digest: string,
  specText: string,
  specId: string,
  record: string,
  inventory: string,
): string {
  return `[format]
id = "acceptance/0.4"
profile = "acceptance/verification"

[subject]
name = "${crate}"
kind = "rust-crate"
root = "${root}"
digest = "${digest}"

[spec]
path = "acceptance-specification.toml"
version = "${specId}@v1"

[specification]
id = "${specId}"
hash = "${m11('specification', specText)}"
requirements_total = ${inventory ? 2 : 1}

[[claim]]
id = "C1"
clause = "R1"
statement = "${crate}'s test passes."
status = "evidenced"
weight = "weighted"
grade = "probe"
bounds = "bounded: one unit test"
clause_source = "spec-document"

  [claim.self_verify]
  command = "cargo test --offline"
  expect = "test result: ok. 1 passed"

    [claim.self_verify.watched_fail]
    of_command = "cargo test --offline"
    perturbed = "negated the function result"
    observed = "test result: FAILED. 0 passed; 1 failed"
    date = "2026-11-30"

  [[claim.evidence]]
  kind = "unit-test"
  family = "dynamic"
  epistemic_tier = "T3"
  ref = "src/lib.rs tests"
  result = "pass"
  tool = "cargo (bench fixture)"
  record = "evidence.txt"
  record_hash = "${m11('record', record)}"
${inventory}`;
}

function decision(
  id: string,
  specId: string,
  specText: string,
  pkgText: string,
  subject: string,
  authority: string,
  chain: boolean,
): string {
  return `[document]
protocol = "acceptance-protocol/0.4"
kind = "decision"
id = "${id}"
issued_at = "2026-11-30T10:00:00Z"
issuer = { name = "${authority}", role = "lead" }
verdict = "accepted"

[binds]
specification = { id = "${specId}", hash = "${m11('specification', specText)}" }
package = { hash = "${m11('manifest', pkgText)}" }
subject = { digest = "${subject}" }

[verification]
mode = "package-trusted"

[[disposition]]
requirement = "R1"
status = "satisfied"
basis = ["C1"]
${chain ? '\n[[disposition]]\nrequirement = "stack"\nstatus = "satisfied"\nbasis = []\n' : ''}
[validity]
stale_after = "2027-05-01"
`;
}

function generate(): DecisionPaths {
  write('Cargo.toml', '[workspace]\nresolver = "2"\nmembers = ["crates/*", "app"]\n');
  const lock = ['version = 4\n'];
  const record = 'test result: ok. 1 passed; 0 failed\n';
  const digests: string[] = [];
  lock.push(
    `[[package]]\nname = "app"\nversion = "0.1.0"\ndependencies = [\n${Array.from({ length: N }, (_, i) => ` "${name(i)}",\n`).join('')}]\n`,
  );
  for (let i = 0; i < N; i++) {
    const files = {
      'Cargo.toml': `[package]\nname = "${name(i)}"\nversion = "0.1.0"\nedition = "2021"\n`,
      'src/lib.rs': `pub fn v() -> u32 { ${i} }\n#[test]\nfn t() { assert_eq!(v(), ${i}); }\n`,
    };
    for (const [p, t] of Object.entries(files)) write(`crates/${name(i)}/${p}`, t);
    lock.push(`[[package]]\nname = "${name(i)}"\nversion = "0.1.0"\n`);
    const digest = crateDigest(files);
    digests.push(digest);
    const s = spec(`SPEC-${name(i)}`, 'Bench Acceptor', false);
    const p = pkg(name(i), `crates/${name(i)}`, digest, s, `SPEC-${name(i)}`, record, '');
    write(`store/${name(i)}/acceptance-specification.toml`, s);
    write(`store/${name(i)}/acceptance-package.toml`, p);
    write(`store/${name(i)}/evidence.txt`, record);
    write(
      `store/${name(i)}/acceptance-decision.toml`,
      decision(`DEC-${name(i)}`, `SPEC-${name(i)}`, s, p, digest, 'Bench Acceptor', false),
    );
  }
  write(
    'Cargo.lock',
    lock.sort((a, b) => (a.startsWith('version') ? -1 : b.startsWith('version') ? 1 : a < b ? -1 : 1)).join('\n'),
  );
  const appFiles = { 'Cargo.toml': '[package]\nname = "app"\nversion = "0.1.0"\n', 'src/main.rs': 'fn main() {}\n' };
  for (const [p, t] of Object.entries(appFiles)) write(`app/${p}`, t);
  const inventory = `\n[[inventory]]\nid = "inv-cargo"\nrelation = "runtime"\nsource = "Cargo.lock"\ncompleteness = "verified"\n${digests.map((d, i) => `\n  [[inventory.element]]\n  name = "${name(i)}"\n  version = "0.1.0"\n  source = "path+crates/${name(i)}"\n  digest = "${d}"\n  binding = "build-time-copy"\n`).join('')}`;
  const s = spec('SPEC-app', 'Bench App', true);
  const appDigest = crateDigest(appFiles);
  const p = pkg('app', 'app', appDigest, s, 'SPEC-app', record, inventory);
  write('docs/acceptance-specification.toml', s);
  write('docs/acceptance-package.toml', p);
  write('docs/evidence.txt', record);
  write('docs/acceptance-decision.toml', decision('DEC-app', 'SPEC-app', s, p, appDigest, 'Bench App', true));
  const f = (n: string) => ({ abs: join(dir, 'docs', n), file: `docs/${n}` });
  return {
    spec: f('acceptance-specification.toml'),
    package: f('acceptance-package.toml'),
    decision: f('acceptance-decision.toml'),
  };
}

async function time(paths: DecisionPaths, ctx: DecisionContext) {
  const ms: number[] = [];
  let last;
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    last = await checkDecisionFiles(paths, ctx);
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)]!, min: ms[0]!, max: ms.at(-1)!, last: last! };
}

/** The stack figures (skipped with BENCH_LIBS=0). */
async function benchStack(): Promise<void> {
  const t0 = performance.now();
  const paths = generate();
  console.log(`generated ${N} libraries (+ app) in ${(performance.now() - t0).toFixed(0)} ms at ${dir}`);
  const ctx: DecisionContext = { root: dir, stores: { bench: join(dir, 'store') }, trees: {} };
  const whole = await time(paths, ctx);
  console.log(
    `check-decision, whole stack: median ${whole.median.toFixed(0)} ms (min ${whole.min.toFixed(0)}, max ${whole.max.toFixed(0)}, ${RUNS} runs); status ${whole.last.status}, stack ${whole.last.stack?.status}, ${whole.last.stack?.elements.length} elements; goal <= 1000 ms: ${whole.median <= 1000 ? 'met' : 'NOT met'}`,
  );
  if (whole.last.status !== 'valid' || whole.last.stack?.status !== 'pass') {
    console.log(
      whole.last.findings.list
        .slice(0, 10)
        .map((x) => `${x.level} ${x.file}: ${x.message}`)
        .join('\n'),
    );
    process.exitCode = 1;
  }
  write(`crates/${name(N >> 1)}/src/lib.rs`, 'pub fn v() -> u32 { 0 }\n');
  const changed = await time(paths, ctx);
  const named = changed.last.findings.list.some(
    (x) => x.level === 'ERROR' && x.message.includes(`library '${name(N >> 1)}'`),
  );
  console.log(
    `check-decision after one library file changed: median ${changed.median.toFixed(0)} ms (min ${changed.min.toFixed(0)}, max ${changed.max.toFixed(0)}); status ${changed.last.status}, names ${name(N >> 1)}: ${named}`,
  );
  if (changed.last.status === 'valid' || !named) process.exitCode = 1;
}

/**
 * A package answering the weighted toy's specification with `count` claims, each citing a record
 * that does not exist: exactly one WARN per claim, each carrying a line number.
 */
function manyFindingsPackage(count: number): string {
  const claim = (i: number) => `
[[claim]]
id            = "C-${i}"
clause        = "S-1"
statement     = "claim ${i} of ${count}"
status        = "evidenced"
grade         = "probe"
bounds        = "bounded: one generated case"
clause_source = "spec-document"

  [[claim.evidence]]
  kind           = "unit-test"
  family         = "dynamic"
  epistemic_tier = "T3"
  ref            = "case ${i}"
  result         = "pass"
  tool           = "bench"
  record         = "evidence/missing-${i}.txt"
`;
  return `[format]
id      = "acceptance/0.4"
profile = "acceptance/verification"

[subject]
name   = "bench-many-findings"
kind   = "other"
root   = "subject"
digest = "${m11('subject', '')}"

[spec]
path    = "acceptance-specification.toml"
version = "WT-SPEC-0001@v1"
${Array.from({ length: count }, (_, i) => claim(i)).join('')}`;
}

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface CliTiming {
  median: number;
  min: number;
  max: number;
  /** The last run's exit status and stdout. */
  status: number | null;
  stdout: string;
}

/** `vkit acceptance ARGS... --root work --json` run RUNS times, node startup included. */
function timeCli(work: string, args: string[]): CliTiming {
  const ms: number[] = [];
  let out: SpawnSyncReturns<string> | undefined;
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    out = spawnSync(process.execPath, [join(REPO, 'bin', 'vkit.js'), 'acceptance', ...args, '--root', work, '--json'], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    ms.push(performance.now() - t0);
    if (out.status !== 0 && out.status !== 1)
      throw new Error(`vkit acceptance ${args.join(' ')} exited ${out.status}: ${out.stderr}`);
  }
  ms.sort((a, b) => a - b);
  return {
    median: ms[Math.floor(ms.length / 2)]!,
    min: ms[0]!,
    max: ms.at(-1)!,
    status: out!.status,
    stdout: out!.stdout,
  };
}

const figures = (t: CliTiming) =>
  `median ${t.median.toFixed(0)} ms (min ${t.min.toFixed(0)}, max ${t.max.toFixed(0)}, ${RUNS} runs); goal <= 1000 ms: ${t.median <= 1000 ? 'met' : 'NOT met'}`;

/** Median wall time of `vkit acceptance check` on that package, node startup included. */
function benchManyFindings(): void {
  const work = mkdtempSync(join(tmpdir(), 'vkit-bench-findings-'));
  try {
    mkdirSync(join(work, 'subject'));
    writeFileSync(
      join(work, 'acceptance-specification.toml'),
      readFileSync(join(REPO, 'examples', 'weighted-toy', 'acceptance-specification.toml')),
    );
    writeFileSync(join(work, 'acceptance.toml'), manyFindingsPackage(CLAIMS));
    const t = timeCli(work, ['check', 'acceptance.toml']);
    const file = JSON.parse(t.stdout).files[0] as { findings: { line?: number }[] };
    const findings = file.findings.filter((f) => f.line !== undefined).length;
    console.log(`check, ${CLAIMS} claims with ${findings} located findings: ${figures(t)}`);
    if (findings < CLAIMS) process.exitCode = 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The two claim-heavy shapes (acceptance-shapes.ts) at SHAPE_CLAIMS claims, every record citing
 * one of a few files: `check` on both, `check-package` on the rust-delivery one. Each must come
 * out clean (PASS, valid), so the time is that of a full check, not of an early refusal.
 */
function benchClaimShapes(): void {
  const work = mkdtempSync(join(tmpdir(), 'vkit-bench-shapes-'));
  try {
    mkdirSync(join(work, 'small'));
    const small = writeSmallClaims(join(work, 'small'), REPO, SHAPE_CLAIMS);
    const s = timeCli(join(work, 'small'), ['check', small]);
    const sVerdict = (JSON.parse(s.stdout) as { verdict: string }).verdict;
    console.log(`check, ${SHAPE_CLAIMS} small claims (verdict ${sVerdict}): ${figures(s)}`);
    mkdirSync(join(work, 'rust'));
    const rust = writeRustDeliveryClaims(join(work, 'rust'), REPO, SHAPE_CLAIMS);
    const r = timeCli(join(work, 'rust'), ['check', rust.pkg]);
    const rVerdict = (JSON.parse(r.stdout) as { verdict: string }).verdict;
    console.log(`check, ${SHAPE_CLAIMS} rust-delivery-shaped claims (verdict ${rVerdict}): ${figures(r)}`);
    const p = timeCli(join(work, 'rust'), ['check-package', rust.pkg, '--spec', rust.spec]);
    const pStatus = (JSON.parse(p.stdout) as { status: string }).status;
    console.log(`check-package, ${SHAPE_CLAIMS} rust-delivery-shaped claims (status ${pStatus}): ${figures(p)}`);
    if (sVerdict !== 'PASS' || rVerdict !== 'PASS' || pStatus !== 'valid') process.exitCode = 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  if (N > 0) await benchStack();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (CLAIMS > 0) benchManyFindings();
if (SHAPE_CLAIMS > 0) benchClaimShapes();
