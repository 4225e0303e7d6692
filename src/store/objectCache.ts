import { objectKey, type KubeObject } from '../kube/objects.js';
import type { ObjectSink } from './objectSink.js';

/** Called for every real change: `before` undefined is an add, `after` undefined a delete. */
export type CacheChangeListener<T> = (key: string, before: T | undefined, after: T | undefined) => void;

/**
 * The objects of one kind by `namespace/name`. A replace (a list or re-list)
 * is diffed against what is held, so a re-list after 410 Gone yields exactly
 * the adds, updates and deletes that were missed, and nothing for the rest.
 */
export class ObjectCache<T extends KubeObject> implements ObjectSink<T> {
  private readonly objects = new Map<string, T>();

  constructor(private readonly onChange: CacheChangeListener<T>) {}

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  values(): IterableIterator<T> {
    return this.objects.values();
  }

  get size(): number {
    return this.objects.size;
  }

  replace(objects: readonly T[]): void {
    const seen = new Set<string>();
    for (const object of objects) {
      seen.add(objectKey(object));
      this.upsert(object);
    }
    for (const [key, object] of this.objects) {
      if (!seen.has(key)) this.remove(object);
    }
  }

  upsert(object: T): void {
    const key = objectKey(object);
    const before = this.objects.get(key);
    if (before !== undefined && sameVersion(before, object)) return;
    this.objects.set(key, object);
    this.onChange(key, before, object);
  }

  remove(object: T): void {
    const key = objectKey(object);
    const before = this.objects.get(key);
    if (before === undefined) return;
    this.objects.delete(key);
    this.onChange(key, before, undefined);
  }
}

/** API objects compare by resourceVersion; manifest objects have none and compare by content. */
function sameVersion(a: KubeObject, b: KubeObject): boolean {
  // The manifest source hands back the same objects for a file it did not read again.
  if (a === b) return true;
  const versionA = a.metadata?.resourceVersion;
  const versionB = b.metadata?.resourceVersion;
  if (versionA !== undefined && versionB !== undefined) return versionA === versionB;
  return JSON.stringify(a) === JSON.stringify(b);
}
