/**
 * Just enough Markdown for the documentation tests: the links of a page, its headings' anchors as
 * GitHub makes them, and the README's tutorial (shell blocks marked `<!-- tutorial -->`).
 */

/** A fenced block's opening or closing line: three or more backticks or tildes. */
const FENCE = /^\s*(```+|~~~+)/;

/** The page's lines with every fenced code block blanked (line numbers kept). */
function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const open = FENCE.exec(line)?.[1];
    if (fence === undefined && open !== undefined) {
      fence = open;
      return '';
    }
    if (fence !== undefined) {
      if (open?.startsWith(fence[0]!) && open.length >= fence.length) fence = undefined;
      return '';
    }
    return line;
  });
}

/** Every inline link's target (`[text](target)`), outside code, with its line number. */
export function markdownLinks(text: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  proseLines(text).forEach((line, i) => {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const [, target] of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g))
      links.push({ target: target!, line: i + 1 });
  });
  return links;
}

/** A heading's anchor as GitHub makes it: its text lowercased, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const plain = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return plain.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of a page's headings (a repeated heading gets `-1`, `-2`, ... as on GitHub). */
export function headingSlugs(text: string): Set<string> {
  const seen = new Map<string, number>();
  const slugs = new Set<string>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}

interface TutorialCommand {
  /** The command as written, a here-document included. */
  text: string;
  /** The exit code its trailing comment states (`# exit 1: REJECTED`), else 0. */
  exit: number;
}

export interface TutorialBlock {
  commands: TutorialCommand[];
  /** The lines of a `text` block right after it: output its last command must show, in order. */
  output: string[];
}

/** The commands of a shell block, one per line except that a here-document belongs to its command. */
function commandsOf(lines: string[]): TutorialCommand[] {
  const commands: TutorialCommand[] = [];
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i]!;
    if (first.trim() === '' || first.trim().startsWith('#')) continue;
    const text = [first];
    const terminator = /<<-?\s*'?([A-Za-z_]+)'?/.exec(first)?.[1];
    if (terminator !== undefined) {
      while (i + 1 < lines.length && lines[i + 1] !== terminator) text.push(lines[++i]!);
      text.push(lines[++i] ?? terminator);
    }
    const exit = /#.*\bexit (\d+)\b/.exec(first)?.[1];
    commands.push({ text: text.join('\n'), exit: exit === undefined ? 0 : Number(exit) });
  }
  return commands;
}

/** The fenced block starting at `lines[at]` (after blank lines): its language and body, and the line after it. */
function fencedBlock(lines: string[], at: number): { lang: string; body: string[]; next: number } | undefined {
  let i = at;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  const open = /^(```+)\s*(\S*)\s*$/.exec(lines[i] ?? '');
  if (!open) return undefined;
  const end = lines.findIndex((line, j) => j > i && line.trim() === open[1]);
  if (end < 0) return undefined;
  return { lang: open[2]!, body: lines.slice(i + 1, end), next: end + 1 };
}

/** The README's tutorial: each `sh` block marked `<!-- tutorial -->`, with the `text` block that may follow it. */
export function tutorialBlocks(text: string): TutorialBlock[] {
  const lines = text.split('\n');
  const blocks: TutorialBlock[] = [];
  lines.forEach((line, i) => {
    if (line.trim() !== '<!-- tutorial -->') return;
    const shell = fencedBlock(lines, i + 1);
    if (shell === undefined || shell.lang !== 'sh')
      throw new Error(`line ${i + 1}: <!-- tutorial --> is not followed by a sh block`);
    const shown = fencedBlock(lines, shell.next);
    blocks.push({
      commands: commandsOf(shell.body),
      output: shown?.lang === 'text' ? shown.body.filter((l) => l.trim() !== '') : [],
    });
  });
  return blocks;
}
