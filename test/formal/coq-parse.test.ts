/**
 * The pure readers of coqc's output: byte offsets to one-based line/column over multi-byte UTF-8,
 * located messages, module-typing errors, Print Assumptions, the candidate scan and observations.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  blankCommentsAndStrings,
  byteOffsetToLineColumn,
  coqLocation,
  declarationIndex,
  indexToLineColumn,
  mismatchedField,
  parseAssumptions,
  parseCoqMessages,
  parseObservationLines,
  scanCandidate,
} from '../../src/checkers/coq.js';
import { packagesRoot } from '../../src/formal/packages.js';
import { planComponent, readObligationSpec, renderDriver } from '../../src/formal/profiles/coq.js';
import { coqComponent } from './_formal.js';

describe('byte offsets to one-based line and column', () => {
  // Line 2 is "Lemma bad : é = 2. Proof. reflexivity." — coqc 8.16 reported `characters 27-38` for
  // `reflexivity` there: byte 27, but character 26 (é is two bytes), so column 27.
  const file = Buffer.from('Definition é := 1.\nLemma bad : é = 2. Proof. reflexivity. Qed.\n', 'utf8');
  const check = (line: number, byte: number, expected: { line: number; column: number } | undefined) =>
    assert.deepEqual(coqLocation(file, line, byte), expected, `line ${line} byte ${byte}`);

  test('a two-byte character before the place counts as one column', () => {
    check(2, 27, { line: 2, column: 27 });
    check(2, 0, { line: 2, column: 1 });
    check(1, 11, { line: 1, column: 12 }); // the é itself
    check(1, 13, { line: 1, column: 13 }); // after é: byte 13 is column 13, not 14
  });

  test('four-byte characters (outside the BMP) count once; a line past the end is undefined', () => {
    const f = Buffer.from('(* 𝔸𝔹 *) Lemma x.\n', 'utf8');
    // "(* " 3 bytes, two 4-byte letters, " *) " -> `Lemma` at byte 3 + 8 + 4 = 15, column 3 + 2 + 4 + 1 = 10
    assert.deepEqual(coqLocation(f, 1, 15), { line: 1, column: 10 });
    assert.equal(coqLocation(f, 3, 0), undefined);
    assert.deepEqual(
      coqLocation(f, 1, 999),
      { line: 1, column: [...'(* 𝔸𝔹 *) Lemma x.'].length + 1 },
      'clamped to the line end',
    );
  });

  test('absolute byte offsets and string indices agree', () => {
    const text = 'é\nab𝔸c\n';
    const bytes = Buffer.from(text, 'utf8');
    const cIndex = text.indexOf('c');
    const cByte = Buffer.byteLength(text.slice(0, cIndex));
    assert.deepEqual(byteOffsetToLineColumn(bytes, cByte), { line: 2, column: 4 });
    assert.deepEqual(indexToLineColumn(text, cIndex), { line: 2, column: 4 });
  });
});

describe('coqc messages', () => {
  test('located errors, with the message joined', () => {
    const out =
      'File "/src/src/allocation.v", line 3, characters 7-18:\nError: Unable to unify "2" with\n"x".\n\nFile "./b.v", line 1, characters 0-4:\nWarning: deprecated [deprecated,x]\n';
    const m = parseCoqMessages(out);
    assert.equal(m.length, 2);
    assert.deepEqual(
      { ...m[0] },
      {
        file: '/src/src/allocation.v',
        line: 3,
        startByte: 7,
        endByte: 18,
        severity: 'error',
        message: 'Unable to unify "2" with "x".',
      },
    );
    assert.equal(m[1]!.severity, 'warning');
  });

  test('module typing errors name the field', () => {
    assert.deepEqual(
      mismatchedField(
        'Signature components for field reserve_spec do not match: expected type "x" but found type "y".',
      ),
      { field: 'reserve_spec', kind: 'mismatch' },
    );
    assert.deepEqual(mismatchedField('The field release is missing in Bound.'), { field: 'release', kind: 'missing' });
    assert.equal(mismatchedField('Unable to unify'), undefined);
  });
});

describe('Print Assumptions', () => {
  test('closed, axioms, other groups, unreadable', () => {
    assert.deepEqual(parseAssumptions('Closed under the global context\n'), {
      closed: true,
      axioms: [],
      otherGroups: [],
      unparsed: false,
    });
    // As coqc 8.16 prints it (a short entry on one line, a long one with its type indented below).
    const ax = parseAssumptions(
      'Axioms:\nl2 : 1 = 2\nfunctional_extensionality_dep\n  : forall (A : Type) (B : A -> Type) (f g : forall x : A, B x),\n    (forall x : A, f x = g x) -> f = g\n',
    );
    assert.deepEqual(ax.axioms, ['l2', 'functional_extensionality_dep']);
    assert.equal(ax.closed, false);
    const unguarded = parseAssumptions('Axioms:\nloop is assumed to be guarded.\n');
    assert.deepEqual(unguarded.axioms, []);
    assert.deepEqual(unguarded.otherGroups, ['loop is assumed to be guarded']);
    const guard = parseAssumptions('Constants/Inductives relying on type-in-type:\nfoo\n');
    assert.deepEqual(guard.otherGroups, [
      'Constants/Inductives relying on type-in-type',
      'Constants/Inductives relying on type-in-type: foo',
    ]);
    assert.deepEqual(guard.axioms, []);
    assert.equal(parseAssumptions('something else').unparsed, true);
    assert.equal(parseAssumptions('').unparsed, true);
  });
});

describe('candidate scan', () => {
  test('finds escapes and subversions in code, not in comments or strings', () => {
    const src =
      '(* Admitted (* nested Axiom *) *)\nDefinition s := "Admitted"" Axiom".\nLemma a : True. Proof. admit. Admitted.\nAxiom x : False.\nDeclare ML Module "evil".\nDefinition Drop := 1.\n';
    const found = scanCandidate(src).map((f) => [f.token, f.kind, indexToLineColumn(src, f.index).line]);
    assert.deepEqual(found, [
      ['admit', 'escape', 3],
      ['Admitted', 'escape', 3],
      ['Axiom', 'escape', 4],
      ['Declare ML Module', 'subvert', 5],
    ]);
    assert.equal(blankCommentsAndStrings(src).length, src.length);
  });

  test('declarations are found by name, not by prefix', () => {
    const src = 'Lemma reserve_spec_weak : True.\n(* Lemma reserve_spec *)\n  Lemma reserve_spec : True.\n';
    assert.deepEqual(indexToLineColumn(src, declarationIndex(src, 'reserve_spec')!), { line: 3, column: 3 });
  });
});

describe('observations', () => {
  test('OBS lines compare expected and observed; other lines are ignored', () => {
    assert.deepEqual(parseObservationLines('noise\nOBS\ta\tx y\tx y\nOBS\tb\t1\t2\nOBS\tbad\n'), [
      { name: 'a', expected: 'x y', observed: 'x y', pass: true },
      { name: 'b', expected: '1', observed: '2', pass: false },
    ]);
  });
});

describe('component plan (everything pasted into generated Coq must be an identifier)', () => {
  const base = coqComponent();
  test('a good component plans', () => {
    const r = planComponent(base);
    assert.ok('plan' in r);
    assert.equal(r.plan.functor, 'Allocation');
    assert.equal(r.plan.library, 'allocation');
  });
  test('injection through a binding, an entry or a parameter is refused', () => {
    const bad = [
      { ...base, bindings: { ...base.bindings, reserve: 'Allocation.reserve. Axiom x : False' } },
      { ...base, source: { entry: 'src/al"x.v' } },
      { ...base, source: { entry: '../allocation.v' } },
      { ...base, parameters: { max_records: '3. Axiom x : False', command_count: 4 } },
      { ...base, parameters: { max_records: 0, command_count: 4 } },
      { ...base, bindings: { ...base.bindings, release: 'Other.release' } },
    ];
    for (const c of bad) assert.ok('problems' in planComponent(c), JSON.stringify(c));
  });
  const represented = {
    ...base,
    representation: 'columns',
    bindings: Object.fromEntries(
      ['state', 'view', 'of_ledger', ...Object.keys(base.bindings)].map((b) => [b, `Columns.${b}`]),
    ),
  };
  test('a represented component plans with its state, view and of_ledger, and its driver checks LEDGER_REPR_API', () => {
    const r = planComponent(represented);
    assert.ok('plan' in r, JSON.stringify(r));
    assert.equal(r.plan.representation, 'columns');
    assert.equal(r.plan.symbols.of_ledger, 'of_ledger');
    const d = renderDriver(r.plan, readObligationSpec(join(packagesRoot(), 'resource-ledger')));
    assert.match(d.text, /Require Import Ledger Facts Contracts Client Model Transfer Repr\./);
    assert.match(d.text, /Module Represented <: LEDGER_REPR_API Params\./);
    assert.match(d.text, /Definition view_of_ledger := Candidate\.of_ledger_spec\./);
    assert.match(d.text, /Module Bound := ReprAdapter Params Represented\./);
    const line = d.text.split('\n').findIndex((l) => /view_of_ledger :=/.test(l)) + 1;
    assert.equal(d.lines[line], 'of_ledger');
    // The unrepresented driver is unchanged: no Repr, Bound checked against LEDGER_API.
    const plain = planComponent(base);
    assert.ok('plan' in plain);
    const p = renderDriver(plain.plan, readObligationSpec(join(packagesRoot(), 'resource-ledger'))).text;
    assert.match(p, /Require Import Ledger Facts Contracts Client Model Transfer\.\n/);
    assert.match(p, /Module Bound <: LEDGER_API Params\./);
  });
  test('a represented component missing a representation binding is refused, naming it and what it must be', () => {
    const { view: _, ...bindings } = represented.bindings;
    const r = planComponent({ ...represented, bindings });
    assert.ok('problems' in r);
    assert.equal(r.problems.length, 1, r.problems.join('; '));
    assert.match(
      r.problems[0]!,
      /^binding `view` is missing: a component with representation `columns` binds state, view, of_ledger/,
    );
    assert.match(r.problems[0]!, /LEDGER_REPR_API\.view_of_ledger/);
  });
});
