/**
 * `--help` is for people: no internal decision number (D51 ...) in any verb's help, its README
 * line, its summary or `vkit --help`; the reasoning lives in the decisions record.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { registry } from '../../rules/index.js';
import { allVerbs, mainHelp } from '../../src/cli/table.js';
import { installKinds } from '../../src/config/kind.js';

installKinds(registry);

test('no decision number in any help text', async () => {
  const verbs = await allVerbs();
  const decision = /\bD\d{1,3}\b/;
  for (const { spec } of verbs)
    for (const [what, text] of [
      ['help', spec.help],
      ['README row', spec.readme],
      ['summary', spec.summary],
    ] as const)
      assert.doesNotMatch(text ?? '', decision, `${spec.name}: its ${what} names a decision number`);
  assert.doesNotMatch(mainHelp(verbs), decision);
});
