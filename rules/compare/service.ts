/** `vkit model compare`: reads a request file and compares its two models. Read-only; writes no policy. */
import { readFile } from 'node:fs/promises';
import { formatIssue, invalid, InvalidInputError, type Issue } from '../../src/errors.js';
import type { CompareOutcome } from './lib/index.js';

/** The comparison library loads on first use: builds of plain checks never need it. */
const models = () => import('./lib/index.js');

const HINT = 'See docs/model-comparison.md for the request format.';

/**
 * A request as an object or as JSON text (MCP): only text gets the duplicate-key and integer-form
 * checks, as only text can show them. Invalid -> `ERR_REQUEST_INVALID` with every issue.
 */
export async function compareRequestValue(request: unknown): Promise<Extract<CompareOutcome, { ok: true }>> {
  const { compareRequest, compareRequestText } = await models();
  const outcome = typeof request === 'string' ? compareRequestText(request) : compareRequest(request);
  if (!outcome.ok) throw requestInvalid(outcome.issues);
  return outcome;
}

export async function compareRequestFile(file: string, shown = file): Promise<Extract<CompareOutcome, { ok: true }>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw invalid(
      'ERR_REQUEST_READ',
      `Cannot read the request: ${(error as Error).message}`,
      { file: shown },
      'Pass --request with the path of a JSON request file.',
    );
  }
  const outcome = (await models()).compareRequestText(text);
  if (!outcome.ok) throw requestInvalid(outcome.issues.map((i) => ({ ...i, file: shown })));
  return outcome;
}

/**
 * The message names the first problem in document order (with how many follow); `issues`, which
 * `--json` and MCP show, lists every one (spec/model-comparison.md, "Validation").
 */
function requestInvalid(issues: Issue[]): InvalidInputError {
  const error = new InvalidInputError('ERR_REQUEST_INVALID', issues, HINT);
  const [first] = issues;
  if (first && issues.length > 1) {
    const more = issues.length - 1;
    error.message = `${formatIssue(first)}\n(and ${more} more ${more === 1 ? 'problem' : 'problems'}; --json lists every one)`;
  }
  return error;
}
