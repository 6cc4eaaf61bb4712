/**
 * The valid trio over a subject committed in a real repository, so the verbs verify the subject
 * against its commit (no `--tree`): the subject is `acc/subject/slug.js`, the documents and the
 * files they name sit beside it in `acc/`, which is the `--root` of every run.
 */
import { join } from 'node:path';
import { tempRepo, vkit, type CliResult } from '../_support/repo.js';
import { validTrio, writeTrio, type Trio } from './_docs.js';

const SUBJECT = { 'acc/subject/slug.js': "export const slug = (s) => s.trim().toLowerCase().replace(/\\s+/g, '-');\n" };

export interface CommittedRepo {
  /** `acc/`: the documents' directory and the --root of every run. */
  root: string;
  trio: Trio;
  /** `vkit acceptance <args> --root <root>`. */
  run(...args: string[]): CliResult;
  cleanup(): void;
}

/** Commits the subject, then writes `make(trio bound to that commit)` (default: the trio itself). */
export function committedRepo(make: (trio: Trio) => Trio = (t) => t): CommittedRepo {
  const repo = tempRepo(SUBJECT);
  const root = join(repo.dir, 'acc');
  const trio = make(validTrio({ commit: repo.commitAll('subject'), subjectRoot: 'subject' }));
  writeTrio(root, trio);
  return { root, trio, run: (...args) => vkit(['acceptance', ...args, '--root', root]), cleanup: () => repo.cleanup() };
}
