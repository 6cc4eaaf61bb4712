/**
 * What a change-certification test does without z3: skip loudly naming `apt-get install z3`, or, under
 * `VKIT_REQUIRE_SYSTEM=1` (as CI runs after installing the tools), not skip, so the test fails.
 */
import { z3Identity } from '../../../rules/change/lib/z3.js';

export function z3Skip(): { skip: string | false } {
  const found = z3Identity();
  if (typeof found !== 'string' || process.env.VKIT_REQUIRE_SYSTEM === '1') return { skip: false };
  const reason = `${found} (VKIT_REQUIRE_SYSTEM=1 turns this skip into a failure)`;
  process.stderr.write(`SKIP change certification solver tests: ${reason}\n`);
  return { skip: reason };
}
