/**
 * The code step (`restricted_captured_rust_kani_model`): Kani on the candidate's captured crate in the
 * restricted container, pinned by digest. Like the Verus profile, what is missing is named entry by
 * entry and the step is BLOCKED: its obligations (and the shadow one) are unknown, never holds.
 * This vkit has no Kani runner yet, so even with every asset present the step stays BLOCKED, saying so.
 */
import type { Obligation } from '../logic.js';
import { KANI_PINS } from './pins.js';

const IMAGE = /^sha256:[0-9a-f]{64}$/;

/** Each missing or unusable asset of the Kani step on this host. */
export function kaniMissing(env: NodeJS.ProcessEnv, platform = { os: process.platform, arch: process.arch }): string[] {
  const missing: string[] = [];
  if (platform.os !== 'linux' || platform.arch !== 'x64')
    missing.push(`the method requires Linux x86_64, this host is ${platform.os}/${platform.arch}`);
  const image = env.VKIT_KANI_IMAGE;
  if (!image)
    missing.push(
      'VKIT_KANI_IMAGE not set: give the full `sha256:` id of the installed Kani worker image (Kani and CBMC inside)',
    );
  else if (!IMAGE.test(image))
    missing.push(`VKIT_KANI_IMAGE must be a full \`sha256:<64 hex>\` image id (a tag can move), got \`${image}\``);
  for (const pin of KANI_PINS)
    if (!pin.sha256) missing.push(`pin digest not recorded: ${pin.asset} ${pin.version} (${pin.what})`);
  missing.push(
    'this vkit has no Kani runner for change certification: the harness and near-miss mutation cannot be run',
  );
  return missing;
}

const STATEMENTS: Record<string, string> = {
  'code.claim_satisfied':
    "the candidate's function satisfies the claim on every legal input (complete Kani verification)",
  'code.near_miss_rejected': 'Kani rejects the near-miss mutation (the witness output on the witness input)',
  'shadow.baseline_kept': 'the candidate still satisfies the baseline on every legal input',
};

/** The code obligations and the shadow one, each unknown with the step's missing assets. */
export function blockedCode(missing: readonly string[]): { code: Obligation[]; shadow: Obligation[] } {
  const reason = `BLOCKED: Kani cannot run here; missing: ${missing.join('; ')}`;
  const checker = { name: 'kani', method: 'restricted_captured_rust_kani_model' };
  const one = (id: string): Obligation => ({ id, status: 'unknown', statement: STATEMENTS[id]!, reason, checker });
  return { code: [one('code.claim_satisfied'), one('code.near_miss_rejected')], shadow: [one('shadow.baseline_kept')] };
}
