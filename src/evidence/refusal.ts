/**
 * How a bundle entry is refused (exit 2, naming the entry) and which names a bundle entry may have:
 * shared by the hostile reader (hostile.ts), the capsule judgement (capsule.ts), the bundle checks
 * (bundle.ts) and capsule restore (capsule-io.ts).
 */
import { invalid } from '../errors.js';

/** A bundle refusal: exit 2, naming the entry. */
export function refuse(entry: string, message: string) {
  return invalid(
    'ERR_BUNDLE_REFUSED',
    `Refused bundle entry \`${entry}\`: ${message}`,
    { path: entry },
    'Bundles are hostile input: export a fresh one with `vkit evidence export`.',
  );
}

const SEGMENT = /^[A-Za-z0-9._-]+$/;

/** Why a name is not a plain relative path inside the bundle, or undefined when it is. */
export function badName(name: string): string | undefined {
  if (name.length === 0) return 'an empty name';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name) || name.startsWith('\\')) return 'an absolute path';
  const segments = name.split(/[/\\]/);
  if (segments.includes('..')) return 'a `..` segment (it would escape the bundle)';
  if (name.includes('\\')) return 'a backslash in the name';
  if (!segments.every((s) => SEGMENT.test(s) && s !== '.'))
    return 'a name that is not a plain relative path (letters, digits, `.`, `_`, `-` and `/` only)';
  return undefined;
}
