// The annotations of one Ingress → its IngressAnnotations, or the reasons it is
// refused. Every annotation under `<prefix>/` passes, in order: the risk gate
// (and the snippet gate), the value checks every value gets (no control
// characters, no word of annotation-value-word-blocklist), then its own
// validator; once all pass, each group checks how its values combine. Any
// refusal refuses the whole Ingress: the caller keeps serving its last good
// version and emits an Event.
import type { GlobalSettings } from '../settings/globalSettings.js';
import { describeControlCharacter, quoteValue } from '../settings/valueSyntax.js';
import { LINE_BROKEN_SNIPPETS } from './snippetAnnotations.js';
import type { IngressAnnotations, LocationAnnotations } from '../types.js';
import type { AnnotationDefinition, AnnotationValues } from './annotationDefinition.js';
import {
  ANNOTATION_GROUPS,
  BALANCING_ANNOTATION_GROUPS,
  KNOWN_ANNOTATIONS,
  LOCATION_ANNOTATION_GROUPS,
  type KnownAnnotation,
} from './annotationRegistry.js';
import { canaryAnnotations } from './canaryAnnotations.js';
import { isRiskAdmitted } from './riskLevels.js';
import { snippetRefusal, streamSnippetAnnotations } from './snippetAnnotations.js';

export interface AnnotationParseOptions {
  /** `--annotations-prefix`, e.g. `nginx.ingress.kubernetes.io`. */
  prefix: string;
  settings: GlobalSettings;
}

export type AnnotationParseResult = { ok: true; value: IngressAnnotations; warnings: string[] } | { ok: false; errors: string[] };

type Verdict =
  | { kind: 'refused'; reason: string }
  | { kind: 'ignored'; reason: string }
  | { kind: 'accepted'; definition: AnnotationDefinition<unknown>; isAlias: boolean; value: unknown };

interface AcceptedValue {
  key: string;
  isAlias: boolean;
  value: unknown;
}

export function parseIngressAnnotations(
  annotations: Record<string, string> | undefined,
  options: AnnotationParseOptions,
): AnnotationParseResult {
  const keyPrefix = `${options.prefix}/`;
  const errors: string[] = [];
  const warnings: string[] = [];
  const accepted = new Map<AnnotationDefinition<unknown>, AcceptedValue>();
  // Sorted, so messages (and which of two aliases wins) do not depend on map order.
  const keys = Object.keys(annotations ?? {})
    .filter((key) => key.startsWith(keyPrefix))
    .sort();
  for (const key of keys) {
    const verdict = judgeAnnotation(key.slice(keyPrefix.length), annotations?.[key] ?? '', options.settings);
    if (verdict.kind === 'refused') errors.push(`annotation ${key}: ${verdict.reason}`);
    else if (verdict.kind === 'ignored') warnings.push(`annotation ${key}: ${verdict.reason}`);
    else {
      const candidate = { key, isAlias: verdict.isAlias, value: verdict.value };
      const previous = accepted.get(verdict.definition);
      // As ingress-nginx: the canonical name wins over a deprecated alias.
      const keepPrevious = previous !== undefined && (candidate.isAlias || !previous.isAlias);
      const [kept, dropped] = keepPrevious ? [previous, candidate] : [candidate, previous];
      accepted.set(verdict.definition, kept);
      if (dropped) warnings.push(`annotation ${dropped.key}: ignored, because ${kept.key} is also set`);
    }
  }
  if (errors.length > 0) return { ok: false, errors };

  const values: AnnotationValues = {
    // The value was produced by this definition's own parser.
    get: <T>(definition: AnnotationDefinition<T>) => accepted.get(definition)?.value as T | undefined,
  };
  for (const group of ANNOTATION_GROUPS) {
    for (const { annotation, verdict, reason } of group.issues?.(values, options.settings) ?? []) {
      const message = `annotation ${accepted.get(annotation)?.key ?? `${keyPrefix}${annotation.name}`}: ${reason}`;
      (verdict === 'refused' ? errors : warnings).push(message);
    }
  }
  if (errors.length > 0) return { ok: false, errors };

  const { settings } = options;
  const location = LOCATION_ANNOTATION_GROUPS;
  const balancing = BALANCING_ANNOTATION_GROUPS;
  return {
    ok: true,
    value: {
      location: {
        rewrite: location.rewrite.resolve(values, settings),
        backendProtocol: location.backendProtocol.resolve(values, settings),
        proxy: location.proxy.resolve(values, settings),
        ipAccess: location.ipAccess.resolve(values, settings),
        ...optional('configurationSnippet', location.configurationSnippet.resolve(values, settings)),
        ...optional('clientCertificates', location.clientCertificates.resolve(values, settings)),
        ...optional('limits', location.limits.resolve(values, settings)),
        ...optional('modSecurity', location.modSecurity.resolve(values, settings)),
        ...optional('backendTls', location.backendTls.resolve(values, settings)),
        ...optional('externalAuth', location.externalAuth.resolve(values, settings)),
        ...optional('basicAuth', location.basicAuth.resolve(values, settings)),
        ...optional('satisfy', location.satisfy.resolve(values, settings)),
        ...optional('errorPages', location.errorPages.resolve(values, settings)),
        ...optional('customHeaders', location.customHeaders.resolve(values, settings)),
        ...optional('upstreamHeaders', location.upstreamHeaders.resolve(values, settings)),
        ...optional('responseRewrites', location.responseRewrites.resolve(values, settings)),
        ...optional('fastCgi', location.fastCgi.resolve(values, settings)),
        ...optional('serverSnippet', location.serverSnippet.resolve(values, settings)),
        ...optional('http2PushPreload', location.http2PushPreload.resolve(values, settings)),
        ...optional('proxyTuning', location.proxyTuning.resolve(values, settings)),
        ...optional('nextUpstream', location.nextUpstream.resolve(values, settings)),
        ...optional('tlsCiphers', location.tlsCiphers.resolve(values, settings)),
        ...optional('logs', location.logs.resolve(values, settings)),
        ...optional('cors', location.cors.resolve(values, settings)),
        ...optional('redirects', location.redirects.resolve(values, settings)),
        ...optional('serverAlias', location.serverAlias.resolve(values, settings)),
        ...optional('fromToWwwRedirect', location.fromToWwwRedirect.resolve(values, settings)),
        ...optional('mirror', location.mirror.resolve(values, settings)),
        ...optional('sslPassthrough', location.sslPassthrough.resolve(values, settings)),
      },
      balancing: {
        algorithm: balancing.algorithm.resolve(values, settings),
        hashBy: balancing.hashBy.resolve(values, settings),
        affinity: balancing.affinity.resolve(values, settings),
        ...optional('serviceUpstream', balancing.serviceUpstream.resolve(values, settings)),
      },
      canary: canaryAnnotations.resolve(values, settings),
      ...optional('streamSnippet', streamSnippetAnnotations.resolve(values, settings)),
    },
    warnings,
  };
}

function judgeAnnotation(name: string, rawValue: string, settings: GlobalSettings): Verdict {
  const known = KNOWN_ANNOTATIONS.get(name);
  const refusal =
    (known === undefined ? undefined : admissionRefusal(known, settings)) ??
    unsafeValueReason(rawValue, settings, LINE_BROKEN_SNIPPETS.includes(name));
  if (refusal !== undefined) return { kind: 'refused', reason: refusal };
  const value = rawValue.trim();
  // As ingress-nginx, which skips empty values.
  if (value === '') return { kind: 'ignored', reason: 'empty value, treated as unset' };
  switch (known?.kind) {
    case undefined:
      return { kind: 'ignored', reason: 'unknown annotation (ingress-nginx has none by this name), ignored' };
    case 'snippet':
      if (known.definition === undefined) {
        return { kind: 'ignored', reason: 'admitted by the ConfigMap, but this snippet annotation is not implemented yet; ignored' };
      }
      return accept(known.definition, false, value);
    case 'unimplemented':
      if (known.unsafeToIgnore !== undefined) return { kind: 'refused', reason: `not implemented yet, and ${known.unsafeToIgnore}` };
      if (known.missingModule !== undefined) {
        return { kind: 'ignored', reason: `Debian 12's nginx has no ${known.missingModule} module, so Portico cannot apply it; ignored` };
      }
      return { kind: 'ignored', reason: 'not implemented yet, ignored' };
    case 'implemented':
      return accept(known.definition, known.isAlias, value);
  }
}

function accept(definition: AnnotationDefinition<unknown>, isAlias: boolean, value: string): Verdict {
  const parsed = definition.parse(value);
  return parsed.ok
    ? { kind: 'accepted', definition, isAlias, value: parsed.value }
    : { kind: 'refused', reason: `invalid value ${quoteValue(value)}; expected ${parsed.expected}` };
}

/** `{ [key]: value }`, or nothing for an unset value: locations without it compare equal to those that never had it. */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}

/** Refusals that depend only on the name: the snippet switch and the risk level. */
function admissionRefusal(known: KnownAnnotation, settings: GlobalSettings): string | undefined {
  if (known.kind === 'snippet') return snippetRefusal(settings);
  if (isRiskAdmitted(known.risk, settings.annotationsRiskLevel)) return undefined;
  return `risk level ${known.risk} is above the ConfigMap's annotations-risk-level ${settings.annotationsRiskLevel}`;
}

/**
 * Checks every value under the prefix gets, whatever its annotation. `lineBreaks`: an admitted snippet
 * written verbatim, whose lines and tabs are nginx's own (ingress-nginx users write them as YAML blocks).
 */
function unsafeValueReason(value: string, settings: GlobalSettings, lineBreaks: boolean): string | undefined {
  const controlCharacter = describeControlCharacter(lineBreaks ? value.replace(/\r?\n|\t/g, ' ') : value);
  if (controlCharacter !== undefined) return `the value contains ${controlCharacter}`;
  // Case-sensitive substrings, as ingress-nginx (nginx directives are case-sensitive).
  const word = settings.annotationValueWordBlocklist.find((blocked) => blocked !== '' && value.includes(blocked));
  if (word === undefined) return undefined;
  return `the value contains ${quoteValue(word)}, a word of the ConfigMap's annotation-value-word-blocklist`;
}

/** What a location of an Ingress without annotations gets: the ConfigMap's defaults. */
export function defaultLocationAnnotations(settings: GlobalSettings): LocationAnnotations {
  const parsed = parseIngressAnnotations(undefined, { prefix: 'nginx.ingress.kubernetes.io', settings });
  if (!parsed.ok) throw new Error(`the ConfigMap's defaults are not valid annotations: ${parsed.errors.join('; ')}`);
  return parsed.value.location;
}
