// Work on one item at a time, where only the newest item matters: an item
// still waiting its turn when a newer one arrives is dropped. The data plane
// loads nginx.conf texts this way, so a burst of changes during a reload
// costs one more reload, not one per change.
import { setImmediate } from 'node:timers/promises';

export class LatestOnlyQueue<T, R> {
  private waiting: { item: T; settle: (result: R | Promise<R>) => void } | undefined;
  private working: T | undefined;
  private tail: Promise<void> = Promise.resolve();

  /** `superseded`: what an item dropped before its turn resolves with. */
  constructor(
    private readonly work: (item: T) => Promise<R>,
    private readonly superseded: R,
  ) {}

  /** The item being worked on. */
  get active(): T | undefined {
    return this.working;
  }

  /** Resolves with the item's work, or with `superseded` when a newer item arrived before its turn. */
  submit(item: T): Promise<R> {
    const scheduled = this.waiting !== undefined;
    this.waiting?.settle(this.superseded);
    return new Promise<R>((settle) => {
      this.waiting = { item, settle };
      // A turn already scheduled takes whatever waits when it comes. It starts
      // on a later turn of the event loop: the submitter goes on first, rather
      // than wait for work that may take seconds (rendering nginx.conf).
      if (!scheduled) this.tail = this.tail.then(() => setImmediate()).then(() => this.takeTurn());
    });
  }

  private async takeTurn(): Promise<void> {
    const next = this.waiting;
    if (next === undefined) return;
    this.waiting = undefined;
    this.working = next.item;
    const done = this.work(next.item);
    next.settle(done);
    try {
      await done;
    } catch {
      // The submitter's promise rejects with it.
    } finally {
      this.working = undefined;
    }
  }
}
