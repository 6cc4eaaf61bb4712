/**
 * A root's working tree as a workspace needs it: whether it is a git work tree (and its common git
 * dir), every path vkit may capture (git's listing, or the walk without git), and what git ignores.
 * One shell runs the git processes (`gitListing`). The CLI may start a root's listing ahead (`listAhead`, before
 * its own modules load, while the process is still small and the git processes can overlap that
 * load); the next `listWorkTree` of that root takes it, once. A listing is a snapshot either way:
 * every listed file is still statted or hashed when it is captured.
 */
import { gitListing } from './git.js';
import { walkTree } from './walk.js';

export interface WorkTreeListing {
  /** The git work tree's common dir and this root's prefix in it; undefined without git. */
  info: Promise<{ commonDir: string; prefix: string } | undefined>;
  /** Sorted paths relative to the root. */
  files: Promise<string[]>;
  /** Untracked paths git ignores, sorted (directories once, with `/`); empty without git. */
  ignored: Promise<string[]>;
}

/** A root's listing, started. */
export interface StartedListing {
  root: string;
  listing: WorkTreeListing;
}

let ahead: StartedListing | undefined;

/** Starts listing `root` (an absolute path) now, for `listAhead` to take (bin/vkit.js's early step, src/fast/boot-ahead.ts). */
export function startListing(root: string): StartedListing {
  return { root, listing: start(root) };
}

/**
 * The next `listWorkTree(root)` of this process takes this listing: `started` when it is one of
 * `root` (started before the CLI's code loaded, maybe by tsc's copy of this module: it is only
 * promises), else one started now.
 */
export function listAhead(root: string, started?: StartedListing): void {
  ahead = started?.root === root ? started : startListing(root);
}

/** The listing of `root` (absolute): the one started ahead for it, else a new one. */
export function listWorkTree(root: string): WorkTreeListing {
  const taken = ahead?.root === root ? ahead.listing : undefined;
  ahead = undefined;
  return taken ?? start(root);
}

function start(root: string): WorkTreeListing {
  const git = gitListing(root);
  const info = git.info;
  const files = info.then((inside) => (inside ? git.files.then((f) => f.sort()) : walkTree(root)));
  const ignored = info.then((inside) => (inside ? git.ignored : []));
  // Awaited by the taker; one nobody takes (or takes after an earlier error) must not be unhandled.
  files.catch(() => {});
  ignored.catch(() => {});
  return { info, files, ignored };
}
