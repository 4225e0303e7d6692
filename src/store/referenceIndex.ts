/**
 * A many-to-many index from referrers to the keys they reference, queryable
 * both ways (e.g. Ingress → Secrets it names, and Secret → Ingresses naming it).
 *
 * Held compactly, because nearly every entry has one or two keys: a Set costs
 * about 200 bytes however few it holds, and at 10,000 Ingresses the store's four
 * indexes held about 76,000 of them (some 15 MiB of the controller's heap). A
 * referrer's targets are an array (they are only listed), and a target with a
 * single referrer is that key itself; a Set only from a second one.
 */
export class ReferenceIndex {
  private readonly forward = new Map<string, readonly string[]>();
  private readonly backward = new Map<string, string | Set<string>>();

  /** Sets everything `referrer` references, replacing what it referenced before. */
  set(referrer: string, references: Iterable<string>): void {
    this.delete(referrer);
    const targets = [...new Set(references)];
    if (targets.length === 0) return;
    this.forward.set(referrer, targets);
    for (const target of targets) {
      const referrers = this.backward.get(target);
      if (referrers === undefined) this.backward.set(target, referrer);
      else if (typeof referrers !== 'string') referrers.add(referrer);
      else if (referrers !== referrer) this.backward.set(target, new Set([referrers, referrer]));
    }
  }

  delete(referrer: string): void {
    const targets = this.forward.get(referrer);
    if (!targets) return;
    this.forward.delete(referrer);
    for (const target of targets) {
      const referrers = this.backward.get(target);
      if (referrers === referrer) this.backward.delete(target);
      else if (typeof referrers === 'object') {
        referrers.delete(referrer);
        if (referrers.size === 0) this.backward.delete(target);
      }
    }
  }

  referencedBy(referrer: string): readonly string[] {
    return this.forward.get(referrer) ?? NONE;
  }

  referrersOf(target: string): Iterable<string> {
    const referrers = this.backward.get(target);
    if (referrers === undefined) return NONE;
    return typeof referrers === 'string' ? [referrers] : referrers;
  }
}

const NONE: readonly string[] = [];
