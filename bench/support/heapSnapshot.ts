// A V8 heap snapshot (.heapsnapshot, as v8.writeHeapSnapshot writes it) read
// into flat arrays, with each node's retained size: what freeing it would free
// (its dominator subtree, weak edges left out, as DevTools counts it). For
// bench/heapSnapshotSummary.ts: which objects hold the controller's heap.
import { readFileSync } from 'node:fs';

interface RawSnapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export interface HeapSnapshot {
  readonly count: number;
  /** The object's id: the same object has the same id in every snapshot of one process. */
  id(node: number): number;
  /** "object", "string", "closure", "array", "hidden", "code", "native", ... of each node. */
  kind(node: number): string;
  /** The constructor's name of an object, the text of a string, the function's name of a closure. */
  name(node: number): string;
  selfSize(node: number): number;
  retainedSize(node: number): number;
  /** Each node's immediate dominator (the root is its own). */
  dominator(node: number): number;
  /** Bytes reachable from the root without passing through a node `skip` says true of (weak edges left out). */
  reachableWithout(skip: (node: number) => boolean): number;
  /** Edges to other nodes: [edge kind, edge name, target]. */
  edges(node: number): Array<[string, string, number]>;
}

export function readHeapSnapshot(path: string): HeapSnapshot {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as RawSnapshot;
  const { meta } = raw.snapshot;
  const nodeFields = meta.node_fields.length;
  const edgeFields = meta.edge_fields.length;
  const [typeAt, nameAt, idAt, sizeAt, edgeCountAt] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((field) =>
    meta.node_fields.indexOf(field),
  );
  const [edgeTypeAt, edgeNameAt, toAt] = ['type', 'name_or_index', 'to_node'].map((field) => meta.edge_fields.indexOf(field));
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const count = raw.nodes.length / nodeFields;
  const firstEdge = new Uint32Array(count + 1);
  for (let node = 0; node < count; node++)
    firstEdge[node + 1] = firstEdge[node]! + raw.nodes[node * nodeFields + edgeCountAt!]! * edgeFields;
  const weak = edgeTypes.indexOf('weak');
  const elementLike = new Set(['element', 'hidden'].map((type) => edgeTypes.indexOf(type)));
  const targets = (node: number, each: (target: number) => void): void => {
    for (let edge = firstEdge[node]!; edge < firstEdge[node + 1]!; edge += edgeFields) {
      if (raw.edges[edge + edgeTypeAt!] !== weak) each(raw.edges[edge + toAt!]! / nodeFields);
    }
  };
  const { dominators, retained } = dominatorTree(count, targets, (node) => raw.nodes[node * nodeFields + sizeAt!]!);
  return {
    count,
    id: (node) => raw.nodes[node * nodeFields + idAt!]!,
    kind: (node) => nodeTypes[raw.nodes[node * nodeFields + typeAt!]!]!,
    name: (node) => raw.strings[raw.nodes[node * nodeFields + nameAt!]!]!,
    selfSize: (node) => raw.nodes[node * nodeFields + sizeAt!]!,
    retainedSize: (node) => retained[node]!,
    dominator: (node) => dominators[node]!,
    reachableWithout: (skip) => {
      const seen = new Uint8Array(count);
      const stack = [0];
      seen[0] = 1;
      let bytes = 0;
      while (stack.length > 0) {
        const node = stack.pop()!;
        bytes += raw.nodes[node * nodeFields + sizeAt!]!;
        targets(node, (target) => {
          if (seen[target] || skip(target)) return;
          seen[target] = 1;
          stack.push(target);
        });
      }
      return bytes;
    },
    edges: (node) => {
      const out: Array<[string, string, number]> = [];
      for (let edge = firstEdge[node]!; edge < firstEdge[node + 1]!; edge += edgeFields) {
        const type = raw.edges[edge + edgeTypeAt!]!;
        const nameOrIndex = raw.edges[edge + edgeNameAt!]!;
        const name = elementLike.has(type) ? `[${nameOrIndex}]` : raw.strings[nameOrIndex]!;
        out.push([edgeTypes[type]!, name, raw.edges[edge + toAt!]! / nodeFields]);
      }
      return out;
    },
  };
}

/** Cooper, Harvey and Kennedy's iterative dominators from node 0 (the snapshot's root), then subtree sums. */
function dominatorTree(
  count: number,
  targets: (node: number, each: (target: number) => void) => void,
  selfSize: (node: number) => number,
): { dominators: Int32Array; retained: Float64Array } {
  // Post-order numbering by an explicit stack (a million nodes are too deep for recursion).
  const order = new Int32Array(count).fill(-1);
  const byOrder: number[] = [];
  const visited = new Uint8Array(count);
  const stack: number[] = [0];
  visited[0] = 1;
  const pending: number[][] = [];
  pending.push(collect(0));
  while (stack.length > 0) {
    const next = pending[pending.length - 1]!.pop();
    if (next === undefined) {
      const done = stack.pop()!;
      pending.pop();
      order[done] = byOrder.length;
      byOrder.push(done);
      continue;
    }
    if (visited[next]) continue;
    visited[next] = 1;
    stack.push(next);
    pending.push(collect(next));
  }
  function collect(node: number): number[] {
    const list: number[] = [];
    targets(node, (target) => list.push(target));
    return list;
  }
  const predecessors: number[][] = Array.from({ length: count }, () => []);
  for (const node of byOrder) targets(node, (target) => predecessors[target]!.push(node));
  const dominators = new Int32Array(count).fill(-1);
  dominators[0] = 0;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (order[a]! < order[b]!) a = dominators[a]!;
      while (order[b]! < order[a]!) b = dominators[b]!;
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let index = byOrder.length - 1; index >= 0; index--) {
      const node = byOrder[index]!;
      if (node === 0) continue;
      let dominator = -1;
      for (const predecessor of predecessors[node]!) {
        if (dominators[predecessor] === -1) continue;
        dominator = dominator === -1 ? predecessor : intersect(predecessor, dominator);
      }
      if (dominator !== -1 && dominators[node] !== dominator) {
        dominators[node] = dominator;
        changed = true;
      }
    }
  }
  const retained = new Float64Array(count);
  for (const node of byOrder) retained[node]! += selfSize(node);
  for (const node of byOrder) if (node !== 0 && dominators[node]! >= 0) retained[dominators[node]!]! += retained[node]!;
  return { dominators, retained };
}
