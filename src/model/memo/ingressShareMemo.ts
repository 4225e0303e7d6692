// Each Ingress object's share (ingressShare.ts), and the drafts of its paths
// for the annotations last resolved for it. Kept per object in a WeakMap: the
// store replaces an Ingress that changes (ObjectCache.upsert), so the entry of
// an old version goes with it. The drafts are kept with the LocationAnnotations
// object they were made with and made again for another one.
import type { Ingress } from '../../kube/objects.js';
import { ingressShare, shareDrafts, type IngressShare } from '../ingressShare.js';
import type { DraftLocation } from '../locations.js';
import type { LocationAnnotations } from '../types.js';

interface Entry {
  share: IngressShare;
  drafts?: { annotations: LocationAnnotations; drafts: DraftLocation[] };
}

export class IngressShareMemo {
  readonly #entries = new WeakMap<Ingress, Entry>();

  share(ingress: Ingress): IngressShare {
    return this.#entry(ingress).share;
  }

  drafts(ingress: Ingress, annotations: LocationAnnotations): DraftLocation[] {
    const entry = this.#entry(ingress);
    if (entry.drafts?.annotations !== annotations) entry.drafts = { annotations, drafts: shareDrafts(entry.share, annotations) };
    return entry.drafts.drafts;
  }

  #entry(ingress: Ingress): Entry {
    let entry = this.#entries.get(ingress);
    if (entry === undefined) {
      entry = { share: ingressShare(ingress) };
      this.#entries.set(ingress, entry);
    }
    return entry;
  }
}
