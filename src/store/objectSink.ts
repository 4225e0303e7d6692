import type { KubeObject } from '../kube/objects.js';

/**
 * Where a source delivers the objects of one kind. Both sources (the
 * Kubernetes reflectors and the manifest folder) write through this, so the
 * store cannot tell them apart.
 */
export interface ObjectSink<T extends KubeObject> {
  /** The complete current set (after a list or a re-list): anything absent is deleted. */
  replace(objects: readonly T[]): void;
  /** One object was added or modified. */
  upsert(object: T): void;
  /** One object was deleted. */
  remove(object: T): void;
}
