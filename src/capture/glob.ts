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

/**
 * Whether `g` (read as a positive glob) can match some path strictly below directory `dir` (no
 * trailing slash), whatever the directory holds: the question for a git-ignored directory that is
 * never listed, so never looked into. Answered on the glob's segments (after brace expansion), `**`
 * standing for any number of them; a shape it cannot split into segments (a class holding `/`, more
 * than 256 brace alternatives) answers yes, which can only ask for an exclusion that was not needed.
 */
export function reachesBelow(g: Glob, dir: string): boolean {
  const below = `${dir}/`;
  if (g.literal) return g.prefix.startsWith(below);
  if (g.prefix.startsWith(below)) return true;
  if (!below.startsWith(g.prefix)) return false;
  const alternatives = expandBraces(bodyOf(g));
  if (!alternatives) return true;
  const dirs = dir.split('/');
  return alternatives.some((alt) => {
    const segs = alt.split('/');
    if (segs.some((s) => /\[[^\]]*\//.test(s))) return true;
    let states = closure(segs, new Set([0]));
    for (const d of dirs) {
      const next = new Set<number>();
      for (const i of states) {
        if (i >= segs.length) continue;
        if (segs[i] === '**') next.add(i);
        else if (segmentRe(segs[i]!).test(d)) next.add(i + 1);
      }
      states = closure(segs, next);
      if (states.size === 0) return false;
    }
    return [...states].some((i) => i < segs.length);
  });
}

/**
 * Whether `g` (an exclusion, read without its `!`) matches every path below directory `dir`: `**`,
 * or `X/**` where X matches `dir` or one of its ancestors. Narrower exclusions (`!dir/*.ts`) are not
 * recognised: a directory vkit cannot look into is excluded whole or not at all.
 */
export function coversBelow(g: Glob, dir: string): boolean {
  const body = bodyOf(g);
  if (body === '**') return true;
  if (!body.endsWith('/**')) return false;
  const head = compileGlob(body.slice(0, -3));
  const parts = dir.split('/');
  for (let k = 1; k <= parts.length; k++) if (head.re.test(parts.slice(0, k).join('/'))) return true;
  return false;
}

/** The pattern without its `!` and leading `./`, as `compile` reads it. */
function bodyOf(g: Glob): string {
  let body = g.negated ? g.source.slice(1) : g.source;
  while (body.startsWith('./')) body = body.slice(2);
  return body;
}

function closure(segs: readonly string[], states: Set<number>): Set<number> {
  for (const i of states) if (segs[i] === '**') states.add(i + 1); // a Set visits what is added while iterating
  return states;
}

const segmentRes = new Map<string, RegExp>();
function segmentRe(seg: string): RegExp {
  let re = segmentRes.get(seg);
  if (!re) segmentRes.set(seg, (re = new RegExp(`^${translate(seg)}$`, 'su')));
  return re;
}

/** Every brace alternative of a (valid) glob body, classes left whole; undefined past 256 of them. */
function expandBraces(body: string): string[] | undefined {
  let open = -1;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '[') {
      const end = body.indexOf(']', i + 2);
      if (end >= 0) i = end;
    } else if (c === '{') {
      open = i;
      break;
    }
  }
  if (open < 0) return [body];
  // The matching `}` and the top-level commas between (translate's reading: nesting counts braces).
  let depth = 0;
  const commas: number[] = [];
  let close = -1;
  for (let i = open; i < body.length && close < 0; i++) {
    const c = body[i];
    if (c === '[') {
      const end = body.indexOf(']', i + 2);
      if (end >= 0) i = end;
    } else if (c === '{') depth++;
    else if (c === '}') {
      if (--depth === 0) close = i;
    } else if (c === ',' && depth === 1) commas.push(i);
  }
  if (close < 0) return undefined;
  const head = body.slice(0, open);
  const tail = body.slice(close + 1);
  const bounds = [open, ...commas, close];
  const out: string[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) {
    const expanded = expandBraces(head + body.slice(bounds[k]! + 1, bounds[k + 1]) + tail);
    if (!expanded || out.length + expanded.length > 256) return undefined;
    out.push(...expanded);
  }
  return out;
}

/**
 * A glob matching exactly `path` (and so `!` + it excluding exactly that path): each `*`, `?`, `[`
 * and `{` becomes a one-character class, a leading `!` is put behind `./` (which compiling drops);
 * every other character already stands for itself.
 */
export function escapeGlob(path: string): string {
  const escaped = path.replace(/[*?[{]/g, '[$&]');
  return escaped.startsWith('!') ? `./${escaped}` : escaped;
}
