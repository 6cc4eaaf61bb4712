/**
 * A small glob compiler: `**`, `*`, `?`, `[...]`, `{a,b}`, and `!` for exclusions. Paths are
 * root-relative with `/` separators. Each glob also yields its static prefix, so matching a
 * thousand globs against ten thousand sorted paths looks at a narrow slice per glob, not the lot.
 *
 * Matching never backtracks without bound: braces are expanded first (at most `MAX_ALTERNATIVES`),
 * and each alternative is matched name by name with the greedy wildcard walk (one resume point per
 * `*` run and per `**`), so a path costs at most (pattern length x path length) steps. A regular
 * expression per glob took minutes on `***…b` or `**\/**\/…b` against one long path.
 */
export interface Glob {
  source: string;
  negated: boolean;
  /** True when the pattern has no special characters: it names one path. */
  literal: boolean;
  /** The longest directory prefix before any special character (`src/` for `src/**\/*.ts`). */
  prefix: string;
  /** True for `prefix**` (`src/**`): every path under the prefix matches, no matcher needed. */
  below: boolean;
  /** Whether one root-relative path matches (the negation aside: `!x` tests as `x`). */
  re: { test(path: string): boolean };
}

const SPECIAL = /[*?[\]{}]/;

/** More brace alternatives than this in one glob is a config error (`{a,b}` twenty times is a million). */
const MAX_ALTERNATIVES = 1024;

/** Deeper brace nesting is a config error (the expansion recurses once per level). */
const MAX_BRACE_DEPTH = 64;

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
  let test: (path: string) => boolean;
  if (literal) test = (path) => path === body;
  // `prefix**` holds every path under its prefix: no alternatives to expand or matchers to build
  // (a thousand checks' `pkg/src/**` spent ~30 ms of a no-op here), and no brace or class to refuse.
  else if (below) test = (path) => path.startsWith(prefix);
  else {
    const alternatives = expandBraces(body).map(compileAlternative);
    test = (path) => {
      const names = path.split('/');
      for (const m of alternatives) if (m(names)) return true;
      return false;
    };
  }
  return { source: pattern, negated, literal, prefix, below, re: { test } };
}

/** Why a pattern is not a glob vkit can compile (an unclosed `{`, a class range out of order), or undefined. */
export function globProblem(pattern: string): string | undefined {
  try {
    compileGlob(pattern);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Where the class opened at `i` ends: the first `]` after the character following `[` (so `[]a]` holds `]`), or -1. */
const classEnd = (glob: string, i: number) => glob.indexOf(']', i + 2);

/**
 * `{a,b}` alternatives, nested, as brace-free patterns (a `,` or `}` outside braces, or inside a class,
 * is a literal). Counted before expanding, so a pattern with 2^40 alternatives costs nothing.
 */
function expandBraces(glob: string): string[] {
  let i = 0;
  const count = (depth: number): number => {
    let n = 1;
    while (i < glob.length) {
      const c = glob[i]!;
      if (c === '[' && classEnd(glob, i) >= 0) i = classEnd(glob, i) + 1;
      else if (c === '{') {
        if (depth >= MAX_BRACE_DEPTH) throw new Error(`braces nested more than ${MAX_BRACE_DEPTH} deep`);
        i++;
        let sum = 0;
        do {
          sum += count(depth + 1);
          if (i >= glob.length) throw new Error('unclosed `{`: close it with `}`');
        } while (glob[i++] !== '}');
        n = Math.min(n * sum, MAX_ALTERNATIVES + 1);
      } else if (depth > 0 && (c === ',' || c === '}')) return n;
      else i++;
    }
    return n;
  };
  if (count(0) > MAX_ALTERNATIVES)
    throw new Error(`more than ${MAX_ALTERNATIVES} alternatives once \`{…}\` are expanded: list the globs separately`);
  i = 0;
  const sequence = (inGroup: boolean): string[] => {
    let outs = [''];
    let run = '';
    const flush = () => {
      if (run) outs = outs.map((o) => o + run);
      run = '';
    };
    while (i < glob.length) {
      const c = glob[i]!;
      if (c === '[' && classEnd(glob, i) >= 0) {
        run += glob.slice(i, classEnd(glob, i) + 1);
        i = classEnd(glob, i) + 1;
      } else if (c === '{') {
        flush();
        i++;
        const alternatives: string[] = [];
        do alternatives.push(...sequence(true));
        while (glob[i++] !== '}');
        outs = outs.flatMap((o) => alternatives.map((a) => o + a));
      } else if (inGroup && (c === ',' || c === '}')) break;
      else {
        run += c;
        i++;
      }
    }
    flush();
    return outs;
  };
  return sequence(false);
}

/** One character of a name: a literal (its code point), ANY (`?`), a class; or STAR (`*`). */
type Token = number | CharClass;
const ANY = -1;
const STAR = -2;
/** A path segment that is exactly `**`. */
const GLOBSTAR = 0;
type NameMatcher = (name: string) => boolean;
interface CharClass {
  negated: boolean;
  /** Inclusive code point ranges. */
  ranges: Array<[number, number]>;
}

/** A brace-free pattern as a matcher of a path's names. */
function compileAlternative(glob: string): (names: readonly string[]) => boolean {
  while (glob.startsWith('./')) glob = glob.slice(2);
  const segments: Array<NameMatcher | typeof GLOBSTAR> = [];
  let tokens: Token[] = [];
  let start = 0;
  const endSegment = (end: number) => {
    segments.push(glob.slice(start, end) === '**' ? GLOBSTAR : nameMatcher(tokens));
    tokens = [];
    start = end + 1;
  };
  for (let i = 0; i < glob.length; ) {
    const cp = glob.codePointAt(i)!;
    if (cp === SLASH) endSegment(i);
    else if (cp === 0x2a) tokens.push(STAR);
    else if (cp === 0x3f) tokens.push(ANY);
    else if (cp === 0x5b && classEnd(glob, i) >= 0) {
      tokens.push(characterClass(glob.slice(i + 1, classEnd(glob, i))));
      i = classEnd(glob, i) + 1;
      continue;
    } else tokens.push(cp);
    i += cp > 0xffff ? 2 : 1;
  }
  endSegment(glob.length);
  // A trailing `**` after other segments is everything below: one or more names (`a/**` is not `a`).
  if (segments.length > 1 && segments[segments.length - 1] === GLOBSTAR) segments.push(() => true);
  // Cheap refusals first: the name count, and the last name against the last segment.
  const spans = segments.includes(GLOBSTAR);
  const fixed = segments.filter((seg) => seg !== GLOBSTAR).length;
  const last = segments[segments.length - 1]!;
  return (names) => {
    if (spans ? names.length < fixed : names.length !== fixed) return false;
    if (last !== GLOBSTAR && !last(names[names.length - 1]!)) return false;
    return matchNames(segments, names);
  };
}

const SLASH = 0x2f;

/**
 * `[...]` as one character of a name (never `/`, which separates names): `!` or `^` first negates,
 * a `]` first is literal, `a-z` is a range; everything else, a backslash included, is literal.
 */
function characterClass(content: string): CharClass {
  const negated = content.startsWith('!') || content.startsWith('^');
  const chars = Array.from(negated ? content.slice(1) : content, (ch) => ch.codePointAt(0)!);
  const ranges: Array<[number, number]> = [];
  for (let k = 0; k < chars.length; k++) {
    if (chars[k + 1] === 0x2d && k + 2 < chars.length) {
      if (chars[k + 2]! < chars[k]!) throw new Error(`Range out of order in character class \`[${content}]\``);
      ranges.push([chars[k]!, chars[k + 2]!]);
      k += 2;
    } else ranges.push([chars[k]!, chars[k]!]);
  }
  return { negated, ranges };
}

function inClass(cls: CharClass, cp: number): boolean {
  let inside = false;
  for (const [lo, hi] of cls.ranges) if (cp >= lo && cp <= hi) inside = true;
  return inside !== cls.negated;
}

/** The greedy wildcard walk over `segments` and `names`, resuming after the last `**` on a mismatch. */
function matchNames(segments: ReadonlyArray<NameMatcher | typeof GLOBSTAR>, names: readonly string[]): boolean {
  let s = 0;
  let n = 0;
  let resumeS = -1;
  let resumeN = 0;
  while (n < names.length) {
    const seg = s < segments.length ? segments[s]! : undefined;
    if (seg === GLOBSTAR) {
      resumeS = ++s;
      resumeN = n;
    } else if (seg?.(names[n]!)) {
      s++;
      n++;
    } else if (resumeS >= 0) {
      s = resumeS;
      n = ++resumeN;
    } else return false;
  }
  while (s < segments.length && segments[s] === GLOBSTAR) s++;
  return s === segments.length;
}

/** One segment's tokens as a name matcher: plain text compared whole, `*.ext` and `name*` by an end, else the greedy walk. */
function nameMatcher(tokens: readonly Token[]): NameMatcher {
  const text = (list: readonly Token[]) =>
    list.every((t) => typeof t === 'number' && t >= 0)
      ? (list as number[]).map((cp) => String.fromCodePoint(cp)).join('')
      : undefined;
  const whole = text(tokens);
  if (whole !== undefined) return (name) => name === whole;
  if (tokens.length === 1 && tokens[0] === STAR) return () => true;
  const tail = tokens[0] === STAR ? text(tokens.slice(1)) : undefined;
  if (tail !== undefined) return (name) => name.endsWith(tail);
  const head = tokens[tokens.length - 1] === STAR ? text(tokens.slice(0, -1)) : undefined;
  if (head !== undefined) return (name) => name.startsWith(head);
  return (name) => {
    let t = 0;
    let c = 0;
    let resumeT = -1;
    let resumeC = 0;
    while (c < name.length) {
      const token = t < tokens.length ? tokens[t]! : undefined;
      if (token === STAR) {
        resumeT = ++t;
        resumeC = c;
        continue;
      }
      const cp = name.codePointAt(c)!;
      if (token !== undefined && (token === ANY || (typeof token === 'number' ? token === cp : inClass(token, cp)))) {
        t++;
        c += cp > 0xffff ? 2 : 1;
      } else if (resumeT >= 0) {
        t = resumeT;
        resumeC += name.codePointAt(resumeC)! > 0xffff ? 2 : 1;
        c = resumeC;
      } else return false;
    }
    while (t < tokens.length && tokens[t] === STAR) t++;
    return t === tokens.length;
  };
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

/** The paths of a sorted list that start with `prefix`, found by binary search. */
export function pathsUnder(sortedPaths: readonly string[], prefix: string): string[] {
  const out: string[] = [];
  for (let i = lowerBound(sortedPaths, prefix); i < sortedPaths.length && sortedPaths[i]!.startsWith(prefix); i++)
    out.push(sortedPaths[i]!);
  return out;
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
 * standing for any number of them; a shape it cannot split into segments (a class holding `/`)
 * answers yes, which can only ask for an exclusion that was not needed.
 */
export function reachesBelow(g: Glob, dir: string): boolean {
  const below = `${dir}/`;
  if (g.literal) return g.prefix.startsWith(below);
  if (g.prefix.startsWith(below)) return true;
  if (!below.startsWith(g.prefix)) return false;
  const alternatives = expandBraces(bodyOf(g));
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
        else if (segmentMatches(segs[i]!, d)) next.add(i + 1);
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

/** One brace-free path segment (no `/`, not `**`) as a matcher of one name. */
const segmentMatchers = new Map<string, (names: readonly string[]) => boolean>();
function segmentMatches(seg: string, name: string): boolean {
  let m = segmentMatchers.get(seg);
  if (!m) segmentMatchers.set(seg, (m = compileAlternative(seg)));
  return m([name]);
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
