// Which object each line of a rendered nginx.conf comes from, so that a line
// nginx refuses can be traced back to an Ingress, the global settings or
// Portico itself. Nodes carry a small integer into a per-render table: cheap
// enough for 10,000 Ingresses (no string per line).
import type { IngressRef } from '../../../model/types.js';

export type ConfigOrigin =
  /** Lines Portico writes whatever the objects say (ports, Lua hooks, its own servers). */
  | { readonly kind: 'portico' }
  /** Lines the global ConfigMap's settings shape. */
  | { readonly kind: 'settings' }
  | { readonly kind: 'ingress'; readonly ingress: IngressRef };

export const PORTICO_ORIGIN = 0;
export const SETTINGS_ORIGIN = 1;
/** Every table's first two: one object each for all of them (the render cache keeps a table per server). */
const FIRST_ORIGINS: readonly ConfigOrigin[] = [Object.freeze({ kind: 'portico' }), Object.freeze({ kind: 'settings' })];

/** The origins of one render, by the small integer its nodes carry. */
export class OriginTable {
  readonly #origins: ConfigOrigin[] = [...FIRST_ORIGINS];
  readonly #ingressIds = new Map<string, number>();

  /** The id of an Ingress's lines (undefined: a location Portico generates). */
  ingress(ref: IngressRef | undefined): number {
    if (ref === undefined) return PORTICO_ORIGIN;
    const key = `${ref.namespace}/${ref.name}`;
    let id = this.#ingressIds.get(key);
    if (id === undefined) {
      id = this.#origins.length;
      this.#origins.push({ kind: 'ingress', ingress: { namespace: ref.namespace, name: ref.name } });
      this.#ingressIds.set(key, id);
    }
    return id;
  }

  origin(id: number): ConfigOrigin | undefined {
    return this.#origins[id];
  }

  /**
   * The origins by id, as a list of their own: what the render cache keeps of a piece's table (without the
   * lookup by Ingress, a Map of its own per server, which only writing needs).
   */
  list(): readonly ConfigOrigin[] {
    return this.#origins.slice();
  }

  /** The ids in this table of the origins `other` lists (a piece's own table's list()), by their id there. */
  idsOf(other: readonly ConfigOrigin[]): Uint32Array {
    const ids = new Uint32Array(other.length);
    other.forEach((origin, id) => {
      ids[id] = origin.kind === 'ingress' ? this.ingress(origin.ingress) : id;
    });
    return ids;
  }
}

/**
 * An nginx.conf and, for each of its lines, the id of the origin that wrote it. Its UTF-8 bytes, as
 * written to the file: at 10,000 Ingresses a string of it would be 13 MiB more of the controller's
 * heap at every render, and writing it would encode it into another 13 MiB buffer.
 */
export interface TracedConfig {
  readonly bytes: Buffer;
  /** `lineOrigins[n - 1]` is line n's origin id. */
  readonly lineOrigins: Uint32Array;
}

/** What wrote line `line` (1-based, as nginx counts) of `config`; undefined for a line it does not have. */
export function originOfLine(config: TracedConfig, origins: OriginTable, line: number): ConfigOrigin | undefined {
  if (!Number.isInteger(line) || line < 1 || line > config.lineOrigins.length) return undefined;
  return origins.origin(config.lineOrigins[line - 1] ?? PORTICO_ORIGIN);
}
