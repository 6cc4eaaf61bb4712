/**
 * The glob fuzz's matcher side (glob-fuzz.test.ts): compiles and matches in a thread of its own, so
 * that a pattern whose matching never ends (catastrophic backtracking) is a failed case the test can
 * name and stop (`terminate()`), not a test process stuck for ever.
 */
import { parentPort } from 'node:worker_threads';
import { compileGlob, globProblem, matchGlobs } from '../../src/text/glob.js';

export interface GlobQuery {
  patterns: string[];
  /** Sorted, unique. */
  paths: string[];
}

export interface GlobAnswer {
  problems: (string | null)[];
  /** Per pattern: null when it has a problem, else per path whether it matches, plus its prefix and literal flag. */
  compiled: ({ tests: boolean[]; prefix: string; literal: boolean; negated: boolean; each: string[] } | null)[];
  /** matchGlobs over every pattern without a problem. */
  together: string[];
  ms: number;
}

parentPort!.on('message', (q: GlobQuery) => {
  const t0 = performance.now();
  try {
    const problems = q.patterns.map((p) => globProblem(p) ?? null);
    const compiled = q.patterns.map((p, i) => {
      if (problems[i] !== null) return null;
      const g = compileGlob(p);
      return {
        tests: q.paths.map((path) => g.re.test(path)),
        prefix: g.prefix,
        literal: g.literal,
        negated: g.negated,
        each: matchGlobs([g], q.paths),
      };
    });
    const together = matchGlobs(q.patterns.filter((_, i) => problems[i] === null).map(compileGlob), q.paths);
    parentPort!.postMessage({ problems, compiled, together, ms: performance.now() - t0 } satisfies GlobAnswer);
  } catch (error) {
    parentPort!.postMessage({ crash: (error as Error)?.stack ?? String(error) });
  }
});
