// Coalesces bursts of object changes into one signal for the sync loop: a
// deploy tool applying 100 Ingresses one by one must cause one sync, not 100,
// while a single change still goes out after a short quiet period.

export interface ChangeFeedOptions {
  /** Deliver once no change has arrived for this long... */
  quietMs: number;
  /** ...or once the oldest pending change has waited this long, whichever is first. */
  maxDelayMs: number;
}

export const DEFAULT_CHANGE_FEED_OPTIONS: ChangeFeedOptions = { quietMs: 50, maxDelayMs: 1000 };

export class ChangeFeed {
  private pending = new Set<string>();
  private firstAt = 0;
  private lastAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private ready = false;
  private waiter: ((keys: ReadonlySet<string>) => void) | undefined;

  constructor(private readonly options: ChangeFeedOptions = DEFAULT_CHANGE_FEED_OPTIONS) {}

  /** Records that the object with this key changed. */
  push(key: string): void {
    const now = Date.now();
    if (this.pending.size === 0) this.firstAt = now;
    this.lastAt = now;
    this.pending.add(key);
    if (!this.ready) this.schedule();
  }

  /** Waits for the next coalesced batch of changed keys. One consumer at a time. */
  next(): Promise<ReadonlySet<string>> {
    if (this.waiter) throw new Error('ChangeFeed.next() is already awaited');
    if (this.ready) return Promise.resolve(this.take());
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /** Keys recorded but not yet delivered. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Forgets the changes recorded so far, delivered or not, for a caller that
   * has just read the whole store (a sync's snapshot): they are in what it
   * read. A waiting next() keeps waiting for the changes after.
   */
  discardPending(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = new Set();
    this.ready = false;
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    const due = Math.min(this.lastAt + this.options.quietMs, this.firstAt + this.options.maxDelayMs);
    this.timer = setTimeout(() => this.onDue(), Math.max(0, due - Date.now()));
  }

  private onDue(): void {
    this.timer = undefined;
    this.ready = true;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter(this.take());
    }
  }

  private take(): ReadonlySet<string> {
    const keys = this.pending;
    this.pending = new Set();
    this.ready = false;
    return keys;
  }
}
