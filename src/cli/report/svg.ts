/**
 * The report's two pictures as inline SVG (no script, no external reference, no `url(...)`): the
 * graph of checks in layers (a node's layer is one past its deepest dependency) and the last runs'
 * durations as bars. Pure: data in, markup out, every text escaped.
 */
import type { RecentRun } from '../../service/report.js';
import { cut, duration, esc } from './escape.js';

/** Fill colour of an item's or run's status; anything unknown is grey. */
export const STATUS_FILL: Record<string, string> = {
  PASS: '#1a7f37',
  FAIL: '#cf222e',
  BLOCKED: '#bf8700',
  STALE: '#bf8700',
  MISSING: '#6e7781',
};

const fill = (status: string | null | undefined) => STATUS_FILL[status ?? ''] ?? '#6e7781';

const NODE_W = 200;
const NODE_H = 28;
const COL_GAP = 60;
const ROW_GAP = 14;
const PAD = 10;
const LABEL_CHARS = 26;

/** Each node's layer: 0 without dependencies, else one past the deepest (nodes come in dependency order). */
function layersOf(nodes: readonly string[], edges: readonly [string, string][]): Map<string, number> {
  const deps = new Map<string, string[]>(nodes.map((n) => [n, []]));
  for (const [from, to] of edges) deps.get(to)?.push(from);
  const layer = new Map<string, number>();
  for (const n of nodes) layer.set(n, Math.max(-1, ...(deps.get(n) ?? []).map((d) => layer.get(d) ?? 0)) + 1);
  return layer;
}

/** The graph of checks: one box per node coloured by its item's status, an arrow per `after` edge. */
export function graphSvg(
  nodes: readonly string[],
  edges: readonly [string, string][],
  statusOf: (label: string) => string | undefined,
): string {
  if (nodes.length === 0) return '<p class="none">No checks declared.</p>';
  const layer = layersOf(nodes, edges);
  const rows = new Map<number, number>();
  const at = new Map<string, { x: number; y: number }>();
  for (const n of nodes) {
    const l = layer.get(n)!;
    const row = rows.get(l) ?? 0;
    rows.set(l, row + 1);
    at.set(n, { x: PAD + l * (NODE_W + COL_GAP), y: PAD + row * (NODE_H + ROW_GAP) });
  }
  const width = PAD * 2 + (Math.max(...layer.values()) + 1) * (NODE_W + COL_GAP) - COL_GAP;
  const height = PAD * 2 + Math.max(...rows.values()) * (NODE_H + ROW_GAP) - ROW_GAP;
  const arrows = edges.map(([from, to]) => {
    const a = at.get(from);
    const b = at.get(to);
    if (!a || !b) return '';
    const [x1, y1, x2, y2] = [a.x + NODE_W, a.y + NODE_H / 2, b.x, b.y + NODE_H / 2];
    return (
      `<line x1="${x1}" y1="${y1}" x2="${x2 - 6}" y2="${y2}" stroke="#57606a" stroke-width="1.5"/>` +
      `<polygon points="${x2},${y2} ${x2 - 8},${y2 - 4} ${x2 - 8},${y2 + 4}" fill="#57606a"/>`
    );
  });
  const boxes = nodes.map((n) => {
    const { x, y } = at.get(n)!;
    const status = statusOf(n);
    return (
      `<g><title>${esc(`${n}: ${status ?? 'no gate item'}`)}</title>` +
      `<rect x="${x}" y="${y}" width="${NODE_W}" height="${NODE_H}" rx="4" fill="${fill(status)}"/>` +
      `<text x="${x + 8}" y="${y + 18}" fill="#ffffff">${esc(cut(n, LABEL_CHARS))}</text></g>`
    );
  });
  return (
    `<svg class="graph" role="img" aria-label="graph of checks" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}">${arrows.join('')}${boxes.join('')}</svg>`
  );
}

const BAR_W = 18;
const BAR_GAP = 4;
const CHART_H = 120;

/** The last runs' durations as bars, oldest left, coloured by outcome; a run still going has no bar. */
export function durationsSvg(runs: readonly RecentRun[]): string {
  if (runs.length === 0) return '<p class="none">No runs retained.</p>';
  const longest = Math.max(1, ...runs.map((r) => r.ms ?? 0));
  const width = Math.max(240, PAD * 2 + runs.length * (BAR_W + BAR_GAP));
  const height = CHART_H + PAD * 2 + 16;
  const bars = runs.map((r, i) => {
    const h = r.ms === null ? 0 : Math.max(2, Math.round((r.ms / longest) * CHART_H));
    const x = PAD + i * (BAR_W + BAR_GAP);
    const what = `${r.label} ${r.outcome ?? r.state} ${duration(r.ms)} (${r.run}, ${r.created_at})`;
    return (
      `<g><title>${esc(what)}</title>` +
      `<rect x="${x}" y="${PAD + CHART_H - h}" width="${BAR_W}" height="${h}" fill="${fill(r.outcome ?? r.state.toUpperCase())}"/></g>`
    );
  });
  return (
    `<svg class="chart" role="img" aria-label="durations of the last runs" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}">` +
    `<line x1="${PAD}" y1="${PAD + CHART_H}" x2="${width - PAD}" y2="${PAD + CHART_H}" stroke="#57606a"/>` +
    `${bars.join('')}<text x="${PAD}" y="${height - 4}" fill="#57606a">longest ${esc(duration(longest))}</text></svg>`
  );
}
