/**
 * Finite model comparison (pure): `vkit model compare` and MCP `model_compare` call these.
 *
 * - `compareRequestText(text)`: the request as JSON text (a file, or a JSON string over MCP). Adds the
 *   text-only checks: duplicate member names anywhere and the integer form of `schema_version` and
 *   `max_contexts`.
 * - `compareRequest(value)`: the request as an already-parsed value (an object over MCP). Every other
 *   rule applies.
 *
 * Both return the report with its exit code, or every validation issue in document order (exit 2);
 * human output shows the first issue, `--json` all of them.
 */
import type { Issue } from '../../../src/errors.js';
import { compareModels } from './compare.js';
import { parseJsonText } from '../../../src/text/json-text.js';
import { compareExitCode, type CompareReport } from './report.js';
import { validateRequest } from './validate.js';

export type CompareOutcome =
  | { ok: true; report: CompareReport; exitCode: 0 | 1 | 3 }
  | { ok: false; issues: Issue[]; exitCode: 2 };

export function compareRequestText(text: string): CompareOutcome {
  const parsed = parseJsonText(text);
  if (parsed.issues.length) return { ok: false, issues: parsed.issues, exitCode: 2 };
  return judge(validateRequest(parsed.value, parsed.source));
}

export function compareRequest(value: unknown): CompareOutcome {
  return judge(validateRequest(value));
}

/** The validation issues of a request text, without running the comparison (config checks). */
export function requestTextIssues(text: string): Issue[] {
  const parsed = parseJsonText(text);
  return parsed.issues.length ? parsed.issues : validateRequest(parsed.value, parsed.source).issues;
}

function judge({ value, issues }: ReturnType<typeof validateRequest>): CompareOutcome {
  if (!value) return { ok: false, issues, exitCode: 2 };
  const report = compareModels(value);
  return { ok: true, report, exitCode: compareExitCode(report.result) as 0 | 1 | 3 };
}

export { compareModels, alphabetDifferences } from './compare.js';
export {
  explore,
  indexModel,
  type Alphabets,
  type Budget,
  type BudgetName,
  type Exploration,
  type IndexedModel,
} from './explore.js';
export {
  parseJsonText,
  MAX_JSON_DEPTH,
  type JsonDuplicate,
  type JsonMember,
  type JsonTextSource,
  type ParsedJsonText,
} from '../../../src/text/json-text.js';
export { modelDigest, normaliseModel } from './normalise.js';
export { byCodePoint, sortByCodePoint, uniqueSorted } from './order.js';
export {
  CATEGORY_NAMES,
  compareExitCode,
  renderCompareReport,
  type Categories,
  type Category,
  type CategoryName,
  type CompareReport,
  type CompareResult,
  type ContextElement,
  type ModelSummary,
  type ObservationWitness,
  type PathStep,
  type Probe,
  type ProbeWitness,
  type StateElement,
  type StateWitness,
  type TransitionEntry,
  type TransitionWitness,
} from './report.js';
export { validateRequest } from './validate.js';
export {
  ALPHABETS,
  DEFAULT_MAX_CONTEXTS,
  MAX_EDGES,
  type Assumption,
  type CompareRequest,
  type Model,
  type Rule,
  type Side,
} from './types.js';
