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

export function toSarif(gate: Gate, version: string): object {
  const level = (s: string) => (s === 'PASS' ? 'none' : s === 'FAIL' ? 'error' : 'warning');
  const results = gate.items.map((i) => ({
    ruleId: i.id,
    level: level(i.status),
    kind: i.status === 'PASS' ? 'pass' : i.status === 'FAIL' ? 'fail' : 'open',
    message: { text: `${i.status}: ${i.reason}` },
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
            informationUri: 'https://github.com/vkit',
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

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function toJunit(gate: Gate): string {
  let failures = gate.items.filter((i) => i.status === 'FAIL').length;
  let open = gate.items.filter((i) => i.status !== 'PASS' && i.status !== 'FAIL').length;
  const cases = gate.items.map((i) => {
    const head = `  <testcase classname="vkit.gate" name="${xml(i.id)}">`;
    if (i.status === 'PASS') return `${head}</testcase>`;
    if (i.status === 'FAIL') return `${head}<failure message="${xml(i.reason)}"/></testcase>`;
    // Missing, stale and blocked evidence is an error, not a skip: a skip reads as harmless.
    return `${head}<error type="${i.status}" message="${xml(i.reason)}"/></testcase>`;
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
