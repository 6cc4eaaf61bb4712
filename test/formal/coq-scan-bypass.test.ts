/**
 * The Coq candidate scan must see every command coqc runs. Two ways it did not:
 *
 * 1. A string inside a comment. coqc lexes strings inside comments, so `(* "*)" *)` is one comment;
 *    the scan ended the comment at the first `*)` and then took everything up to the next `"` for
 *    a string, hiding the commands there (`Require Extraction. Extract Constant ...`).
 * 2. A control prefix. `Time Load "..."`, `Timeout 5 Cd "..."` run the command, but the scan
 *    looked for Load/Redirect/Cd/Drop only at a line start or right after a period.
 *
 * End to end (podman + the Coq worker): a candidate whose proofs are the passing example's, plus a
 * hidden `Extract Constant` that makes the extracted module print one forged observation and exit
 * 0 at initialisation. Before the fix `vkit build` was READY with "1 observations as expected":
 * the compiled observations were the candidate's own text, not the bound module run.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { blankCommentsAndStrings, indexToLineColumn, scanCandidate } from '../../src/checkers/coq.js';
import { cli } from '../_support/evidence.js';
import { REPO_ROOT } from '../_support/repo.js';
import { systemSandbox } from '../_support/podman.js';
import { LEDGER, ledgerComponent, ledgerRepo } from './_formal.js';

const tokens = (src: string) => scanCandidate(src).map((f) => [f.token, f.kind, indexToLineColumn(src, f.index).line]);

/** The forged tail: hidden from the old scan by a string inside a comment. */
const FORGE = [
  '(* a note: "*)" *)',
  'Require Extraction.',
  'Extract Constant zero => "(print_string ""OBS\\tnew.empty\\tforged\\tforged\\n""; exit 0)".',
  '',
].join('\n');

describe('the candidate scan sees what coqc runs', () => {
  test('a string inside a comment does not end the comment early (coqc lexes it)', () => {
    const src = `Definition zero := 0.\n${FORGE}`;
    assert.deepEqual(tokens(src), [
      ['Extraction', 'subvert', 3],
      ['Extract', 'subvert', 4],
    ]);
    // `*)` inside a string inside a comment does not close it; `""` is an escaped quote there too.
    const blanked = blankCommentsAndStrings('(* "*)" "a""*)" *) Admitted.\n');
    assert.match(blanked, /^\s+Admitted\.\n$/);
    assert.deepEqual(tokens('(* "*)" *) Lemma x : False. Admitted.\n'), [['Admitted', 'escape', 1]]);
  });

  test('file commands behind a control prefix, an attribute or a bullet are found', () => {
    const src = [
      'Time Load "/src/other.v".',
      'Timeout 5 Cd "/work/tmp".',
      'Lemma a : True. Proof. - Time Redirect "x" Print a. exact I. Qed.',
      '#[local] Load "/src/b.v".',
      'Fail Fail Drop.',
      '',
    ].join('\n');
    assert.deepEqual(
      tokens(src).map(([t, k, l]) => `${t}/${k}/${l}`),
      ['Load/subvert/1', 'Cd/subvert/2', 'Redirect/subvert/3', 'Load/subvert/4', 'Drop/subvert/5'],
    );
  });

  test('identifiers named like those commands still pass', () => {
    assert.deepEqual(
      tokens(
        'Inductive op := Load | Drop | Cd.\nDefinition Drop2 := Load.\nDefinition f (x : op) := match x with Load => 1 | _ => 0 end.\n',
      ),
      [],
    );
  });
});

const sys = await systemSandbox({
  what: 'review: forged observations through a hidden Extract (podman + the Coq worker image)',
});

test('a candidate hiding `Extract Constant` behind a string in a comment is not READY (podman, Coq)', {
  skip: sys.skip,
  timeout: 600_000,
}, async () => {
  if (sys.problem) throw new Error(`Expected podman and the worker image (VKIT_REQUIRE_SYSTEM=1): ${sys.problem}`);
  let src = readFileSync(join(REPO_ROOT, 'examples/allocation/src/allocation.v'), 'utf8');
  src = src.replace(
    'Module Allocation (P : LEDGER_PARAMS).',
    'Definition zero : nat := 0.\n\nModule Allocation (P : LEDGER_PARAMS).',
  );
  src = src.replace('usage := 0 |}.', 'usage := zero |}.');
  assert.match(src, /usage := zero/);
  const component = ledgerComponent({
    profile: 'coq-linux-x86_64-v1',
    parameters: { max_records: 3, command_count: 2 },
    bindings: Object.fromEntries(LEDGER.bindings.map((b) => [b, `Allocation.${b}`])),
  });
  const repo = ledgerRepo(component, { 'src/allocation.v': src + FORGE });
  try {
    const accept = cli(repo, ['policy', 'accept', '--json']);
    assert.equal(accept.code, 0, accept.stdout + accept.stderr);
    const built = cli(repo, ['build', '--json']);
    const item = built.json().gate.items.find((i: { id: string }) => i.id === 'formal:allocation');
    assert.notEqual(item.status, 'PASS', `forged observations passed: ${item.reason}`);
    assert.equal(item.status, 'BLOCKED');
    assert.match(item.reason, /`Extraction`|`Extract`/);
    assert.equal(built.json().gate.status, 'BLOCKED');
  } finally {
    repo.cleanup();
  }
});
