/** One color table for every TUI word: READY/PASS green, REJECTED/FAIL red, BLOCKED/STALE/MISSING yellow, running cyan. */
const COLORS: Record<string, string> = {
  READY: 'green',
  PASS: 'green',
  ran: 'green',
  REJECTED: 'red',
  FAIL: 'red',
  failed: 'red',
  BLOCKED: 'yellow',
  STALE: 'yellow',
  MISSING: 'yellow',
  blocked: 'yellow',
  running: 'cyan',
  queued: 'cyan',
  cached: 'gray',
};

export function colorOf(word: string): string | undefined {
  return COLORS[word];
}
