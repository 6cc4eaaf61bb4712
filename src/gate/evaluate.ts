/**
 * The gate: a pure fold over per-requirement evidence. No requirement -> BLOCKED; any required item
 * with intact, current FAIL evidence -> REJECTED; otherwise any required item not PASS -> BLOCKED;
 * otherwise READY. Display filters never reach this function: it always sees every requirement.
 */
import type { Gate, GateItem, GateStatus } from './schema.js';

export function evaluateGate(items: readonly GateItem[]): Gate {
  const required = items.filter((i) => i.required);
  const sorted = [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const gate = (status: GateStatus, reason: string): Gate => ({ schema: 'vkit.gate/1', status, reason, items: sorted });
  if (required.length === 0)
    return gate('BLOCKED', 'no requirements: declare checks in vkit.config.ts or vkit.manifest.json');
  const failed = required.filter((i) => i.status === 'FAIL');
  if (failed.length)
    return gate('REJECTED', `${failed.length} required item(s) failed: ${failed.map((i) => i.id).join(', ')}`);
  const open = required.filter((i) => i.status !== 'PASS');
  if (open.length)
    return gate(
      'BLOCKED',
      `${open.length} required item(s) without intact current passing evidence: ${open.map((i) => i.id).join(', ')}`,
    );
  return gate('READY', `all ${required.length} required item(s) pass`);
}

/**
 * Whether `--only` names the item of this label: the label itself or its id, the part after the
 * first `:` (`check:a` -> `a`, `accept:r/run:c` -> `r/run:c`). The one reading of `--only`, for
 * what runs (engine), what is known (service) and what is shown (here).
 */
export function namedBy(label: string, only: string): boolean {
  return label === only || label.slice(label.indexOf(':') + 1) === only;
}

/** Items to show for `--only` filters; the status stays the whole gate's. */
export function showOnly(gate: Gate, only: readonly string[] | undefined): Gate {
  if (!only || only.length === 0) return gate;
  return { ...gate, items: gate.items.filter((i) => only.some((o) => namedBy(i.id, o))) };
}

export function gateExitCode(status: GateStatus): 0 | 1 | 3 {
  return status === 'READY' ? 0 : status === 'REJECTED' ? 1 : 3;
}
