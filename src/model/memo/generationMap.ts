// The memo tables' store: entries of the last model run and of the one under
// way. An entry the run looks up and keeps is carried into the next
// generation; the others are dropped when the run ends, so a table holds one
// configuration's worth of entries, never the history of deleted objects.

export class GenerationMap<K, V> {
  #previous = new Map<K, V>();
  #next = new Map<K, V>();

  /** The entry of the last run (or of this one, when a run that did not end kept it), to be checked by the caller and kept with `keep`. */
  get(key: K): V | undefined {
    // The last run's first: a run looks each key up once, so this one has not kept it yet.
    return this.#previous.get(key) ?? this.#next.get(key);
  }

  /** Keeps `value` for the next run. */
  keep(key: K, value: V): void {
    this.#next.set(key, value);
  }

  /** The run is over: what it did not keep is dropped. */
  rotate(): void {
    this.#previous = this.#next;
    this.#next = new Map();
  }

  /** Entries the last finished run kept. */
  get size(): number {
    return this.#previous.size;
  }
}
