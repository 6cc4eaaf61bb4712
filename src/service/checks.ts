/**
 * What the config declares, for an agent deciding what to run: every item's label, kind, command,
 * inputs and what it runs after, read from the config alone (no store, no git, nothing run). And
 * which of the config's sections have entries, so a face can leave out tools the project cannot use.
 */
import { readConfig } from '../config/load.js';
import { entriesOf, loadKinds } from '../config/kind.js';
import { compileGraph } from '../graph/compile.js';

export interface DeclaredItem {
  label: string;
  /** The rule it runs (`check`, `formal`, ...). */
  kind: string;
  id: string;
  required: boolean;
  /** A check's command, as the config writes it; null for kinds that run no command of the config's. */
  run: string | string[] | null;
  inputs: string[];
  /** Labels it runs after (their results enter its key). */
  after: string[];
  /** Where the config declares it: `checks[3]`. */
  declared_at: string;
}

/** Every item the config declares, in dependency order. Throws the config's own error when it cannot be read. */
export async function listDeclared(root: string): Promise<{ config: string; items: DeclaredItem[] }> {
  await loadKinds();
  const config = await readConfig(root);
  const { graph, order } = compileGraph(config.manifest, config.file);
  const items = order.map((label): DeclaredItem => {
    const node = graph.getNodeAttributes(label);
    const run = node.attrs.run;
    return {
      label,
      kind: node.kind,
      id: node.id,
      required: node.required,
      run: typeof run === 'string' || Array.isArray(run) ? (run as string | string[]) : null,
      inputs: node.inputs,
      after: graph.inNeighbors(label),
      declared_at: node.declaredAt,
    };
  });
  return { config: config.file, items };
}

/** The config sections with at least one entry (`checks`, `formal.components`, ...), or undefined when no config can be read. */
export async function usedSections(root: string): Promise<ReadonlySet<string> | undefined> {
  try {
    const registry = await loadKinds();
    const { manifest } = await readConfig(root);
    return new Set(registry.kinds.filter((k) => entriesOf(manifest, k).length > 0).map((k) => k.section));
  } catch {
    return undefined;
  }
}
