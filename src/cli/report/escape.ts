/**
 * Text into HTML and SVG: every value the report shows passes through `esc`, so a check's output,
 * reason or label can never become markup (a planted `<script>` is shown, not run). Pure.
 */

/** Markup characters as references, and the control characters no page should carry left out. */
export function esc(value: string | number | null | undefined): string {
  return String(value ?? '')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A duration as people read it: `850 ms`, `12.3 s`, `4 min 05 s`; `-` for none. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '-';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** A digest shortened for a table cell (`sha256:0123abcd…`); the whole one goes in its title. */
export function shortDigest(digest: string | null | undefined): string {
  if (!digest) return '-';
  const at = digest.lastIndexOf(':');
  return digest.length > at + 13 ? `${digest.slice(0, at + 13)}…` : digest;
}

/** A label cut to `max` characters with an ellipsis. */
export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
