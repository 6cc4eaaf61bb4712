/**
 * Compiles the resolved manifest into the action graph: each kind expands its entries into nodes
 * (label, rule, attributes, the inputs the key covers) and the edges of their `after`. Pure. A
 * cycle is a config error naming the loop.
 */
import { DirectedGraph } from 'graphology';
import { topologicalSort } from 'graphology-dag';
import { InvalidInputError } from '../errors.js';
import { entriesOf, type KindNode, kinds, type KindRegistry } from '../config/kind.js';
import type { Manifest } from '../config/types.js';

/** A kind's node as the graph holds it: whether its entry declares its inputs settled, and where it stands. */
export interface GraphNode extends Omit<KindNode, 'declared' | 'after'> {
  /** The config entry names the inputs itself (see KindNode.declared). */
  declared: boolean;
  /** Where the node was declared, for messages: `checks[3]`. */
  declaredAt: string;
}

export interface ActionGraph {
  graph: DirectedGraph<GraphNode>;
  /** Labels in a dependency-respecting order. */
  order: string[];
}

export function compileGraph(m: Manifest, file?: string, registry: KindRegistry = kinds()): ActionGraph {
  const graph = new DirectedGraph<GraphNode>();
  const sections = registry.kinds.map((kind) => ({ kind, entries: entriesOf(m, kind) }));
  const labels = new Set(sections.flatMap(({ kind, entries }) => entries.map((e) => kind.label(e))));
  const edges: [string, string][] = [];
  for (const { kind, entries } of sections)
    entries.forEach((entry, i) => {
      for (const { after, declared, ...node } of kind.expand(entry, labels)) {
        graph.addNode(node.label, { ...node, declared: declared ?? false, declaredAt: `${kind.section}[${i}]` });
        for (const dep of after) edges.push([dep, node.label]);
      }
    });
  for (const [from, to] of edges) graph.addDirectedEdge(from, to);
  let order: string[];
  try {
    order = topologicalSort(graph);
  } catch {
    const loop = findCycle(graph);
    const at = graph.getNodeAttributes(loop[0]!).declaredAt;
    throw new InvalidInputError(
      'ERR_CONFIG_CYCLE',
      [{ file, path: `${at}.after`, message: `\`after\` makes a cycle: ${loop.join(' -> ')}` }],
      'Remove one of the `after` entries in the loop.',
    );
  }
  return { graph, order };
}

/** `--check ID` (and the MCP's `check`): a bare id is a check's; a label is taken as written. */
export function checkLabel(idOrLabel: string): string {
  return idOrLabel.includes(':') ? idOrLabel : `check:${idOrLabel}`;
}

function findCycle(graph: DirectedGraph<GraphNode>): string[] {
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  let found: string[] = [];
  const visit = (n: string): boolean => {
    state.set(n, 1);
    stack.push(n);
    for (const next of graph.outNeighbors(n)) {
      if (state.get(next) === 1) {
        found = [...stack.slice(stack.indexOf(next)), next];
        return true;
      }
      if (!state.has(next) && visit(next)) return true;
    }
    stack.pop();
    state.set(n, 2);
    return false;
  };
  for (const n of graph.nodes()) if (!state.has(n) && visit(n)) break;
  return found;
}
