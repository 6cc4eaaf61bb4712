/** The built-in rule registry. Workers re-plan jobs from this (plus the config's user rules). */
import type { Rule } from '../src/config/rule.js';
import { captureRule } from './capture.js';
import { checkRule } from './check.js';
import { acceptRule } from './accept.js';
import { compareRule } from './compare.js';
import { selfVerifyRule } from './self-verify.js';
import { verifyRule } from './verify.js';

export const BUILTIN_RULES: ReadonlyMap<string, Rule> = new Map<string, Rule>([
  [captureRule.kind, captureRule],
  [checkRule.kind, checkRule],
  [compareRule.kind, compareRule],
  [acceptRule.kind, acceptRule],
  [selfVerifyRule.kind, selfVerifyRule],
  [verifyRule.kind, verifyRule],
]);
