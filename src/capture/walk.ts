/**
 * The working tree of a directory without git: every non-directory path under it (files, links,
 * special files: callers refuse what they cannot capture), sorted, skipping only the root's `.git`
 * and `.vkit`. Without git there is no ignore list. The workspace listing and the formal capture
 * share this walk, so the two captures of one tree agree.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export function walkTree(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!rel && (entry.name === '.git' || entry.name === '.vkit')) continue;
        walk(path);
      } else out.push(path);
    }
  };
  walk('');
  return out.sort();
}
