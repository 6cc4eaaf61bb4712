/** Event builders for the TUI tests (fixed timestamps, so frames are stable). */
import type { VkitEvent } from '../../src/engine/events.js';
import type { GateItem, GateStatus } from '../../src/gate/schema.js';

const ts = '2025-01-01T12:00:00.000Z';
const base = { schema: 'vkit.event/1' as const, ts };

export const started = (cycle: number, changed: string[] = ['initial']): VkitEvent => ({
  ...base,
  type: 'cycle.started',
  cycle,
  changed,
});
export const queued = (label: string): VkitEvent => ({
  ...base,
  type: 'action.queued',
  label,
  kind: 'check',
  key: 'sha256:0',
});
export const running = (label: string): VkitEvent => ({
  ...base,
  type: 'action.started',
  label,
  kind: 'check',
  key: 'sha256:0',
});
/** `ranMs`: how long the run that made the reused evidence took (absent: unknown). */
export const cached = (label: string, outcome: 'PASS' | 'FAIL' = 'PASS', ranMs?: number): VkitEvent => ({
  ...base,
  type: 'action.cached',
  label,
  kind: 'check',
  key: 'sha256:0',
  outcome,
  run: 'r-cached',
  ms: 0,
  ...(ranMs === undefined ? {} : { ran_ms: ranMs }),
});
/** `running` at a given event time. */
export const runningAt = (label: string, at: string): VkitEvent => ({ ...running(label), ts: at }) as VkitEvent;
export const finished = (
  label: string,
  outcome: 'PASS' | 'FAIL' | 'BLOCKED',
  extra: { reason?: string; explain?: string[]; tail?: string[]; run?: string; ms?: number } = {},
): VkitEvent => ({
  ...base,
  type: 'action.finished',
  label,
  kind: 'check',
  key: 'sha256:0',
  status: outcome === 'PASS' ? 'ran' : outcome === 'FAIL' ? 'failed' : 'blocked',
  outcome,
  reason: extra.reason ?? null,
  run: extra.run ?? `run-${label.split(':')[1]}`,
  ms: extra.ms ?? 120,
  explain: extra.explain,
  tail: extra.tail,
});
export const item = (id: string, status: GateItem['status'], required = true, reason = ''): GateItem => ({
  id,
  required,
  status,
  reason: reason || (status === 'PASS' ? 'passed' : `${status.toLowerCase()} evidence`),
  run: status === 'MISSING' ? null : `run-${id.split(':')[1]}`,
});
export const settled = (status: GateStatus, items: GateItem[] | null, cycle?: number, ms = 250): VkitEvent => ({
  ...base,
  type: 'cycle.settled',
  status,
  ran: 1,
  cached: 1,
  ms,
  cycle,
  gate: items ? { schema: 'vkit.gate/1', status, reason: `gate says ${status}`, items } : undefined,
});
export const invalidConfig = (message: string): VkitEvent => ({
  ...base,
  type: 'config.invalid',
  code: 'ERR_CONFIG',
  message,
});
