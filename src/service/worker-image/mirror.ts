/**
 * The Debian mirror a worker image is bootstrapped from, read from the host's apt sources at build
 * time (never written into the image or the package): the first enabled deb822 stanza for the
 * suite, else the first one-line `deb` entry for it.
 */
import { readdirSync, readFileSync } from 'node:fs';

const SOURCES_D = '/etc/apt/sources.list.d';

/** `sort` under LC_ALL=C: byte order. */
export const byteSort = (lines: string[]) => lines.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

/** The mirror URL for `suite`: VKIT_WORKER_MIRROR, else the apt sources', else undefined. */
export function findMirror(suite: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.VKIT_WORKER_MIRROR || findDeb822(suite) || findOneLine(suite);
}

/** The first deb822 field `name` of a stanza line, lower-cased, with the rest of the line. */
function field(line: string): [name: string, value: string] {
  const words = line.trim().split(/[ \t]+/);
  return [words[0]!.toLowerCase(), words.slice(1).join(' ')];
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function filesEnding(ext: string): string[] {
  try {
    return byteSort(readdirSync(SOURCES_D).filter((f) => f.endsWith(ext))).map((f) => `${SOURCES_D}/${f}`);
  } catch {
    return [];
  }
}

/** The first enabled deb822 stanza of type deb whose Suites list has `suite` (*.sources in name order). */
function findDeb822(suite: string): string | undefined {
  for (const file of filesEnding('.sources')) {
    let stanza = { types: '', suites: [] as string[], uri: '', enabled: '' };
    const take = () =>
      stanza.types.split(/[ \t]+/).includes('deb') &&
      stanza.enabled !== 'no' &&
      stanza.uri !== '' &&
      stanza.suites.includes(suite)
        ? stanza.uri
        : '';
    for (const line of readOrEmpty(file).split('\n')) {
      if (/^[ \t]*$/.test(line)) {
        if (take()) return stanza.uri;
        stanza = { types: '', suites: [], uri: '', enabled: '' };
        continue;
      }
      if (line.startsWith('#')) continue;
      const [name, value] = field(line);
      if (name === 'types:') stanza.types = value;
      else if (name === 'suites:') stanza.suites = value.split(' ');
      else if (name === 'uris:') stanza.uri = value.split(' ')[0] ?? '';
      else if (name === 'enabled:') stanza.enabled = (value.split(' ')[0] ?? '').toLowerCase();
    }
    if (take()) return stanza.uri;
  }
  return undefined;
}

/** The first one-line `deb [options] URI suite ...` entry of sources.list and *.list. */
function findOneLine(suite: string): string | undefined {
  for (const file of ['/etc/apt/sources.list', ...filesEnding('.list')]) {
    for (const line of readOrEmpty(file).split('\n')) {
      const words = line.trim().split(/[ \t]+/);
      if (words[0] !== 'deb') continue;
      let i = 1;
      if (words[1]?.startsWith('[')) {
        while (i < words.length && !words[i]!.endsWith(']')) i++;
        i++;
      }
      if (words[i + 1] === suite) return words[i];
    }
  }
  return undefined;
}
