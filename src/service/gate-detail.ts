/** What a CI report adds to a gate, read from the workspace and its store: entry lines, log tails, diagnostics' places. */
import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import type { GateDetail } from '../gate/formats.js';
import { entryLines } from '../gate/locations.js';
import type { Gate } from '../gate/schema.js';
import { itemSourceLines, itemTails } from './runs.js';
import type { Workspace } from './workspace.js';

/** Where each item of the gate is declared (its config entry's line) and the failing items' log tails. */
export function gateDetail(ws: Workspace, shown: Gate): GateDetail {
  const ids = shown.items.map((i) => i.id);
  const treeFiles = new Set(ws.files);
  let text = '';
  try {
    text = readFileSync(ws.config.file, 'utf8');
  } catch {
    // A config gone since it was loaded: every item points at line 1 of where it was.
  }
  return {
    configFile: relative(ws.root, ws.config.file).split(sep).join('/'),
    entryLines: entryLines(text, ids),
    tails: itemTails(ws.store, shown.items),
    sourceLines: itemSourceLines(ws.store, shown.items, (file) => treeFiles.has(file)),
  };
}
