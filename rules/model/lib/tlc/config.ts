/**
 * TLC model configurations (`.cfg`), pure: which invariants and temporal properties the captured
 * configuration declares, and the configuration one property's run uses: the captured one with its
 * INVARIANT(S), PROPERTY(IES) and CHECK_DEADLOCK sections taken out and only that property put
 * back, so each run checks exactly one property (deadlock checking is then decided by `-deadlock`).
 *
 * The file format (tlaplus/tlaplus `tlc2/tool/impl/ModelConfig.java`): TLA+ tokens read by the
 * TLA+ token manager, so TLA+ comments (`\*` to the end of the line, nested `(* *)`) and strings;
 * a section runs from one of the keywords below to the next keyword.
 */

/** `ModelConfig.ALL_KEYWORDS`, plus POSTCONDITION(S) of newer builds. */
const KEYWORDS = new Set([
  'CONSTANT',
  'CONSTANTS',
  'CONSTRAINT',
  'CONSTRAINTS',
  'ACTION_CONSTRAINT',
  'ACTION_CONSTRAINTS',
  'INVARIANT',
  'INVARIANTS',
  'INIT',
  'NEXT',
  'VIEW',
  'SYMMETRY',
  'SPECIFICATION',
  'PROPERTY',
  'PROPERTIES',
  'ALIAS',
  'TYPE_CONSTRAINT',
  'CHECK_DEADLOCK',
  'POSTCONDITION',
  'POSTCONDITIONS',
]);

/** The sections a property's run replaces. */
const REPLACED = new Set(['INVARIANT', 'INVARIANTS', 'PROPERTY', 'PROPERTIES', 'CHECK_DEADLOCK']);

interface Token {
  word: string | null;
  start: number;
}

/** The tokens of a configuration, comments and strings skipped (a string is one non-word token). */
function tokens(text: string): Token[] | { error: string } {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (text.startsWith('\\*', i)) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl + 1;
    } else if (text.startsWith('(*', i)) {
      let depth = 1;
      i += 2;
      while (i < text.length && depth > 0) {
        if (text.startsWith('(*', i)) [depth, i] = [depth + 1, i + 2];
        else if (text.startsWith('*)', i)) [depth, i] = [depth - 1, i + 2];
        else i++;
      }
      if (depth > 0) return { error: 'a `(*` comment is not closed' };
    } else if (c === '"') {
      const start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      if (i >= text.length) return { error: 'a string is not closed' };
      i++;
      out.push({ word: null, start });
    } else if (/[A-Za-z0-9_]/.test(c)) {
      const start = i;
      while (i < text.length && /[A-Za-z0-9_]/.test(text[i]!)) i++;
      out.push({ word: text.slice(start, i), start });
    } else if (/\s/.test(c)) i++;
    else out.push({ word: null, start: i++ });
  }
  return out;
}

interface Section {
  keyword: string;
  start: number;
  end: number;
  /** The identifiers the section lists (for INVARIANT(S) and PROPERTY(IES): the names). */
  words: string[];
}

function sections(text: string): Section[] | { error: string } {
  const toks = tokens(text);
  if ('error' in toks) return toks;
  const out: Section[] = [];
  for (const t of toks) {
    if (t.word !== null && KEYWORDS.has(t.word)) {
      if (out.length) out.at(-1)!.end = t.start;
      out.push({ keyword: t.word, start: t.start, end: text.length, words: [] });
    } else if (out.length && t.word !== null) out.at(-1)!.words.push(t.word);
    else if (!out.length) return { error: 'the configuration does not start with a keyword' };
  }
  return out;
}

export interface DeclaredProperties {
  invariants: string[];
  properties: string[];
}

/** The invariants and temporal properties a configuration declares. */
export function declaredProperties(text: string): DeclaredProperties | { error: string } {
  const s = sections(text);
  if ('error' in s) return s;
  const pick = (...kws: string[]) => s.filter((x) => kws.includes(x.keyword)).flatMap((x) => x.words);
  return { invariants: pick('INVARIANT', 'INVARIANTS'), properties: pick('PROPERTY', 'PROPERTIES') };
}

/** A TLA+ identifier (letters, digits, `_`, at least one letter). */
const isTlaIdentifier = (name: string) => /^[A-Za-z0-9_]*[A-Za-z][A-Za-z0-9_]*$/.test(name);

/**
 * The configuration a run of one property uses: the captured text without its INVARIANT(S),
 * PROPERTY(IES) and CHECK_DEADLOCK sections (everything else byte for byte), then the one property.
 * A deadlock property adds nothing: deadlock checking is on unless `-deadlock` is given.
 */
export function propertyConfig(
  text: string,
  p: { kind: 'invariant' | 'deadlock' | 'ltl'; name: string },
): { config: string } | { error: string } {
  if (p.kind !== 'deadlock' && !isTlaIdentifier(p.name)) return { error: `\`${p.name}\` is not a TLA+ identifier` };
  const s = sections(text);
  if ('error' in s) return s;
  let kept = '';
  let at = 0;
  for (const x of s.filter((y) => REPLACED.has(y.keyword))) {
    kept += text.slice(at, x.start);
    at = x.end;
  }
  kept += text.slice(at);
  const line =
    p.kind === 'invariant'
      ? `INVARIANT ${p.name}\n`
      : p.kind === 'ltl'
        ? `PROPERTY ${p.name}\n`
        : '\\* (deadlock freedom: checked because -deadlock is not given)\n';
  return { config: `${kept.replace(/\s*$/, '\n')}\n\\* vkit: the one property this run checks\n${line}` };
}
