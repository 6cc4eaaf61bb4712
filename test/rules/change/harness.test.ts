/**
 * The Kani harness and near-miss generators on their Rust text: for each catalogue function, the
 * generated harnesses compile with `rustc` beside a plain implementation and a stand-in `kani` module
 * (which proves the text well-formed and well-typed, nothing more: nothing generated here is run as
 * evidence). Without rustc the test skips loudly, or fails under VKIT_REQUIRE_SYSTEM=1.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, test } from 'node:test';
import { claimHarness, nearMiss } from '../../../rules/change/lib/kani/harness.js';
import { parseBasis } from '../../../rules/change/lib/records.js';
import { parseEnvelope, typeRequest } from '../../../rules/change/lib/request.js';
import { CATALOGUE } from './catalogue.js';

const IMPLS: Record<string, string> = {
  saturating_add: 'pub fn saturating_add(a: u8, b: u8) -> u8 { a.saturating_add(b) }',
  clamp: 'pub fn clamp_percent(x: i32) -> i32 { x.clamp(0, 100) }',
  abs_i8: 'pub fn abs_i8(x: i8) -> i8 { x.abs() }',
  max_u8: 'pub fn max_u8(a: u8, b: u8) -> u8 { a.max(b) }',
};

/** What rustc sees of Kani: enough to type-check a harness, nothing that could verify anything. */
const KANI_STAND_IN = `#[allow(dead_code)]
mod kani {
    pub fn any<T: Default>() -> T { T::default() }
    pub fn assume(_: bool) {}
}
`;

function rustc(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), join(homedir(), '.cargo', 'bin')];
  return dirs
    .map((d) => join(d, 'rustc'))
    .find((p) => {
      try {
        accessSync(p, constants.X_OK);
        return spawnSync(p, ['--version']).status === 0;
      } catch {
        return false;
      }
    });
}

function rustcSkip(): { skip: string | false } {
  if (rustc() || process.env.VKIT_REQUIRE_SYSTEM === '1') return { skip: false };
  const reason =
    'rustc is not installed (rustup, ~/.cargo/bin): the generated Rust cannot be compiled (VKIT_REQUIRE_SYSTEM=1 turns this skip into a failure)';
  process.stderr.write(`SKIP change certification harness text: ${reason}\n`);
  return { skip: reason };
}

function generated(name: string, claim: unknown = CATALOGUE[name]!.claim) {
  const c = CATALOGUE[name]!;
  const { basis } = parseBasis(c.basis, 'basis.json');
  const env = parseEnvelope({
    schema: 'vkit.change-request/1',
    candidate: 'HEAD',
    basis: `sha256:${'0'.repeat(64)}`,
    claim,
    delegation: { witness: c.witness },
  });
  const typed = typeRequest(env.envelope!, basis!);
  assert.deepEqual(typed.issues, []);
  return {
    harness: claimHarness(basis!, typed.request!.claim),
    nearMiss: nearMiss(basis!, typed.request!.claim, typed.request!.witness),
  };
}

/** Compiles the crate text (type-checks it: metadata only); the compiler's messages on failure. */
function compile(text: string): { ok: boolean; messages: string } {
  const dir = mkdtempSync(join(tmpdir(), 'vkit-harness-'));
  try {
    writeFileSync(join(dir, 'lib.rs'), text);
    const r = spawnSync(
      rustc()!,
      ['--edition', '2021', '--crate-type', 'lib', '--emit=metadata', '--out-dir', dir, join(dir, 'lib.rs')],
      { encoding: 'utf8' },
    );
    return { ok: r.status === 0, messages: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('Kani harness and near-miss text', rustcSkip(), () => {
  for (const name of Object.keys(IMPLS))
    test(`${name}: the claim harness and the near miss compile with rustc`, () => {
      const g = generated(name);
      assert.match(g.harness, /kani::any\(\)[\s\S]*kani::assume\([\s\S]*assert!\(/);
      const w = CATALOGUE[name]!.witness;
      assert.match(
        g.nearMiss,
        new RegExp(
          `if ${Object.entries(w.inputs)
            .map(([k, x]) => `r#${k} == ${x}[iu]\\d+`)
            .join(' && ')} \\{ ${w.result}[iu]\\d+ \\}`,
        ),
      );
      const r = compile(`${KANI_STAND_IN}${IMPLS[name]}\n${g.harness}${g.nearMiss}`);
      assert.ok(r.ok, r.messages);
    });

  test('the compile check can fail: a harness calling a function of another signature is refused by rustc', () => {
    const g = generated('clamp');
    const r = compile(`${KANI_STAND_IN}pub fn clamp_percent(x: i64) -> i64 { x }\n${g.harness}`);
    assert.equal(r.ok, false);
    assert.match(r.messages, /mismatched types/);
  });
});
