/**
 * A many-to-many index from referrers to the keys they reference, queryable
 * both ways (e.g. Ingress → Secrets it names, and Secret → Ingresses naming it).
 */
export class ReferenceIndex {
  private readonly forward = new Map<string, Set<string>>();
  private readonly backward = new Map<string, Set<string>>();

  /** Sets everything `referrer` references, replacing what it referenced before. */
  set(referrer: string, references: Iterable<string>): void {
    this.delete(referrer);
    const targets = new Set(references);
    if (targets.size === 0) return;
    this.forward.set(referrer, targets);
    for (const target of targets) {
      let referrers = this.backward.get(target);
      if (!referrers) this.backward.set(target, (referrers = new Set()));
      referrers.add(referrer);
    }
  }

  delete(referrer: string): void {
    const targets = this.forward.get(referrer);
    if (!targets) return;
    this.forward.delete(referrer);
    for (const target of targets) {
      const referrers = this.backward.get(target);
      referrers?.delete(referrer);
      if (referrers?.size === 0) this.backward.delete(target);
    }
  }

  referencedBy(referrer: string): ReadonlySet<string> {
    return this.forward.get(referrer) ?? EMPTY;
  }

  referrersOf(target: string): ReadonlySet<string> {
    return this.backward.get(target) ?? EMPTY;
  }
}

const EMPTY: ReadonlySet<string> = new Set();
