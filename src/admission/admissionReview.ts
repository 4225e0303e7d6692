// The AdmissionReview v1 wire format, parsed strictly: everything in a review
// is untrusted (anyone who can reach the port can send one, as the
// IngressNightmare chain did), so the shape, the types and the lengths of
// every field Portico reads are checked before anything looks at them.
import { z } from 'zod';
import type { Ingress } from '../kube/objects.js';

const API_VERSION = 'admission.k8s.io/v1';
const KIND = 'AdmissionReview';

/** Kubernetes UIDs are UUIDs; allow any short token of UUID characters, never anything that could be markup or a path. */
const UID = /^[A-Za-z0-9-]{1,64}$/;
/** DNS-1123 subdomain (object names) and label (namespaces). */
const SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** Annotation keys: an optional DNS prefix and a qualified name (validation.IsQualifiedName). */
const ANNOTATION_KEY =
  /^(?:(?=[^/]{1,253}\/)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

// Lengths far above what the API server admits, only to bound the work on forged reviews.
const text = (max: number) => z.string().max(max);
const list = <T extends z.ZodType>(item: T, max: number) => z.array(item).max(max);

const serviceBackend = z.object({
  name: text(253),
  port: z.object({ number: z.number().int().min(0).max(65535).optional(), name: text(63).optional() }).optional(),
});
const backend = z.object({ service: serviceBackend.optional(), resource: z.looseObject({}).optional() });

/** The parts of an Ingress the model reads, typed; other fields pass through unread. */
const ingressSchema = z.looseObject({
  apiVersion: z.literal('networking.k8s.io/v1').optional(),
  kind: z.literal('Ingress').optional(),
  metadata: z.looseObject({
    name: text(253).optional(),
    generateName: text(253).optional(),
    namespace: text(63).optional(),
    uid: text(64).optional(),
    creationTimestamp: text(64).optional(),
    annotations: z.record(z.string().regex(ANNOTATION_KEY), z.string().max(262_144)).optional(),
    labels: z.record(text(317), text(63)).optional(),
  }),
  spec: z
    .looseObject({
      ingressClassName: text(253).optional(),
      defaultBackend: backend.optional(),
      rules: list(
        z.looseObject({
          host: text(253).optional(),
          http: z
            .object({
              paths: list(
                z.object({ path: text(4096).optional(), pathType: z.enum(['Exact', 'Prefix', 'ImplementationSpecific']), backend }),
                10_000,
              ),
            })
            .optional(),
        }),
        10_000,
      ).optional(),
      tls: list(z.looseObject({ hosts: list(text(253), 10_000).optional(), secretName: text(253).optional() }), 10_000).optional(),
    })
    .optional(),
});

const groupVersionKind = z.object({ group: text(253), version: text(63), kind: text(63) });

const reviewSchema = z.looseObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal(KIND),
  request: z.looseObject({
    uid: z.string().regex(UID, 'must be a UID'),
    kind: groupVersionKind,
    operation: z.enum(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']),
    name: text(253).optional(),
    namespace: text(63).optional(),
    dryRun: z.boolean().optional(),
    // Validated as an Ingress only once the kind says it is one.
    object: z.unknown().optional(),
  }),
});

export type AdmissionRequest =
  | { kind: 'ingress'; uid: string; operation: 'CREATE' | 'UPDATE'; ingress: Ingress; dryRun: boolean }
  /** Something Portico does not check (DELETE, CONNECT): allowed. */
  | { kind: 'unchecked'; uid: string; reason: string }
  /** A valid review whose object Portico refuses to look at further. */
  | { kind: 'malformed'; uid: string; reason: string };

export type ParsedReview = { ok: true; request: AdmissionRequest } | { ok: false; error: string };

/** A decoded JSON body → the request, or why the review itself is unacceptable (an HTTP 400). */
export function parseAdmissionReview(body: unknown): ParsedReview {
  const review = reviewSchema.safeParse(body);
  if (!review.success) return { ok: false, error: `not an ${API_VERSION} ${KIND}: ${describeIssues(review.error)}` };
  const { uid, kind, operation, dryRun, object } = review.data.request;
  if (operation === 'DELETE' || operation === 'CONNECT')
    return { ok: true, request: { kind: 'unchecked', uid, reason: `operation ${operation}` } };
  if (kind.group !== 'networking.k8s.io' || kind.version !== 'v1' || kind.kind !== 'Ingress') {
    return { ok: true, request: { kind: 'malformed', uid, reason: 'this webhook reviews only networking.k8s.io/v1 Ingresses' } };
  }
  const ingress = ingressSchema.safeParse(object);
  if (!ingress.success)
    return { ok: true, request: { kind: 'malformed', uid, reason: `invalid Ingress: ${describeIssues(ingress.error)}` } };
  const metadata = ingress.data.metadata;
  const name = metadata.name ?? review.data.request.name;
  const namespace = metadata.namespace ?? review.data.request.namespace;
  // The API server validated both before calling; a forged review may hold anything.
  if (name === undefined || !SUBDOMAIN.test(name))
    return { ok: true, request: { kind: 'malformed', uid, reason: 'metadata.name is not a valid object name' } };
  if (namespace === undefined || !LABEL.test(namespace)) {
    return { ok: true, request: { kind: 'malformed', uid, reason: 'metadata.namespace is not a valid namespace name' } };
  }
  if (review.data.request.namespace !== undefined && review.data.request.namespace !== namespace) {
    return { ok: true, request: { kind: 'malformed', uid, reason: 'request.namespace and metadata.namespace differ' } };
  }
  // The schema checked every field the model reads; the rest passes through untouched.
  const typed = { ...ingress.data, metadata: { ...metadata, name, namespace } } as Ingress;
  return { ok: true, request: { kind: 'ingress', uid, operation, ingress: typed, dryRun: dryRun ?? false } };
}

/** The first few problems, each as `path: message`; never the offending values (they may be huge or hostile). */
function describeIssues(error: z.ZodError): string {
  const shown = error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.').slice(0, 200) || '(root)'}: ${issue.message.slice(0, 200)}`);
  const more = error.issues.length > shown.length ? ` (and ${error.issues.length - shown.length} more)` : '';
  return `${shown.join('; ')}${more}`;
}

export interface AdmissionVerdict {
  allowed: boolean;
  /** Why it is denied (required when not allowed). */
  message?: string;
  warnings: readonly string[];
}

/** The AdmissionReview answer; `uid` must be the parsed (validated) request's. */
export function admissionResponse(uid: string, verdict: AdmissionVerdict): object {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    response: {
      uid,
      allowed: verdict.allowed,
      ...(verdict.allowed ? {} : { status: { code: 400, reason: 'BadRequest', message: verdict.message ?? 'denied' } }),
      ...(verdict.warnings.length > 0 ? { warnings: verdict.warnings.slice(0, MAX_WARNINGS).map(truncateWarning) } : {}),
    },
  };
}

// The API server drops warnings beyond 4 KiB in total (and truncates long ones); stay well within.
const MAX_WARNINGS = 20;
function truncateWarning(warning: string): string {
  return warning.length > 200 ? `${warning.slice(0, 197)}...` : warning;
}
