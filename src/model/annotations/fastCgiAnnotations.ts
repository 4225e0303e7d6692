// FastCGI backends (backend-protocol: FCGI), as ingress-nginx's fastcgi group:
// fastcgi-index (the file name nginx appends to a URI ending in `/`) and
// fastcgi-params-configmap (a ConfigMap of fastcgi_param names and values,
// looked up by fastCgiParams.ts). Names and values are checked with
// ingress-nginx's character sets; a value's `$` must start a reference to a
// variable nginx.conf has, else nginx would refuse the reload.
import { parseObjectReference, type ObjectReference } from '../objectReference.js';
import { isKnownLogVariable } from '../settings/logFormatVariables.js';
import { patternParser, quoteValue, type ParsedValue } from '../settings/valueSyntax.js';
import type { LocationAnnotations } from '../types.js';
import { issuesIfSet, type AnnotationDefinition, type AnnotationGroup } from './annotationDefinition.js';
import { backendProtocol } from './backendProtocolAnnotations.js';

/** What a location with backend-protocol FCGI sends beside nginx's standard parameters. */
export interface FastCgi {
  /** `fastcgi-index`: a file name such as `index.php`. */
  index: string | undefined;
  /** `fastcgi-params-configmap`: the ConfigMap of parameters; undefined when not set. */
  paramsFrom: ObjectReference | undefined;
  /** The ConfigMap's entries, sorted by name, looked up by the model (fastCgiParams.ts). */
  params: Array<[string, string]>;
  /** Why the ConfigMap cannot be used (missing, another namespace, a bad entry): the location answers 503. */
  denied: string | undefined;
}

/** ingress-nginx's regexValidIndexAnnotationAndKey: a file name, and a parameter name. */
const NAME = /^[A-Za-z0-9._-]{1,256}$/;

export const parseFastCgiIndex = patternParser(NAME, 'a file name of letters, digits, ".", "-" and "_"');

export const parseFastCgiParamName = patternParser(NAME, 'a parameter name of letters, digits, ".", "-" and "_"');

/** ingress-nginx's validFCGIValue, with every `$` starting `$name` or `${name}`. */
const VALUE = /^(?:[A-Za-z0-9_./-]|\$[A-Za-z0-9_]+|\$\{[A-Za-z0-9_]+\})*$/;
/** nginx reads a configuration token into a 4 KB buffer. */
const MAX_VALUE_LENGTH = 2048;

/** A fastcgi_param value: letters, digits, `-_./` and references to variables nginx.conf has. */
export function parseFastCgiParamValue(text: string): ParsedValue<string> {
  if (text.length > MAX_VALUE_LENGTH || !VALUE.test(text)) {
    return {
      ok: false,
      expected: `letters, digits, "-", "_", ".", "/" and nginx variables ($name or \${name}), at most ${MAX_VALUE_LENGTH} characters`,
    };
  }
  for (const [, bare, braced] of text.matchAll(/\$(?:([A-Za-z0-9_]+)|\{([A-Za-z0-9_]+)\})/g)) {
    const name = bare ?? braced ?? '';
    if (!isKnownLogVariable(name)) return { ok: false, expected: `only variables nginx.conf has; ${quoteValue(`$${name}`)} is not one` };
  }
  return { ok: true, value: text };
}

const fastCgiIndex: AnnotationDefinition<string> = { name: 'fastcgi-index', risk: 'Medium', parse: parseFastCgiIndex };
const fastCgiParamsConfigMap: AnnotationDefinition<ObjectReference> = {
  name: 'fastcgi-params-configmap',
  risk: 'Medium',
  parse: parseObjectReference,
};
const FASTCGI = [fastCgiIndex, fastCgiParamsConfigMap];

export const fastCgiAnnotations: AnnotationGroup<LocationAnnotations['fastCgi']> = {
  annotations: FASTCGI,
  // nginx reads fastcgi_* directives only where it passes to a FastCGI server.
  issues: (values) =>
    values.get(backendProtocol) === 'FCGI'
      ? []
      : issuesIfSet(values, FASTCGI, 'ignored', 'no effect without backend-protocol: FCGI; ignored'),
  resolve: (values) => {
    if (values.get(backendProtocol) !== 'FCGI') return undefined;
    const paramsFrom = values.get(fastCgiParamsConfigMap);
    return {
      index: values.get(fastCgiIndex),
      paramsFrom: paramsFrom && { namespace: paramsFrom.namespace, name: paramsFrom.name },
      params: [],
      denied: undefined,
    };
  },
};
