/**
 * Generators of hostile `vkit.manifest.json` documents for the config fuzz (test/config/manifest-fuzz),
 * and the base config data the `vkit.config.ts` generator (fuzz-configs.ts) wraps in hostile code.
 *
 * A case starts from a valid manifest over a small tree: checks whose command leaves a mark file
 * outside the work tree and exits with a chosen code (so a test can tell, without asking vkit, which
 * checks pass and whether they ran), `after` edges, exclusions, outputs, a model comparison. Then
 * near-valid mutations: wrong types, missing and extra fields (`__proto__` too), huge strings,
 * numbers and arrays, deep nesting, duplicate keys, odd unicode and lone surrogates, NUL, cycles in
 * `after`, duplicate ids, bad globs (junk and catastrophic-backtracking shapes), bad `cwd`s and env
 * names, slow checks under a short timeout; and byte-level damage: invalid UTF-8, a BOM, NUL bytes,
 * cuts, byte flips, CRLF.
 */
import { hostileGlob, junkGlob, randomTree } from './fuzz-globs.js';
import type { Rng } from './random.js';
import { WATCHED_FROM_OUTSIDE } from './repo.js';

/** Text written as is in the document (deep nesting, numbers JSON.stringify cannot write). */
class Raw {
  constructor(readonly text: string) {}
}
/** An object whose members may repeat a key (JSON.parse keeps the last; vkit must refuse). */
class Members {
  constructor(readonly members: Array<[string, unknown]>) {}
}

/** JSON text of a value holding Raw and Members. */
export function jsonText(value: unknown, indent = '', step = '  '): string {
  const nl = step ? '\n' : '';
  const inner = indent + step;
  if (value instanceof Raw) return value.text;
  if (value instanceof Members) {
    if (value.members.length === 0) return '{}';
    return `{${nl}${value.members.map(([k, v]) => `${inner}${JSON.stringify(k)}:${step ? ' ' : ''}${jsonText(v, inner, step)}`).join(`,${nl}`)}${nl}${indent}}`;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${nl}${value.map((v) => inner + jsonText(v, inner, step)).join(`,${nl}`)}${nl}${indent}]`;
  }
  if (value && typeof value === 'object') return jsonText(new Members(Object.entries(value)), indent, step);
  if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
  return JSON.stringify(value) ?? 'null';
}

/** The tree every case starts with (plus, now and then, random names). */
const BASE_FILES: Record<string, string> = {
  'a.txt': 'a\n',
  'README.md': '# r\n',
  'src/main.ts': 'export const x = 1;\n',
  'src/lib/util.ts': 'export const y = 2;\n',
  'docs/guide.md': '# guide\n',
  'data/x.json': '{"x": 1}\n',
};
/** The comparison every case may declare: the example request, whose models differ. */
const MODEL_REQUEST = 'models/request.json';
const MODEL_ANSWER = 'different';

const GOOD_INPUTS = [
  'a.txt',
  'src/**',
  'src/**/*.ts',
  '**/*.md',
  'docs/*',
  '{a.txt,data/*.json}',
  'data/x.json',
  './a.txt',
  'src/*.ts',
  'src/{main,lib/util}.ts',
  '**',
];
const EXCLUSIONS = ['!src/lib/**', '!**/*.md', '!docs/**', '!./README.md'];
const IDS = [
  'lint',
  'unit',
  'build.x',
  'A_b-1',
  '0x',
  'e2e',
  'types',
  'c.d.e',
  'Z',
  'long-id-with-dashes_and_underscores.42',
];

/** The command of a check, from which a test reads what it does: leave `mark`, exit `code`. */
function markCommand(rng: Rng, mark: string, code: number, slow = false): string[] | string {
  const wait = slow ? 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0,3000);' : '';
  if (rng.chance(0.7))
    return ['node', '-e', `require('fs').writeFileSync(${JSON.stringify(mark)},'');${wait}process.exit(${code})`];
  return `touch '${mark}' && ${slow ? 'sleep 3 && ' : ''}exit ${code}`;
}
const ARGV_CODE =
  /^require\('fs'\)\.writeFileSync\(("(?:[^"\\]|\\.)*"),''\);(?:Atomics\.wait\(new Int32Array\(new SharedArrayBuffer\(4\)\),0,0,3000\);)?process\.exit\((\d+)\)$/s;
const SHELL_CODE = /^touch '([^']*)' && (?:sleep 3 && )?exit (\d+)$/s;

/** What a command is known to do: its mark and exit code, or undefined when it is not one markCommand wrote. */
function readCommand(run: unknown): { mark: string; code: number } | undefined {
  if (Array.isArray(run) && run.length === 3 && run[0] === 'node' && run[1] === '-e' && typeof run[2] === 'string') {
    const m = ARGV_CODE.exec(run[2]);
    if (m) {
      try {
        return { mark: JSON.parse(m[1]!) as string, code: Number(m[2]) };
      } catch {
        return undefined;
      }
    }
  }
  if (typeof run === 'string') {
    const m = SHELL_CODE.exec(run);
    if (m) return { mark: m[1]!, code: Number(m[2]) };
  }
  return undefined;
}

export interface BaseConfig {
  data: Record<string, unknown>;
  files: Record<string, string>;
}

/** A valid config over BASE_FILES: 0-5 checks, `after` edges forward only, sometimes a comparison. */
export function baseConfig(rng: Rng, marksDir: string, opts: { failing?: number } = {}): BaseConfig {
  const files: Record<string, string> = { ...BASE_FILES };
  if (rng.chance(0.3))
    for (const p of randomTree(rng, rng.between(1, 6)))
      if (!Object.keys(files).some((f) => f.startsWith(`${p}/`) || p.startsWith(`${f}/`))) files[p] = `${p}\n`;
  const n = rng.weighted([
    [1, 0],
    [6, 1],
    [6, 2],
    [3, 3],
    [2, 5],
  ] as const);
  const ids: string[] = [];
  while (ids.length < n) {
    const id = rng.chance(0.5) ? `c${ids.length}` : rng.pick(IDS);
    if (!ids.includes(id)) ids.push(id);
  }
  const failing = opts.failing ?? 0.2;
  const checks = ids.map((id, i) => {
    const code = rng.chance(failing) ? rng.pick([1, 2, 42]) : 0;
    const check: Record<string, unknown> = {
      id,
      run: markCommand(rng, `${marksDir}/${id}`, code),
      inputs: [] as string[],
      // The mark is written outside the work tree, where the default sandbox's private /tmp would hide it.
      sandbox: { ...WATCHED_FROM_OUTSIDE },
    };
    const inputs = check.inputs as string[];
    for (let k = rng.between(1, 3); k > 0; k--) inputs.push(rng.pick(GOOD_INPUTS));
    if (rng.chance(0.2)) inputs.push(rng.pick(EXCLUSIONS));
    if (i > 0 && rng.chance(0.4))
      check.after = [...new Set(Array.from({ length: rng.between(1, i) }, () => ids[rng.int(i)]!))];
    if (rng.chance(0.15)) check.expect = { exit_code: code };
    if (rng.chance(0.15)) check.timeout_s = rng.pick([30, 60, 600]);
    if (rng.chance(0.1)) check.env = rng.pick([['CI'], ['HOME'], ['VKIT_FUZZ_X', 'LANG']]);
    if (rng.chance(0.1)) check.cwd = rng.pick(['.', 'src', 'docs']);
    return check;
  });
  const data: Record<string, unknown> = { checks };
  if (rng.chance(0.15)) {
    files[MODEL_REQUEST] = MODEL_REQUEST_TEXT;
    data.compare = [
      { id: 'model', request: MODEL_REQUEST, expect: rng.pick(['different', 'different', 'equivalent']) },
    ];
  }
  if (rng.chance(0.1)) data.$schema = rng.pick(['./schema/manifest.schema.json', 'https://example.invalid/x.json']);
  if (rng.chance(0.1)) data.schema_version = 3;
  return { data, files };
}

/** A copy of the example request (examples/model-comparison/request.json), read once by the test. */
let MODEL_REQUEST_TEXT = '';
export function setModelRequest(text: string): void {
  MODEL_REQUEST_TEXT = text;
}

// ---------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------

type Container = Record<string, unknown> | unknown[];
interface Slot {
  parent: Container;
  key: string | number;
}

/** Every slot (object member or array element) of a value, depth first. */
function slots(value: unknown, out: Slot[] = []): Slot[] {
  if (Array.isArray(value)) value.forEach((v, i) => (out.push({ parent: value, key: i }), slots(v, out)));
  else if (value && typeof value === 'object' && !(value instanceof Raw) && !(value instanceof Members))
    for (const [k, v] of Object.entries(value))
      out.push({ parent: value as Record<string, unknown>, key: k }), slots(v, out);
  return out;
}
function objects(value: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (Array.isArray(value)) value.forEach((v) => objects(v, out));
  else if (value && typeof value === 'object' && !(value instanceof Raw) && !(value instanceof Members)) {
    out.push(value as Record<string, unknown>);
    for (const v of Object.values(value)) objects(v, out);
  }
  return out;
}
const set = (s: Slot, v: unknown) => ((s.parent as Record<string | number, unknown>)[s.key] = v);

const UNICODE = [
  'é',
  'e\u0301',
  'İ',
  'ﬁ',
  '\u202eevil',
  'a\u200bb',
  '😀',
  '\ud800',
  '\udfff',
  '日本語',
  '\u0085',
  '\u2028',
  '\ufeff',
  'Ω',
  'ǅ',
  '\u00a0',
];

function hostileValue(rng: Rng): unknown {
  return rng.weighted<() => unknown>([
    [3, () => rng.pick([null, true, false, 0, -1, 1.5, -0, 2 ** 53 + 1, 1e308, -1e308, 5e-324])],
    [2, () => new Raw(rng.pick(['1e400', '-0.0', '123456789012345678901234567890', '1E2', '0.1e-400', '-1e-7']))],
    [
      3,
      () =>
        rng.pick([
          '',
          ' ',
          'x',
          '\u0000',
          '../x',
          '/etc/passwd',
          '*',
          '!',
          '{',
          '[z-a]',
          '.',
          'true',
          'null',
          '\n',
          'a'.repeat(300),
        ]),
    ],
    [2, () => rng.pick(UNICODE)],
    [2, () => rng.pick([[], [null], [1, 'a'], {}, { a: 1 }, [[]], { id: 'x' }])],
  ])();
}

function hugeValue(rng: Rng): unknown {
  return rng.weighted<() => unknown>([
    [3, () => rng.pick(['a', 'é', '*', ' ', 'a/']).repeat(rng.pick([10_000, 100_000, 1_000_000]))],
    [2, () => Array.from({ length: rng.pick([1_000, 10_000, 50_000]) }, () => rng.pick(['a.txt', 'src/**', 1, null]))],
    [1, () => Object.fromEntries(Array.from({ length: rng.pick([1_000, 10_000]) }, (_, i) => [`k${i}`, i]))],
  ])();
}

function deepText(rng: Rng): Raw {
  const d = rng.pick([63, 64, 65, 100, 1_000, 10_000, 100_000]);
  return new Raw(
    rng.pick([
      `${'['.repeat(d)}1${']'.repeat(d)}`,
      `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`,
      `${'[{"a":'.repeat(d)}1${'}]'.repeat(d)}`,
    ]),
  );
}

function badGlob(rng: Rng): string {
  return rng.weighted<() => string>([
    [
      3,
      () =>
        rng.pick([
          '',
          '!',
          '!**',
          '{',
          'src/{a,b',
          '[z-a]',
          '[',
          '**/',
          '/abs',
          '../x',
          './',
          '.',
          '..',
          'src/',
          '\u0000',
          'a\\',
          '{,}',
          '{}',
          '[!]',
          '***',
          '**/**/**',
          `${'*'.repeat(40)}x`,
          '\ud800',
          '.env',
          'config/app.key',
          '.git/**',
          '.vkit/**',
          'nothing/**',
          'a.txt/**',
        ]),
    ],
    [2, () => junkGlob(rng)],
    [1, () => hostileGlob(rng).pattern],
  ])();
}

const EXTRA_KEYS = [
  'extra',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '$schema',
  'schema_version',
  'id ',
  'ID',
  '',
  'İd',
  'checks',
  'run',
  'inputs',
  'rules',
  'actions',
];

/** One mutation of the data; returns its name. Mutations that make the document invalid say so through `invalid`. */
type Mutation = (rng: Rng, doc: { data: Record<string, unknown>; duplicates: boolean }) => void;
const checksOf = (data: Record<string, unknown>) =>
  Array.isArray(data.checks)
    ? (data.checks as unknown[]).filter(
        (c): c is Record<string, unknown> =>
          !!c && typeof c === 'object' && !Array.isArray(c) && !(c instanceof Raw) && !(c instanceof Members),
      )
    : [];

const MUTATIONS: Record<string, Mutation> = {
  'wrong type': (rng, { data }) => {
    const all = slots(data);
    if (all.length) set(rng.pick(all), hostileValue(rng));
  },
  'missing field': (rng, { data }) => {
    const objs = objects(data).filter((o) => Object.keys(o).length);
    if (!objs.length) return;
    const o = rng.pick(objs);
    delete o[rng.pick(Object.keys(o))];
  },
  'extra field': (rng, { data }) => {
    const o = rng.pick(objects(data));
    Object.defineProperty(o, rng.pick(EXTRA_KEYS), {
      value: hostileValue(rng),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  },
  'huge value': (rng, { data }) => {
    const all = slots(data);
    if (all.length) set(rng.pick(all), hugeValue(rng));
  },
  'deep nesting': (rng, { data }) => {
    const all = slots(data);
    if (all.length) set(rng.pick(all), deepText(rng));
    else data.deep = deepText(rng);
  },
  'duplicate key': (rng, doc) => {
    const all = slots(doc.data).filter((s) => {
      const v = (s.parent as Record<string | number, unknown>)[s.key];
      return (
        !!v &&
        typeof v === 'object' &&
        !Array.isArray(v) &&
        !(v instanceof Raw) &&
        !(v instanceof Members) &&
        Object.keys(v).length > 0
      );
    });
    const target = all.length && rng.chance(0.8) ? all[rng.int(all.length)]! : undefined;
    const obj = target
      ? ((target.parent as Record<string | number, unknown>)[target.key] as Record<string, unknown>)
      : doc.data;
    const entries = Object.entries(obj);
    if (!entries.length) return;
    const [k, v] = rng.pick(entries);
    const again: [string, unknown] = [k, rng.chance(0.5) ? v : hostileValue(rng)];
    const members = new Members(rng.chance(0.5) ? [...entries, again] : [again, ...entries]);
    if (target) set(target, members);
    else {
      // The top level itself: every key moves into a wrapper the serializer writes with the repeat.
      for (const key of Object.keys(doc.data)) delete doc.data[key];
      (doc.data as Record<string, unknown>)[TOP] = members;
    }
    doc.duplicates = true;
  },
  'odd unicode': (rng, { data }) => {
    const strings = slots(data).filter(
      (s) => typeof (s.parent as Record<string | number, unknown>)[s.key] === 'string',
    );
    if (!strings.length) return;
    const s = rng.pick(strings);
    const old = (s.parent as Record<string | number, unknown>)[s.key] as string;
    const u = rng.pick(UNICODE);
    set(
      s,
      rng.pick([u, old + u, u + old, old.normalize('NFD'), old.toUpperCase(), `${old.slice(0, 1)}${u}${old.slice(1)}`]),
    );
  },
  'NUL in a string': (rng, { data }) => {
    const strings = slots(data).filter(
      (s) => typeof (s.parent as Record<string | number, unknown>)[s.key] === 'string',
    );
    if (!strings.length) return;
    const s = rng.pick(strings);
    const old = (s.parent as Record<string | number, unknown>)[s.key] as string;
    set(s, rng.pick([`${old}\u0000`, `\u0000${old}`, `${old.slice(0, 1)}\u0000${old.slice(1)}`]));
  },
  'cycle in after': (rng, { data }) => {
    const checks = checksOf(data);
    if (checks.length === 0) return;
    if (checks.length === 1 || rng.chance(0.2)) {
      checks[0]!.after = [checks[0]!.id];
      return;
    }
    const order = checks.slice(0, rng.between(2, checks.length));
    order.forEach((c, i) => (c.after = [order[(i + 1) % order.length]!.id]));
  },
  'after naming nothing': (rng, { data }) => {
    const checks = checksOf(data);
    if (checks.length)
      rng.pick(checks).after = rng.pick([['nope'], ['compare:model'], ['check:lint'], ['lint', 'lint'], [''], 'lint']);
  },
  'duplicate id': (rng, { data }) => {
    const checks = checksOf(data);
    if (checks.length >= 2) rng.pick(checks).id = checks[0]!.id;
    else if (checks.length === 1) (data.checks as unknown[]).push({ ...checks[0]! });
  },
  'bad glob': (rng, { data }) => {
    const checks = checksOf(data);
    if (!checks.length) return;
    const c = rng.pick(checks);
    const field = rng.pick(['inputs', 'inputs', 'outputs']);
    const list = Array.isArray(c[field]) ? (c[field] as unknown[]) : (c[field] = []);
    list.splice(rng.int(list.length + 1), rng.int(2), badGlob(rng));
  },
  'many checks': (rng, { data }) => {
    // A small template (copying a mutated check a thousand times could make gigabytes of text).
    const first = checksOf(data)[0];
    const template = {
      id: typeof first?.id === 'string' ? first.id.slice(0, 100) : 'c',
      run: 'true',
      inputs: ['a.txt'],
    };
    // Cheap commands (a shell builtin) when they are unique, so that a case that runs them stays quick;
    // repeated ids are refused before anything runs, so those can be many.
    const unique = rng.chance(0.5);
    const n = unique ? rng.pick([30, 100]) : rng.pick([200, 2_000]);
    data.checks = Array.from({ length: n }, (_, i) => ({
      ...template,
      id: unique ? `m${i}` : template.id,
      ...(unique ? { run: ':' } : {}),
    }));
  },
  'bad cwd': (rng, { data }) => {
    const checks = checksOf(data);
    if (checks.length)
      rng.pick(checks).cwd = rng.pick([
        '../',
        '/',
        '/tmp',
        'nope',
        'a.txt',
        'src/../..',
        '.git',
        '',
        ' ',
        'src/lib',
        '\u0000',
        'é',
      ]);
  },
  'bad env': (rng, { data }) => {
    const checks = checksOf(data);
    if (checks.length)
      rng.pick(checks).env = rng.pick([
        ['PATH'],
        ['X\u0000'],
        ['1BAD'],
        ['A'.repeat(5000)],
        ['HOME', 'HOME'],
        [''],
        'CI',
        [['CI']],
        ['LD_PRELOAD'],
      ]);
  },
  'bad expect': (rng, { data }) => {
    const checks = checksOf(data);
    if (checks.length)
      rng.pick(checks).expect = rng.pick([
        { exit_code: 256 },
        { exit_code: -1 },
        { exit_code: 1.5 },
        { exit_code: '0' },
        { exit_code: null },
        {},
        null,
        0,
        { exit_code: 0, extra: 1 },
        { exit_code: 1 },
      ]);
  },
  'slow check, short timeout': (rng, { data }) => {
    const checks = checksOf(data);
    if (!checks.length) return;
    const c = rng.pick(checks);
    const known = readCommand(c.run);
    if (known) c.run = markCommand(rng, known.mark, known.code, true);
    c.timeout_s = rng.pick([1, 1, 0, -5, 86_401, 1e9]);
  },
  'bad comparison': (rng, { data }) => {
    data.compare = rng.pick([
      [{ id: 'model', request: 'nope.json', expect: 'equivalent' }],
      [{ id: 'model', request: MODEL_REQUEST, expect: 'maybe' }],
      [{ id: 'model', request: 'a.txt', expect: 'different' }],
      [{ id: 'model', request: '../x.json', expect: 'different' }],
      [{ id: 'model', request: 'models/*.json', expect: 'different' }],
      [{ id: 'lint', request: 'README.md', expect: 'equivalent' }],
      [{}],
      {},
    ]);
  },
  'other sections': (rng, { data }) => {
    const key = rng.pick(['formal', 'acceptance', 'actions', 'rules']);
    data[key] = rng.pick([
      [],
      {},
      null,
      [{}],
      {
        components: [
          {
            id: 'f',
            package: { id: 'p', version: '1', sha256: `sha256:${'0'.repeat(64)}` },
            contract: 'c',
            source: { entry: 'a.txt' },
            profile: 'coq-linux-x86_64-v1',
            bindings: {},
            inputs: ['a.txt'],
          },
        ],
      },
      [{ id: 'acc', root: '.', spec: 'nope.toml', package: 'nope.toml', decision: 'nope.toml' }],
      [{ kind: 'mine', version: 1, source_sha256: `sha256:${'0'.repeat(64)}` }],
      [{ id: 'x', rule: 'check', inputs: ['a.txt'] }],
      hostileValue(rng),
    ]);
  },
};

/** Key under which 'duplicate key' keeps the top-level Members (the document is then that object). */
const TOP = '\u0000top';

const BYTE_MUTATIONS: Record<string, (rng: Rng, bytes: Buffer) => Buffer> = {
  'invalid UTF-8': (rng, bytes) => {
    const bad = rng.pick([
      [0xff],
      [0xfe],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0x80],
      [0xe2, 0x82],
      [0xf0, 0x9f, 0x98],
    ]);
    // Inside a string most of the time (right after a quote), where JSON.parse would take it.
    const quotes = [...bytes.keys()].filter((i) => bytes[i] === 0x22);
    const at = quotes.length && rng.chance(0.8) ? rng.pick(quotes) + 1 : rng.int(bytes.length + 1);
    return Buffer.concat([bytes.subarray(0, at), Uint8Array.from(bad), bytes.subarray(at)]);
  },
  'byte-order mark': (_rng, bytes) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]),
  'NUL byte': (rng, bytes) => {
    const at = rng.int(bytes.length + 1);
    return Buffer.concat([bytes.subarray(0, at), Buffer.from([0]), bytes.subarray(at)]);
  },
  cut: (rng, bytes) => bytes.subarray(0, rng.int(bytes.length)),
  'byte flips': (rng, bytes) => {
    const out = Buffer.from(bytes);
    for (let n = rng.between(1, 4); n > 0 && out.length; n--) out[rng.int(out.length)] ^= 1 << rng.int(8);
    return out;
  },
  'CRLF line ends': (_rng, bytes) => Buffer.from(bytes.toString('latin1').replace(/\n/g, '\r\n'), 'latin1'),
  'not an object': (rng) =>
    Buffer.from(
      rng.pick([
        '[]',
        'null',
        '"checks"',
        '1',
        'true',
        '',
        ' ',
        '{',
        '}',
        '{"checks": []} {}',
        '{"checks": [],}',
        '// x\n{}',
        "{'checks': []}",
      ]),
    ),
};

function repeatsAKey(value: unknown): boolean {
  if (value instanceof Members) {
    const keys = value.members.map(([k]) => k);
    return new Set(keys).size < keys.length || value.members.some(([, v]) => repeatsAKey(v));
  }
  if (Array.isArray(value)) return value.some(repeatsAKey);
  if (value && typeof value === 'object' && !(value instanceof Raw)) return Object.values(value).some(repeatsAKey);
  return false;
}

export interface ManifestCase {
  /** The mutations applied, in order. */
  generator: string;
  bytes: Buffer;
  files: Record<string, string>;
  /** Set when the bytes cannot be a manifest whatever vkit thinks: an exit 2 is the only answer. */
  invalid?: string;
}

/** A manifest case: a valid base, then 0-3 mutations of the data and, now and then, of the bytes. */
export function generateManifest(rng: Rng, marksDir: string, opts: { mutations?: number } = {}): ManifestCase {
  const base = baseConfig(rng, marksDir);
  const doc = { data: base.data, duplicates: false };
  const names: string[] = [];
  const n =
    opts.mutations ??
    rng.weighted([
      [3, 0],
      [6, 1],
      [3, 2],
      [1, 3],
    ] as const);
  for (let k = 0; k < n; k++) {
    const name = rng.pick(Object.keys(MUTATIONS));
    MUTATIONS[name]!(rng, doc);
    names.push(name);
  }
  const top = doc.data[TOP];
  let bytes: Buffer = Buffer.from(jsonText(top instanceof Members ? top : doc.data, '', rng.pick(['  ', '', '\t'])));
  // Later mutations may have replaced the object that repeated a key: ask the final data.
  let invalid: string | undefined = repeatsAKey(doc.data) ? 'a repeated key' : undefined;
  if (opts.mutations === undefined && rng.chance(0.15)) {
    const name = rng.pick(Object.keys(BYTE_MUTATIONS));
    const before = bytes;
    bytes = BYTE_MUTATIONS[name]!(rng, bytes);
    names.push(name);
    // The bytes decide now (a flip may have changed the repeated key, a replacement dropped it).
    invalid = !bytes.equals(before) && ['invalid UTF-8', 'byte-order mark'].includes(name) ? name : undefined;
  }
  try {
    JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    invalid ??= 'not JSON';
  }
  return { generator: names.join(' + ') || 'valid', bytes, files: base.files, invalid };
}

// ---------------------------------------------------------------------------------------------
// What a test can know without vkit
// ---------------------------------------------------------------------------------------------

export interface Known {
  /** Files the config names whose own errors are reported under their name (comparison requests). */
  named: string[];
  /** Gate items any reading of the document declares (checks, comparisons, ...): a READY gate before any run needs 0. */
  requirements: number;
  /** Checks by id whose command is one markCommand wrote, with whether they pass. */
  checks: Array<{ id: string; mark: string; passes: boolean }>;
  /** Some requirement is known to fail or cannot pass: READY is impossible. */
  cannotPass: string[];
}

/** Reads the parsed document the way a test can be sure of (nothing here asks vkit). */
export function knownOf(data: unknown): Known {
  const known: Known = { named: [], requirements: 0, checks: [], cannotPass: [] };
  if (!data || typeof data !== 'object' || Array.isArray(data)) return known;
  const d = data as Record<string, unknown>;
  for (const key of ['checks', 'compare', 'actions', 'acceptance'])
    if (Array.isArray(d[key])) known.requirements += (d[key] as unknown[]).length;
  const formal = d.formal as { components?: unknown } | undefined;
  if (formal && Array.isArray(formal.components)) known.requirements += formal.components.length;
  if (Array.isArray(d.checks)) {
    for (const c of d.checks as Array<Record<string, unknown>>) {
      if (!c || typeof c !== 'object' || typeof c.id !== 'string') continue;
      const cmd = readCommand(c.run);
      // Sandboxed (its opt-out mutated away), a check cannot leave its mark outside the work tree.
      if (!cmd || JSON.stringify(c.sandbox) !== JSON.stringify(WATCHED_FROM_OUTSIDE)) continue;
      const expect =
        c.expect === undefined
          ? 0
          : typeof c.expect === 'object' && c.expect !== null
            ? ((c.expect as { exit_code?: unknown }).exit_code ?? 0)
            : undefined;
      if (typeof expect !== 'number') continue;
      known.checks.push({ id: c.id, mark: cmd.mark, passes: cmd.code === expect });
      if (cmd.code !== expect) known.cannotPass.push(`check:${c.id} exits ${cmd.code}, expected ${expect}`);
    }
  }
  if (Array.isArray(d.compare)) {
    for (const c of d.compare as Array<Record<string, unknown>>) {
      if (c && typeof c.request === 'string' && c.request) known.named.push(c.request);
      if (
        c &&
        c.request === MODEL_REQUEST &&
        (c.expect === 'equivalent' || c.expect === 'different') &&
        c.expect !== MODEL_ANSWER
      )
        known.cannotPass.push(`compare:${String(c.id)} expects ${c.expect}, the models are ${MODEL_ANSWER}`);
    }
  }
  return known;
}
