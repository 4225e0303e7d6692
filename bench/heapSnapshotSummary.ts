/**
 * What holds a heap snapshot's memory (bench/controllerMemory.ts --snapshots
 * writes them): the largest dominators by retained size, each with the chain of
 * what retains it up to the root, and self size by kind and constructor name.
 * Given a second snapshot of the same process, also what is in the second and
 * not in the first (by object id), by kind and name, each with the retainer
 * chain of its largest object.
 * `--holders A,B` prints what the objects of each constructor alone hold: the
 * bytes no longer reachable from the root without them (shared parts, which
 * a dominator tree gives to a common holder, count for each).
 *   node --import tsx bench/heapSnapshotSummary.ts first.heapsnapshot [second.heapsnapshot] [--top 25] [--holders A,B]
 */
import { parseArgs } from 'node:util';
import { readHeapSnapshot, type HeapSnapshot } from './support/heapSnapshot.js';
import { positiveInteger } from './support/options.js';
import { figure, printTable } from './support/table.js';

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '25' }, holders: { type: 'string', default: '' } },
  allowPositionals: true,
});
/** Constructor names (`--holders SyncLoop,Store`): what each one's objects alone hold (freed if they were gone), and all of them. */
const holders = values.holders.split(',').filter(Boolean);
const top = positiveInteger('--top', values.top);
if (positionals.length < 1 || positionals.length > 2) throw new Error('one or two .heapsnapshot files');

const mib = (bytes: number): string => figure(bytes / 1024 / 1024, 2);
/** A node as DevTools names it, strings shortened. */
function label(heap: HeapSnapshot, node: number): string {
  const name = heap.name(node).replaceAll(/\s+/g, ' ');
  return `${heap.kind(node)} ${name.length > 60 ? `${name.slice(0, 60)}…` : name}`;
}
/** The node's dominators up to the root, nearest first, each with the edge name it is reached by from the next. */
function chain(heap: HeapSnapshot, node: number, depth = 8): string {
  const links: string[] = [];
  for (let current = node, step = 0; current !== 0 && step < depth; step++) {
    const holder = heap.dominator(current);
    const edge = heap.edges(holder).find(([, , target]) => target === current);
    links.push(`${edge === undefined ? '' : `.${edge[1]} of `}${label(heap, holder)}`);
    current = holder;
  }
  return links.join(' ← ');
}
function byKindAndName(
  heap: HeapSnapshot,
  include: (node: number) => boolean,
): Map<string, { bytes: number; count: number; largest: number }> {
  const groups = new Map<string, { bytes: number; count: number; largest: number }>();
  for (let node = 0; node < heap.count; node++) {
    if (!include(node)) continue;
    const kind = heap.kind(node);
    const key = kind === 'string' || kind === 'concatenated string' || kind === 'sliced string' ? kind : `${kind} ${heap.name(node)}`;
    const group = groups.get(key) ?? { bytes: 0, count: 0, largest: node };
    group.bytes += heap.selfSize(node);
    group.count++;
    if (heap.selfSize(node) > heap.selfSize(group.largest)) group.largest = node;
    groups.set(key, group);
  }
  return groups;
}
function printGroups(heap: HeapSnapshot, groups: Map<string, { bytes: number; count: number; largest: number }>): void {
  const rows = [...groups.entries()].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top);
  printTable(
    ['kind and name', 'MiB', 'objects', 'largest: MiB, retained by'],
    rows.map(([key, group]) => [
      key.length > 70 ? `${key.slice(0, 70)}…` : key,
      mib(group.bytes),
      figure(group.count),
      `${mib(heap.selfSize(group.largest))}, ${chain(heap, group.largest, 5)}`,
    ]),
  );
}

const heaps = positionals.map((path) => {
  const started = performance.now();
  const heap = readHeapSnapshot(path);
  process.stderr.write(`${path}: ${figure(heap.count)} nodes, read in ${figure((performance.now() - started) / 1000, 1)} s\n`);
  return heap;
});
for (const [index, heap] of heaps.entries()) {
  process.stdout.write(
    `\n## ${positionals[index]}: ${mib(heap.retainedSize(0))} MiB reachable\n\nLargest retained sizes (nodes that dominate at least 1 % of it, no ancestor's repeats):\n\n`,
  );
  const total = heap.retainedSize(0);
  const big: number[] = [];
  for (let node = 1; node < heap.count; node++) if (heap.retainedSize(node) >= total / 100) big.push(node);
  // The deepest of each chain say most: a node whose dominated child holds nearly all of it is left out.
  const shown = big
    .filter((node) => !big.some((other) => heap.dominator(other) === node && heap.retainedSize(other) > heap.retainedSize(node) * 0.9))
    .sort((a, b) => heap.retainedSize(b) - heap.retainedSize(a))
    .slice(0, top);
  printTable(
    ['node', 'retained MiB', 'self MiB', 'retained by'],
    shown.map((node) => [label(heap, node), mib(heap.retainedSize(node)), mib(heap.selfSize(node)), chain(heap, node)]),
  );
  if (holders.length > 0) {
    process.stdout.write('\nWhat each holder alone holds (freed without its objects):\n\n');
    const isObjectOf = (names: readonly string[]) => (node: number) => heap.kind(node) === 'object' && names.includes(heap.name(node));
    printTable(
      ['holder', 'freed MiB'],
      [...holders.map((name) => [name]), holders].map((names) => [
        names.join(' + '),
        mib(total - heap.reachableWithout(isObjectOf(names))),
      ]),
    );
  }
  process.stdout.write('\nSelf size by kind and name:\n\n');
  printGroups(
    heap,
    byKindAndName(heap, () => true),
  );
}
if (heaps.length === 2) {
  const [first, second] = heaps as [HeapSnapshot, HeapSnapshot];
  const before = new Set<number>();
  for (let node = 0; node < first.count; node++) before.add(first.id(node));
  process.stdout.write(`\n## In the second and not in the first (by object id)\n\n`);
  printGroups(
    second,
    byKindAndName(second, (node) => !before.has(second.id(node))),
  );
}
