/** `vkit model compare`: reads a request file and compares its two models. Read-only; writes no policy. */
import { readFile } from 'node:fs/promises';
import { invalid, InvalidInputError } from '../errors.js';
import { compareRequestText, type CompareOutcome } from '../models/index.js';

export async function compareRequestFile(file: string, shown = file): Promise<Extract<CompareOutcome, { ok: true }>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw invalid('ERR_REQUEST_READ', `Cannot read the request: ${(error as Error).message}`, { file: shown }, 'Pass --request with the path of a JSON request file.');
  }
  const outcome = compareRequestText(text);
  if (!outcome.ok) throw new InvalidInputError('ERR_REQUEST_INVALID', outcome.issues.map((i) => ({ ...i, file: shown })), 'See the model-comparison section of the README for the request format.');
  return outcome;
}
