/**
 * `vkit report`'s page: one self-contained HTML document from the report's data. No script, no
 * external URL, font or stylesheet: inline CSS and inline SVG only, under a Content-Security-Policy
 * that allows nothing else, so the page can be opened from a CI artifact offline. Every value is
 * escaped (`esc`). Pure.
 */
import type { GateItem } from '../../gate/schema.js';
import type { ReportData } from '../../service/report.js';
import { duration, esc, shortDigest } from './escape.js';
import { durationsSvg, graphSvg, STATUS_FILL } from './svg.js';

/** What marks a page as a vkit report: `--out` may write over a directory holding only such a page. */
export const REPORT_MARK = '<meta name="generator" content="vkit report">';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;padding:16px 24px;max-width:1200px;color:#1f2328;background:#fff}
h1{margin:0;font-size:28px}h2{margin:28px 0 8px;font-size:18px;border-bottom:1px solid #d0d7de}
.gate{padding:14px 18px;border-radius:8px;color:#fff}
.gate-READY{background:${STATUS_FILL.PASS}}.gate-REJECTED{background:${STATUS_FILL.FAIL}}.gate-BLOCKED{background:${STATUS_FILL.BLOCKED}}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #d0d7de;vertical-align:top}
.status{font-weight:600;color:#fff;border-radius:4px;padding:1px 6px}
code,pre{font:12px/1.4 ui-monospace,monospace}pre{background:#f6f8fa;padding:8px;overflow:auto;white-space:pre-wrap}
.scroll{overflow:auto}.none,footer{color:#57606a}svg text{font:12px ui-monospace,monospace}
`;

const ORDER = ['FAIL', 'BLOCKED', 'STALE', 'MISSING', 'PASS'];

/** Items as the page lists them: failing first, then by id. */
function ordered(items: readonly GateItem[]): GateItem[] {
  return [...items].sort((a, b) => ORDER.indexOf(a.status) - ORDER.indexOf(b.status) || (a.id < b.id ? -1 : 1));
}

const badge = (status: string) =>
  `<span class="status" style="background:${STATUS_FILL[status] ?? '#6e7781'}">${esc(status)}</span>`;

const digestCell = (digest: string | null | undefined) =>
  digest ? `<code title="${esc(digest)}">${esc(shortDigest(digest))}</code>` : '-';

function itemRows(data: ReportData): string {
  return ordered(data.gate.items)
    .map((i) => {
      const e = data.evidence[i.id];
      return (
        `<tr id="item-${esc(i.id)}"><td><code>${esc(i.id)}</code></td><td>${badge(i.status)}</td>` +
        `<td>${i.required ? 'yes' : 'no'}</td><td>${esc(duration(e?.ms))}</td><td>${esc(i.assurance ?? '-')}</td>` +
        `<td>${i.run ? `<code>${esc(i.run)}</code>` : '-'}</td><td>${digestCell(i.receipt)}</td>` +
        `<td>${digestCell(e?.source)}</td><td>${digestCell(e?.checker)}</td><td>${esc(i.reason || '-')}</td></tr>`
      );
    })
    .join('\n');
}

function itemsTable(data: ReportData): string {
  if (data.gate.items.length === 0) return '<p class="none">No items.</p>';
  const head = ['item', 'status', 'required', 'duration', 'assurance', 'run', 'receipt', 'inputs', 'checker', 'reason'];
  return (
    `<div class="scroll"><table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead>` +
    `<tbody>\n${itemRows(data)}\n</tbody></table></div>`
  );
}

/** Each failing or blocked item's log tail, escapes already stripped by the service. */
function tails(data: ReportData): string {
  const shown = ordered(data.gate.items).filter((i) => i.status !== 'PASS');
  if (shown.length === 0) return '<p class="none">No failing items.</p>';
  return shown
    .map((i) => {
      const tail = data.tails[i.id];
      const body = tail?.length ? `<pre>${esc(tail.join('\n'))}</pre>` : '<p class="none">No output retained.</p>';
      return `<h3><code>${esc(i.id)}</code> ${badge(i.status)}</h3><p>${esc(i.reason)}</p>${body}`;
    })
    .join('\n');
}

export interface PageContext {
  /** When the page was made (ISO time). */
  generatedAt: string;
  version: string;
  /** The project root, as the page names it. */
  root: string;
}

export function renderReport(data: ReportData, ctx: PageContext): string {
  const { gate } = data;
  const statusOf = new Map(gate.items.map((i) => [i.id, i.status]));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
${REPORT_MARK}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vkit gate ${esc(gate.status)}: ${esc(ctx.root)}</title>
<style>${STYLE}</style>
</head>
<body>
<header class="gate gate-${esc(gate.status)}"><h1>Gate: ${esc(gate.status)}</h1><p>${esc(gate.reason)}</p></header>
<p>Project <code>${esc(ctx.root)}</code>, config <code>${esc(data.configFile)}</code>.</p>
<h2>Items</h2>
${itemsTable(data)}
<h2>Failing items' log tails</h2>
${tails(data)}
<h2>Graph of checks</h2>
<div class="scroll">${graphSvg(data.nodes, data.edges, (label) => statusOf.get(label))}</div>
<h2>Last runs' durations</h2>
<div class="scroll">${durationsSvg(data.runs)}</div>
<footer><p>Made by vkit ${esc(ctx.version)} at ${esc(ctx.generatedAt)} from retained evidence; nothing was run.</p></footer>
</body>
</html>
`;
}

/**
 * The page that stands in DIR while the report is being made: a run that fails (a config error, a
 * damaged store) or is killed leaves this, never an earlier report's verdict that no longer holds.
 */
export function renderUnfinished(ctx: PageContext): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
${REPORT_MARK}
<title>vkit report did not finish: ${esc(ctx.root)}</title>
<style>${STYLE}</style>
</head>
<body>
<header class="gate gate-BLOCKED"><h1>No gate: the report did not finish</h1><p>vkit report started at ${esc(ctx.generatedAt)} and did not write its page; its error is in the log of the command that ran it.</p></header>
</body>
</html>
`;
}
