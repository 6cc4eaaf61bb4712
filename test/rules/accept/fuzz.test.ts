/**
 * Fuzzing the acceptance readers. Seeded random documents (deep nesting of tables, inline tables
 * and arrays, long dotted keys, huge arrays, invalid UTF-8, a BOM, NUL bytes, CR-only line ends,
 * long runs of blanks, byte flips, line edits and cuts of the weighted toy's documents) must never
 * crash vkit (exit 4) nor hang: every outcome is an exit 0, 1, 2 or 3 with a message, within a time
 * bound. Most cases run in-process (parseDoc, then one verb's service function); a few go through
 * the real CLI, every verb that reads documents included.
 *
 * Reproducible: the seed is printed, and each case draws from its own generator (seed, case
 * number), so a failure names what reruns it. A longer run:
 *   VKIT_FUZZ_SEED=123 VKIT_FUZZ_CASES=5000 VKIT_FUZZ_CLI_CASES=200 node scripts/run-tests.js test/rules/accept/fuzz
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { validateFormat } from '../../../rules/accept/lib/format.js';
import type { Outcome } from '../../../rules/accept/lib/report.js';
import { checkSpecification } from '../../../rules/accept/lib/specification.js';
import { MAX_DEPTH, parseDoc, type FieldPath } from '../../../rules/accept/lib/toml.js';
import { firstInvalidUtf8 } from '../../../src/text/utf8.js';
import { VkitError } from '../../../src/errors.js';
import { checkFiles } from '../../../rules/accept/service/check.js';
import { checkDecision } from '../../../rules/accept/service/decision.js';
import { acceptanceMigrate } from '../../../rules/accept/service/migrate.js';
import { checkPackageFiles, checkSpecFile, coverageFiles } from '../../../rules/accept/service/package.js';
import { renderFiles } from '../../../rules/accept/service/render.js';
import { REPO_ROOT, VKIT_BIN } from '../../_support/repo.js';
import { prng } from '../../_support/random.js';

const SEED = Number(process.env.VKIT_FUZZ_SEED ?? 0x5eed);
const CASES = Number(process.env.VKIT_FUZZ_CASES ?? 200);
const CLI_CASES = Number(process.env.VKIT_FUZZ_CLI_CASES ?? 21);
/** Per case: far above what any case takes, far below a hang (the old locator took minutes). */
const CASE_MS = 5_000;

// ---------------------------------------------------------------------------------------------
// A seeded generator (mulberry32)
// ---------------------------------------------------------------------------------------------

class Rng {
  private readonly source: () => number;
  constructor(seed: number) {
    this.source = prng(seed);
  }
  next(): number {
    return this.source();
  }
  /** 0 .. n-1 */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

/** Each case's own generator, so one case reruns without the ones before it. */
const caseRng = (seed: number, index: number) => new Rng((seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0);

// ---------------------------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------------------------

const EXAMPLE = join(REPO_ROOT, 'examples', 'weighted-toy');
const FILES = {
  package: 'acceptance.toml',
  spec: 'acceptance-specification.toml',
  decision: 'acceptance-decision.toml',
} as const;
type Role = keyof typeof FILES;
const SEEDS: Record<Role, Buffer> = {
  package: readFileSync(join(EXAMPLE, FILES.package)),
  spec: readFileSync(join(EXAMPLE, FILES.spec)),
  decision: readFileSync(join(EXAMPLE, FILES.decision)),
};

/** The weighted toy as acceptance 0.3 wrote it, the package bound to the contract: migrate converts both. */
const as03 = (bytes: Buffer) =>
  bytes
    .toString('utf8')
    .replace(/acceptance-protocol\/0\.4/g, 'acceptance-protocol/0')
    .replace(/^(kind\s*)= "specification"/m, '$1= "contract"')
    .replace(/^(id\s*)= "acceptance\/0\.4"/m, '$1= "acceptance/0"')
    .replace(/^\[specification\]/m, '[contract]');
const SEEDS_03: Record<Role, Buffer> = (() => {
  const spec = Buffer.from(as03(SEEDS.spec));
  const binding = `contract:sha-512:${createHash('sha512').update('contract:').update(spec).digest('hex')}`;
  const pkg = Buffer.from(
    as03(SEEDS.package).replace(/^(hash\s*)= "specification:sha-512:[0-9a-f]+"/m, `$1= "${binding}"`),
  );
  return { spec, package: pkg, decision: SEEDS.decision };
})();

interface Case {
  generator: string;
  role: Role;
  bytes: Buffer;
  /** The documents beside it: the seeds, or their 0.3 forms for a 0.3 case. */
  beside: Record<Role, Buffer>;
}

const segments = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`).join('.');
/** Sizes around the depth limit, and far past it (`far` for inline nesting, which the parser stops early). */
const depthOf = (rng: Rng, far = 10_000) =>
  rng.pick([MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 100, 1000, 5000, 1 + rng.int(far), far]);
const appended = (seed: Buffer, text: string) => Buffer.concat([seed, Buffer.from(`\n${text}\n`)]);
/** At the top, before any header: a key there sits at the depth it spells. */
const prepended = (seed: Buffer, text: string) => Buffer.concat([Buffer.from(`${text}\n`), seed]);
const insertAt = (seed: Buffer, at: number, bytes: Uint8Array) =>
  Buffer.concat([seed.subarray(0, at), bytes, seed.subarray(at)]);

function nested(rng: Rng, depth: number): string {
  const shape = rng.pick(['array', 'table', 'mixed'] as const);
  const open = (i: number) => (shape === 'array' || (shape === 'mixed' && i % 2) ? '[' : '{ k = ');
  const close = (i: number) => (shape === 'array' || (shape === 'mixed' && i % 2) ? ']' : ' }');
  let head = '';
  let tail = '';
  for (let i = 0; i < depth; i++) {
    head += open(i);
    tail = close(i) + tail;
  }
  return `${head}1${tail}`;
}

const INVALID_UTF8 = [
  [0xff],
  [0xfe],
  [0xff, 0xfe],
  [0xc0, 0xaf],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf0, 0x80, 0x80, 0xaf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0x80],
  [0xbf],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
];

const GENERATORS: Record<string, (rng: Rng, seed: Buffer) => Buffer> = {
  'long dotted key': (rng, seed) => prepended(seed, `${segments(depthOf(rng))} = 1`),
  'deep table header': (rng, seed) => {
    const [open, close] = rng.pick([
      ['[', ']'],
      ['[[', ']]'],
    ]);
    return appended(seed, `${open}${segments(depthOf(rng))}${close}\nx = 1`);
  },
  'deep inline value': (rng, seed) => prepended(seed, `x = ${nested(rng, depthOf(rng, 100_000))}`),
  'deep header and inline value': (rng, seed) => {
    const header = 1 + rng.int(MAX_DEPTH);
    return appended(
      seed,
      `[${segments(header)}]\nx = ${nested(rng, Math.max(0, MAX_DEPTH - header - 1 + rng.int(3)))}`,
    );
  },
  'huge array': (rng, seed) =>
    appended(seed, `x = [${rng.pick(['1, ', '[], ', '{}, ', '"s", ']).repeat(1 + rng.int(50_000))}]`),
  // Now and then past 120,000 keys: findings once merged by spreading them as arguments.
  'wide table': (rng, seed) =>
    appended(
      seed,
      Array.from({ length: rng.int(16) ? 1 + rng.int(5_000) : 150_000 }, (_, i) => `k${i} = ${i}`).join('\n'),
    ),
  'many tables': (rng, seed) => appended(seed, `[[x]]\na = 1\n`.repeat(1 + rng.int(3_000))),
  'many claims': (rng, seed) => {
    const text = seed.toString('utf8');
    const at = text.indexOf('[[claim]]');
    return at < 0 ? seed : Buffer.from(text + `\n${text.slice(at)}`.repeat(1 + rng.int(40)));
  },
  'long run of blanks': (rng, seed) =>
    appended(
      seed,
      rng.pick([
        `x = [\n[${' '.repeat(1 + rng.int(50_000))}1], [2]\n]`,
        `[${' '.repeat(1 + rng.int(50_000))}a]`,
        `${'a . '.repeat(1 + rng.int(5_000))}b = 1`,
      ]),
    ),
  'invalid UTF-8': (rng, seed) => insertAt(seed, rng.int(seed.length + 1), Uint8Array.from(rng.pick(INVALID_UTF8))),
  'byte-order mark': (rng, seed) =>
    insertAt(seed, rng.pick([0, 0, rng.int(seed.length + 1)]), Uint8Array.from([0xef, 0xbb, 0xbf])),
  'NUL bytes': (rng, seed) => {
    let out = seed;
    for (let n = 1 + rng.int(3); n > 0; n--) out = insertAt(out, rng.int(out.length + 1), Uint8Array.of(0));
    return out;
  },
  'CR-only line ends': (rng, seed) => {
    const all = rng.int(2) === 0;
    return Buffer.from(
      seed.toString('latin1').replace(/\n/g, () => (all || rng.int(4) === 0 ? '\r' : '\n')),
      'latin1',
    );
  },
  'CRLF line ends': (_rng, seed) => Buffer.from(seed.toString('latin1').replace(/\n/g, '\r\n'), 'latin1'),
  'byte flips': (rng, seed) => {
    const out = Buffer.from(seed);
    for (let n = 1 + rng.int(8); n > 0; n--) {
      const at = rng.int(out.length);
      out[at] = rng.int(2) ? rng.int(256) : out[at]! ^ (1 << rng.int(8));
    }
    return out;
  },
  'line edits': (rng, seed) => {
    const lines = seed.toString('utf8').split('\n');
    for (let n = 1 + rng.int(5); n > 0; n--) {
      const at = rng.int(lines.length);
      const edit = rng.int(3);
      if (edit === 0) lines.splice(at, 1);
      else if (edit === 1) lines.splice(at, 0, lines[rng.int(lines.length)]!);
      else lines.splice(at, 1, lines[rng.int(lines.length)]!);
    }
    return Buffer.from(lines.join('\n'));
  },
  cut: (rng, seed) => seed.subarray(0, rng.int(seed.length)),
  // A 0.3 document (what migrate splices), now and then mutated further.
  'acceptance 0.3': (rng, seed) => {
    const then = rng.pick([
      'byte-order mark',
      'CRLF line ends',
      'line edits',
      'byte flips',
      'cut',
      undefined,
      undefined,
    ]);
    return then ? GENERATORS[then]!(rng, seed) : seed;
  },
};

function generate(rng: Rng, role: Role = rng.pick(Object.keys(FILES) as Role[])): Case {
  const generator = rng.pick(Object.keys(GENERATORS));
  const beside = generator === 'acceptance 0.3' ? SEEDS_03 : SEEDS;
  return { generator, role, bytes: GENERATORS[generator]!(rng, beside[role]), beside };
}

// ---------------------------------------------------------------------------------------------
// Running a case
// ---------------------------------------------------------------------------------------------

const VERBS = ['check', 'check-spec', 'check-package', 'coverage', 'render', 'check-decision', 'migrate'] as const;
type Verb = (typeof VERBS)[number];
/** The documents each verb reads, so that a case's verb always reads the generated one. */
const READS: Record<Verb, readonly Role[]> = {
  check: ['package'],
  'check-spec': ['spec'],
  'check-package': ['package', 'spec'],
  coverage: ['package', 'spec'],
  render: ['package', 'spec', 'decision'],
  'check-decision': ['package', 'spec', 'decision'],
  migrate: ['package', 'spec', 'decision'],
};

/** The verb's service function, as the CLI calls it. */
function serve(verb: Verb, root: string, role: Role): Promise<Outcome> {
  const none = { stores: {}, trees: {} };
  switch (verb) {
    case 'check':
      return checkFiles([FILES.package], { root });
    case 'check-spec':
      return checkSpecFile(FILES.spec, { root });
    case 'check-package':
      return checkPackageFiles(FILES.package, FILES.spec, { root, ...none });
    case 'coverage':
      return coverageFiles(FILES.package, FILES.spec, { root, ...none });
    case 'render':
      return renderFiles({ root, spec: FILES.spec, package: FILES.package, decision: FILES.decision, ...none });
    case 'check-decision':
      return checkDecision({ root, decision: FILES.decision, spec: FILES.spec, package: FILES.package, ...none });
    case 'migrate':
      return acceptanceMigrate({ root, files: [FILES[role]], write: false });
  }
}

function cliArgs(verb: Verb, role: Role): string[] {
  switch (verb) {
    case 'check':
      return ['check', FILES.package];
    case 'check-spec':
      return ['check-spec', FILES.spec];
    case 'check-package':
    case 'coverage':
      return [verb, FILES.package, '--spec', FILES.spec];
    case 'render':
      return ['render', FILES.spec, FILES.package, FILES.decision];
    case 'check-decision':
      return ['check-decision', FILES.decision, '--spec', FILES.spec, '--package', FILES.package];
    case 'migrate':
      return ['migrate', FILES[role], '--write'];
  }
}

interface Result {
  exit: number;
  message: string;
}

/** A returned outcome or a refusal (a VkitError) is an exit code with a message; anything else is a crash. */
async function settle(run: () => Promise<Outcome> | Outcome): Promise<Result> {
  try {
    const o = await run();
    return { exit: o.exitCode, message: o.lines.join('\n') };
  } catch (error) {
    if (error instanceof VkitError) return { exit: error.exitCode, message: error.message };
    return { exit: 4, message: `crash: ${(error as Error)?.stack ?? String(error)}` };
  }
}

function assertHandled(r: Result, what: string): void {
  assert.ok([0, 1, 2, 3].includes(r.exit), `${what}: exit ${r.exit}\n${r.message.slice(0, 2000)}`);
  assert.ok(r.message.trim().length > 0, `${what}: exit ${r.exit} without a message`);
}

/** A copy of the weighted toy (records, subject) with the case's document in place of its own. */
function workspace(): { dir: string; place(c: Case): void } {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-fuzz-'));
  cpSync(EXAMPLE, dir, { recursive: true });
  return {
    dir,
    place(c) {
      for (const role of Object.keys(FILES) as Role[])
        writeFileSync(join(dir, FILES[role]), role === c.role ? c.bytes : c.beside[role]);
    },
  };
}

const name = (index: number, c: Case, verb: Verb) =>
  `case ${index} (${c.generator}, ${c.role}, ${verb}) of VKIT_FUZZ_SEED=${SEED}`;

const workspaces: { dir: string; place(c: Case): void }[] = [];
before(() => {
  console.log(`acceptance fuzz: VKIT_FUZZ_SEED=${SEED} VKIT_FUZZ_CASES=${CASES} VKIT_FUZZ_CLI_CASES=${CLI_CASES}`);
  workspaces.push(workspace(), workspace(), workspace());
});
after(() => {
  for (const w of workspaces) rmSync(w.dir, { recursive: true, force: true });
});

test('in-process: parseDoc, the validators and every verb answer each generated document with exit 0-3', async () => {
  const w = workspaces[0]!;
  const exits = new Map<string, number[]>(); // per generator, how many cases ended with each exit code
  for (let index = 0; index < CASES; index++) {
    const rng = caseRng(SEED, index);
    const verb = rng.pick(VERBS);
    const c = generate(rng, rng.pick(READS[verb]));
    const what = name(index, c, verb);
    const t0 = performance.now();
    w.place(c);
    const read = await settle(async () => {
      const doc = parseDoc(c.bytes, FILES[c.role], join(w.dir, FILES[c.role]));
      const verdict =
        c.role === 'spec'
          ? `${checkSpecification(doc).findings.errors} errors`
          : c.role === 'package'
            ? (await validateFormat(doc, { root: w.dir })).verdict
            : 'read';
      return { exitCode: 0, lines: [verdict], json: null };
    });
    assertHandled(read, `${what}: parseDoc and the validator`);
    const served = await settle(() => serve(verb, w.dir, c.role));
    assertHandled(served, what);
    const ms = performance.now() - t0;
    assert.ok(ms < CASE_MS, `${what}: took ${ms.toFixed(0)} ms`);
    const tally = exits.get(c.generator) ?? [0, 0, 0, 0];
    tally[served.exit]!++;
    exits.set(c.generator, tally);
  }
  console.log(`exit codes 0/1/2/3 by generator: ${[...exits].map(([g, t]) => `${g} ${t.join('/')}`).join('; ')}`);
});

test('the CLI: every verb that reads documents answers generated documents with exit 0-3, never a crash or a hang', async () => {
  const run = promisify(execFile);
  const cases = Array.from({ length: CLI_CASES }, (_, k) => {
    const index = CASES + k; // not the in-process cases again
    const rng = caseRng(SEED, index);
    const verb = VERBS[k % VERBS.length]!; // every verb, migrate --write included
    return { index, c: generate(rng, rng.pick(READS[verb])), verb };
  });
  const lanes = [workspaces[1]!, workspaces[2]!]; // two at a time: the machine has two cores
  await Promise.all(
    lanes.map(async (w, lane) => {
      for (const { index, c, verb } of cases.filter((_, k) => k % lanes.length === lane)) {
        const what = name(index, c, verb);
        w.place(c);
        const args = [VKIT_BIN, 'acceptance', ...cliArgs(verb, c.role), '--root', w.dir];
        const r = await run(process.execPath, args, {
          timeout: 4 * CASE_MS,
          maxBuffer: 1 << 28,
          env: { ...process.env, NO_COLOR: '1' },
        }).then(
          (out) => ({ code: 0, signal: null, stdout: out.stdout, stderr: out.stderr }),
          (e: { code?: number | string; signal?: string | null; stdout?: string; stderr?: string }) => ({
            code: e.code,
            signal: e.signal ?? null,
            stdout: e.stdout ?? '',
            stderr: e.stderr ?? '',
          }),
        );
        assert.equal(r.signal, null, `${what}: killed (${r.signal}): a hang`);
        assert.ok(!r.stderr.includes('internal error'), `${what}: ${r.stderr.slice(0, 2000)}`);
        assertHandled({ exit: typeof r.code === 'number' ? r.code : -1, message: r.stdout + r.stderr }, what);
      }
    }),
  );
});

// ---------------------------------------------------------------------------------------------
// Properties of the reader itself
// ---------------------------------------------------------------------------------------------

test('the UTF-8 check agrees with a fatal TextDecoder on generated and random bytes', () => {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const valid = (b: Uint8Array) => {
    try {
      decoder.decode(b);
      return true;
    } catch {
      return false;
    }
  };
  for (let index = 0; index < CASES; index++) {
    const rng = caseRng(SEED ^ 0x7f7f, index);
    const bytes =
      index % 2
        ? generate(rng).bytes.subarray(0, 4096)
        : Uint8Array.from({ length: rng.int(64) }, () =>
            rng.pick([rng.int(256), 0x80 + rng.int(64), 0xc0 + rng.int(64), rng.int(128)]),
          );
    assert.equal(
      firstInvalidUtf8(bytes) === undefined,
      valid(bytes),
      `case ${index} of VKIT_FUZZ_SEED=${SEED}: ${Buffer.from(bytes).toString('hex').slice(0, 200)}`,
    );
  }
});

test('a leading BOM changes neither the data nor the lines', () => {
  for (const role of Object.keys(FILES) as Role[]) {
    const plain = parseDoc(SEEDS[role], FILES[role]);
    const bom = parseDoc(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), SEEDS[role]]), FILES[role]);
    assert.deepEqual(bom.data, plain.data);
    for (const path of fieldPaths(plain.data))
      assert.equal(bom.line(path), plain.line(path), `${role}: ${path.join('.')}`);
  }
});

/**
 * The locator before it kept a line index (one full scan per look-up), kept as the oracle for
 * "same lines as before". It read CRLF headers followed by a comment as no header at all; the
 * index reads them as headers, so the oracle is asked about the LF form of the text.
 */
function locateOnEachCall(text: string, path: FieldPath): number | undefined {
  const HEADER = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
  const KEY = /^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+(?:\s*\.\s*[A-Za-z0-9_-]+)*)\s*=/;
  const unquote = (k: string) => k.trim().replace(/^["']|["']$/g, '');
  const splitKey = (k: string) => k.split('.').map(unquote);
  const resolveParent = (current: string[], names: string[]) => {
    const out: string[] = [];
    let c = 0;
    for (const n of names) {
      out.push(n);
      if (current[c] === n) {
        c++;
        if (c < current.length && /^\d+$/.test(current[c]!)) out.push(current[c++]!);
      } else c = current.length;
    }
    return out;
  };
  const want = path.map(String);
  const counts = new Map<string, number>();
  let current: string[] = [];
  let best: { line: number; depth: number } | undefined;
  const consider = (candidate: string[], line: number) => {
    let depth = 0;
    while (depth < candidate.length && depth < want.length && candidate[depth] === want[depth]) depth++;
    if (depth < candidate.length) return;
    if (!best || depth > best.depth) best = { line, depth };
  };
  let inMultiline: string | undefined;
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (inMultiline) {
      if (raw.includes(inMultiline)) inMultiline = undefined;
      continue;
    }
    const header = HEADER.exec(raw);
    if (header && !KEY.test(raw)) {
      const names = splitKey(header[2]!);
      if (header[1] === '[[') {
        const parent = resolveParent(current, names.slice(0, -1));
        const key = [...parent, names.at(-1)!].join('\u0000');
        const index = counts.get(key) ?? 0;
        counts.set(key, index + 1);
        for (const k of counts.keys()) if (k.startsWith(`${key}\u0000`)) counts.delete(k);
        current = [...parent, names.at(-1)!, String(index)];
      } else current = resolveParent(current, names);
      consider(current, i + 1);
      continue;
    }
    const key = KEY.exec(raw);
    if (key) {
      consider([...current, ...splitKey(key[1]!)], i + 1);
      const rest = raw.slice(key[0].length);
      const opener = /^\s*("""|''')/.exec(rest);
      if (opener && rest.indexOf(opener[1]!, rest.indexOf(opener[1]!) + 3) < 0) inMultiline = opener[1];
    }
  }
  return best?.line;
}

/** Every field path of the data, plus a missing key under each table (found through its header). */
function fieldPaths(data: unknown, limit = 400): FieldPath[] {
  const out: FieldPath[] = [];
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: data, path: [] }];
  while (stack.length && out.length < limit) {
    const { value, path } = stack.pop()!;
    if (path.length) out.push(path);
    if (Array.isArray(value)) value.forEach((v, i) => stack.push({ value: v, path: [...path, i] }));
    else if (value && typeof value === 'object') {
      out.push([...path, 'no_such_key']);
      for (const [k, v] of Object.entries(value)) stack.push({ value: v, path: [...path, k] });
    }
  }
  return out;
}

test('the line index gives the lines the per-look-up scan gave, on the seeds and on mutations that still parse', () => {
  const mutations = ['byte flips', 'line edits', 'CRLF line ends', 'byte-order mark', 'many claims'];
  let compared = 0;
  for (let index = 0; index < CASES; index++) {
    const rng = caseRng(SEED ^ 0x1234, index);
    const role = rng.pick(Object.keys(FILES) as Role[]);
    const generator = index < 3 ? undefined : rng.pick(mutations);
    const bytes = generator ? GENERATORS[generator]!(rng, SEEDS[role]) : SEEDS[role];
    let doc;
    try {
      doc = parseDoc(bytes, FILES[role]);
    } catch {
      continue;
    }
    for (const path of fieldPaths(doc.data, generator === 'many claims' ? 60 : 400)) {
      assert.equal(
        doc.line(path),
        locateOnEachCall(doc.text, path),
        `case ${index} (${generator ?? 'seed'}, ${role}) of VKIT_FUZZ_SEED=${SEED}: ${path.join('.')}`,
      );
      compared++;
    }
  }
  assert.ok(compared > 1000, `only ${compared} look-ups compared`);
});
