// The check behind claim WT-1: six concrete inputs, each asserting the exact slug and that no
// uppercase ASCII letter survives. After all cases pass it prints one summary line; the package's
// self_verify `expect` is that line, so a run where any case fails (or none runs) cannot match.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { slug } from './slug.js';

const CASES = [
  ['hello', 'hello'],
  ['HELLO', 'hello'],
  ['Hello World', 'hello-world'],
  ['  Mixed  CASE\tTitle ', 'mixed-case-title'],
  ['route 66', 'route-66'],
  ['already-slugged', 'already-slugged'],
];

let passed = 0;
for (const [input, want] of CASES) {
  test(`slug(${JSON.stringify(input)})`, () => {
    const got = slug(input);
    assert.equal(got, want);
    assert.doesNotMatch(got, /[A-Z]/);
    passed += 1;
  });
}

after(() => {
  if (passed === CASES.length) console.log(`SLUG-TEST PASS: ${passed}/${CASES.length} cases`);
  else console.log(`SLUG-TEST FAILED: ${CASES.length - passed}/${CASES.length} cases`);
});
