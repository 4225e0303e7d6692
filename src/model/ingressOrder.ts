import type { Ingress } from '../kube/objects.js';

/**
 * ingress-nginx's precedence: oldest Ingress first (it wins host+path
 * conflicts and supplies TLS certificates); on equal creation times,
 * `namespace/name` in descending order. Manifest objects have no creation
 * time and sort by name alone.
 */
export function compareIngressAge(a: Ingress, b: Ingress): number {
  const timeA = a.metadata?.creationTimestamp ?? '';
  const timeB = b.metadata?.creationTimestamp ?? '';
  if (timeA !== timeB) return timeA < timeB ? -1 : 1;
  const keyA = `${a.metadata?.namespace ?? ''}/${a.metadata?.name ?? ''}`;
  const keyB = `${b.metadata?.namespace ?? ''}/${b.metadata?.name ?? ''}`;
  return keyA === keyB ? 0 : keyA < keyB ? 1 : -1;
}
