import * as v from 'valibot';
import { id, nonEmptyString } from '../../src/config/schema.js';

/** A finite model comparison whose result must equal `expect` (gate item `compare:<id>`). */
export const CompareSchema = v.strictObject({
  id,
  /**
   * Path, relative to the root, of a `model compare` request file. It is the item's only captured
   * input (selected as a glob), so it must name exactly itself: no glob characters, no leading `!`.
   */
  request: v.pipe(
    nonEmptyString,
    v.check(
      (s) => !s.startsWith('/') && !s.split(/[\\/]/).includes('..'),
      'Expected a path relative to the root that stays inside it',
    ),
    v.check(
      (s) => !s.startsWith('!') && !/[*?[\]{}]/.test(s),
      "Expected a plain file path (no glob characters `*?[]{}` and no leading `!`): it is the comparison's only captured input; rename the file",
    ),
  ),
  expect: v.picklist(['equivalent', 'different'], 'Expected `equivalent` or `different`'),
});

export type CompareConfig = v.InferOutput<typeof CompareSchema>;
