/** Paths inside acceptance documents are relative to --root and may never leave it. */
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** The absolute path of `rel` under `root`, or undefined when it is absolute or escapes the root. */
export function insideRoot(root: string, rel: string): string | undefined {
  if (isAbsolute(rel) || rel.includes('\0')) return undefined;
  const abs = resolve(root, rel);
  const back = relative(root, abs);
  if (back === '') return abs;
  if (back.startsWith(`..${sep}`) || back === '..' || isAbsolute(back)) return undefined;
  return abs;
}
