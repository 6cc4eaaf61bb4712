/**
 * Judging a replay (pure). The bundle's receipt says what was accepted: its job key and checker
 * identity. The fresh run in the current repository says what holds now. Replay passes only when
 * the identities match and the fresh run passed; the bundle's recorded outcome is reported and
 * never consulted, so an imported success flag cannot satisfy a replay.
 */
import type { Receipt } from '../store/receipt.js';
import { canonicalJson } from '../hash/index.js';

export type ReplayStatus = 'PASS' | 'FAIL' | 'BLOCKED';

export interface IdentityCheck {
  field: 'label' | 'rule' | 'key' | 'capture' | 'definition' | 'checker' | 'deps' | 'env';
  match: boolean;
  bundle: unknown;
  current: unknown;
}

/**
 * What the fresh run gave: its receipt, or why there is none (a dependency blocked, a tool is missing...).
 * `judged` is the gate's view of that receipt (its rule's `judge` with today's date: an acceptance
 * decision expires without its action's outcome changing); a PASS outcome the gate does not call
 * PASS is never a replay PASS.
 */
export type Fresh =
  | { receipt: Receipt; run: string; receiptId: string; judged?: { status: string; reason: string } }
  | { receipt: undefined; reason: string; key: string | null };

export interface ReplayVerdict {
  status: ReplayStatus;
  reason: string;
  identities: IdentityCheck[];
}

const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);

/** Field-by-field comparison of the accepted identity (the bundle) with the current one. */
function compareIdentities(bundle: Receipt, current: Receipt): IdentityCheck[] {
  const row = (field: IdentityCheck['field'], b: unknown, c: unknown): IdentityCheck => ({
    field,
    match: same(b, c),
    bundle: b,
    current: c,
  });
  return [
    row('label', bundle.label, current.label),
    row('rule', bundle.rule, current.rule),
    row('key', bundle.key, current.key),
    row('capture', bundle.capture.digest, current.capture.digest),
    row('definition', bundle.definition_sha256, current.definition_sha256),
    row('checker', bundle.checker, current.checker),
    row('deps', bundle.deps, current.deps),
    row('env', bundle.env, current.env),
  ];
}

export function judgeReplay(bundle: Receipt, fresh: Fresh): ReplayVerdict {
  if (!fresh.receipt) {
    const keyRow: IdentityCheck = {
      field: 'key',
      match: fresh.key === bundle.key,
      bundle: bundle.key,
      current: fresh.key,
    };
    return { status: 'BLOCKED', reason: `the check did not run here: ${fresh.reason}`, identities: [keyRow] };
  }
  const identities = compareIdentities(bundle, fresh.receipt);
  const differ = identities.filter((i) => !i.match).map((i) => i.field);
  // The key covers capture, definition, checker, deps and env values; naming the parts says why.
  if (differ.includes('key') || differ.includes('checker') || differ.includes('label')) {
    return {
      status: 'BLOCKED',
      reason: `accepted identities do not match the current candidate: ${differ.join(', ')} differ`,
      identities,
    };
  }
  const outcome = fresh.receipt.outcome;
  if (outcome === 'PASS' && fresh.judged && fresh.judged.status !== 'PASS')
    return {
      status: 'BLOCKED',
      reason: `the check passed again here but its gate item is ${fresh.judged.status}: ${fresh.judged.reason}`,
      identities,
    };
  if (outcome === 'PASS')
    return { status: 'PASS', reason: 'identities match and the check passed again here', identities };
  if (outcome === 'FAIL')
    return { status: 'FAIL', reason: `the check failed here: ${fresh.receipt.reason ?? 'failed'}`, identities };
  return { status: 'BLOCKED', reason: `the check was blocked here: ${fresh.receipt.reason ?? 'blocked'}`, identities };
}
