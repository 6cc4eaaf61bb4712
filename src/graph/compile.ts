/**
 * Compiles the resolved manifest into the action graph: one capture node per checked node, the node
 * itself, and an edge for every `after`. Pure. A cycle is a config error naming the loop.
 */
import { DirectedGraph } from 'graphology';
import { topologicalSort } from 'graphology-dag';
import { InvalidInputError } from '../errors.js';
import type { Manifest } from '../config/types.js';

export interface GraphNode {
  label: string;
  kind: string;
  id: string;
  attrs: Record<string, unknown>;
  /** The node's capture, for nodes that have declared inputs. */
  capture?: string;
  /** Gate requirement? Captures are not; everything the manifest declares is. */
  required: boolean;
  /** Where the node was declared, for messages: `checks[3]`. */
  declaredAt: string;
}

export interface ActionGraph {
  graph: DirectedGraph<GraphNode>;
  /** Labels in a dependency-respecting order. */
  order: string[];
}

export function compileGraph(m: Manifest, file?: string): ActionGraph {
  const graph = new DirectedGraph<GraphNode>();
  const addWithCapture = (node: GraphNode, inputs: string[], hash?: 'raw') => {
    const capture = `capture:${node.label}`;
    graph.addNode(capture, {
      label: capture,
      kind: 'capture',
      id: node.label,
      attrs: hash ? { inputs, hash } : { inputs },
      required: false,
      declaredAt: node.declaredAt,
    });
    graph.addNode(node.label, { ...node, capture });
    graph.addDirectedEdge(capture, node.label);
  };
  m.checks.forEach((c, i) =>
    addWithCapture(
      {
        label: `check:${c.id}`,
        kind: 'check',
        id: c.id,
        attrs: c as unknown as Record<string, unknown>,
        required: true,
        declaredAt: `checks[${i}]`,
      },
      c.inputs,
      c.line_endings === 'raw' ? 'raw' : undefined,
    ),
  );
  m.actions.forEach((a, i) =>
    addWithCapture(
      {
        label: `${a.rule}:${a.id}`,
        kind: a.rule,
        id: a.id,
        attrs: a.attrs,
        required: true,
        declaredAt: `actions[${i}]`,
      },
      a.inputs,
    ),
  );
  m.compare.forEach((c, i) =>
    addWithCapture(
      {
        label: `compare:${c.id}`,
        kind: 'compare',
        id: c.id,
        attrs: c as unknown as Record<string, unknown>,
        required: true,
        declaredAt: `compare[${i}]`,
      },
      [c.request],
    ),
  );
  m.acceptance.forEach((a, i) => {
    // The record's library and self_verify nodes (src/acceptance/graph.ts), each a requirement, then the record itself.
    const { expansion, ...attrs } = a;
    expansion?.nodes.forEach((n) =>
      addWithCapture(
        { label: n.label, kind: n.kind, id: n.id, attrs: n.attrs, required: true, declaredAt: `acceptance[${i}]` },
        n.inputs,
        'raw',
      ),
    );
    addWithCapture(
      {
        label: `accept:${a.id}`,
        kind: 'accept',
        id: a.id,
        attrs: attrs as unknown as Record<string, unknown>,
        required: true,
        declaredAt: `acceptance[${i}]`,
      },
      a.inputs ?? [a.spec, a.package, a.decision],
      'raw',
    );
    expansion?.nodes.forEach((n) => n.after.forEach((dep) => graph.addDirectedEdge(dep, n.label)));
    expansion?.after.forEach((dep) => graph.addDirectedEdge(dep, `accept:${a.id}`));
  });
  // Formal components: the raw capture of their inputs plus the lock, whose bytes bind the accepted digests.
  m.formal.components.forEach((c, i) =>
    addWithCapture(
      {
        label: `formal:${c.id}`,
        kind: 'verify',
        id: c.id,
        attrs: c as unknown as Record<string, unknown>,
        required: c.required,
        declaredAt: `formal.components[${i}]`,
      },
      [...c.inputs, 'vkit.lock.json'],
      'raw',
    ),
  );
  m.checks.forEach((c) => c.after.forEach((dep) => graph.addDirectedEdge(`check:${dep}`, `check:${c.id}`)));
  m.actions.forEach((a) =>
    a.after.forEach((dep) =>
      graph.addDirectedEdge(graph.hasNode(`check:${dep}`) ? `check:${dep}` : `${a.rule}:${dep}`, `${a.rule}:${a.id}`),
    ),
  );
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
