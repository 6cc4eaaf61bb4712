/**
 * Terminal escapes out of text meant for machines. A check's log tail goes into SARIF, JUnit, JSON
 * and MCP answers, where colour codes are noise at best and, replayed on a reader's terminal,
 * could rewrite what it shows. Pure.
 */

// CSI (ESC [ or the one-byte 0x9b), OSC and string commands up to their terminator, then any
// other two-byte escape; built from strings so the pattern reads as the standard spells it.
const ESCAPES = new RegExp(
  [
    '(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*[@-~]',
    '\\u001b\\][^\\u0007\\u001b]*(?:\\u0007|\\u001b\\\\)?',
    '\\u001b[P^_X][^\\u001b]*(?:\\u001b\\\\)?',
    '\\u001b[@-Z\\\\-_]',
  ].join('|'),
  'g',
);
/** Control characters other than tab and newline (a carriage return included: it rewrites a line on a terminal). */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

export function stripAnsi(text: string): string {
  return text.replace(ESCAPES, '').replace(CONTROLS, '');
}

/** C1 controls (U+0080-U+009F): some terminals act on them as escapes even in UTF-8. */
const C1 = /[\u0080-\u009f]/g;

/**
 * Text a sandboxed process wrote, made safe to draw on the user's terminal: escapes and every
 * control character out (C1 included), tabs as spaces (a terminal's tab stops would misalign a pane).
 */
export function forTerminal(text: string): string {
  return stripAnsi(text).replace(C1, '').replace(/\t/g, '  ');
}
