/**
 * Reading Lean's and Lake's output, and judging each required theorem, pure.
 *
 * Sources (leanprover/lean4, read through the search tool; Lean cannot be downloaded here):
 * - `src/Lean/Message.lean`: `mkErrorStringWithPos` prints `<file>:<line>:<column>[-<line>:<column>]:
 *   <kind>[(<error name>)]: <message>`; `Message.toString` / `SerialMessage.toString` prefix only
 *   warnings and errors so: an information message (what `#print axioms` logs) is printed as its bare
 *   text, with no position. Lake replays a module's messages as `<level>: <file>:<line>:<column>:
 *   <message>` (`error: ./././Foo.lean:3:2: unsolved goals`), information ones included.
 * - `src/Lean/Data/Position.lean`: `FileMap.ofString` numbers lines from 1 and `toPosition` counts a
 *   column in codepoints from 0, and `mkErrorStringWithPos` prints `pos.column` unchanged: Lean's
 *   columns are zero-based. vkit's diagnostics are one-based (src/checkers/results.ts), so every
 *   column read here is shifted by one; lines are kept.
 * - `src/Lean/Elab/Print.lean` (`printAxiomsOf`): `#print axioms c` logs `'c' does not depend on any
 *   axioms` or `'c' depends on axioms: [a, b]` (the axioms sorted by `Name.lt`; a long list may be
 *   wrapped across lines by the formatter). `sorry` appears as the axiom `sorryAx`.
 */

export type LeanSeverity = 'error' | 'warning' | 'info';

export interface LeanMessage {
  severity: LeanSeverity;
  /** The file as Lean or Lake printed it (`./././Foo.lean`, `/work/VkitAxioms.lean`). */
  file: string;
  line: number;
  /** One-based (Lean prints it zero-based). */
  column: number;
  text: string;
}

const LAKE_HEADER = /^(error|warning|info): (.+?):(\d+):(\d+)(?:-\d+:\d+)?: (.*)$/;
const LEAN_HEADER = /^(.+?):(\d+):(\d+)(?:-\d+:\d+)?: (error|warning|info|information)(?:\([^)]*\))?: (.*)$/;
/** Lake's own lines (progress, its messages without a position, the failure summary): never a message's continuation. */
const LAKE_OWN =
  /^(?:[✖✔⚠ℹ] \[\d+\/\d+\]|(?:error|warning|info|trace): |Some required builds logged failures:|Build completed successfully|- \S+$)/;

/**
 * The positioned messages of Lake's or Lean's output, each with its continuation lines (a goal, a
 * type mismatch), columns one-based.
 */
export function parseLeanMessages(output: string): LeanMessage[] {
  const out: LeanMessage[] = [];
  let open: LeanMessage | null = null;
  for (const raw of output.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const lake = LAKE_HEADER.exec(line);
    const lean = lake ? null : LEAN_HEADER.exec(line);
    if (lake || lean) {
      const [severity, file, l, c, text] = lake
        ? [lake[1]!, lake[2]!, lake[3]!, lake[4]!, lake[5]!]
        : [lean![4]!, lean![1]!, lean![2]!, lean![3]!, lean![5]!];
      open = {
        severity: severity === 'information' ? 'info' : (severity as LeanSeverity),
        file,
        line: Number(l),
        column: Number(c) + 1,
        text,
      };
      out.push(open);
    } else if (LAKE_OWN.test(line)) open = null;
    else if (open) open.text += `\n${line}`;
  }
  for (const m of out) m.text = m.text.replace(/\s+$/, '');
  return out;
}

/**
 * A message's file as a path of the captured inputs: Lake's `./` prefixes and the project's
 * directory inside the container dropped, then put under the project root; null for a file outside
 * the project (the generated axioms file, the toolchain's own modules).
 */
export function capturedPath(file: string, projectDir: string, root: string): string | null {
  let f = file;
  if (f.startsWith(`${projectDir}/`)) f = f.slice(projectDir.length + 1);
  while (f.startsWith('./')) f = f.slice(2);
  if (f.startsWith('/') || f.startsWith('../') || f === '') return null;
  return root === '.' || root === '' ? f : `${root}/${f}`;
}

export function leanDiagnostics(
  messages: readonly LeanMessage[],
  projectDir: string,
  root: string,
): { severity: LeanSeverity; message: string; file?: string; line?: number; column?: number }[] {
  return messages.map((m) => {
    const file = capturedPath(m.file, projectDir, root);
    const message = m.text.slice(0, 2000);
    return file === null
      ? { severity: m.severity, message: `${m.file}:${m.line}:${m.column}: ${message}` }
      : { severity: m.severity, message, file, line: m.line, column: m.column };
  });
}

/** A name as Lean prints it, with `«»` quoting removed, so it compares with the property name. */
const plainName = (name: string) => name.replace(/[«»]/g, '');

/**
 * Every `#print axioms` report in the output: theorem name -> its axioms (empty when it depends on
 * none). A wrapped list is read across lines.
 */
export function parseAxiomReports(output: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const re = /'([^\n]+?)' (?:depends on axioms: \[([^\]]*)\]|does not depend on any axioms)/g;
  for (const m of output.matchAll(re)) {
    const axioms =
      m[2] === undefined
        ? []
        : m[2]
            .split(',')
            .map((a) => plainName(a.trim()))
            .filter(Boolean);
    out.set(plainName(m[1]!), axioms);
  }
  return out;
}

/** The axioms Lean's logic adds to its kernel (its documentation's "Axioms"): accepted by default. */
export const LEAN_ACCEPTED_AXIOMS = ['propext', 'Classical.choice', 'Quot.sound'] as const;

export type TheoremVerdict = { claim: 'established' | 'unknown'; reason: string; axioms: string[] | null };

/**
 * One required theorem's claim. Established only when the project built and `#print axioms`
 * reported the theorem depending on accepted axioms only. A build that failed, a missing report, an
 * unaccepted axiom (`sorryAx` included) leave it unknown: a rejected proof is never a refutation.
 */
export function judgeTheorem(
  name: string,
  build: { ok: true } | { ok: false; reason: string },
  reports: ReadonlyMap<string, string[]>,
  axiomErrors: readonly string[],
  accepted: readonly string[] = LEAN_ACCEPTED_AXIOMS,
): TheoremVerdict {
  if (!build.ok)
    return {
      claim: 'unknown',
      reason: `the project did not build (${build.reason}): a rejected proof leaves the theorem unknown, it is not a counterexample`,
      axioms: null,
    };
  const axioms = reports.get(plainName(name));
  if (axioms === undefined)
    return {
      claim: 'unknown',
      reason: `no \`#print axioms\` report for ${name}${axiomErrors.length ? `: ${axiomErrors[0]!.split('\n')[0]}` : ''}`,
      axioms: null,
    };
  if (axioms.includes('sorryAx'))
    return { claim: 'unknown', reason: `${name} depends on sorryAx: its proof is incomplete`, axioms };
  const outside = axioms.filter((a) => !accepted.includes(a));
  if (outside.length)
    return {
      claim: 'unknown',
      reason: `${name} depends on axioms outside the accepted ones (${accepted.join(', ')}): ${outside.join(', ')}`,
      axioms,
    };
  return {
    claim: 'established',
    reason: `kernel-checked by lake build; ${axioms.length ? `axioms ${axioms.join(', ')}, all accepted` : 'no axioms'}`,
    axioms,
  };
}

/* ------------------------------------------------------------------------------ the project scan */

export interface ScanFinding {
  file: string;
  line: number;
  column: number;
  token: string;
  why: string;
}

/** Words that run code or change what a command does while the project or the axiom report is elaborated. */
const LEAN_WORDS: Record<string, string> = {
  macro: 'a macro can rewrite any command, `#print axioms` included',
  macro_rules: 'macro rules can rewrite any command, `#print axioms` included',
  syntax: 'new syntax can take over an existing command',
  elab: 'an elaborator runs arbitrary code when the project is elaborated',
  elab_rules: 'an elaborator runs arbitrary code when the project is elaborated',
  initialize: 'an initializer runs arbitrary code when a module is loaded',
  builtin_initialize: 'an initializer runs arbitrary code when a module is loaded',
  run_cmd: 'runs arbitrary code at elaboration time',
  run_elab: 'runs arbitrary code at elaboration time',
  run_meta: 'runs arbitrary code at elaboration time',
  '#eval': 'runs arbitrary code at elaboration time (it can write the build directory)',
  implemented_by: 'replaces a definition by other code for evaluation',
  extern: 'replaces a definition by native code for evaluation',
  skipKernelTC: 'turns the kernel check off',
};

/** Keys of lakefile.toml that change how Lean runs, or need the network (dependencies). */
const TOML_WORDS: Record<string, string> = {
  moreLeanArgs: 'passes options to Lean (e.g. one that turns the kernel check off)',
  weakLeanArgs: 'passes options to Lean',
  leanOptions: 'sets Lean options (e.g. one that turns the kernel check off)',
  moreServerOptions: 'sets Lean options',
  moreGlobalServerArgs: 'passes options to Lean',
  precompileModules: 'loads compiled native code during elaboration',
  extraDepTargets: 'builds other targets first',
  buildDir: 'moves the build directory, where captured build products could stand in for checked modules',
  packagesDir: 'moves the packages directory',
  require: 'a dependency must be fetched, and the worker has no network',
};

const reEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\#]/g, '\\$&');

function findWords(text: string, words: Record<string, string>, file: string, bounded: boolean): ScanFinding[] {
  const out: ScanFinding[] = [];
  const lines = text.split('\n');
  for (const [i, line] of lines.entries())
    for (const [word, why] of Object.entries(words)) {
      const re = bounded
        ? new RegExp(`(?<![A-Za-z0-9_'])${reEscape(word)}(?![A-Za-z0-9_'!?])`, 'g')
        : new RegExp(reEscape(word), 'g');
      for (const m of line.matchAll(re)) out.push({ file, line: i + 1, column: m.index! + 1, token: word, why });
    }
  return out;
}

/**
 * A conservative scan of the captured project, on the raw text (a word in a comment or a string
 * counts too: the scan may refuse a harmless project, never let one of these through unseen). It
 * refuses what could make a build or the axiom report say something the kernel did not check:
 * build products (`.olean`, `.ilean`, Lake's `.trace` and `.hash`), a `lakefile.lean` (a program
 * Lake runs), lakefile.toml keys that pass options to Lean, move the build directory or need the
 * network, any backslash there (an escape could hide a key), importing `Lean` or `Lake`
 * (metaprogramming), and the words of LEAN_WORDS. It is a deny-list, not a proof of anything.
 * (`.lake/` directories are never copied into the build, so they are not listed here.)
 */
export function scanLeanProject(files: readonly { path: string; text: string }[]): ScanFinding[] {
  const out: ScanFinding[] = [];
  for (const f of files) {
    const base = f.path.split('/').at(-1)!;
    const product = /\.(olean|ilean|trace|hash)$|\.olean\./.exec(base);
    if (product) {
      out.push({
        file: f.path,
        line: 1,
        column: 1,
        token: base,
        why: 'a build product in the capture could stand in for a module the kernel did not check',
      });
      continue;
    }
    if (base === 'lakefile.lean') {
      out.push({
        file: f.path,
        line: 1,
        column: 1,
        token: 'lakefile.lean',
        why: 'a lakefile.lean is a program Lake runs; only a declarative lakefile.toml is accepted',
      });
      continue;
    }
    if (base === 'lakefile.toml') {
      out.push(...findWords(f.text, TOML_WORDS, f.path, false));
      out.push(...findWords(f.text, { '\\': 'an escape in lakefile.toml could hide a key' }, f.path, false));
      continue;
    }
    if (!f.path.endsWith('.lean')) continue;
    out.push(...findWords(f.text, LEAN_WORDS, f.path, true));
    for (const [i, line] of f.text.split('\n').entries()) {
      const imp = /^(\s*import\s+)(.*)$/.exec(line);
      if (!imp) continue;
      let col = imp[1]!.length;
      for (const mod of imp[2]!.split(/(\s+)/)) {
        if (/^(Lean|Lake)(\.|$)/.test(mod))
          out.push({
            file: f.path,
            line: i + 1,
            column: col + 1,
            token: `import ${mod}`,
            why: 'importing Lean or Lake brings metaprogramming into the project',
          });
        col += mod.length;
      }
    }
  }
  return out;
}

/** Whether the project's `lean-toolchain` names the pinned toolchain; the problem when it does not. */
export function toolchainProblem(text: string | null, pinned: string): string | undefined {
  if (text === null) return `the project has no lean-toolchain file (this profile runs ${pinned})`;
  const named = text.trim();
  return named === pinned ? undefined : `the project's lean-toolchain names \`${named}\`; this profile runs ${pinned}`;
}
