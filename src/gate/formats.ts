/**
 * Machine formats for a gate: SARIF 2.1.0 (code-scanning tools), JUnit XML (CI test views) and
 * Markdown (a CI job's summary page, such as GitHub's `$GITHUB_STEP_SUMMARY`). Pure.
 * Their readers judge by their own rules (a JUnit view is green when no testcase fails or errors, a
 * code-scanning upload is clean without error results), never by vkit's exit code. `--only` narrows
 * the items shown, and a gate without requirements shows none, so the gate's own verdict is an entry
 * too (`gate`: no item id lacks a `:`) whenever it is not READY and the items shown would not say so.
 */
import type { Gate } from './schema.js';

/** The id of the gate's own entry; every item id is `<kind>:<id>`, so none can equal it. */
const GATE_ENTRY = 'gate';

/** What a CI report adds to the gate: where each item is declared, and the failing items' log tails. */
export interface GateDetail {
  /** The config file, relative to the repository root (`/`-separated). */
  configFile: string;
  /** The line of each item's entry in it, by item id (an item not found points at line 1). */
  entryLines: Record<string, number>;
  /** The last lines of each failing or blocked item's output, escapes stripped. */
  tails: Record<string, string[]>;
  /** Where a failing or blocked item's diagnostics point in the work tree (a proof's failing line). */
  sourceLines?: Record<string, { file: string; line: number; column?: number }[]>;
}

const place = (uri: string, startLine: number, startColumn?: number) => ({
  physicalLocation: {
    artifactLocation: { uri, uriBaseId: '%SRCROOT%' },
    region: startColumn === undefined ? { startLine } : { startLine, startColumn },
  },
});

/**
 * A code-scanning upload needs a location on every result: where its diagnostics point first (the
 * line a verifier rejected), then the item's entry in the config.
 */
function locationOf(detail: GateDetail, id: string) {
  return [
    ...(detail.sourceLines?.[id] ?? []).map((s) => place(s.file, s.line, s.column)),
    place(detail.configFile, detail.entryLines[id] ?? 1),
  ];
}

const withTail = (text: string, tail: readonly string[] | undefined) =>
  tail?.length ? `${text}\n\n${tail.join('\n')}` : text;

export function toSarif(gate: Gate, version: string, detail: GateDetail): object {
  const level = (s: string) => (s === 'PASS' ? 'none' : s === 'FAIL' ? 'error' : 'warning');
  const results = gate.items.map((i) => ({
    ruleId: i.id,
    level: level(i.status),
    kind: i.status === 'PASS' ? 'pass' : i.status === 'FAIL' ? 'fail' : 'open',
    message: { text: withTail(`${i.status}: ${i.reason}`, detail.tails[i.id]) },
    locations: locationOf(detail, i.id),
    properties: { required: i.required, status: i.status, run: i.run },
  }));
  // A gate that is not READY is an error result: BLOCKED items are warnings, and a narrowed or empty list may show none.
  const verdict =
    gate.status === 'READY'
      ? []
      : [
          {
            ruleId: GATE_ENTRY,
            level: 'error',
            kind: gate.status === 'REJECTED' ? 'fail' : 'open',
            message: { text: `gate ${gate.status}: ${gate.reason}` },
            locations: locationOf(detail, GATE_ENTRY),
            properties: { required: true, status: gate.status, run: null },
          },
        ];
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'vkit',
            version,
            // No `informationUri`: vkit has no public home page yet, and a made-up address is worse than none.
            rules: [
              ...gate.items.map((i) => ({ id: i.id, shortDescription: { text: i.id } })),
              ...verdict.map(() => ({ id: GATE_ENTRY, shortDescription: { text: 'the vkit gate' } })),
            ],
          },
        },
        invocations: [{ executionSuccessful: true, properties: { gate: gate.status, reason: gate.reason } }],
        results: [...results, ...verdict],
      },
    ],
  };
}

/** XML text: markup escaped, and the control characters XML 1.0 cannot hold at all left out. */
const xml = (s: string) =>
  s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/** A failure's or error's body: the item's log tail, which CI test views show under the failure. */
const body = (tail: readonly string[] | undefined) => (tail?.length ? xml(tail.join('\n')) : '');

export function toJunit(gate: Gate, tails: Record<string, string[]> = {}): string {
  let failures = gate.items.filter((i) => i.status === 'FAIL').length;
  let open = gate.items.filter((i) => i.status !== 'PASS' && i.status !== 'FAIL').length;
  const cases = gate.items.map((i) => {
    const head = `  <testcase classname="vkit.gate" name="${xml(i.id)}">`;
    if (i.status === 'PASS') return `${head}</testcase>`;
    if (i.status === 'FAIL')
      return `${head}<failure message="${xml(i.reason)}">${body(tails[i.id])}</failure></testcase>`;
    // Missing, stale and blocked evidence is an error, not a skip: a skip reads as harmless.
    return `${head}<error type="${i.status}" message="${xml(i.reason)}">${body(tails[i.id])}</error></testcase>`;
  });
  // The items shown (narrowed by --only, or none at all) would read as a passing suite: the gate says otherwise.
  if (gate.status !== 'READY' && failures + open === 0) {
    const head = `  <testcase classname="vkit.gate" name="${GATE_ENTRY}">`;
    const message = xml(`gate ${gate.status}: ${gate.reason}`);
    if (gate.status === 'REJECTED') {
      cases.push(`${head}<failure message="${message}"/></testcase>`);
      failures++;
    } else {
      cases.push(`${head}<error type="${gate.status}" message="${message}"/></testcase>`);
      open++;
    }
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="vkit gate: ${gate.status}" tests="${cases.length}" failures="${failures}" errors="${open}">`,
    ...cases,
    '</testsuite>',
    '',
  ].join('\n');
}

const STATUS_MARK: Record<string, string> = {
  PASS: '✅',
  FAIL: '❌',
  BLOCKED: '⛔',
  MISSING: '⚪',
  STALE: '🟡',
  READY: '✅',
  REJECTED: '❌',
};

/** Text for a Markdown table cell: no line break, no unescaped pipe, no HTML a summary page would render. */
const cell = (s: string) =>
  s
    .replace(/\r?\n/g, ' ')
    .replace(/[\\|`*_<>[\]]/g, (c) => `\\${c}`)
    .trim();

/** The gate as a Markdown summary: its verdict first, then one row per item shown (failing items first). */
export function toMarkdown(gate: Gate): string {
  const order = (status: string) => ['FAIL', 'BLOCKED', 'STALE', 'MISSING', 'PASS'].indexOf(status);
  const items = [...gate.items].sort((a, b) => order(a.status) - order(b.status) || (a.id < b.id ? -1 : 1));
  const rows = items.map(
    (i) =>
      `| ${STATUS_MARK[i.status] ?? ''} ${i.status} | ${cell(i.id)} | ${i.required ? 'yes' : 'no'} | ${cell(i.reason || '-')} |`,
  );
  return [
    `## vkit gate: ${STATUS_MARK[gate.status] ?? '⛔'} ${gate.status}`,
    '',
    cell(gate.reason),
    '',
    ...(rows.length === 0 ? ['No items.'] : ['| status | item | required | reason |', '|---|---|---|---|', ...rows]),
    '',
  ].join('\n');
}
