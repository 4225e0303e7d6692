// upstream-hash-by and its subset options: consistent hashing of a key
// computed per request (ingress-nginx's "upstreamhashby" group).
import { integerParser, parseBoolean, patternParser } from '../settings/valueSyntax.js';
import type { Balancing } from '../types.js';
import { issuesIfSet, type AnnotationDefinition, type AnnotationGroup } from './annotationDefinition.js';

/** `$name` or `${name}`: any nginx variable (that is what makes the annotation High risk), captures included. */
const VARIABLE = String.raw`\$(?:[A-Za-z0-9_]+|\{[A-Za-z0-9_]+\})`;
/** Literal text between variables: a "$", "{" or "}" outside a reference would make the key ambiguous. */
const LITERAL = '[A-Za-z0-9._:/-]';
const HASH_KEY = new RegExp(`^(?=.{1,256}$)(?:${LITERAL}|${VARIABLE})+$`);

const DEFAULT_SUBSET_SIZE = 3;

export const upstreamHashBy: AnnotationDefinition<string> = {
  name: 'upstream-hash-by',
  risk: 'High',
  parse: patternParser(
    HASH_KEY,
    'an nginx variable expression of at most 256 characters: variables $name or ${name} and literal letters, digits and "-_.:/"',
  ),
};

const upstreamHashBySubset: AnnotationDefinition<boolean> = { name: 'upstream-hash-by-subset', risk: 'Low', parse: parseBoolean };

/** More endpoints per group than any Service has would only hash to all of them; the data plane refuses more than 1000. */
const upstreamHashBySubsetSize: AnnotationDefinition<number> = {
  name: 'upstream-hash-by-subset-size',
  risk: 'Low',
  parse: integerParser(1, 1000),
};

export const upstreamHashByAnnotations: AnnotationGroup<Balancing['hashBy']> = {
  annotations: [upstreamHashBy, upstreamHashBySubset, upstreamHashBySubsetSize],
  issues: (values) => {
    if (values.get(upstreamHashBy) === undefined) {
      const reason = 'ignored: it has no effect without upstream-hash-by';
      return issuesIfSet(values, [upstreamHashBySubset, upstreamHashBySubsetSize], 'ignored', reason);
    }
    if (values.get(upstreamHashBySubset) === true) return [];
    const reason = 'ignored: it has no effect unless upstream-hash-by-subset is "true"';
    return issuesIfSet(values, [upstreamHashBySubsetSize], 'ignored', reason);
  },
  resolve: (values) => {
    const key = values.get(upstreamHashBy);
    if (key === undefined) return undefined;
    return {
      key,
      subset: values.get(upstreamHashBySubset) ?? false,
      subsetSize: values.get(upstreamHashBySubsetSize) ?? DEFAULT_SUBSET_SIZE,
    };
  },
};
