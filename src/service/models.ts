/** `vkit model compare`: reads a request file and compares its two models. Read-only; writes no policy. */
import { readFile } from 'node:fs/promises';
import { invalid, InvalidInputError } from '../errors.js';
import { compareRequest, compareRequestText, type CompareOutcome } from '../models/index.js';

const HINT = 'See the model-comparison section of the README for the request format.';

/**
 * A request as an object or as JSON text (MCP): only text gets the duplicate-key and integer-form
 * checks, as only text can show them. Invalid -> `ERR_REQUEST_INVALID` with every issue.
 */
export function compareRequestValue(request: unknown): Extract<CompareOutcome, { ok: true }> {
  const outcome = typeof request === 'string' ? compareRequestText(request) : compareRequest(request);
  if (!outcome.ok) throw new InvalidInputError('ERR_REQUEST_INVALID', outcome.issues, HINT);
  return outcome;
}

export async function compareRequestFile(file: string, shown = file): Promise<Extract<CompareOutcome, { ok: true }>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw invalid('ERR_REQUEST_READ', `Cannot read the request: ${(error as Error).message}`, { file: shown }, 'Pass --request with the path of a JSON request file.');
  }
  const outcome = compareRequestText(text);
  if (!outcome.ok) throw new InvalidInputError('ERR_REQUEST_INVALID', outcome.issues.map((i) => ({ ...i, file: shown })), HINT);
  return outcome;
}
