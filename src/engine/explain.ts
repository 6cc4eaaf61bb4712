/**
 * `--explain`: which key fields changed since the label's last receipt. Environment values never
 * reach a receipt, so an env change is named by elimination when every recorded field matches.
 */
import type { CapturedFile, CheckerIdentity, DepResult } from '../config/rule.js';
import { canonicalJson } from '../hash/index.js';
import type { Receipt } from '../store/receipt.js';

export interface Current {
  key: string;
  rule: { kind: string; version: number; source?: string };
  files: CapturedFile[];
  definition: Record<string, unknown>;
  checker: CheckerIdentity | null;
  deps: DepResult[];
}

const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);

export function explainChange(prev: Receipt | undefined, cur: Current, why?: string): string[] {
  if (!prev) return ['no previous evidence'];
  const out: string[] = [];
  if (prev.key === cur.key)
    return [
      why ??
        (prev.outcome === 'BLOCKED'
          ? `previous attempt was BLOCKED: ${prev.reason}`
          : 'same inputs as the previous receipt'),
    ];
  const before = new Map(prev.capture.files.map((f) => [f.path, f]));
  const after = new Map(cur.files.map((f) => [f.path, f]));
  const added = [...after.keys()].filter((p) => !before.has(p));
  const removed = [...before.keys()].filter((p) => !after.has(p));
  const changed = [...after.keys()].filter(
    (p) =>
      before.has(p) && (before.get(p)!.sha256 !== after.get(p)!.sha256 || before.get(p)!.mode !== after.get(p)!.mode),
  );
  const list = (xs: string[]) => xs.slice(0, 10).join(', ') + (xs.length > 10 ? ` and ${xs.length - 10} more` : '');
  if (added.length) out.push(`files added: ${list(added)}`);
  if (removed.length) out.push(`files removed: ${list(removed)}`);
  if (changed.length) out.push(`files changed: ${list(changed)}`);
  const field = (name: string, label = name) => {
    if (!same(prev.definition[name], cur.definition[name]))
      out.push(
        `${label} changed: ${canonicalJson(prev.definition[name] ?? null)} -> ${canonicalJson(cur.definition[name] ?? null)}`,
      );
  };
  field('run', 'command');
  field('cwd');
  field('timeout_s', 'timeout');
  field('env', 'env names');
  field('expect');
  field('outputs');
  const known = new Set(['run', 'cwd', 'timeout_s', 'env', 'expect', 'outputs']);
  for (const k of new Set([...Object.keys(prev.definition), ...Object.keys(cur.definition)]))
    if (!known.has(k)) field(k);
  if (!same(prev.checker, cur.checker))
    out.push(
      `tool identity changed: ${prev.checker?.tool ?? 'none'} ${short(prev.checker?.sha256)} -> ${cur.checker?.tool ?? 'none'} ${short(cur.checker?.sha256)}`,
    );
  if (!same(prev.rule, cur.rule))
    out.push(
      `rule changed: ${prev.rule.kind}@${prev.rule.version} -> ${cur.rule.kind}@${cur.rule.version}${cur.rule.source ? ' (or the config modules that define it)' : ''}`,
    );
  const prevDeps = new Map(prev.deps.map((d) => [d.label, d]));
  for (const d of cur.deps) {
    const p = prevDeps.get(d.label);
    if (!p) out.push(`dependency added: ${d.label}`);
    else if (!same(p, d))
      out.push(`dependency changed: ${d.label} (${p.outcome} ${short(p.key)} -> ${d.outcome} ${short(d.key)})`);
  }
  for (const p of prev.deps) if (!cur.deps.some((d) => d.label === p.label)) out.push(`dependency removed: ${p.label}`);
  if (out.length === 0) out.push('env: the value of a declared variable changed');
  return out;
}

function short(id: string | undefined): string {
  return id ? id.replace(/^sha256:/, '').slice(0, 12) : '-';
}

/**
 * On a hit over a text-mode capture: the note saying that the inputs' raw bytes are not the ones the
 * evidence's check read, though their normalised identity is the same (so they differ in line
 * endings only), or undefined. The receipt records the raw bytes (`raw_digest`, `raw_sha256`);
 * receipts that predate it say nothing, and neither does this.
 */
export function lineEndingsNote(
  recorded: unknown,
  files: ReadonlyArray<{ path: string; sha256: string; raw?: string }>,
): string | undefined {
  const capture = recorded as { raw_digest?: unknown; files?: unknown } | undefined;
  if (typeof capture?.raw_digest !== 'string' || !Array.isArray(capture.files)) return undefined;
  const before = capture.files as Array<{ path?: unknown; sha256?: unknown; raw_sha256?: unknown }>;
  // Most inputs are LF on both sides: nothing to compare then.
  if (!files.some((f) => f.raw) && !before.some((f) => typeof f?.raw_sha256 === 'string')) return undefined;
  const rawBefore = new Map(before.map((f) => [f?.path, f?.raw_sha256 ?? f?.sha256]));
  const differ = files.filter((f) => rawBefore.get(f.path) !== (f.raw ?? f.sha256)).map((f) => f.path);
  if (differ.length === 0) return undefined;
  const shown = differ.slice(0, 5).join(', ') + (differ.length > 5 ? ` and ${differ.length - 5} more` : '');
  return `inputs differ only in line endings (${shown}); reused because the identity normalises CRLF; set line_endings: 'raw' if the check reads them`;
}
