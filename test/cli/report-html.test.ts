/**
 * The report page as a pure function of its data: every value escaped (a planted `<script>` in a log
 * tail, a reason or a run's label stays text), nothing external (no src, href, url(...) or address),
 * a Content-Security-Policy that allows no script; the graph in layers with one arrow per edge; and
 * where `--out` may write: never in the store or a .git directory, never over files vkit did not make.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { renderReport } from '../../src/cli/report/html.js';
import { checkOutDir, writePage } from '../../src/cli/report/out-dir.js';
import { VkitError } from '../../src/errors.js';
import type { ReportData } from '../../src/service/report.js';

const EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>';

function data(overrides: Partial<ReportData> = {}): ReportData {
  return {
    gate: {
      schema: 'vkit.gate/1',
      status: 'REJECTED',
      reason: `1 required item(s) failed: check:b ${EVIL}`,
      items: [
        {
          id: 'check:a',
          required: true,
          status: 'PASS',
          reason: 'passed',
          run: 'run_1',
          receipt: `sha256:${'a'.repeat(64)}`,
          assurance: 'empirical',
        },
        {
          id: 'check:b',
          required: true,
          status: 'FAIL',
          reason: `exit code 1 ${EVIL}`,
          run: 'run_2',
          receipt: `sha256:${'b'.repeat(64)}`,
        },
        { id: 'check:c', required: true, status: 'MISSING', reason: 'no evidence', run: null },
      ],
    },
    configFile: 'vkit.manifest.json',
    tails: { 'check:b': ['AssertionError: nope', EVIL] },
    evidence: { 'check:a': { ms: 1234, source: `sha256:${'c'.repeat(64)}`, checker: null, policy: null } },
    nodes: ['check:a', 'check:b', 'check:c'],
    edges: [
      ['check:a', 'check:b'],
      ['check:b', 'check:c'],
    ],
    runs: [
      {
        run: 'run_1',
        label: 'check:a',
        state: 'done',
        outcome: 'PASS',
        ms: 1234,
        created_at: '2026-01-01T00:00:00.000Z',
      },
      {
        run: 'run_2',
        label: `check:${EVIL}`,
        state: 'done',
        outcome: 'FAIL',
        ms: 10,
        created_at: '2026-01-01T00:00:01.000Z',
      },
      {
        run: 'run_3',
        label: 'check:c',
        state: 'running',
        outcome: null,
        ms: null,
        created_at: '2026-01-01T00:00:02.000Z',
      },
    ],
    ...overrides,
  };
}

/** Every tag of the page (escaped text holds no `<`, so these are the real ones). */
const tagsOf = (html: string) => html.match(/<[^>]*>/g) ?? [];

const CTX = { generatedAt: '2026-01-01T00:00:03.000Z', version: '0.0.0-test', root: `/tmp/${EVIL}` };

test('every value is escaped: a planted script or tag stays text', () => {
  const html = renderReport(data(), CTX);
  assert.equal(html.match(/<script/gi), null, 'no script tag');
  assert.equal(html.match(/<img/gi), null, 'no img tag');
  assert.ok(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'), 'the planted text is there, escaped');
  for (const tag of tagsOf(html)) assert.doesNotMatch(tag, /\son\w+\s*=/i, `no event handler attribute: ${tag}`);
});

test('nothing external: no src, href, url(...) or address; a CSP that allows no script', () => {
  const html = renderReport(data(), CTX);
  for (const tag of tagsOf(html)) assert.doesNotMatch(tag, /\s(src|href|xlink:href|action|srcset)\s*=/i, tag);
  assert.doesNotMatch(html, /url\(/i);
  assert.doesNotMatch(html, /https?:|\/\/[a-z]/i);
  assert.match(
    html,
    /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">/,
  );
});

test('the gate, each item with duration and identities, the failing tails, graph and chart', () => {
  const html = renderReport(data(), CTX);
  assert.match(html, /<h1>Gate: REJECTED<\/h1>/);
  assert.match(html, /<header class="gate gate-REJECTED">/);
  // Failing items first; a passing item's duration from its receipt.
  assert.ok(html.indexOf('id="item-check:b"') < html.indexOf('id="item-check:a"'));
  assert.match(html, /1\.2 s/);
  assert.match(html, /<pre>AssertionError: nope\n&lt;script&gt;/);
  assert.match(
    html,
    /check:c<\/code> <span class="status"[^>]*>MISSING<\/span><\/h3><p>no evidence<\/p><p class="none">No output retained\./,
  );
  // Three layers (a -> b -> c): boxes at x = 10, 270, 530; two arrows.
  const xs = [...html.matchAll(/<rect x="(\d+)" y="\d+" width="200"/g)].map((m) => Number(m[1]));
  assert.deepEqual(xs, [10, 270, 530]);
  assert.equal(html.match(/<polygon /g)?.length, 2);
  // The chart: a bar per run, the running one of height 0.
  const bars = [...html.matchAll(/<rect x="\d+" y="\d+" width="18" height="(\d+)"/g)].map((m) => Number(m[1]));
  assert.deepEqual(bars, [120, 2, 0]);
});

test('a READY gate and an empty project render without items, tails or runs', () => {
  const html = renderReport(
    data({
      gate: { schema: 'vkit.gate/1', status: 'READY', reason: 'no requirements', items: [] },
      nodes: [],
      edges: [],
      runs: [],
      tails: {},
    }),
    CTX,
  );
  assert.match(html, /Gate: READY/);
  for (const none of ['No items.', 'No failing items.', 'No checks declared.', 'No runs retained.'])
    assert.ok(html.includes(none), none);
});

function refused(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof VkitError, String(e));
    assert.equal(e.exitCode, 2);
    assert.match(e.message, pattern);
    return true;
  });
}

test('--out: a new, empty or earlier-report directory only; never the store, .git or over foreign files', () => {
  const base = mkdtempSync(join(tmpdir(), 'vkit-report-out-'));
  try {
    const store = join(base, 'repo', '.git', 'vkit');
    mkdirSync(store, { recursive: true });
    refused(() => checkOutDir(undefined, store), /Expected --out DIR/);
    refused(() => checkOutDir(join(store, 'report'), store), /outside the evidence store/);
    refused(() => checkOutDir(join(base, 'repo'), store), /not to hold the evidence store/);
    refused(() => checkOutDir(join(base, 'repo', '.git', 'report'), store), /outside any \.git directory/);
    // A link leading into the store is judged where it leads.
    symlinkSync(store, join(base, 'link'));
    refused(() => checkOutDir(join(base, 'link', 'r'), store), /outside the evidence store/);
    writeFileSync(join(base, 'file'), 'x');
    refused(() => checkOutDir(join(base, 'file'), store), /to be a directory/);
    mkdirSync(join(base, 'busy'));
    writeFileSync(join(base, 'busy', 'notes.txt'), 'mine');
    refused(() => checkOutDir(join(base, 'busy'), store), /holds 1 other entry \(notes\.txt\)/);
    // An index.html vkit did not write is not written over either.
    mkdirSync(join(base, 'site'));
    writeFileSync(join(base, 'site', 'index.html'), '<!doctype html><title>my site</title>');
    refused(() => checkOutDir(join(base, 'site'), store), /holds 1 other entry \(index\.html\)/);

    const fresh = checkOutDir(join(base, 'new', 'report'), store);
    const page = writePage(fresh, renderReport(data(), CTX));
    assert.equal(readFileSync(page, 'utf8'), renderReport(data(), CTX));
    // An earlier report is written over; the directory holds nothing else.
    assert.equal(checkOutDir(join(base, 'new', 'report'), store), fresh);
    writePage(fresh, renderReport(data({ runs: [] }), CTX));
    assert.match(readFileSync(page, 'utf8'), /No runs retained/);
    mkdirSync(join(base, 'empty'));
    assert.equal(checkOutDir(join(base, 'empty'), store), join(base, 'empty'));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
