/**
 * A small glob compiler: `**`, `*`, `?`, `[...]`, `{a,b}`, and `!` for exclusions. Paths are
 * root-relative with `/` separators. Each glob also yields its static prefix, so matching a
 * thousand globs against ten thousand sorted paths looks at a narrow slice per glob, not the lot.
 */
export interface Glob {
  source: string;
  negated: boolean;
  /** True when the pattern has no special characters: it names one path. */
  literal: boolean;
  /** The longest directory prefix before any special character (`src/` for `src/**\/*.ts`). */
  prefix: string;
  /** True for `prefix**` (`src/**`): every path under the prefix matches, no regex needed. */
  below: boolean;
  re: RegExp;
}

const SPECIAL = /[*?[\]{}]/;

/** Compiled globs by pattern: a build matches each check's globs twice (config check, capture). */
const compiled = new Map<string, Glob>();

export function compileGlob(pattern: string): Glob {
  let g = compiled.get(pattern);
  if (!g) {
    g = compile(pattern);
    compiled.set(pattern, g);
  }
  return g;
}

function compile(pattern: string): Glob {
  const negated = pattern.startsWith('!');
  let body = negated ? pattern.slice(1) : pattern;
  while (body.startsWith('./')) body = body.slice(2);
  const firstSpecial = body.search(SPECIAL);
  const literal = firstSpecial < 0;
  const prefix = literal ? body : body.slice(0, body.lastIndexOf('/', firstSpecial) + 1);
  const below = !literal && body === `${prefix}**`;
  // `s`: a trailing `**` (`.*`) must match a name holding a newline, as `*` and `**/` already do.
  return { source: pattern, negated, literal, prefix, below, re: new RegExp(`^${translate(body)}$`, 'su') };
}

/** Why a pattern is not a glob vkit can compile (an unclosed `{`, a class range out of order), or undefined. */
export function globProblem(pattern: string): string | undefined {
  try {
    compileGlob(pattern);
    return undefined;
  } catch (error) {
    return (error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
  }
}

function translate(glob: string): string {
  let out = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        const atEnd = i + 2 === glob.length || glob[i + 2] === '/';
        if (atStart && atEnd) {
          if (glob[i + 2] === '/') {
            out += '(?:[^/]*/)*'; // `**/`: zero or more directories
            i += 2;
          } else {
            out += '.*'; // trailing `**`: everything below
            i += 1;
          }
          continue;
        }
      }
      out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) out += '\\[';
      else {
        let cls = glob.slice(i + 1, end);
        // A class is one character of a name: a negated one must not match `/` either.
        if (cls.startsWith('!') || cls.startsWith('^')) cls = '^/' + cls.slice(1);
        out += `[${cls.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else out += c.replace(/[.+^$()|\\/\]}]/g, '\\$&');
  }
  return out;
}

/** First index in sorted `paths` not less than `prefix`. */
function lowerBound(paths: readonly string[], prefix: string): number {
  let lo = 0;
  let hi = paths.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (paths[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Paths (sorted, unique) matched by the positive globs and by no negated one. */
export function matchGlobs(globs: readonly Glob[], sortedPaths: readonly string[]): string[] {
  const hit = new Set<string>();
  let positive = 0;
  for (const g of globs) {
    if (g.negated) continue;
    positive++;
    for (let i = lowerBound(sortedPaths, g.prefix); i < sortedPaths.length; i++) {
      const p = sortedPaths[i]!;
      if (!p.startsWith(g.prefix)) break;
      if (g.below || g.re.test(p)) hit.add(p);
    }
  }
  const excluded = globs.filter((g) => g.negated);
  const kept = excluded.length ? [...hit].filter((p) => !excluded.some((g) => g.re.test(p))) : [...hit];
  // One positive glob walks the sorted paths in order: its hits are sorted already.
  return positive > 1 ? kept.sort() : kept;
}
