/**
 * Reading `vkit.manifest.json` strictly: bytes that are not UTF-8, repeated keys and values the
 * manifest's digest cannot hold are refused at their line before validation, and a manifest
 * validated before (kept in this process or in the store) is taken as it was.
 */
import { readFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import { invalid, InvalidInputError, type Issue } from '../errors.js';
import { jsonId } from '../hash/index.js';
import { parseJsonText, type ParsedJsonText } from '../text/json-text.js';
import { firstInvalidUtf8 } from '../text/utf8.js';
import { loadKinds, type KindRegistry } from './kind.js';
import type { KeptConfigs } from './kept.js';
import type { Manifest } from './types.js';
import { validateManifest } from './validate.js';

/**
 * In a resident process (`vkit daemon`, which calls `rememberManifests`), the manifest it last
 * validated, by its exact text: reading the same bytes again gets the same manifest without parsing,
 * validating and digesting a thousand entries again. Validation is pure
 * (validate.ts): the text, the name errors show and the kind registry decide it. Each load gets its
 * own copy, as if parsed anew: callers may adjust entries (a protected gate confines every check).
 * A one-off process never reads its config twice and keeps nothing here (a `KeptConfigs` may keep it
 * in the store instead).
 */
let remember = false;
export function rememberManifests(): void {
  remember = true;
}
let lastManifest:
  | { file: string; shown: string; text: string; registry: KindRegistry; copy: () => Manifest; policyDigest: string }
  | undefined;

/** The manifest as JSON text, when that text gives back exactly this manifest (no member JSON drops or changes). */
export function manifestJson(manifest: Manifest): string | undefined {
  const json = JSON.stringify(manifest);
  return isDeepStrictEqual(JSON.parse(json), manifest) ? json : undefined;
}

/** Fresh copies of a manifest: parsed from its JSON text, else structured clones. */
function copier(manifest: Manifest): () => Manifest {
  const json = manifestJson(manifest);
  if (json !== undefined) return () => JSON.parse(json) as Manifest;
  const kept = structuredClone(manifest);
  return () => structuredClone(kept);
}

/** The manifest a `vkit.manifest.json` holds and its policy digest, or the refusal (exit 2) naming where. */
export async function readManifestFile(
  file: string,
  shown: string,
  kept: KeptConfigs | undefined,
): Promise<{ manifest: Manifest; policyDigest: string }> {
  const text = await readUtf8(file, shown);
  const registry = await loadKinds();
  const last = lastManifest;
  if (last && last.text === text && last.file === file && last.shown === shown && last.registry === registry)
    return { manifest: last.copy(), policyDigest: last.policyDigest };
  const found = kept?.manifest(file, shown, text);
  if (found) return { manifest: found.manifest, policyDigest: found.policyDigest };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw invalid(
      'ERR_CONFIG_PARSE',
      `Invalid JSON: ${(error as Error).message}`,
      { file: shown, line: jsonErrorLine(text, error as Error) },
      'Fix the JSON syntax.',
    );
  }
  // JSON.parse keeps the last of two equal member names: a second `checks` would silently replace the
  // list a reader sees first (dropping requirements). Any repeated key is refused, at its line.
  const strict = parseJsonText(text);
  const repeated = strict.source.duplicates();
  if (repeated.length) {
    throw new InvalidInputError(
      'ERR_CONFIG_INVALID',
      repeated.map((d) => ({
        file: shown,
        path: d.path.replace(/^\$\.?/, ''),
        line: d.line,
        message: `Duplicate key \`${d.key}\`: JSON would keep only the last one; remove the other`,
      })),
    );
  }
  // What JSON.parse takes but the manifest's digest cannot hold: a lone surrogate (no UTF-8 form),
  // nesting past 64 levels (the strict parser's limit, which also bounds every walk below), and a
  // number past the largest double (JSON.parse reads it as Infinity).
  const unfit = strict.issues.length
    ? strict.issues.map((i) => ({
        file: shown,
        path: i.path.replace(/^\$\.?/, ''),
        line: i.line,
        message: i.message.replace(/^Invalid JSON at line \d+, column \d+: /, ''),
      }))
    : infiniteNumbers(strict, text, shown);
  if (unfit.length) throw new InvalidInputError('ERR_CONFIG_INVALID', unfit, 'Fix the value at that field.');
  const { value, issues } = validateManifest(data, shown, registry);
  if (!value) throw new InvalidInputError('ERR_CONFIG_INVALID', withLines(issues, text));
  if (value.rules.length > 0) {
    throw invalid('ERR_CONFIG_INVALID', 'User rules need code: register them in vkit.config.ts with defineRule()', {
      file: shown,
      path: 'rules',
    });
  }
  const policyDigest = jsonId(value);
  kept?.keepManifest(file, shown, text, value, policyDigest);
  if (remember) lastManifest = { file, shown, text, registry, copy: copier(value), policyDigest };
  return { manifest: value, policyDigest };
}

/** Numbers JSON.parse reads as ±Infinity (`1e400`), at their field path and line. */
function infiniteNumbers(parsed: ParsedJsonText, text: string, shown: string): Issue[] {
  const issues: Issue[] = [];
  const walk = (value: unknown, path: string, written?: string, line?: number) => {
    if (typeof value === 'number' && !Number.isFinite(value))
      issues.push({
        file: shown,
        path,
        line,
        message: `Expected a number a double can hold, got \`${written ?? value}\``,
      });
    else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`));
    else if (value && typeof value === 'object') {
      const members = parsed.source.members(value) ?? [];
      for (const m of members)
        if (!m.duplicate)
          walk((value as Record<string, unknown>)[m.key], path ? `${path}.${m.key}` : m.key, m.numberText, m.line);
    }
  };
  walk(parsed.value, '');
  return issues.map((i) => (i.line ? i : { ...i, line: withLines([i], text)[0]!.line }));
}

/**
 * The manifest's text. Bytes that are not UTF-8 are refused (exit 2, naming the byte and its line):
 * read leniently, each would become U+FFFD and the manifest would run something its bytes do not say.
 * A leading byte-order mark stays in the text (JSON.parse then refuses it, as before).
 */
async function readUtf8(file: string, shown: string): Promise<string> {
  const bytes = await readFile(file);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    // Only on this error path: the acceptance reader's exact locator (its module loads a TOML parser).
    const at = firstInvalidUtf8(bytes) ?? 0;
    let line = 1;
    for (let i = 0; i < at; i++) if (bytes[i] === 0x0a) line++;
    throw invalid(
      'ERR_CONFIG_PARSE',
      `The file is not valid UTF-8 at byte offset ${at} (0x${bytes[at]?.toString(16).padStart(2, '0') ?? '??'})`,
      { file: shown, line },
      'Save the manifest as UTF-8.',
    );
  }
}

export function jsonErrorLine(text: string, error: Error): number | undefined {
  const pos = /position (\d+)/.exec(error.message);
  if (pos) return text.slice(0, Number(pos[1])).split('\n').length;
  const line = /line (\d+)/.exec(error.message);
  return line ? Number(line[1]) : undefined;
}

/** Adds the line of the first key on each issue's path in the JSON text, found by a light scan. */
function withLines(issues: Issue[], text: string): Issue[] {
  return issues.map((issue) => ({ ...issue, line: locate(text, issue.path) }));
}

function locate(text: string, path: string): number | undefined {
  // Walk keys in order; each search starts where the previous key was found. Good enough to point
  // a human at the right place; never used for anything but messages.
  let at = 0;
  for (const part of path.split(/\.|\[(\d+)\]/).filter(Boolean)) {
    if (/^\d+$/.test(part)) continue;
    const idx = text.indexOf(`"${part}"`, at);
    if (idx < 0) break;
    at = idx;
  }
  return at > 0 ? text.slice(0, at).split('\n').length : undefined;
}
